"""Loads hidden behind scoring: a trajectory that loads its next checkpoint while it scores this one
(within the memory it checks) gives the same results table as one that loads each when it needs it."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from pfcore.models import ModelSpec
from pfcore.runs import prefetch
from pfcore.runs.checkpoints import checkpoints
from pfcore.runs.trajectory import run_trajectory
from pfcore.scoring.models import MODELS
from pfcore.store.results import load_results
from pfcore.suites.base import RunConfig
from tests.hub_cache import HubSeries

NUMBERS = ["model", "revision", "step", "suite", "construction", "filter", "metric", "value", "weights_sha256"]


def trajectory_table(hub_series: HubSeries, cache: Path, monkeypatch: pytest.MonkeyPatch,
                     prefetching: bool) -> tuple[pd.DataFrame, list[str]]:
    """The results table of a 3-checkpoint trajectory of the tiny hub series (semantic and syntax, 2
    blocks) in a cache of its own, and the lines it reported."""
    monkeypatch.setenv("PFCORE_CACHE", str(cache))
    MODELS.clear()
    lines: list[str] = []
    points = checkpoints(ModelSpec(hub_series.repo_id), "step0,step8,step32", None)
    runs = run_trajectory("tiny-pythia", points, ["semantic", "syntax"], RunConfig(limit_blocks=2),
                          report=lines.append, prefetch=prefetching)
    assert set(runs["device"]) == {"cpu"}  # the run list says where it ran (the spec's device)
    assert set(runs["dtype"]) == {"float32"}
    table = load_results()
    return table[NUMBERS].sort_values(NUMBERS[:7]).reset_index(drop=True), lines


def test_prefetching_gives_the_sequential_results_table(hub_series: HubSeries, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    sequential, plain_lines = trajectory_table(hub_series, tmp_path / "one", monkeypatch, prefetching=False)
    ahead, lines = trajectory_table(hub_series, tmp_path / "two", monkeypatch, prefetching=True)
    assert len(sequential) > 0 and sequential["revision"].nunique() == 3
    pd.testing.assert_frame_equal(ahead, sequential)  # every value to the bit
    assert not any(line.startswith("loaded ahead") for line in plain_lines)
    summary = next(line for line in lines if line.startswith("loaded ahead"))
    assert summary.startswith("loaded ahead: 2 checkpoint(s)") and "hidden behind scoring" in summary, lines
    assert MODELS.holding() == []  # no checkpoint left in memory


def test_without_room_the_next_checkpoint_loads_when_needed(hub_series: HubSeries, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefetch, "room_beside", lambda _model, _device: False)
    table, lines = trajectory_table(hub_series, tmp_path, monkeypatch, prefetching=True)
    assert table["revision"].nunique() == 3
    assert not any(line.startswith("loaded ahead") for line in lines)
    assert "\n".join(lines).count("not loaded ahead") == 2, lines


def test_a_checkpoint_whose_load_ahead_fails_loads_again_when_needed(hub_series: HubSeries, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    real = MODELS.load_beside

    def fails_once(spec: ModelSpec):
        monkeypatch.setattr(MODELS, "load_beside", real)
        raise OSError("disk hiccup")

    monkeypatch.setattr(MODELS, "load_beside", fails_once)
    table, lines = trajectory_table(hub_series, tmp_path, monkeypatch, prefetching=True)
    assert table["revision"].nunique() == 3
    assert any(line.startswith("loaded ahead: 1 checkpoint(s)") for line in lines), lines
