"""Learning trajectories: run suites over a model's checkpoints, one checkpoint loaded at a time,
each (checkpoint, suite) result added to the long results table as soon as it is done, so an
interrupted trajectory resumes where it stopped."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import pandas as pd

from pfcore.errors import InputError
from pfcore.models.identity import weights_identity
from pfcore.models.loading import check_revision, clear_loaded
from pfcore.models.spec import ModelSpec
from pfcore.store.results import duplicate_checkpoints, load_results, step_from_revision, withdraw_run
from pfcore.suites.base import RunConfig
from pfcore.suites.runner import ResultsLabel, run_suite
from pfcore.suites.settings import item_set, run_settings
from pfcore.suites.trajectory_state import Entry, load_state, save_state, state_path, why_again, writing

# The log-spaced Pythia checkpoints the paper used for Pythia-12b (step1 ... step143000).
PYTHIA_LOG = tuple(f"step{2 ** k}" for k in range(10)) + tuple(
    f"step{s}" for s in (1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 143000))
CHECKPOINT_DIR = re.compile(r"(?:step|checkpoint)[-_]?(\d+)$")

Report = Callable[[str], None]
SHOWN = ("record", "step", "model", "revision")  # of each done entry, in the table `run_trajectory` returns
__all__ = ["Checkpoint", "checkpoints", "run_trajectory", "series_name", "state_path"]


@dataclass(frozen=True)
class Checkpoint:
    """One point of a trajectory: the spec to load and the training step it stands for."""

    label: str
    step: int | None
    spec: ModelSpec


def checkpoints(base: ModelSpec, revisions: str | None, checkpoint_dir: str | None) -> list[Checkpoint]:
    """Checkpoints from --revisions (a list or `pythia-log`) of a hub id, or a folder of saved
    checkpoints, sorted by step number (never by listing order)."""
    if bool(revisions) == bool(checkpoint_dir):
        raise InputError("give either --revisions or --checkpoint-dir")
    if checkpoint_dir:
        if base.revision:
            raise InputError(f"--revision {base.revision} does not apply to a checkpoint folder: its step<N> "
                             "subfolders are the checkpoints; leave --revision out")
        points = _folder_checkpoints(Path(checkpoint_dir), base)
    else:
        names = PYTHIA_LOG if revisions == "pythia-log" else [r.strip() for r in str(revisions).split(",")
                                                              if r.strip()]
        if not names:
            raise InputError("--revisions is empty")
        check_revision(base, given=names)
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


def run_trajectory(name: str, points: Sequence[Checkpoint], suites: Sequence[str], config: RunConfig,
                   report: Report = print, progress_for: Callable[[str], Callable[[int, int], None]] | None = None
                   ) -> pd.DataFrame:
    """Run every suite at every checkpoint that is not done yet with these settings on these weights
    (saying why one runs again), one process per name at a time; returns a table of the runs."""
    with writing(name):
        done = load_state(name, report)
        memo: dict[str, str] = {}  # weights per checkpoint, item sets per suite: each found once
        for point in points:
            for suite in suites:
                run = replace(config, suite=suite)
                key, settings = f"{point.label}|{suite}", run_settings(point.spec, run)
                before = done.get(key)
                if before is not None:
                    why = why_again(before, settings,
                                    _once(memo, f"weights {point.label}", partial(weights_identity, point.spec)),
                                    _once(memo, f"items {suite}", partial(item_set, run)))
                    if not why:
                        report(f"{point.label} {suite}: done before ({before['record']})")
                        continue
                    report(f"{point.label} {suite}: run again: {why}")
                done[key] = _run(name, point, run, settings, report, progress_for)
                save_state(name, done)
                if before and before["record"] != done[key]["record"] and withdraw_run(Path(before["record"])):
                    report(f"{point.label} {suite}: the rows of the earlier run ({Path(before['record']).name}) "
                           "left the results table; its record is kept")
            clear_loaded()  # one checkpoint in memory at a time
    for duplicate in duplicate_checkpoints(load_results(), name):
        report(f"warning: {duplicate.warning()}")
    return pd.DataFrame([{"checkpoint": k.split("|")[0], "suite": k.split("|")[1],
                          **{f: v.get(f) for f in SHOWN}} for k, v in done.items()])


def _once(memo: dict[str, str], key: str, compute: Callable[[], str]) -> Callable[[], str]:
    """compute(), called the first time only, its value kept in `memo` under `key`."""
    def get() -> str:
        if key not in memo:
            memo[key] = compute()
        return memo[key]
    return get


def _run(name: str, point: Checkpoint, config: RunConfig, settings: dict[str, object], report: Report,
         progress_for: Callable[[str], Callable[[int, int], None]] | None) -> Entry:
    """Run one suite at one checkpoint and report its mean accuracy; its done entry."""
    progress = progress_for(f"{point.label} {config.suite}") if progress_for else None
    record = run_suite(point.spec, config, progress, ResultsLabel(name, point.label, point.step))
    acc = record.summary.loc[record.summary["filter"].isin(["all", "Avg_Test"]), "accuracy"]
    report(f"{point.label} {config.suite}: mean accuracy {acc.mean():.3f} ({record.path.name})")
    m = record.manifest
    return {"record": str(record.path), "step": point.step, "model": point.spec.name,
            "revision": point.spec.revision, "settings": settings, "items": m.items.hash,
            "weights": m.model.weights_sha256}
