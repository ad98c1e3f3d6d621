"""`pfcore syntaxgym sentences|evaluate`: syntaxgym-core's own test data (its sentences, and its outputs
from GRNN's and Transformer-XL's surprisal files, every region value to 1e-6 and every prediction
exactly), the round trip through the tiny GPT-2 against `run --suite syntaxgym --no-corrected`, and bad
surprisal files, each one line and exit status 2."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pfcore.cli import main
from pfcore.items.formula import parse_formula
from pfcore.items.syntaxgym import read_suite
from pfcore.models import ModelSpec
from pfcore.runs.runner import RunConfig, run_suite
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.lmzoo import SURPRISAL_FILE, read_surprisals
from pfcore.scoring.models import load_model
from pfcore.scoring.requests import Request
from pfcore.scoring.words import score_texts
from pfcore.suites.syntaxgym import evaluate_surprisals, suite_sentences
from tests.conftest import skip_missing
from tests.unit.test_lmzoo import gym_suite, lmzoo_file
from tests.unit.test_syntaxgym_suite import suite_data, write_suite

MODELS = ("grnn", "transformer-xl")
TOLERANCE = 1e-6


@pytest.fixture(scope="module")
def gym_core(shared_data: Path) -> Path:
    """syntaxgym-core's test data (data/test); skips where the reference data lacks it."""
    folder = shared_data / "syntaxgym-core" / "test"
    if not (folder / "test_in.json").is_file():
        skip_missing(f"syntaxgym-core's test data not found under {folder}")
    return folder


def test_sentences_are_syntaxgym_cores(gym_core: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = (gym_core / "test_sentences.txt").read_text()
    assert main(["syntaxgym", "sentences", str(gym_core / "test_in.json")]) == 0
    assert capsys.readouterr().out == expected
    out = tmp_path / "sentences.txt"
    assert main(["syntaxgym", "sentences", str(gym_core / "test_in.json"), "--out", str(out)]) == 0
    assert out.read_text() == expected and "wrote 4 sentences" in capsys.readouterr().out


def region_values(suite: dict[str, Any]) -> dict[tuple[int, str, int, str], float]:
    """(item, condition, region, metric) -> value of an evaluated suite's JSON."""
    return {(item["item_number"], condition["condition_name"], region["region_number"], metric): value
            for item in suite["items"] for condition in item["conditions"] for region in condition["regions"]
            for metric, value in region["metric_value"].items()}


def predictions_of(suite: dict[str, Any], formulas: list[str]) -> list[bool]:
    """Each item's result of each formula on an evaluated suite's sums (what syntaxgym-core's
    predictions read)."""
    results = []
    for item in suite["items"]:
        sums = {(c["condition_name"], r["region_number"]): r["metric_value"]["sum"]
                for c in item["conditions"] for r in c["regions"]}
        results += [bool(parse_formula(f).evaluate(sums)) for f in formulas]
    return results


@pytest.mark.parametrize("model", MODELS)
def test_golden_outputs_of_syntaxgym_core(model: str, gym_core: Path, tmp_path: Path) -> None:
    """Every region value of syntaxgym-core's output to 1e-6, its layout (meta.model, metric_value
    with the six metrics), and every prediction as syntaxgym-core's values decide it."""
    out = tmp_path / "out.json"
    assert main(["syntaxgym", "evaluate", str(gym_core / "test_in.json"), "--surprisals",
                 str(gym_core / f"test_surp_{model}.txt"), "--json", "--model-name", model, "--out", str(out)]) == 0
    got, expected = json.loads(out.read_text()), json.loads((gym_core / f"test_out_{model}.json").read_text())
    assert got["meta"]["model"] == model and got["region_meta"] == expected["region_meta"]
    mine, theirs = region_values(got), region_values(expected)
    assert mine.keys() == theirs.keys() and len(theirs) == 4 * 6 * 6
    largest = max(abs(mine[key] - theirs[key]) for key in theirs)
    assert largest < TOLERANCE, largest
    suite = read_suite(gym_core / "test_in.json")
    formulas = [f.source for f in suite.predictions]
    assert formulas == ["(3;%that%) > (3;%what%)"]  # the v1 relation prediction, read as a formula
    evaluation = evaluate_surprisals(suite, read_surprisals(gym_core / f"test_surp_{model}.txt"))
    assert evaluation.decisions["correct"].tolist() == predictions_of(expected, formulas)


def test_plain_report(gym_core: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["syntaxgym", "evaluate", str(gym_core / "test_in.json"), "--surprisals",
                 str(gym_core / "test_surp_grnn.txt")]) == 0
    out = capsys.readouterr().out
    assert "surprisals read from a file" in out and "sha256 " in out and "in bits" in out
    assert "at the holiday party." in out and "(3;%that%) > (3;%what%)" in out and "ci_low" in out


def test_round_trip_through_the_tiny_model(tiny_gpt2: Path, tmp_path: Path, cache_dir: Path) -> None:
    """Sentences out, scored by the tiny GPT-2 into an lm-zoo file (its own tokens, 0 for the unscored
    first, bits written in full), evaluated: exactly the region sums and predictions of
    `run --suite syntaxgym --no-corrected` on the same model. The sentences are scored in one pass, as
    the run scores them: the scorer packs shared prefixes, and float32 sums then differ in the 6th
    decimal from sentences scored one by one."""
    formulas = ("(2;%good%) < (2;%bad%)", "(*;%good%) > (*;%bad%)")
    data = suite_data(formulas=formulas)
    for condition in data["items"][0]["conditions"]:  # a first region of many tokens: the file's 0 added to them
        condition["regions"][0]["content"] = "The old grey dog of our good neighbours next door"
    suite_path = write_suite(tmp_path, data)
    sentences_path = tmp_path / "sentences.txt"
    assert main(["syntaxgym", "sentences", str(suite_path), "--out", str(sentences_path)]) == 0
    scorer = CausalScorer(load_model(ModelSpec(str(tiny_gpt2))))
    lines = ["sentence_id\ttoken_id\ttoken\tsurprisal"]
    sentences = sentences_path.read_text().splitlines()
    every = score_texts(scorer, [Request("", s) for s in sentences], corrected=False)  # in one pass, as `run` does
    for number, scored in enumerate(every, start=1):
        tokens = scorer.tok.convert_ids_to_tokens(list(scored.token_ids))
        bits = [0.0, *(float(b) for b in scored.scores.surprisals_bits)]
        assert len(tokens) == len(bits)
        lines += [f"{number}\t{k}\t{token}\t{value!r}" for k, (token, value) in enumerate(zip(tokens, bits), start=1)]
    surprisals = tmp_path / "surprisals.tsv"
    surprisals.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert read_surprisals(surprisals).byte_level
    evaluation = evaluate_surprisals(read_suite(suite_path), read_surprisals(surprisals))
    record = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(suite="syntaxgym", items_path=str(suite_path),
                                                            corrected=False))
    keys = ["item_number", "condition_name", "region_number"]
    ours, theirs = evaluation.rows.set_index(keys), record.tables["rows"].set_index(keys)
    assert ours.index.equals(theirs.index)
    assert ours["surprisal_bits"].tolist() == theirs["surprisal_bits"].tolist()  # exactly
    assert ours["n_tokens"].max() >= 8 and (ours["surprisal_bits"] > 0).sum() == len(ours) - 2  # 2 empty regions
    pd.testing.assert_frame_equal(evaluation.decisions.reset_index(drop=True),
                                  record.tables["decisions"][evaluation.decisions.columns].reset_index(drop=True))
    assert evaluation.summary[["accuracy", "ci_low", "ci_high", "n"]].values.tolist() == \
        record.summary[["accuracy", "ci_low", "ci_high", "n"]].values.tolist()


def test_sentences_with_a_line_break_are_refused(tmp_path: Path) -> None:
    suite = read_suite(gym_suite(tmp_path, [["The dog", "barks\nloudly"]]))
    with pytest.raises(Exception, match="line break"):
        suite_sentences(suite)


def good_rows() -> list[list[tuple[str, float]]]:
    """The tokens of the hand-made suite's one sentence."""
    return [[("The", 0.0), ("dog", 1.0), ("barks", 2.0)]]


def write_text(text: str) -> Any:
    """A case that writes a surprisal file of this text."""
    def make(folder: Path) -> Path:
        path = folder / "surprisals.tsv"
        path.write_text(text, encoding="utf-8")
        return path
    return make


HEADER = "sentence_id\ttoken_id\ttoken\tsurprisal\n"


def sparse(folder: Path) -> Path:
    """A 2 GB file of nothing (sparse: no disk used), standing in for a file far too large."""
    path = folder / "huge.tsv"
    with path.open("wb") as handle:
        handle.truncate(2 * 2**30)
    return path


def fifo(folder: Path) -> Path:
    """A named pipe no one writes to: reading it would hang."""
    path = folder / "pipe.tsv"
    os.mkfifo(path)
    return path


def folder_of(folder: Path) -> Path:
    """A folder where a file should be."""
    path = folder / "a-folder.tsv"
    path.mkdir()
    return path


def latin1(folder: Path) -> Path:
    """A file saved as Latin-1, not UTF-8 ("café")."""
    path = folder / "latin.tsv"
    path.write_bytes(HEADER.encode() + b"1\t1\tcaf\xe9\t0\n")
    return path


BAD_FILES = {
    "wrong columns": (write_text("sentence\ttoken\tsurprisal\n1\tThe\t0\n"), "header must be the columns"),
    "a column misnamed": (write_text("sentence_id\ttoken_id\tword\tsurprisal\n"), "its column 3 is not token"),
    "a row of three cells": (write_text(HEADER + "1\t1\tThe\n"), ":2: 3 cells, but a row has 4"),
    "non-numeric surprisal": (write_text(HEADER + "1\t1\tThe\t0\n1\t2\tdog\tlots\n"),
                              ":3: the surprisal is not a number"),
    "infinite surprisal": (write_text(HEADER + "1\t1\tThe\t1e999\n"), ":2: the surprisal is not a finite number"),
    "negative surprisal": (write_text(HEADER + "1\t1\tThe\t0\n1\t2\tdog\t-0.5\n"),
                           ":3: the surprisal is negative (-0.5)"),
    "token ids out of order": (write_text(HEADER + "1\t1\tThe\t0\n1\t3\tdog\t1\n"),
                               ":3: sentence 1, token 3 is out of order"),
    "sentence ids out of order": (write_text(HEADER + "2\t1\tThe\t0\n"), ":2: sentence 2, token 1 is out of order"),
    "a non-numeric id": (write_text(HEADER + "one\t1\tThe\t0\n"), ":2: sentence_id must be a whole number"),
    "too many sentences": (write_text(HEADER + "1\t1\tThe\t0\n1\t2\tdog\t1\n1\t3\tbarks\t2\n2\t1\tThe\t0\n"),
                           "holds 2 sentences, but the suite 'hand' has 1"),
    "empty": (write_text(""), "the file is empty"),
    "header only": (write_text(HEADER), "no token rows"),
    "not UTF-8": (latin1, "latin.tsv:2: not UTF-8 text"),
    "a 2 GB file": (sparse, f"larger than {SURPRISAL_FILE.cap // 2**20} MiB"),
    "a FIFO": (fifo, "named pipe (FIFO)"),
    "a folder": (folder_of, "it is a folder"),
    "missing": (lambda folder: folder / "nowhere.tsv", "nowhere.tsv"),
}


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_bad_surprisal_files_are_one_line(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make, expected = BAD_FILES[name]
    suite = gym_suite(tmp_path, [["The dog", "barks"]])
    path = make(tmp_path)
    assert main(["syntaxgym", "evaluate", str(suite), "--surprisals", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.err.startswith("error: ") and expected in captured.err, captured.err


def test_a_good_file_beside_the_bad_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The hand-made suite and file the bad cases start from are fine as they are."""
    suite = gym_suite(tmp_path, [["The dog", "barks"]])
    assert main(["syntaxgym", "evaluate", str(suite), "--surprisals", str(lmzoo_file(tmp_path, good_rows())),
                 "--json"]) == 0
    regions = json.loads(capsys.readouterr().out)["items"][0]["conditions"][0]["regions"]
    assert [r["metric_value"] for r in regions] == [{"sum": 1.0}, {"sum": 2.0}]
