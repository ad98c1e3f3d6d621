"""The SyntaxGym suite: region aggregation on a hand-made suite with known token surprisals,
prediction evaluation and accuracy, corrected regions, the real suites through `run`, a cached
rerun that loads no model, and bad input."""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from pfcore.cli import build_parser, main
from pfcore.cli.run import config_from_args
from pfcore.errors import InputError
from pfcore.intervals import wilson
from pfcore.models import ModelSpec
from pfcore.names import SuiteName
from pfcore.runs.report import summary_json
from pfcore.runs.runner import RunConfig, run_suite
from pfcore.scoring.align import word_spans
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS, load_model
from pfcore.scoring.requests import LN2, Request, TokenScores
from pfcore.scoring.words import pack_bow, score_texts
from pfcore.suites import syntaxgym

BOW_STEP = 0.5  # the known scorer's log BOW mass falls by this much per row


class KnownScorer:
    """Words are tokens; a token's surprisal is its length in bits (the first word of a text is
    unscored); its BOW variant has log BOW mass -BOW_STEP * (row + 1) at every row."""

    def __init__(self, bow: bool = False) -> None:
        self.bow = bow

    @property
    def method(self) -> ScoringMethod:
        """A stand-in for causal scoring."""
        return ScoringMethod.CAUSAL

    def score(self, requests: Sequence[Request], progress: Any = None) -> list[TokenScores]:
        """Each request's words after the first, with log-prob -len(word) * ln 2."""
        out = []
        for r in requests:
            words = r.text.split()[0 if r.prefix else 1:]
            ids = tuple(len(w) for w in words)
            logprobs = -np.array(ids, dtype=float) * LN2
            if self.bow:
                rows = range(len(ids) + 1)
                out.append(pack_bow(ids, logprobs, rows, -BOW_STEP * (np.arange(len(ids) + 1) + 1),
                                    self.display_tokens))
            else:
                out.append(TokenScores(ids, logprobs, self.display_tokens))
        return out

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """Token strings (just their lengths)."""
        return tuple(str(i) for i in ids)

    def cache_identity(self) -> dict[str, object]:
        """Its own cache namespace."""
        return {"scorer": "known", "bow": self.bow}

    def text_token_ids(self, text: str) -> tuple[int, ...]:
        """One id per word: its length."""
        return tuple(len(w) for w in text.split())

    def token_spans(self, text: str) -> tuple[tuple[int, int], ...]:
        """The words' spans."""
        return tuple(word_spans(text))

    def bow_scorer(self) -> KnownScorer:
        """The variant with BOW masses."""
        return KnownScorer(bow=True)


def suite_data(metric: str = "sum", formulas: Sequence[str] = ("(2;%good%) < (2;%bad%)",),
               name: str = "handmade") -> dict[str, Any]:
    """Three items, two conditions; region 2 holds one or two words, region 3 is empty in item 3."""
    def condition(cond: str, regions: list[str]) -> dict[str, Any]:
        """A condition with regions numbered from 1."""
        return {"condition_name": cond, "regions": [{"region_number": i, "content": c}
                                                    for i, c in enumerate(regions, start=1)]}
    items = [
        (1, ["The dog", "barks", "loudly ."], ["The dog", "barkss", "loudly ."]),
        (2, ["A cat", "sits here", "now"], ["A cat", "sit", "now"]),
        (3, ["Birds", "fly", ""], ["Birds", "flies", ""]),
    ]
    return {"meta": {"name": name, "metric": metric},
            "region_meta": {"1": "subject", "2": "verb", "3": "rest"},
            "predictions": [{"type": "formula", "formula": f} for f in formulas],
            "items": [{"item_number": n, "conditions": [condition("good", g), condition("bad", b)]}
                      for n, g, b in items]}


def write_suite(folder: Path, data: dict[str, Any], name: str = "suite.json") -> Path:
    """Write a suite JSON and return its path."""
    path = folder / name
    path.write_text(json.dumps(data))
    return path


def rows_of(path: Path, corrected: bool = False) -> pd.DataFrame:
    """Region rows of one suite scored by the known scorer."""
    suite = syntaxgym.load_suites(path)[0]
    return syntaxgym.score_suites([suite], KnownScorer(), lambda s, r: s.score(r), corrected=corrected)


def test_region_sums_of_known_token_surprisals(tmp_path: Path) -> None:
    """Surprisal (bits) = word length here, so each region's sum is its letters, the first word
    of each sentence unscored, an empty region 0."""
    rows = rows_of(write_suite(tmp_path, suite_data()))
    values = {(i, c, r): v for i, c, r, v in
              zip(rows["item_number"], rows["condition_name"], rows["region_number"], rows["surprisal_bits"])}
    assert values[1, "good", 1] == pytest.approx(3)  # "The" unscored, "dog" = 3
    assert values[1, "good", 2] == pytest.approx(5) and values[1, "bad", 2] == pytest.approx(6)
    assert values[1, "good", 3] == pytest.approx(6 + 1)  # "loudly" and "."
    assert values[2, "good", 2] == pytest.approx(4 + 4)  # "sits here"
    assert values[3, "good", 1] == 0.0 and values[3, "good", 3] == 0.0  # "Birds" unscored; empty region
    assert list(rows.columns) == list(syntaxgym.ROW_COLUMNS)
    assert rows.loc[(rows["item_number"] == 2) & (rows["region_number"] == 2), "n_tokens"].tolist() == [2, 1]


def test_region_means_use_the_suites_metric(tmp_path: Path) -> None:
    rows = rows_of(write_suite(tmp_path, suite_data(metric="mean")))
    item2 = rows[(rows["item_number"] == 2) & (rows["condition_name"] == "good")]
    assert item2["surprisal_bits"].tolist()[1] == pytest.approx(4.0)  # mean of "sits" and "here"
    empty = rows[(rows["item_number"] == 3) & (rows["region_number"] == 3)]["surprisal_bits"]
    assert empty.isna().all()  # the mean of nothing


def test_corrected_regions_add_the_bow_ratio(tmp_path: Path) -> None:
    """Each corrected word gains log P_bow after it minus before it: -BOW_STEP nats here."""
    plain = rows_of(write_suite(tmp_path, suite_data()))
    corrected = rows_of(write_suite(tmp_path, suite_data()), corrected=True)
    words = corrected["n_tokens"]  # one token per word
    np.testing.assert_allclose(corrected["surprisal_bits"], plain["surprisal_bits"] + words * BOW_STEP / LN2)


def test_decisions_and_accuracy(tmp_path: Path) -> None:
    """good < bad in region 2: item 1 (5 < 6) holds, item 2 (8 < 3) does not, item 3 (3 < 5) holds."""
    formulas = ("(2;%good%) < (2;%bad%)", "[(2;%good%) = (2;%bad%) - 1] | [(*;%good%) > 100]")
    rows = rows_of(write_suite(tmp_path, suite_data(formulas=formulas)))
    suite = syntaxgym.load_suites(tmp_path / "suite.json")[0]
    decided = syntaxgym.decisions(rows, {suite.name: suite.predictions})
    assert decided[decided["prediction"] == "0"]["correct"].tolist() == [True, False, True]
    assert decided[decided["prediction"] == "1"]["correct"].tolist() == [True, False, False]
    summary = syntaxgym.summarize(decided)
    assert summary["filter"].tolist() == ["0", "1"] and summary["construction"].tolist() == ["handmade"] * 2
    low, high = wilson(2, 3)
    first = summary.iloc[0]
    assert (first["accuracy"], first["ci_low"], first["ci_high"], first["n"]) == pytest.approx((2 / 3, low, high, 3))
    assert summary.iloc[0]["formula"] == formulas[0]


def test_run_records_accuracy_per_suite_and_prediction(tiny_gpt2: Path, tmp_path: Path, cache_dir: Path) -> None:
    """A folder of suites through the runner: one summary row per suite and prediction, JSON
    accuracy keyed by meta.name and prediction index, a run record like any suite's."""
    folder = tmp_path / "suites"
    folder.mkdir()
    write_suite(folder, suite_data(), "a.json")
    write_suite(folder, suite_data(name="second", formulas=("(2;%good%) > (2;%bad%)",)), "b.json")
    record = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(suite="syntaxgym", items_path=str(folder),
                                                            corrected=False),
                       scorers=lambda spec, method, bos: KnownScorer())
    summary = summary_json(record)
    assert summary["accuracy"] == {"handmade": {"0": pytest.approx(2 / 3)}, "second": {"0": pytest.approx(1 / 3)}}
    assert set(record.tables) == {"rows", "decisions", "summary"}
    assert (record.path / "decisions.csv").is_file() and record.manifest.items.count == 6
    assert record.manifest.settings["corrected"] is False


@pytest.mark.parametrize("corrected", [False, True])
def test_tiny_model_regions_are_token_or_word_sums(tiny_gpt2: Path, tmp_path: Path, corrected: bool) -> None:
    """On a real tokenizer, a region's value is the sum over the tokens (or corrected words) whose
    first character lies in it."""
    scorer = CausalScorer(load_model(ModelSpec(str(tiny_gpt2))))
    suite = syntaxgym.load_suites(write_suite(tmp_path, suite_data()))[0]
    rows = syntaxgym.score_suites([suite], scorer, lambda s, r: s.score(r), corrected=corrected)
    condition = suite.items[1].condition("good")
    scored = score_texts(scorer, [Request("", condition.sentence)])[0]
    region = condition.region(2).span
    if corrected:
        inside = [w.surprisal_bits for w in scored.words if region[0] <= w.start < region[1]]
    else:
        spans = scored.scored_spans
        inside = [bits for (a, b), bits in zip(spans, scored.scores.surprisals_bits)
                  if region[0] <= a + len(condition.sentence[a:b]) - len(condition.sentence[a:b].lstrip()) < region[1]]
    got = rows[(rows["item_number"] == 2) & (rows["condition_name"] == "good") & (rows["region_number"] == 2)]
    assert got["surprisal_bits"].iloc[0] == pytest.approx(sum(inside))


def test_real_suite_through_the_command_line(tiny_gpt2: Path, shared_data: Path, cache_dir: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`run --suite syntaxgym --items number_src.json --json`, then the same run from the cache
    without loading the model."""
    suite = shared_data / "syntaxgym" / "suites" / "number_src.json"
    argv = ["run", "--suite", "syntaxgym", "--items", str(suite), "--model", str(tiny_gpt2),
            "--limit-blocks", "4", "--json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert list(first["accuracy"]) == ["number_src"] and list(first["accuracy"]["number_src"]) == ["0"]
    assert first["items"] == 4
    monkeypatch.setattr(MODELS, "loaded", lambda spec: pytest.fail("the model was loaded"))
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["accuracy"] == first["accuracy"] and again["timings_s"]["load_s"] == 0


def test_masked_model_uses_pll_tokens(tiny_bert: Path, tmp_path: Path, cache_dir: Path) -> None:
    """PLL scores every token, the first word too; the correction (on by default) is a causal
    model's, so a masked model's regions keep their token sums and the record says so."""
    path = write_suite(tmp_path, suite_data())
    spec = ModelSpec(str(tiny_bert), kind="masked")
    record = run_suite(spec, RunConfig(suite="syntaxgym", items_path=str(path)))
    rows = record.tables["rows"]
    assert record.manifest.scoring == "pll-original" and record.manifest.settings["corrected"] is False
    assert (rows[rows["region_number"] == 1]["surprisal_bits"] > 0).all()
    plain = run_suite(spec, RunConfig(suite="syntaxgym", items_path=str(path), corrected=False)).tables["rows"]
    pd.testing.assert_frame_equal(rows, plain)


@pytest.mark.parametrize("argv, corrected", [([], True), (["--corrected"], True), (["--no-corrected"], False)])
def test_corrected_is_on_by_default_in_every_command(argv: list[str], corrected: bool) -> None:
    """`run`, `trajectory` and `score` spell the flag alike and default it on."""
    for command in (["run"], ["trajectory", "--revisions", "step1"], ["score", "--sentence", "a b"]):
        args = build_parser(command[0]).parse_args([*command, *argv])
        assert args.corrected is corrected
    args = build_parser("run").parse_args(["run", *argv])
    assert config_from_args(args, SuiteName.SYNTAXGYM).corrected is corrected


@pytest.mark.parametrize("change, argv_extra, expected", [
    (lambda d: d["predictions"][0].update(formula="(9;%good%) < (2;%bad%)"), [],
     ["suite.json", "item 1", "prediction 1", "region 9"]),
    (lambda d: d["predictions"][0].update(formula="(2;%good%) <"), [], ["suite.json", "prediction 1", "column 12"]),
    (lambda d: d["items"][1]["conditions"].pop(), [], ["suite.json", "item 2", "another item"]),
    (lambda d: None, ["--limit-blocks", "0"], ["at least 1"]),
])
def test_bad_suites_are_one_line(change: Any, argv_extra: list[str], expected: list[str], tmp_path: Path,
                                 tiny_gpt2: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = suite_data()
    change(data)
    path = write_suite(tmp_path, data)
    assert main(["run", "--suite", "syntaxgym", "--items", str(path), "--model", str(tiny_gpt2), *argv_extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    for text in expected:
        assert text in err, (text, err)


def test_suites_must_be_given_and_named_apart(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cpllab/syntactic-generalization"):
        syntaxgym.load_suites(None)
    with pytest.raises(InputError, match="no \\*.json"):
        syntaxgym.load_suites(tmp_path)
    write_suite(tmp_path, suite_data(), "a.json")
    write_suite(tmp_path, suite_data(), "b.json")
    with pytest.raises(InputError, match="both suite 'handmade'"):
        syntaxgym.load_suites(tmp_path)


def test_limit_keeps_the_first_items(tmp_path: Path) -> None:
    suite = syntaxgym.load_suites(write_suite(tmp_path, suite_data()), limit=2)[0]
    assert [item.number for item in suite.items] == [1, 2]
    assert len(syntaxgym.condition_requests(suite)) == 4


def test_nan_regions_make_a_prediction_fail(tmp_path: Path) -> None:
    """A mean over an empty region is NaN, and a comparison with NaN does not hold."""
    rows = rows_of(write_suite(tmp_path, suite_data(metric="mean", formulas=("(3;%good%) < (3;%bad%)",))))
    suite = syntaxgym.load_suites(tmp_path / "suite.json")[0]
    decided = syntaxgym.decisions(rows, {suite.name: suite.predictions})
    assert not decided[decided["item_number"] == 3]["correct"].iloc[0]
    assert math.isnan(rows[(rows["item_number"] == 3) & (rows["region_number"] == 3)]["surprisal_bits"].iloc[0])
