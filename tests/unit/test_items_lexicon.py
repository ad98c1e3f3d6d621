"""The lexicon: what ships, how it is validated, and how a linguist extends it."""
from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path

import pytest

from pfcore.errors import InputError
from pfcore.items import CONSTRUCTIONS, generate_semantic, load_lexicon
from pfcore.items.lexicon import DEFAULT_LEXICON

# The worked example of docs/items.md: a scale from Cocos et al.'s half-scales and two frames for it.
NEW_SCALE = """\
  cheap-expensive:
    source: de Melo & Bansal 2013 and Cocos et al. 2018 (acocos/scalar-adj, globalorder/data)
    gold: [cheap, inexpensive, affordable, costly, expensive, exorbitant]
    ends:
      cheap: [cheap, inexpensive]
      expensive: [expensive, costly]
"""
NEW_FRAMES = """\
  - {verb: afford, gerund: affording, noun: car, scale: cheap-expensive, harder: expensive}
  - {verb: rent, gerund: renting, noun: apartment, scale: cheap-expensive, harder: expensive}
"""


def shipped_text() -> str:
    """The shipped lexicon's YAML."""
    return DEFAULT_LEXICON.read_text(encoding="utf-8")


def write_variant(tmp_path: Path, text: str) -> Path:
    """A lexicon file with the given text."""
    path = tmp_path / "lexicon.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, fragment: str) -> int:
    """The 1-based line on which a fragment first appears."""
    return text[: text.index(fragment)].count("\n") + 1


def test_shipped_lexicon_matches_the_constructions_and_paper_inventory() -> None:
    lexicon = load_lexicon()
    assert dict(lexicon.constructions) == CONSTRUCTIONS
    assert (lexicon.semantic_control, lexicon.syntax_control) == ("or", "and")
    assert [p.word for p in lexicon.pronouns] == ["You", "We", "They"]
    assert [m.negative for m in lexicon.modals] == ["couldn't", "can't", "weren't able to"]
    assert sorted(lexicon.scales) == ["beautiful-ugly", "bright-dim", "good-bad", "small-large"]
    assert len(lexicon.frames) == 18
    assert lexicon.version and len(lexicon.sha256) == 64


def test_scale_gold_orders_are_wilkinson_and_tims(shared_data: Path) -> None:
    """Each scale's gold list is the published ordering (words sorted by tau) of its letter."""
    gold: dict[str, list[tuple[float, str]]] = defaultdict(list)
    source = shared_data / "scales" / "wilkinson_tim_2016" / "ordering" / "ordering_gold_standard.csv"
    with source.open(encoding="utf-8") as handle:
        for word, letter, tau in csv.reader(handle):
            gold[letter].append((float(tau), word))
    for scale in load_lexicon().scales.values():
        letter = re.search(r"ordering scale (\w)$", scale.source)[1]
        assert list(scale.gold) == [w for _, w in sorted(gold[letter])], scale.name


@pytest.mark.parametrize("old, new, anchor, problem", [
    ("scale: bright-dim, harder: dim}", "scale: brite-dim, harder: dim}", "brite-dim",
     "unknown scale 'brite-dim'"),
    ("gerund: baking, ", "", "{verb: bake", "missing gerund"),
    ("ugly: [ugly, hideous]", "ugly: [ugly, hideous, georgeous]", "ugly: [ugly, hideous, georgeous]",
     "adjective 'georgeous' is not on its scale beautiful-ugly"),
    ("gerund: picking up", "gerund: picking", "gerund: picking,", "does not fit verb 'pick up'"),
    ("scale: good-bad, harder: good}\n  - {verb: write", "scale: good-bad, harder: best}\n  - {verb: write",
     "harder: best", "harder must be one end of good-bad"),
    ("ordering scale i\n", "ordering scale i\n    source: twice\n", "source: twice",
     "duplicate key"),
    ("not_to_mention: [not, mention]", "not_to_mention: [not, mind]", "[not, mind]",
     "words must be among 'not to mention'"),
    ("  much_less: much less\n", "  much_less: much more\n", "much_less: much more",
     "name must be the words joined by '_'"),
    ("    - lift rock (small-large)\n", "    - lift stone (small-large)\n", "lift stone",
     "'lift stone (small-large)' is not among the lexicon's frames"),
])
def test_corrupt_lexicon_names_file_line_and_problem(tmp_path: Path, old: str, new: str,
                                                     anchor: str, problem: str) -> None:
    text = shipped_text()
    assert old in text
    edited = text.replace(old, new, 1)
    path = write_variant(tmp_path, edited)
    with pytest.raises(InputError) as caught:
        load_lexicon(path)
    message = str(caught.value)
    assert problem in message
    assert f"{path}:{line_of(edited, anchor)}:" in message


def test_a_frame_can_narrow_its_scale(tmp_path: Path) -> None:
    cook = "{verb: cook, gerund: cooking, noun: meal, scale: good-bad, harder: good}"
    narrowed = cook.replace("}", ", adjectives: {bad: [bad, awful]}}")
    lexicon = load_lexicon(write_variant(tmp_path, shipped_text().replace(cook, narrowed)))
    items = [i for i in generate_semantic(lexicon, "never_mind") if i.verb == "cook"]
    assert {i.weak_adj for i in items} == {"bad", "awful"}
    assert len(items) == 2 * 4 * 3 * 3 * 8
    wrong = cook.replace("}", ", adjectives: {bad: [good]}}")
    with pytest.raises(InputError, match="adjective 'good' is not on the 'bad' end of scale good-bad"):
        load_lexicon(write_variant(tmp_path, shipped_text().replace(cook, wrong)))


def test_yaml_syntax_error_names_its_line(tmp_path: Path) -> None:
    text = shipped_text().replace("  - {subject: we, gap_partner: them}",
                                  "  - {subject: we, gap_partner: [them}")
    path = write_variant(tmp_path, text)
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:\d+: YAML syntax error"):
        load_lexicon(path)


def test_missing_lexicon_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read the lexicon"):
        load_lexicon(tmp_path / "nope.yaml")


def test_a_new_scale_and_frames_are_added_by_editing_data(tmp_path: Path) -> None:
    """The docs' worked example: cheap-expensive, with a/an agreement and -ing forms from data."""
    text = shipped_text()
    text = text.replace("scales:\n", "scales:\n" + NEW_SCALE, 1)
    text = text.replace("frames:\n", "frames:\n" + NEW_FRAMES, 1)
    lexicon = load_lexicon(write_variant(tmp_path, text))
    items = [i for i in generate_semantic(lexicon, "let_alone") if i.scale == "cheap-expensive"]
    assert len(items) == 2 * 2 * 2 * 3 * 3 * 8  # frames x weak x strong x modals x pronouns x 8
    sentences = {i.sentence for i in items}
    assert ("You couldn't afford an inexpensive car, let alone an expensive one. Affording an "
            "inexpensive car is <MASK> than affording an expensive car.") in sentences
    assert ("They weren't able to rent a costly apartment, or a cheap one. Renting a cheap "
            "apartment is <MASK> than renting a costly apartment.") in sentences
    # The published set stays pinned by the lexicon's paper_compatible inventory.
    assert generate_semantic(lexicon, "let_alone", paper_compatible=True) == generate_semantic(
        load_lexicon(), "let_alone", paper_compatible=True)


def test_a_lexicon_without_a_published_set(tmp_path: Path) -> None:
    text = shipped_text()
    lexicon = load_lexicon(write_variant(tmp_path, text[: text.index("\n# The published items")]))
    assert len(generate_semantic(lexicon, "much_less")) == 13_320
    with pytest.raises(InputError, match="no paper_compatible section"):
        generate_semantic(lexicon, "much_less", paper_compatible=True)
