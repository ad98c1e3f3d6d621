"""Checkpoints that are what they claim (issue 14): each run records its weights' sha256; a step
whose weights repeat an earlier step's is flagged, and first-difference correlations can drop it."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pfcore.analysis.fdcorr import fd_correlation
from pfcore.analysis.trajectories import fd_choices
from pfcore.cli import main
from pfcore.runs.checkpoints import duplicate_checkpoints
from pfcore.store.result_rows import RESULT_COLUMNS
from pfcore.store.results import append_results, load_results
from tests.tiny_models import build_checkpoint_series


def test_a_copied_checkpoint_is_flagged_by_the_trajectory(tmp_path: Path, cache_dir: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    series = build_checkpoint_series(tmp_path / "ckpts", steps=(0, 8))
    shutil.copytree(series / "step8", series / "step16")  # a revision that serves step 8's weights
    assert main(["trajectory", "--checkpoint-dir", str(series), "--name", "copied", "--suite", "semantic",
                 "--construction", "let_alone", "--limit-blocks", "1"]) == 0
    table = load_results()
    hashes = table[table["model"] == "copied"].groupby("step")["weights_sha256"].first()
    assert hashes[8] == hashes[16] != hashes[0] and len(hashes[0]) == 64
    assert [(d.step, d.same_as) for d in duplicate_checkpoints(table, "copied")] == [(16, 8)]
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "same weights" in line] == [
        f"warning: copied: step 16 has the same weights as step 8 (sha256 {hashes[8][:12]}...); its changes are "
        "false zeros in first-difference correlations (exclude it with `pfcore analyze fdcorr "
        "--drop-duplicate-checkpoints`)"]


def synthetic_table(values: dict[int, tuple[float, float]], hashes: dict[int, str]) -> pd.DataFrame:
    """Two series over checkpoints with given weight hashes (rows as an own trajectory writes them)."""
    rows = [{"model": "m", "revision": f"step{s}", "step": s, "suite": "semantic", "construction": "letalone",
             "filter": f, "metric": "accuracy", "value": v, "source": f"pfcore run r{s}", "weights_sha256": hashes[s]}
            for s, pair in values.items() for f, v in zip(("aligned", "misaligned"), pair)]
    return pd.DataFrame(rows)


def test_fdcorr_can_drop_the_duplicate_steps(cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    steps = [1, 2, 4, 8, 16, 32]
    hashes = {s: f"{s:064x}" for s in steps} | {16: f"{8:064x}"}  # step 16 repeats step 8
    values = {s: (float(rng.uniform()), float(rng.uniform())) for s in steps}
    values[16] = values[8]
    append_results(synthetic_table(values, hashes)[[*RESULT_COLUMNS, "weights_sha256"]])
    table = load_results()
    kept = fd_correlation(table, "m", "letalone:aligned", "letalone:misaligned")
    dropped = fd_correlation(table, "m", "letalone:aligned", "letalone:misaligned", drop_duplicates=True)
    assert 16 in kept.steps and 16 not in dropped.steps and dropped.n == kept.n - 1
    assert main(["analyze", "fdcorr", "--model", "m", "--x", "letalone:aligned", "--y", "letalone:misaligned",
                 "--drop-duplicate-checkpoints", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "step 16 has the same weights as step 8" in err and "correlations (excluded)" in err
    assert '"duplicate_checkpoints"' in out


def test_figure4_choices_come_from_the_rows() -> None:
    """The page's Figure 4 rules live in pfcore: enough checkpoints, what to set against, the duplicates."""
    steps = [1, 2, 4, 8, 16]
    hashes = {s: f"{s:064x}" for s in steps} | {16: f"{8:064x}"}
    table = synthetic_table({s: (0.5, 0.5) for s in steps}, hashes)
    choices = fd_choices(table, "m", ["letalone:aligned", "letalone:misaligned"])
    assert choices.enough and choices.checkpoints == 5
    assert choices.against == ("letalone:aligned", "letalone:misaligned") and choices.first == 0  # no pf_avg
    assert [(d.step, d.same_as) for d in choices.duplicates] == [(16, 8)]
    averaged = fd_choices(table, "m", ["pf_avg:all", "pf_avg:aligned", "syntax:Avg_Test", "letalone:aligned"])
    assert averaged.against == ("pf_avg:all", "pf_avg:aligned") and averaged.first == 1
    few = fd_choices(table[table["step"] <= 4], "m", ["letalone:aligned"])
    assert not few.enough and few.checkpoints == 3 and few.duplicates == ()
