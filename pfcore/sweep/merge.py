"""Bring a finished shard into the main cache: its scores (INSERT OR IGNORE), its run records
(copied into runs/, so the app lists them) and their rows of the results table (replacing rows of
the same source); then remember the job as merged. Every step is idempotent: merging twice
changes nothing, and a merge cut short is simply done again."""
from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pfcore.errors import InputError
from pfcore.paths import JsonMemo, cache_subdir
from pfcore.store.cache import ScoreCache
from pfcore.store.results import RUN_ROWS, append_results, load_results, run_rows
from pfcore.sweep.jobs import Job, finished_suites

MERGED = "sweeps/merged.json"  # under the main cache: job id -> the results sources it added


@dataclass(frozen=True)
class Merged:
    """What merging a shard added: new scores, results rows and the sources of those rows."""

    scores: int
    rows: int
    sources: tuple[str, ...]


def merge_shard(shard: Path, suites: Sequence[str]) -> Merged:
    """Merge a shard whose ledger lists every one of `suites` into the main cache."""
    records = finished_suites(shard)
    missing = [s for s in suites if s not in records]
    if missing:
        raise InputError(f"{shard}: the shard has not finished {', '.join(missing)}; nothing merged")
    folders = [shard / "runs" / records[s] for s in suites]
    scores = _merge_scores(shard / "scores.sqlite")
    runs = cache_subdir("runs")
    for folder in folders:
        shutil.copytree(folder, runs / folder.name, dirs_exist_ok=True)
    rows = pd.concat([run_rows(folder / RUN_ROWS) for folder in folders], ignore_index=True)
    append_results(rows)
    return Merged(scores, len(rows), tuple(sorted(rows["source"].unique())))


def _merge_scores(path: Path) -> int:
    """Add the shard's scores the main score cache lacks; how many were added."""
    if not path.is_file():
        return 0
    cache = ScoreCache()
    try:
        return cache.merge_from(path)
    finally:
        cache.close()


def remember(job: Job, merged: Merged) -> None:
    """Note in the main cache that a job is merged, with the results sources it added."""
    cache_subdir("sweeps")
    memo = JsonMemo(MERGED)
    known = memo.read()
    known[job.id] = {"label": job.label, "sources": list(merged.sources)}
    memo.write(known)


def already_merged(jobs: Sequence[Job]) -> set[str]:
    """The jobs whose results are in the results table: merged before, and every source they added
    still there (a job whose rows were removed from the table runs again)."""
    known = JsonMemo(MERGED).read()
    if not any(job.id in known for job in jobs):
        return set()
    present = set(load_results()["source"])
    return {job.id for job in jobs
            if job.id in known and known[job.id].get("sources") and set(known[job.id]["sources"]) <= present}
