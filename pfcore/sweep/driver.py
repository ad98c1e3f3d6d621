"""Run a sweep plan on Ray: skip the jobs whose results are in the results table already (unless
their checkpoint's weights changed since: those run again, and their report says why), start
(or join) Ray, submit one task per remaining job, follow them on a board actor, merge each shard as
its job finishes, and sum up. Interrupted (Ctrl-C, SIGTERM, the app's Stop), it cancels what still runs:
finished jobs are merged, unfinished ones keep their shards, and the next run resumes them."""
from __future__ import annotations

import contextlib
import logging
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from pfcore.errors import InputError, PfcoreError, first_line
from pfcore.files import make_folder, write_atomic
from pfcore.models.spec import DEFAULT_MODEL
from pfcore.output import json_text
from pfcore.paths import cache_subdir, models_dir
from pfcore.scoring.models import MODELS
from pfcore.sweep import processes
from pfcore.sweep.jobs import DONE, FAILED, SKIPPED, Job, plan_jobs, run_job, shard_folder
from pfcore.sweep.merge import Merged, merge_shard, merged_before, remember
from pfcore.sweep.plan import SweepPlan
from pfcore.sweep.progress import Board, JobReport, SweepProgress, SweepSummary

POLL_S = 0.5  # seconds between two looks at the running jobs
SUMMARY = "summary.json"  # in the sweep's folder: the last run's summary

Update = Callable[[SweepProgress], None]


def run_sweep(plan: SweepPlan, out: Path | None = None, address: str | None = None,
              on_update: Update | None = None) -> SweepSummary:
    """Run every job of the plan not merged before, on Ray (local, or the cluster at `address`),
    calling `on_update` as jobs progress; shards and the summary go to `out` (cache/sweeps/<name>)."""
    started = time.monotonic()
    folder = make_folder(Path(out) if out else cache_subdir("sweeps") / plan.name, "the sweep's folder (--out)")
    folder = folder.resolve()
    jobs = plan_jobs(plan)
    before = merged_before(jobs)
    skipped, again = {j for j, why in before.items() if not why}, {j: why for j, why in before.items() if why}
    progress = SweepProgress({j.id: j.label for j in jobs}, dict.fromkeys(skipped, SKIPPED))
    reports = [JobReport(j.id, j.label, SKIPPED, "its results are in the results table") for j in jobs
               if j.id in skipped]
    merged: list[Merged] = []
    todo = [j for j in jobs if j.id not in skipped]
    if on_update:
        on_update(progress)
    if todo:
        _convert_once(todo)
        with ray_session(address):
            reports += _run_on_ray(todo, plan.retries, folder, progress, on_update, merged)
    reports = [replace(r, reason=again[r.job]) if r.job in again and r.status == DONE else r for r in reports]
    order = {j.id: i for i, j in enumerate(jobs)}
    summary = SweepSummary(str(plan.path), str(folder), sorted(reports, key=lambda r: order[r.job]),
                           time.monotonic() - started, sum(m.scores for m in merged), sum(m.rows for m in merged))
    write_atomic(folder / SUMMARY, json_text(summary.to_json(), indent=1), "the sweep's summary")
    return summary


@contextmanager
def ray_session(address: str | None) -> Iterator[None]:
    """Ray for a sweep: the instance this process has already, the cluster at `address` ('auto' or
    HOST:PORT), or else a local instance sized to the machine, started and stopped here. SIGTERM
    interrupts as Ctrl-C does; a local instance leaves no process behind (`processes`)."""
    import ray

    if address and address != "auto":
        _check_answers(address)
    if ray.is_initialized():
        yield
        return
    where = f"join the Ray cluster at {address}" if address else "start a local Ray instance"
    before = processes.child_pids()
    try:
        where_to = {"address": address} if address else {"include_dashboard": False}
        ray.init(**where_to, log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        processes.end(processes.family(processes.ray_children(before)))
        raise InputError(f"cannot {where}: {first_line(exc)}") from exc
    started = processes.ray_children(before)  # none when joining a cluster
    try:
        with processes.terminate_as_interrupt():
            yield
    finally:
        with processes.signals_held():
            left = processes.family(started)
            ray.shutdown()
            processes.end(left)


def _check_answers(address: str, timeout: float = 5.0) -> None:
    """InputError unless something answers at HOST:PORT (Ray itself would wait minutes for it)."""
    host, _, port = address.rpartition("://")[2].rpartition(":")
    if not host or not port.isdigit():
        raise InputError(f"--address must be 'auto' or HOST:PORT, got {address!r}")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise InputError(f"nothing answers at {address} ({exc.strerror or exc}); is the Ray head running "
                         "there?") from exc


def _convert_once(jobs: Sequence[Job]) -> None:
    """Convert each GGUF model (the default one too) once, here, before the jobs start: they share
    the main cache's models folder and would otherwise all convert it at the same time."""
    gguf = {j.point.spec.name: j.point.spec for j in jobs
            if j.point.spec.name == DEFAULT_MODEL or j.point.spec.name.endswith(".gguf")}
    for spec in gguf.values():
        with contextlib.suppress(PfcoreError):  # a job that needs it reports the problem
            MODELS.source(spec)


def _run_on_ray(jobs: Sequence[Job], retries: int, folder: Path, progress: SweepProgress,
                on_update: Update | None, merged: list[Merged]) -> list[JobReport]:
    """Submit one task per job, merge each as it finishes, and report progress until all end;
    whatever still runs when this is interrupted is cancelled."""
    import ray

    board: Any = ray.remote(Board).options(num_cpus=0).remote()  # an ActorHandle; ray types it loosely
    task = ray.remote(run_job)
    models = str(models_dir())
    pending = {task.options(num_cpus=j.resources.cpus, num_gpus=j.resources.gpus, max_retries=retries,
                            name=f"pfcore-sweep {j.label}").remote(j, str(shard_folder(folder, j)), models, board): j
               for j in jobs}
    reports = []
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=POLL_S)
            for ref in ready:
                job = pending.pop(ref)
                report, added = _finish(job, ref, folder, retries)
                reports.append(report)
                if added:
                    merged.append(added)
                progress.status[job.id] = report.status
            progress.running = ray.get(board.snapshot.remote())
            if on_update:
                on_update(progress)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        ray.kill(board)
    return reports


def _finish(job: Job, ref: Any, folder: Path, retries: int) -> tuple[JobReport, Merged | None]:
    """A finished task's report; a job that is done has its shard merged here."""
    import ray

    try:
        outcome = ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        cause = getattr(exc, "cause", None) or exc
        reason = f"unexpected {type(cause).__name__}: {(str(cause).splitlines() or [''])[0]}"
        return JobReport(job.id, job.label, FAILED, reason), None
    except ray.exceptions.RayError as exc:
        return JobReport(job.id, job.label, FAILED, f"its worker died {retries + 1} times ({type(exc).__name__}); "
                         "its shard keeps what was scored"), None
    if outcome.status != DONE:
        return JobReport(job.id, job.label, FAILED, outcome.reason, outcome.seconds), None
    try:
        added = merge_shard(shard_folder(folder, job), [c.suite for c in job.configs])
    except (PfcoreError, OSError, ValueError) as exc:
        return JobReport(job.id, job.label, FAILED, f"its shard could not be merged: {exc}", outcome.seconds), None
    remember(job, added)
    return JobReport(job.id, job.label, DONE, "", outcome.seconds), added
