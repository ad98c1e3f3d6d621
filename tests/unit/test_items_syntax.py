"""The syntactic and Global Affinity generators."""
from __future__ import annotations

import csv
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from pfcore.items import CONSTRUCTIONS, MANIPULATIONS, SyntaxItem, generate_affinity, generate_syntax
from pfcore.items.bases import Base
from pfcore.items.formats import TO_PAPER_MANIPULATION
from pfcore.items.generate import manipulations
from pfcore.items.lexicon import Lexicon

ARCHIVE = Path("meaning_alone") / "data" / "archive" / "syntactic_test_fix.tsv"


@pytest.fixture(scope="module")
def default_set(lexicon: Lexicon) -> list[SyntaxItem]:
    """The corrected syntactic set."""
    return generate_syntax(lexicon)


def test_paper_table_3_and_appendix_c_manipulations(lexicon: Lexicon) -> None:
    """The paper's Table 3 examples (with "You" for "I"), and the two VP controls."""
    frame = next(f for f in lexicon.frames if f.verb == "lift")
    base = Base(frame, lexicon.pronouns[0], lexicon.modals[0], "tiny", "huge", 0)
    assert manipulations(base, "let alone") == {
        "base": "You couldn't lift a tiny rock, let alone a huge one.",
        "NPI": "You could lift a tiny rock, let alone a huge one.",
        "Pseudocleft": "A tiny rock, let alone a huge one, you couldn't lift.",
        "CP Conjunction": "You couldn't lift a tiny rock, let alone you couldn't lift a huge one.",
        "VP Conjunction": "You couldn't lift a tiny rock, let alone lift a huge one.",
        "VP Gap Conjunction": "You couldn't lift a tiny rock, let alone me a huge one.",
    }
    assert manipulations(base, "and")["Pseudocleft"] == "A tiny rock, and a huge one, you couldn't lift."


def test_paper_compatible_rows_equal_the_archived_rows(shared_data: Path, lexicon: Lexicon) -> None:
    """Each archived row is the row at its old_index in the authors' full set, which
    paper-compatible mode rebuilds in the same order."""
    paper = generate_syntax(lexicon, paper_compatible=True)
    assert len(paper) == 1_773 * 5 * 6
    with (shared_data / ARCHIVE).open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert len(rows) == 11_820
    for row in rows:
        item = paper[int(row["old_index"])]
        assert (item.connective, item.sentence, TO_PAPER_MANIPULATION[item.manipulation],
                item.verb, item.noun, item.pronoun, item.modal) == (
            row["Cxn"], row["Sentence"], row["manipulation"], row["Plain Verb"], row["Noun"],
            row["Pronoun"], row["Modal"])


def test_every_base_has_every_manipulation_for_every_connective(default_set: list[SyntaxItem]) -> None:
    bases: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for item in default_set:
        bases[item.base_id].add((item.construction, item.manipulation))
    assert len(bases) == 1_665
    full = {(c, m) for c in [*CONSTRUCTIONS, "and"] for m in MANIPULATIONS}
    assert all(cells == full for cells in bases.values())
    assert len(default_set) == 1_665 * 5 * 6 == len({i.item_id for i in default_set})


def test_npi_removes_the_negation_for_every_modal(default_set: list[SyntaxItem]) -> None:
    npi = [i for i in default_set if i.manipulation == "NPI"]
    assert Counter(i.modal for i in npi) == {"couldn't": 2_775, "can't": 2_775,
                                             "weren't able to": 2_775}
    assert not any("n't" in i.sentence for i in npi)
    vp = [i for i in default_set if i.manipulation == "VP Conjunction"]
    assert all(i.sentence.count(i.modal) == 1 for i in vp)


def test_affinity_spans_point_at_the_fixed_words(lexicon: Lexicon) -> None:
    items = generate_affinity(lexicon)
    assert Counter(i.construction for i in items) == {c: 3_330 for c in CONSTRUCTIONS}
    for item in items:
        assert item.words == tuple(CONSTRUCTIONS[item.construction].split())
        assert [item.sentence[a:b] for a, b in item.spans] == list(item.words)
    paper = generate_affinity(lexicon, "not_to_mention", paper_compatible=True)
    assert {i.words for i in paper} == {("not", "mention")}
    assert all([i.sentence[a:b] for a, b in i.spans] == ["not", "mention"] for i in paper)
