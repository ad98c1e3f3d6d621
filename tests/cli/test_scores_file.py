"""Paired-Focus suites from outside scores (issue 31): `items SUITE --sentences` lists every text a
decision needs, a model run elsewhere scores them into a scores file, and `run --suite ... --scores
FILE --model NAME` makes the same decisions, accuracies and intervals as a run of that model here,
recorded with the file's sha256 and the name given; missing texts are listed, never guessed."""
from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from pfcore.cli import main
from pfcore.models.spec import ModelSpec
from pfcore.names import SuiteName
from pfcore.scoring.kinds.scores import text_id
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS
from pfcore.scoring.requests import Request
from pfcore.suites.base import RunConfig
from pfcore.suites.registry import get_suite

BLOCKS = ["--construction", "let_alone", "--limit-blocks", "2"]
RUN = RunConfig(constructions=("let_alone",), limit_blocks=2)  # what BLOCKS asks of a run


def needed(sentences: Path, suite: str) -> pd.DataFrame:
    """The rows of a sentences list that a run with BLOCKS reads (all of them in the list): the tests
    score these alone, not every let_alone text (26,640 semantic ones, for a run that reads 32)."""
    table = pd.read_csv(sentences, sep="\t", keep_default_na=False).set_index("id", drop=False)
    chosen = get_suite(SuiteName(suite))
    ids = list(dict.fromkeys(text_id(r.prefix, r.text) for r in chosen.requests(
        chosen.load(replace(RUN, suite=SuiteName(suite))), ScoringMethod.CAUSAL) or []))
    assert ids and set(ids) <= set(table.index), "the list lacks texts the run needs"
    return table.loc[ids]


def scores_from(model: Path, table: pd.DataFrame, out: Path, *, drop: int = 0) -> Path:
    """A scores file as a model run elsewhere writes it: each listed text's summed log-probability given
    its prefix and its token count (here from the tiny model, as pfcore scores it)."""
    scorer = MODELS.scorer(ModelSpec(str(model)), ScoringMethod.CAUSAL)
    scored = scorer.score([Request(p, t) for p, t in zip(table["prefix"], table["text"])])
    rows = pd.DataFrame({"id": table["id"], "logprob": [float(s.logprobs.sum()) for s in scored],
                         "n_tokens": [len(s.logprobs) for s in scored]})
    rows.iloc[drop:].to_csv(out, sep="\t", index=False)
    return out


@pytest.mark.parametrize("suite", ["semantic", "syntax"])
def test_scores_from_elsewhere_give_the_same_accuracies(suite: str, tiny_gpt2: Path, cache_dir: Path,
                                                        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sentences = tmp_path / "sentences.tsv"
    assert main(["items", suite, "--construction", "let_alone", "--sentences", "--out", str(sentences)]) == 0
    assert "texts the" in capsys.readouterr().out
    listed = pd.read_csv(sentences, sep="\t", keep_default_na=False)
    assert list(listed.columns) == ["id", "prefix", "text"] and listed["id"].is_unique
    assert listed["id"].iloc[0] == text_id(listed["prefix"].iloc[0], listed["text"].iloc[0])
    assert main(["run", "--suite", suite, *BLOCKS, "--model", str(tiny_gpt2), "--json", "--no-cache"]) == 0
    here = json.loads(capsys.readouterr().out)
    scores = scores_from(tiny_gpt2, needed(sentences, suite), tmp_path / "scores.tsv")
    assert main(["run", "--suite", suite, *BLOCKS, "--scores", str(scores), "--model", "tiny-elsewhere",
                 "--json"]) == 0
    elsewhere = json.loads(capsys.readouterr().out)
    assert elsewhere["accuracy"] == here["accuracy"] and elsewhere["scoring"] == "scores-file"
    manifest = json.loads(Path(elsewhere["record"]).joinpath("manifest.json").read_text())
    assert manifest["model"]["name"] == "tiny-elsewhere" and manifest["model"]["source"] == str(scores)
    assert manifest["model"]["weights_sha256"] == hashlib.sha256(scores.read_bytes()).hexdigest()


def test_missing_texts_are_listed_not_guessed(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    sentences = tmp_path / "sentences.tsv"
    assert main(["items", "semantic", "--construction", "let_alone", "--sentences", "--out", str(sentences)]) == 0
    table = needed(sentences, "semantic")
    scores = scores_from(tiny_gpt2, table, tmp_path / "scores.tsv", drop=3)
    assert main(["run", "--suite", "semantic", *BLOCKS, "--scores", str(scores), "--model", "m"]) == 2
    err = capsys.readouterr().err
    assert "lacks 3 of the 32 texts this run needs" in err and table["id"].iloc[0] in err


@pytest.mark.parametrize(("text", "words"), [
    ("id\tscore\n", "starts with the columns id, logprob, n_tokens"),
    ("id\tlogprob\tn_tokens\nabc\tlots\t3\n", ":2: logprob is not a number"),
    ("id\tlogprob\tn_tokens\nabc\t1.5\t3\n", ":2: logprob must be a finite log-probability"),
    ("id\tlogprob\tn_tokens\nabc\t-1.5\t0\n", ":2: n_tokens must be a whole number of at least 1"),
    ("id\tlogprob\tn_tokens\nabc\t-1.5\t2\nabc\t-1.0\t2\n", ":3: id abc appears twice"),
])
def test_a_bad_scores_file_is_one_line_and_exit_2(text: str, words: str, cache_dir: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "scores.tsv"
    path.write_text(text)
    assert main(["run", "--suite", "semantic", *BLOCKS, "--scores", str(path), "--model", "m"]) == 2
    assert words in capsys.readouterr().err


def test_scores_need_the_name_of_their_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--suite", "semantic", *BLOCKS, "--scores", str(tmp_path / "s.tsv")]) == 2
    assert "name the model the scores come from with --model NAME" in capsys.readouterr().err


def test_the_models_page_names_a_run_from_scores_by_its_file(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from pfcore.analysis.model_tables import side_by_side
    from pfcore.store.runs import list_runs

    sentences = tmp_path / "sentences.tsv"
    assert main(["items", "semantic", "--construction", "let_alone", "--sentences", "--out", str(sentences)]) == 0
    scores = scores_from(tiny_gpt2, needed(sentences, "semantic"), tmp_path / "elsewhere.tsv")
    assert main(["run", "--suite", "semantic", *BLOCKS, "--scores", str(scores), "--model", "gpt2-xl"]) == 0
    table = side_by_side("Table 6", list_runs())
    assert "gpt2-xl (scores from elsewhere.tsv)" in set(table["model"])
