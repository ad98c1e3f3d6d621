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
from pfcore.runs.runner import ResultsLabel, run_suite
from pfcore.runs.settings import item_set, run_settings
from pfcore.runs.trajectory_state import Entry, load_state, save_state, why_again, writing
from pfcore.scoring.models import MODELS
from pfcore.store.results import withdraw_run
from pfcore.suites.base import RunConfig

Report = Callable[[str], None]
SHOWN = ("record", "step", "model", "revision")  # of each done entry, in the table `run_trajectory` returns


def run_trajectory(name: str, points: Sequence[Checkpoint], suites: Sequence[SuiteName], config: RunConfig,
                   report: Report = print, progress_for: Callable[[str], ProgressView] | None = None
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
                                    _once(memo, f"weights {point.label}", partial(MODELS.weights, point.spec)),
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
            MODELS.clear()  # one checkpoint in memory at a time
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
         progress_for: Callable[[str], ProgressView] | None) -> Entry:
    """Run one suite at one checkpoint and report its mean accuracy; its done entry."""
    progress = progress_for(f"{point.label} {config.suite}") if progress_for else None
    record = run_suite(point.spec, config, progress, ResultsLabel(name, point.label, point.step))
    acc = record.summary.loc[record.summary["filter"].isin(["all", "Avg_Test"]), "accuracy"]
    report(f"{point.label} {config.suite}: mean accuracy {acc.mean():.3f} ({record.path.name})")
    m = record.manifest
    return {"record": str(record.path), "step": point.step, "model": point.spec.name,
            "revision": point.spec.revision, "settings": settings, "items": m.items.hash,
            "weights": m.model.weights_sha256}
