"""lm-zoo surprisal files read and aligned to a suite's regions: each feature of real model outputs
(GPT-2's byte-level Ġ, WordPiece ##, SentencePiece ▁, <unk> for one or more words, lower case, split
punctuation, </s> and <eos>, a first token of 0 bits) on small hand-written files whose region values
are worked out by hand below; ambiguous and impossible alignments refused, naming sentence and region."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pfcore.errors import InputError
from pfcore.items.syntaxgym import read_suite
from pfcore.scoring.lmzoo import AlignmentError, align_tokens, read_surprisals
from pfcore.suites.syntaxgym import FileEvaluation, evaluate_surprisals

Row = tuple[str, float]  # (token, surprisal in bits)


def gym_suite(folder: Path, sentences: Sequence[Sequence[str]], metric: str = "sum",
              formulas: Sequence[str] = ()) -> Path:
    """A suite of one item whose conditions a, b, ... have the given regions (numbered from 1)."""
    conditions = [{"condition_name": "abcdefgh"[k], "regions": [{"region_number": n, "content": c}
                                                               for n, c in enumerate(regions, start=1)]}
                  for k, regions in enumerate(sentences)]
    size = max(len(regions) for regions in sentences)
    data: dict[str, Any] = {"meta": {"name": "hand", "metric": metric},
                            "region_meta": {str(n): f"r{n}" for n in range(1, size + 1)},
                            "predictions": [{"type": "formula", "formula": f} for f in formulas],
                            "items": [{"item_number": 1, "conditions": conditions}]}
    path = folder / "suite.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def lmzoo_file(folder: Path, sentences: Sequence[Sequence[Row]], name: str = "surprisals.tsv") -> Path:
    """An lm-zoo surprisal file of the given token rows."""
    lines = ["sentence_id\ttoken_id\ttoken\tsurprisal"]
    lines += [f"{s}\t{t}\t{token}\t{bits:f}" for s, rows in enumerate(sentences, start=1)
              for t, (token, bits) in enumerate(rows, start=1)]
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def evaluate(folder: Path, regions: Sequence[Sequence[str]], rows: Sequence[Sequence[Row]],
             metric: str = "sum", formulas: Sequence[str] = ()) -> FileEvaluation:
    """The suite of `regions` evaluated from the file of `rows`."""
    suite = read_suite(gym_suite(folder, regions, metric, formulas))
    return evaluate_surprisals(suite, read_surprisals(lmzoo_file(folder, rows)))


def values(evaluation: FileEvaluation, column: str = "surprisal_bits", condition: str = "a") -> list[float]:
    """One condition's region values, in region order."""
    rows = evaluation.rows[evaluation.rows["condition_name"] == condition]
    return rows[column].tolist()


REGIONS = ["The dog", "barks", "loudly."]


def test_gpt2_byte_level_tokens(tmp_path: Path) -> None:
    """Ġ marks a space; 'Ã©' is é in GPT-2's byte alphabet, and ’ (3 bytes) is split over two tokens
    ('âĢ' and 'Ļs'), which together spell "’s" and stay with "dog"."""
    rows = [("The", 0.0), ("Ġdog", 2.0), ("âĢ", 1.5), ("Ļs", 0.5), ("Ġcaf", 3.0), ("Ã©", 1.0), ("Ġbar", 4.0),
            ("ks", 1.0), ("Ġloud", 2.0), ("ly", 0.25), (".", 0.75)]
    result = evaluate(tmp_path, [["The dog’s", "café barks"], ], [rows[:4] + rows[4:8]])
    assert values(result) == pytest.approx([0 + 2 + 1.5 + 0.5, 3 + 1 + 4 + 1])
    full = evaluate(tmp_path, [REGIONS], [[rows[0], rows[1], *rows[6:]]])
    assert values(full) == pytest.approx([2.0, 5.0, 3.0])  # 0 + 2; 4 + 1; 2 + 0.25 + 0.75


def test_wordpiece_lower_cased_with_cls_and_sep(tmp_path: Path) -> None:
    """An uncased WordPiece model: lower case, '##' pieces, punctuation split off, [CLS] with the first
    region and [SEP] with the last (where syntaxgym-core puts a sentence's markers)."""
    rows = [("[CLS]", 0.0), ("the", 1.0), ("dog", 2.0), ("bar", 3.0), ("##ks", 1.0), ("loud", 2.0), ("##ly", 1.0),
            (".", 0.5), ("[SEP]", 0.25)]
    result = evaluate(tmp_path, [REGIONS], [rows])
    assert values(result) == pytest.approx([0 + 1 + 2, 3 + 1, 2 + 1 + 0.5 + 0.25])
    assert values(result, "n_tokens") == [3, 2, 4]


def test_sentencepiece_pieces_and_end_marker(tmp_path: Path) -> None:
    """SentencePiece: '▁' starts a word, a lone '▁' stands for a space (it goes with the piece after
    it), '</s>' ends the sentence in the last region; the mean counts every token."""
    rows = [("▁The", 0.0), ("▁dog", 4.0), ("▁bar", 3.0), ("ks", 1.0), ("▁", 0.5), ("loud", 1.5), ("ly", 1.0),
            (".", 0.5), ("</s>", 1.0)]
    result = evaluate(tmp_path, [REGIONS], [rows], metric="mean")
    assert values(result) == pytest.approx([(0 + 4) / 2, (3 + 1) / 2, (0.5 + 1.5 + 1 + 0.5 + 1) / 5])


def test_word_level_unk_for_one_word_and_for_several(tmp_path: Path) -> None:
    """A word-level RNN: '<unk>' stands for "dog", then for "xyzzy qwerty" across two regions (its
    value goes to the region where it starts, as syntaxgym-core puts it); '<eos>' at the end."""
    one = [("The", 0.0), ("<unk>", 9.0), ("barks", 3.0), ("loudly", 2.0), (".", 1.0), ("<eos>", 0.0)]
    result = evaluate(tmp_path, [REGIONS], [one])
    assert values(result) == pytest.approx([9.0, 3.0, 3.0])
    assert values(result, "n_tokens") == [2, 1, 3]
    several = [("The", 0.0), ("<unk>", 9.0), ("barks", 3.0), ("<eos>", 0.5)]
    result = evaluate(tmp_path, [["The xyzzy", "qwerty barks"]], [several])
    assert values(result) == pytest.approx([9.0, 3.5])


def test_unk_inside_split_punctuation(tmp_path: Path) -> None:
    """An unknown word before punctuation a word-level tokenizer splits off ("Zork's" as <unk> 's)."""
    rows = [("<unk>", 5.0), ("'s", 1.0), ("dog", 2.0), ("barks", 3.0), ("loudly", 2.0), (".", 1.0)]
    result = evaluate(tmp_path, [["Zork's dog", "barks", "loudly."]], [rows])
    assert values(result) == pytest.approx([8.0, 3.0, 3.0])


def test_dropped_punctuation_escapes_and_typographic_quotes(tmp_path: Path) -> None:
    """A model that drops punctuation ("." has no token), PTB's -LRB- -RRB- and a Moses &apos;, and
    a plain ' for the text's ’."""
    rows = [("the", 0.0), ("dog", 1.0), ("&apos;s", 2.0), ("-LRB-", 1.0), ("old", 1.0), ("-RRB-", 1.0),
            ("bark", 4.0)]
    result = evaluate(tmp_path, [["The dog’s (old)", "bark."]], [rows])
    assert values(result) == pytest.approx([6.0, 4.0])


def test_moses_dash_splits_and_number_marks(tmp_path: Path) -> None:
    """Transformer-XL's Moses tokens: "well-known" as well @-@ known, "3.5" as 3 @.@ 5."""
    rows = [("A", 0.0), ("well", 1.0), ("@-@", 2.0), ("known", 3.0), ("dog", 1.0), ("weighs", 1.0), ("3", 4.0),
            ("@.@", 1.0), ("5", 2.0), ("kg.", 1.0)]
    result = evaluate(tmp_path, [["A well-known dog", "weighs", "3.5 kg."]], [rows])
    assert values(result) == pytest.approx([7.0, 1.0, 8.0])


def test_first_token_of_zero_counts_and_several_metrics(tmp_path: Path) -> None:
    """The first token's 0 bits count in its region's metrics, as in syntaxgym-core; "all" gives all six."""
    rows = [("The", 0.0), ("dog", 6.0), ("barks", 3.0), ("loudly.", 2.0)]
    result = evaluate(tmp_path, [REGIONS], [rows], metric="all")
    first = result.rows.iloc[0]
    assert (first["sum"], first["mean"], first["median"], first["range"], first["max"], first["min"]) == \
        pytest.approx((6.0, 3.0, 3.0, 6.0, 6.0, 0.0))


def test_predictions_and_their_accuracy(tmp_path: Path) -> None:
    """Two conditions; "(2;%a%) < (2;%b%)" holds: 3 < 5."""
    rows = [[("The", 0.0), ("dog", 1.0), ("barks", 3.0)], [("The", 0.0), ("dog", 1.0), ("bark", 5.0)]]
    result = evaluate(tmp_path, [["The dog", "barks"], ["The dog", "bark"]], rows, formulas=["(2;%a%) < (2;%b%)"])
    assert result.decisions["correct"].tolist() == [True]
    assert result.summary[["accuracy", "n"]].values.tolist() == [[1.0, 1]]


def test_an_ambiguous_alignment_is_refused(tmp_path: Path) -> None:
    """Two <unk> for three unknown words over two regions: "foo | bar qux" or "foo bar | qux" put the
    second token in different regions, so nothing is chosen."""
    rows = [("a", 0.0), ("<unk>", 1.0), ("<unk>", 2.0)]
    with pytest.raises(InputError) as caught:
        evaluate(tmp_path, [["a foo", "bar", "qux"]], [rows])
    message = str(caught.value)
    assert "sentence 1 (item 1, condition 1 'a')" in message and "more than one way" in message
    assert "token 3 ('<unk>')" in message and "region 2 (r2)" in message and "region 3 (r3)" in message
    assert "\n" not in message


def test_side_by_side_unks_in_one_region_are_not_ambiguous(tmp_path: Path) -> None:
    """However two <unk> share "xyzzy qwerty plugh", both lie in region 1: the values do not depend on it."""
    rows = [("<unk>", 1.0), ("<unk>", 2.0), ("barks", 3.0)]
    result = evaluate(tmp_path, [["xyzzy qwerty plugh", "barks"]], [rows])
    assert values(result) == pytest.approx([3.0, 3.0])


@pytest.mark.parametrize("rows, line, expected", [
    ([("The", 0.0), ("cat", 1.0), ("barks", 1.0), ("loudly.", 1.0)], 3, "region 1 (r1): token 2 ('cat') does not "
     "spell the text at 'dog barks loudly.'"),
    ([("The", 0.0), ("dog", 1.0), ("barks", 1.0)], 2, "region 3 (r3): the tokens end before the text does; no token "
     "stands for 'loudly.'"),
    ([("The", 0.0), ("dog", 1.0), ("barks", 1.0), ("loudly.", 1.0), ("again", 1.0)], 6,
     "region 3 (r3): token 5 ('again') comes after the end of the sentence"),
])
def test_tokens_that_do_not_fit_say_where(tmp_path: Path, rows: list[Row], line: int, expected: str) -> None:
    """The line is the faulty token's own row (issue 40), the sentence's first where no one token is at fault."""
    with pytest.raises(InputError) as caught:
        evaluate(tmp_path, [REGIONS], [rows])
    assert str(caught.value).startswith(f"{tmp_path / 'surprisals.tsv'}:{line}: sentence 1 (item 1, condition 1 'a'), ")
    assert str(caught.value).endswith(expected)


def test_align_tokens_alone() -> None:
    """The span of each token's first character; a marker of no text goes with the token after it."""
    spans = [(0, 7), (8, 13)]
    assert align_tokens("The dog barks", ["<s>", "The", "Ġdog", "Ġbarks"], spans, ["r1", "r2"],
                        byte_level=True) == [0, 0, 0, 1]
    with pytest.raises(AlignmentError, match="r2: the tokens end before the text does; no token stands for 's'"):
        align_tokens("The dog barks", ["The", "dog", "bark"], spans, ["r1", "r2"])


def test_file_metadata(tmp_path: Path) -> None:
    path = lmzoo_file(tmp_path, [[("A", 0.0), ("b", 1.0)], [("C", 0.0)]])
    read = read_surprisals(path)
    assert [s.tokens for s in read.sentences] == [("A", "b"), ("C",)]
    assert [s.line for s in read.sentences] == [2, 4] and read.n_tokens == 3
    assert read.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
