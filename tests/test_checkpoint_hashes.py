"""Checkpoints that are what they claim (issue 14): each run records its weights' sha256; a step
whose weights repeat an earlier step's is flagged, and first-difference correlations can drop it."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pfcore.analysis.fdcorr import fd_correlation
from pfcore.cli import main
from pfcore.models import ModelSpec
from pfcore.store.result_rows import RESULT_COLUMNS
from pfcore.store.results import append_results, load_results
from pfcore.suites.base import RunConfig
from pfcore.suites.checkpoints import checkpoints, duplicate_checkpoints
from pfcore.suites.trajectory import run_trajectory
from tests.tiny_models import build_checkpoint_series


def test_a_copied_checkpoint_is_flagged_by_the_trajectory(tmp_path: Path, cache_dir: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    series = build_checkpoint_series(tmp_path / "ckpts", steps=(0, 8))
    shutil.copytree(series / "step8", series / "step16")  # a revision that serves step 8's weights
    messages: list[str] = []
    run_trajectory("copied", checkpoints(ModelSpec(), None, str(series)), ["semantic"],
                   RunConfig(constructions=("let_alone",), limit_blocks=1), report=messages.append)
    table = load_results()
    hashes = table[table["model"] == "copied"].groupby("step")["weights_sha256"].first()
    assert hashes[8] == hashes[16] != hashes[0] and len(hashes[0]) == 64
    assert [(d.step, d.same_as) for d in duplicate_checkpoints(table, "copied")] == [(16, 8)]
    assert any(m.startswith("warning: copied: step 16 has the same weights as step 8") for m in messages)


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
    assert "step 16 has the same weights as step 8" in err and "(excluded)" in err
    assert '"duplicate_checkpoints"' in out
