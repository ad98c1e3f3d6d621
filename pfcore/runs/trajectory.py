"""Learning trajectories: run suites over a model's checkpoints, one checkpoint loaded at a time,
each (checkpoint, suite) result added to the long results table as soon as it is done, so an
interrupted trajectory resumes where it stopped."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

import pandas as pd

from pfcore.names import SuiteName
from pfcore.progress import ProgressView
from pfcore.runs.checkpoints import Checkpoint
from pfcore.runs.prefetch import Prefetch
from pfcore.runs.runner import ResultsLabel, run_suite
from pfcore.runs.settings import item_set, run_settings
from pfcore.runs.trajectory_state import Entry, load_state, save_state, why_again, writing
from pfcore.scoring.models import MODELS
from pfcore.store.results import withdraw_run
from pfcore.suites.base import RunConfig

Report = Callable[[str], None]
SHOWN = ("record", "step", "model", "revision", "dtype", "device")  # of each done entry, in the table returned


def run_trajectory(name: str, points: Sequence[Checkpoint], suites: Sequence[SuiteName], config: RunConfig,
                   report: Report = print, progress_for: Callable[[str], ProgressView] | None = None,
                   *, prefetch: bool = True) -> pd.DataFrame:
    """Run every suite at every checkpoint that is not done yet with these settings on these weights
    (saying why one runs again), one process per name at a time; returns a table of the runs. With
    `prefetch`, the next checkpoint to run loads while this one scores, when memory allows
    (`Prefetch`); the numbers are the same either way."""
    with writing(name):
        done = load_state(name, report)
        memo: dict[str, str] = {}  # weights per checkpoint, item sets per suite: each found once
        todo = [_pending(point, suites, config, done, memo) for point in points]
        with Prefetch(enabled=prefetch) as ahead:
            _run_points(name, points, todo, config, done, ahead, report, progress_for)
        if summary := ahead.summary():
            report(summary)
    return pd.DataFrame([{"checkpoint": k.split("|")[0], "suite": k.split("|")[1],
                          **{f: v.get(f) for f in SHOWN}} for k, v in done.items()])


def _run_points(name: str, points: Sequence[Checkpoint], todo: list[Pending], config: RunConfig,
                done: dict[str, Entry], ahead: Prefetch, report: Report,
                progress_for: Callable[[str], ProgressView] | None) -> None:
    """Run what each checkpoint has to run, loading the next one that has work ahead of it."""
    for index, point in enumerate(points):
        ahead.wait(point.spec)
        following = next((p for p, work in zip(points[index + 1:], todo[index + 1:]) if _runs_any(work)), None)
        if _runs_any(todo[index]) and following is not None:
            ahead.start(point.spec, following.spec)
        for suite, before, why in todo[index]:
            _run_suite_at(name, point, replace(config, suite=suite), done, before, why, report, progress_for)
        ahead.scored()
        MODELS.forget(point.spec)  # one checkpoint in memory at a time, but for the next one loading


def _run_suite_at(name: str, point: Checkpoint, run: RunConfig, done: dict[str, Entry], before: Entry | None,
                  why: str, report: Report, progress_for: Callable[[str], ProgressView] | None) -> None:
    """Run one suite at one checkpoint unless it is done (saying why it runs again); save its entry."""
    key = f"{point.label}|{run.suite}"
    if before is not None and not why:
        report(f"{point.label} {run.suite}: done before ({before['record']})")
        return
    if why:
        report(f"{point.label} {run.suite}: run again: {why}")
    done[key] = _run(name, point, run, run_settings(point.spec, run), report, progress_for)
    save_state(name, done)
    if before and before["record"] != done[key]["record"] and withdraw_run(Path(before["record"])):
        report(f"{point.label} {run.suite}: the rows of the earlier run ({Path(before['record']).name}) "
               "left the results table; its record is kept")


Pending = list[tuple[SuiteName, Entry | None, str]]  # per suite: its done entry, and why it runs again ('' if not)


def _pending(point: Checkpoint, suites: Sequence[SuiteName], config: RunConfig, done: dict[str, Entry],
             memo: dict[str, str]) -> Pending:
    """Each suite at a checkpoint with its done entry and why it runs again ('' when it does not, or
    has never run), found without loading the model."""
    found: Pending = []
    for suite in suites:
        run = replace(config, suite=suite)
        before = done.get(f"{point.label}|{suite}")
        why = "" if before is None else why_again(
            before, run_settings(point.spec, run),
            _once(memo, f"weights {point.label}", partial(MODELS.weights, point.spec)),
            _once(memo, f"items {suite}", partial(item_set, run)))
        found.append((suite, before, why))
    return found


def _runs_any(pending: Pending) -> bool:
    """Whether a checkpoint has a suite to run."""
    return any(why or before is None for _suite, before, why in pending)


def _once(memo: dict[str, str], key: str, compute: Callable[[], str]) -> Callable[[], str]:
    """compute(), called the first time only, its value kept in `memo` under `key`."""
    def get() -> str:
        if key not in memo:
            memo[key] = compute()
        return memo[key]
    return get


def _run(name: str, point: Checkpoint, config: RunConfig, settings: dict[str, object], report: Report,
         progress_for: Callable[[str], ProgressView] | None) -> Entry:
    """Run one suite at one checkpoint and report its mean accuracy; its done entry."""
    progress = progress_for(f"{point.label} {config.suite}") if progress_for else None
    record = run_suite(point.spec, config, progress, ResultsLabel(name, point.label, point.step))
    acc = record.summary.loc[record.summary["filter"].isin(["all", "Avg_Test"]), "accuracy"]
    report(f"{point.label} {config.suite}: mean accuracy {acc.mean():.3f} ({record.path.name})")
    m = record.manifest
    return {"record": str(record.path), "step": point.step, "model": point.spec.name,
            "revision": point.spec.revision, "dtype": m.model.dtype, "device": m.model.device,
            "settings": settings, "items": m.items.hash,
            "weights": m.model.weights_sha256}
