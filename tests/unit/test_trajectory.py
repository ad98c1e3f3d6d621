"""Trajectories over a local checkpoint series: sorted by step, resumable, into the results table."""
from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from pfcore.analysis.series import series_values
from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.models import ModelSpec
from pfcore.runs import trajectory
from pfcore.runs.checkpoints import checkpoints
from pfcore.runs.runner import RunConfig
from pfcore.store.results import load_results
from tests.tiny_models import build_checkpoint_series


@pytest.fixture(scope="module")
def series(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = build_checkpoint_series(tmp_path_factory.mktemp("ckpts"))
    shutil.rmtree(out / "_base")
    return out


def test_checkpoints_sort_by_step_not_name(series: Path) -> None:
    points = checkpoints(ModelSpec(), None, str(series))
    assert [p.step for p in points] == [0, 8, 32]
    revs = checkpoints(ModelSpec("org/m"), "step1000,step2,step64", None)
    assert [p.spec.revision for p in revs] == ["step2", "step64", "step1000"]
    assert len(checkpoints(ModelSpec("org/m"), "pythia-log", None)) == 19
    with pytest.raises(InputError, match="either"):
        checkpoints(ModelSpec(), "step1", str(series))
    with pytest.raises(InputError, match="no checkpoint"):
        checkpoints(ModelSpec(), None, str(series.parent))


def test_one_checkpoint_in_memory_at_a_time(series: Path, cache_dir: Path,
                                           models_in_memory: Callable[[Path], int]) -> None:
    """Each checkpoint's model leaves memory once its suites are run, without a garbage collection: a
    reference cycle of the run's lazy scorer (with itself) kept every checkpoint of a trajectory in
    memory until Python's collector ran (3 models after this one, with the collector off)."""
    seen: list[int] = []
    trajectory.run_trajectory("in-memory", checkpoints(ModelSpec(), None, str(series)), ["semantic"],
                              RunConfig(limit_blocks=1), report=lambda _line: seen.append(models_in_memory(series)),
                              prefetch=False)
    assert len(seen) == 3 and max(seen) <= 1 and models_in_memory(series) == 0


def test_trajectory_runs_resumes_and_lands_in_results(series: Path, cache_dir: Path, capsys,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["trajectory", "--checkpoint-dir", str(series), "--suite", "semantic,syntax",
            "--limit-blocks", "3", "--name", "tiny-series", "--json"]
    real = trajectory.run_suite
    calls = []

    def interrupted(spec, config, progress=None, label=None):
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(label.revision)
        return real(spec, config, progress, label)

    monkeypatch.setattr(trajectory, "run_suite", interrupted)
    assert main(argv) == 130  # interrupted after three (checkpoint, suite) runs
    capsys.readouterr()
    monkeypatch.setattr(trajectory, "run_suite", lambda *a, **k: calls.append("again") or real(*a, **k))
    assert main(argv) == 0
    assert calls.count("again") == 3  # only the three unfinished runs
    done = json.loads(capsys.readouterr().out)
    assert len(done) == 6
    table = load_results()
    values = series_values(table, "tiny-series", "pf_avg:all")
    assert list(values.index) == [0, 8, 32]
    assert values.between(0, 1).all()
    assert len(series_values(table, "tiny-series", "syntax:Avg_Test")) == 3


def test_json_trajectory_still_warns_of_a_repeated_checkpoint_on_stderr(
        series: Path, cache_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json kept stdout clean by dropping every line, the warning about copied weights too."""
    copied = tmp_path / "copied"
    shutil.copytree(series / "step0", copied / "step0")
    shutil.copytree(series / "step0", copied / "step8")  # step 8 is step 0's weights again
    assert main(["trajectory", "--checkpoint-dir", str(copied), "--suite", "semantic",
                 "--limit-blocks", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)) == 2
    assert "warning:" in err and "step 8" in err
