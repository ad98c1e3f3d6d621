"""Bring a finished shard into the main cache: its scores (INSERT OR IGNORE), its run records
(copied into runs/, so the app lists them) and their rows of the results table (replacing rows of
the same source); then remember the job as merged, with the weights it was scored on. Every step is
idempotent: merging twice changes nothing, and a merge cut short is simply done again. A job merged
before runs again when its rows left the table or its checkpoint's weights changed."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pfcore.errors import InputError, PfcoreError
from pfcore.paths import JsonMemo, cache_subdir
from pfcore.runs.settings import weights_change
from pfcore.scoring.models import MODELS
from pfcore.store.cache import ScoreCache
from pfcore.store.manifest import read_manifest
from pfcore.store.results import append_results, load_results, run_rows, withdraw_run
from pfcore.store.runs import RUN_ROWS, copy_run
from pfcore.sweep.jobs import Job, finished_suites

MERGED = "sweeps/merged.json"  # under the main cache: job id -> its sources, records and weights


@dataclass(frozen=True)
class Merged:
    """What merging a shard added: new scores, results rows, the sources of those rows, the run
    records they come from (folder names under runs/) and the weights they were scored on."""

    scores: int
    rows: int
    sources: tuple[str, ...]
    records: tuple[str, ...] = ()
    weights: str = ""


def merge_shard(shard: Path, suites: Sequence[str]) -> Merged:
    """Merge a shard whose ledger lists every one of `suites` into the main cache."""
    records = finished_suites(shard)
    if missing := [s for s in suites if s not in records]:
        raise InputError(f"{shard}: the shard has not finished {', '.join(missing)}; nothing merged")
    folders = [shard / "runs" / records[s] for s in suites]
    scores = _merge_scores(shard / "scores.sqlite")
    runs = cache_subdir("runs")
    for folder in folders:
        copy_run(folder, runs)
    rows = pd.concat([run_rows(folder / RUN_ROWS) for folder in folders], ignore_index=True)
    append_results(rows)
    weights = next((w for f in folders if (w := read_manifest(f / "manifest.json").model.weights_sha256)), "")
    return Merged(scores, len(rows), tuple(sorted(rows["source"].unique())), tuple(f.name for f in folders), weights)


def _merge_scores(path: Path) -> int:
    """Add the shard's scores the main score cache lacks; how many were added."""
    if not path.is_file():
        return 0
    with ScoreCache() as cache:
        return cache.merge_from(path)


def remember(job: Job, merged: Merged) -> None:
    """Note in the main cache that a job is merged, with what it added and the weights it was scored
    on; the rows of its earlier merge's runs that this one replaced leave the results table."""
    cache_subdir("sweeps")
    memo = JsonMemo(MERGED)
    known = memo.read()
    earlier = set(known.get(job.id, {}).get("records", ())) - set(merged.records)
    for name in sorted(earlier):
        withdraw_run(cache_subdir("runs") / name)
    known[job.id] = {"label": job.label, "sources": list(merged.sources), "records": list(merged.records),
                     "weights": merged.weights}
    memo.write(known)


def merged_before(jobs: Sequence[Job]) -> dict[str, str]:
    """The jobs merged before whose every source is still in the results table, each with '' when
    its results stand, or why it runs again (its checkpoint's weights changed since)."""
    known = JsonMemo(MERGED).read()
    if not any(job.id in known for job in jobs):
        return {}
    present = set(load_results()["source"])
    return {job.id: _why_again(job, known[job.id]) for job in jobs
            if job.id in known and known[job.id].get("sources") and set(known[job.id]["sources"]) <= present}


def _why_again(job: Job, merged: dict[str, object]) -> str:
    """'' when a merged job's results stand for the weights its checkpoint holds now, else why not
    (a checkpoint that cannot be read now runs again, and fails alone with its reason)."""
    try:
        changed = weights_change(str(merged.get("weights") or ""), MODELS.weights(job.point.spec))
    except PfcoreError as exc:
        changed = f"its weights cannot be checked ({exc})"
    return f"run again: {changed}" if changed else ""
