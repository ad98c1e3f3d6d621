"""The semantic generator: the published files row for row, and the corrected default set."""
from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from pfcore.items import CONSTRUCTIONS, SemanticItem, generate_semantic, read_items, write_items
from pfcore.items.bases import known_words, sentence_words
from pfcore.items.lexicon import Lexicon

PUBLISHED = Path("meaning_alone") / "data"


@pytest.fixture(scope="module")
def default_set(lexicon: Lexicon) -> list[SemanticItem]:
    """The corrected set for all four constructions."""
    return generate_semantic(lexicon)


@pytest.mark.parametrize("construction", sorted(CONSTRUCTIONS))
def test_paper_compatible_reproduces_the_published_tsv(shared_data: Path, tmp_path: Path,
                                                       lexicon: Lexicon, construction: str) -> None:
    out = tmp_path / f"{construction}.tsv"
    write_items(generate_semantic(lexicon, construction, paper_compatible=True), out, "paper-tsv")
    published = (shared_data / PUBLISHED / f"{construction}.tsv").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == published.replace("\r\n", "\n")


def test_reading_a_published_tsv_gives_the_paper_compatible_items(shared_data: Path,
                                                                  lexicon: Lexicon) -> None:
    items = read_items(shared_data / PUBLISHED / "never_mind.tsv", lexicon)
    assert items == generate_semantic(lexicon, "never_mind", paper_compatible=True)


def test_counts_and_blocks(lexicon: Lexicon, default_set: list[SemanticItem]) -> None:
    paper = generate_semantic(lexicon, "let_alone", paper_compatible=True)
    assert len(paper) == 14_184
    assert Counter(i.construction for i in default_set) == {c: 13_320 for c in CONSTRUCTIONS}
    blocks: dict[str, list[SemanticItem]] = defaultdict(list)
    for item in default_set:
        blocks[item.block_id].append(item)
    assert len(blocks) == 4 * 1_665
    for rows in blocks.values():
        cells = {(i.is_construction, i.context_order, i.followup_order) for i in rows}
        assert len(rows) == len(cells) == 8
        assert len({(i.frame, i.pronoun, i.modal, i.weak_adj, i.strong_adj) for i in rows}) == 1


def test_default_set_has_unique_ids_and_no_repeats(default_set: list[SemanticItem]) -> None:
    assert len({i.item_id for i in default_set}) == len(default_set)
    assert {i.repeat for i in default_set} == {0}


def test_every_generated_word_is_spelled_by_the_lexicon(lexicon: Lexicon,
                                                        default_set: list[SemanticItem]) -> None:
    known = known_words(lexicon)
    words = {w for i in default_set for text in (i.context, i.followup) for w in sentence_words(text)}
    assert {w for w in words if w.lower() not in known} == set()
    assert "georgeous" not in words and "gorgeous" in words


def test_every_adjective_is_on_the_wilkinson_tim_scales(shared_data: Path,
                                                        default_set: list[SemanticItem]) -> None:
    source = shared_data / "scales" / "wilkinson_tim_2016" / "ordering" / "ordering_gold_standard.csv"
    with source.open(encoding="utf-8") as handle:
        gold = {row[0] for row in csv.reader(handle)}
    assert {a for i in default_set for a in (i.weak_adj, i.strong_adj)} <= gold


def test_articles_one_anaphora_and_gerunds(default_set: list[SemanticItem]) -> None:
    for item in default_set[::97]:
        for article, word in re.findall(r"\b(an?) (\w+)", item.sentence):
            assert (article == "an") == (word[0] in "aeiou"), item.sentence
        assert item.context.endswith(" one.")
        assert item.followup.count("<MASK>") == 1
    pick_up = next(i for i in default_set if i.verb == "pick up")
    assert pick_up.followup.startswith("Picking up a ") and " than picking up a" in pick_up.followup


def test_orders_follow_the_published_columns(default_set: list[SemanticItem]) -> None:
    """aligned = easier task first in the context; same = easier task first in the follow-up."""
    for item in default_set[::101]:
        context_first = re.search(rf"an? (\w+) {item.noun},", item.context)[1]
        followup_first = re.search(r"^\w+(?: up)? an? (\w+)", item.followup)[1]
        assert (context_first == item.weak_adj) == (item.context_order == "aligned")
        assert (followup_first == item.weak_adj) == (item.followup_order == "same")
        assert item.is_construction == (item.connective == CONSTRUCTIONS[item.construction])
        assert item.sentence == f"{item.context} {item.followup}"


def test_ids_follow_content(lexicon: Lexicon, default_set: list[SemanticItem]) -> None:
    again = generate_semantic(lexicon, "much_less")
    assert [i.item_id for i in again] == [i.item_id for i in default_set
                                          if i.construction == "much_less"]
    paper = generate_semantic(lexicon, "much_less", paper_compatible=True)
    copies = Counter((i.context, i.followup) for i in paper)
    assert max(copies.values()) == 2  # the published repeated blocks...
    assert len({i.item_id for i in paper}) == len(paper)  # ...still get distinct ids (repeat 1)
