"""One job of a sweep: one (model, revision) with every suite of the plan, run as one Ray task in a
shard of its own (its own PFCORE_CACHE: score cache, run records, results rows), so that no SQLite
file is ever shared between nodes. A retried job finds its shard: the suites it finished are
skipped, and the scores it committed are read back, not scored again."""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pfcore.errors import InputError, PfcoreError
from pfcore.files import file_slug, make_folder, write_atomic
from pfcore.paths import environment
from pfcore.progress import ProgressView, throttled
from pfcore.runs.checkpoints import Checkpoint
from pfcore.runs.runner import ResultsLabel, run_suite
from pfcore.runs.settings import run_settings, weights_change
from pfcore.scoring.models import MODELS
from pfcore.store.manifest import read_manifest
from pfcore.store.published import DISABLE_VAR
from pfcore.suites.base import RunConfig
from pfcore.sweep.plan import Resources, SweepPlan

SHARD_LEDGER = "job.json"  # in a shard: the suites it finished and their run records
PID_FILE = "worker.pid"  # in a shard: the process running (or last running) the job
REPORT_S = 0.5  # seconds between two progress reports of a job
DONE, SKIPPED, FAILED = "done", "skipped", "failed"


@dataclass(frozen=True)
class Job:
    """One Ray task: a checkpoint of a model, the suites to run on it, and its resources."""

    id: str
    name: str  # the model's name in the results table
    point: Checkpoint
    configs: tuple[RunConfig, ...]
    resources: Resources

    @property
    def label(self) -> str:
        """The job in words: model name @ revision."""
        return f"{self.name}@{self.point.label}"


@dataclass(frozen=True)
class JobOutcome:
    """What a task returns: done, or failed for a reason of its own (with that reason)."""

    job: str
    status: str
    reason: str = ""
    seconds: float = 0.0


def plan_jobs(plan: SweepPlan) -> list[Job]:
    """Every job of a plan: one per model and checkpoint, in the plan's order."""
    return [Job(job_id(entry.name, point, plan.suites), entry.name, point, plan.suites, entry.resources)
            for entry in plan.models for point in entry.points]


def job_id(name: str, point: Checkpoint, configs: tuple[RunConfig, ...]) -> str:
    """A stable id of (model, revision, suites, the settings that change their numbers): readable,
    then a digest, so that a rerun of the plan finds the job's shard and its place in the merge
    ledger, and a plan with other settings runs again."""
    settings = [run_settings(point.spec, c) for c in configs]
    key = json.dumps({"name": name, "revision": point.label, "step": point.step, "suites": settings},
                     sort_keys=True, default=str)
    return f"{file_slug(f'{Path(name).name}-{point.label}')}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def shard_folder(out: Path, job: Job) -> Path:
    """Where a job keeps its shard under the sweep's folder."""
    return out / "shards" / job.id


def finished_suites(shard: Path) -> dict[str, str]:
    """The suites a shard finished, each with its run record's folder name under shard/runs/."""
    try:
        return dict(json.loads((shard / SHARD_LEDGER).read_text())["suites"])
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def run_job(job: Job, shard: str, models: str, board: Any = None) -> JobOutcome:
    """The body of a job's Ray task: with the shard as PFCORE_CACHE and the main cache's converted
    models, torch on the job's CPUs, run every unfinished suite; a pfcore error (unknown revision,
    damaged checkpoint) is the job's own failure and is returned, not raised, so Ray does not retry it."""
    import torch  # in the worker only: the driver never loads a model

    started = time.monotonic()
    torch.set_num_threads(job.resources.threads)
    folder = make_folder(Path(shard), "the job's shard folder")
    # a shard's results table holds its own runs only (the main cache has the bundled rows)
    with environment(PFCORE_CACHE=str(folder), PFCORE_MODELS=models, **{DISABLE_VAR: "0"}):
        write_atomic(folder / PID_FILE, str(os.getpid()), "the job's pid file")
        try:
            _run_suites(job, folder, board)
        except PfcoreError as exc:
            return JobOutcome(job.id, FAILED, str(exc), round(time.monotonic() - started, 3))
        finally:
            MODELS.clear()  # a worker runs many jobs: one model in memory at a time
    return JobOutcome(job.id, DONE, "", round(time.monotonic() - started, 3))


def _run_suites(job: Job, folder: Path, board: Any) -> None:
    """Every suite the shard has not finished on the weights the job loads now, as `run_trajectory`
    runs one (the model loads once, on the first suite that needs it), each added to the shard's
    ledger as soon as it is done."""
    done = finished_suites(folder)
    label = ResultsLabel(job.name, job.point.label, job.point.step)
    weights = MODELS.weights(job.point.spec) if done else ""
    for number, config in enumerate(job.configs, start=1):
        if config.suite in done and _scored_on(folder / "runs" / done[config.suite], weights):
            continue
        progress = _reporter(board, job.id, f"{config.suite} ({number}/{len(job.configs)})")
        done[config.suite] = run_suite(job.point.spec, config, progress, label).path.name
        write_atomic(folder / SHARD_LEDGER, json.dumps({"job": job.id, "label": job.label, "suites": done}, indent=1),
                     "the shard's ledger")


def _scored_on(record: Path, weights: str) -> bool:
    """Whether a finished suite's run record was scored on these weights (a record that cannot be
    read was not: the suite runs again)."""
    try:
        return not weights_change(read_manifest(record / "manifest.json").model.weights_sha256, weights)
    except InputError:
        return False


def _reporter(board: Any, job: str, suite: str) -> ProgressView | None:
    """A progress view sending (job, suite, progress) to the sweep's board actor, at most every
    REPORT_S seconds (and at the end); None without a board."""
    return None if board is None else throttled(lambda progress: board.report.remote(job, suite, progress),
                                                 min_interval=REPORT_S)
