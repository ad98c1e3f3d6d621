"""`items SUITE --limit-blocks N` (issue 40): the first N blocks of each construction, as `run
--limit-blocks N` reads them, so `--sentences` lists just the texts such a run needs."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from pfcore.cli import main
from pfcore.items.formats import read_items

from .test_scores_file import BLOCKS, scores_from


@pytest.mark.parametrize(("suite", "count"), [("semantic", 2 * 8), ("syntax", 2 * 6 * 2), ("affinity", 2)])
def test_limit_blocks_keeps_the_first_blocks_of_each_construction(suite: str, count: int, tmp_path: Path) -> None:
    out = tmp_path / "items.jsonl"
    assert main(["items", suite, *BLOCKS, "--out", str(out)]) == 0
    items = read_items(out)
    assert len(items) == count and {i.construction for i in items} >= {"let_alone"}
    card = out.with_name("items.card.md").read_text()
    assert "--limit-blocks 2" in card


def test_the_sentences_of_limited_blocks_are_those_the_limited_run_needs(tiny_gpt2: Path, cache_dir: Path,
                                                                         tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    sentences = tmp_path / "sentences.tsv"
    assert main(["items", "semantic", *BLOCKS, "--sentences", "--out", str(sentences)]) == 0
    assert "wrote the 32 texts" in capsys.readouterr().out
    assert len(pd.read_csv(sentences, sep="\t")) == 32
    scores = scores_from(tiny_gpt2, pd.read_csv(sentences, sep="\t", keep_default_na=False), tmp_path / "scores.tsv")
    assert main(["run", "--suite", "semantic", *BLOCKS, "--scores", str(scores), "--model", "m"]) == 0


def test_limit_blocks_must_be_positive(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["items", "semantic", "--limit-blocks", "0", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "at least 1" in capsys.readouterr().err and not (tmp_path / "x.jsonl").exists()


def test_the_gerund_controls_of_a_preposition_final_connective_pass_items_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = Path(__file__).resolve().parents[1] / "fixtures" / "constructions"
    out = tmp_path / "said.jsonl"
    assert main(["items", "syntax", "--construction", "to_say_nothing_of", "--constructions", str(folder),
                 "--limit-blocks", "3", "--out", str(out)]) == 0
    sentences = {i.sentence for i in read_items(out) if i.manipulation == "VP Conjunction"}
    assert "You couldn't sing an ugly song, to say nothing of singing a beautiful one." in sentences
    assert main(["items", "check", str(out), "--constructions", str(folder)]) == 0
    assert "no problems" in capsys.readouterr().out
