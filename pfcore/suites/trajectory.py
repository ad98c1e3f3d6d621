"""Learning trajectories: run suites over a model's checkpoints, one checkpoint loaded at a time,
each (checkpoint, suite) result added to the long results table as soon as it is done, so an
interrupted trajectory resumes where it stopped."""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from pfcore.errors import InputError
from pfcore.models.loading import clear_loaded
from pfcore.models.spec import ModelSpec
from pfcore.paths import cache_subdir
from pfcore.store.results import duplicate_checkpoints, load_results, step_from_revision
from pfcore.suites.base import RunConfig

# The log-spaced Pythia checkpoints the paper used for Pythia-12b (step1 ... step143000).
PYTHIA_LOG = tuple(f"step{2 ** k}" for k in range(10)) + tuple(
    f"step{s}" for s in (1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 143000))
CHECKPOINT_DIR = re.compile(r"(?:step|checkpoint)[-_]?(\d+)$")

Report = Callable[[str], None]


@dataclass(frozen=True)
class Checkpoint:
    """One point of a trajectory: the spec to load and the training step it stands for."""

    label: str
    step: int | None
    spec: ModelSpec


def checkpoints(base: ModelSpec, revisions: str | None, checkpoint_dir: str | None) -> list[Checkpoint]:
    """Checkpoints from --revisions (a list or `pythia-log`) or a folder of saved checkpoints,
    sorted by step number (never by listing order)."""
    if bool(revisions) == bool(checkpoint_dir):
        raise InputError("give either --revisions or --checkpoint-dir")
    if checkpoint_dir:
        points = _folder_checkpoints(Path(checkpoint_dir), base)
    else:
        names = PYTHIA_LOG if revisions == "pythia-log" else [r.strip() for r in str(revisions).split(",")
                                                              if r.strip()]
        if not names:
            raise InputError("--revisions is empty")
        points = [Checkpoint(r, _step(r), replace(base, revision=r)) for r in names]
    return sorted(points, key=lambda c: (c.step is None, c.step or 0, c.label))


def series_name(base: ModelSpec, checkpoint_dir: str | None, name: str | None = None) -> str:
    """The trajectory's model name in the results table: the given name, else the checkpoint
    folder's name, else the model's."""
    return name or (Path(checkpoint_dir).resolve().name if checkpoint_dir else base.name)


def _step(revision: str) -> int | None:
    """The training step a revision names, if any."""
    step = step_from_revision(revision)
    return None if step != step else int(step)


def _folder_checkpoints(folder: Path, base: ModelSpec) -> list[Checkpoint]:
    """Sub-folders named step<N> / checkpoint-<N> holding a saved model."""
    if not folder.is_dir():
        raise InputError(f"checkpoint folder not found: {folder}")
    found = []
    for sub in folder.iterdir():
        match = CHECKPOINT_DIR.search(sub.name)
        if match and (sub / "config.json").is_file():
            found.append(Checkpoint(sub.name, int(match.group(1)), replace(base, name=str(sub.resolve()))))
    if not found:
        raise InputError(f"{folder} holds no checkpoint folders (named step<N> or checkpoint-<N> "
                         "with a config.json)")
    return found


def state_path(name: str) -> Path:
    """Where a trajectory remembers which (checkpoint, suite) pairs are finished."""
    return cache_subdir("trajectories") / f"{name}.json"


def run_trajectory(name: str, points: Sequence[Checkpoint], suites: Sequence[str], config: RunConfig,
                   report: Report = print, progress_for: Callable[[str], Callable[[int, int], None]] | None = None
                   ) -> pd.DataFrame:
    """Run every suite at every checkpoint that is not done yet; returns a table of the runs."""
    from pfcore.suites.runner import ResultsLabel, run_suite  # every suite's module: only when running

    path = state_path(name)
    done = json.loads(path.read_text()) if path.is_file() else {}
    for point in points:
        for suite in suites:
            key = f"{point.label}|{suite}"
            if key in done:
                report(f"{point.label} {suite}: done before ({done[key]['record']})")
                continue
            progress = progress_for(f"{point.label} {suite}") if progress_for else None
            label = ResultsLabel(name, point.label, point.step)
            record = run_suite(point.spec, replace(config, suite=suite), progress, label)
            acc = record.summary.loc[record.summary["filter"].isin(["all", "Avg_Test"]), "accuracy"]
            done[key] = {"record": str(record.path), "step": point.step, "model": point.spec.name,
                         "revision": point.spec.revision}
            _save_state(path, done)
            report(f"{point.label} {suite}: mean accuracy {acc.mean():.3f} ({record.path.name})")
        clear_loaded()  # one checkpoint in memory at a time
    for duplicate in duplicate_checkpoints(load_results(), name):
        report(f"warning: {duplicate.warning()}")
    return pd.DataFrame([{"checkpoint": k.split("|")[0], "suite": k.split("|")[1], **v} for k, v in done.items()])


def _save_state(path: Path, done: dict[str, dict[str, object]]) -> None:
    """Write the finished list atomically."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(done, indent=1))
    tmp.replace(path)
