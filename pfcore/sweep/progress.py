"""What a sweep shows: the board its tasks report to (run as a Ray actor), the progress over jobs
and per running job, and the summary (done / skipped / failed), shaped as text lines for the
terminal and as rows and tables for the app."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import pandas as pd

from pfcore.progress import Progress, text_bar
from pfcore.sweep.jobs import DONE, FAILED, SKIPPED, Job
from pfcore.sweep.plan import SweepPlan


@dataclass(frozen=True)
class JobProgress:
    """Where a running job is: the suite it runs and that run's Progress."""

    suite: str
    progress: Progress


class Board:
    """The progress board, run as a Ray actor: every task reports where it is, the driver reads it."""

    def __init__(self) -> None:
        self.jobs: dict[str, JobProgress] = {}

    def report(self, job: str, suite: str, progress: Progress) -> None:
        """Note where a job is now."""
        self.jobs[job] = JobProgress(suite, progress)

    def snapshot(self) -> dict[str, JobProgress]:
        """Where every job that reported is."""
        return dict(self.jobs)


@dataclass
class SweepProgress:
    """A sweep in progress: every job's label, the finished ones' status, the running ones' place,
    and when it started (by `clock`), for the rate and ETA over jobs."""

    labels: dict[str, str]
    status: dict[str, str] = field(default_factory=dict)
    running: dict[str, JobProgress] = field(default_factory=dict)
    clock: Callable[[], float] = time.monotonic
    started: float | None = None

    def __post_init__(self) -> None:
        if self.started is None:
            self.started = self.clock()

    def count(self, status: str) -> int:
        """Finished jobs with this status."""
        return sum(1 for s in self.status.values() if s == status)

    @property
    def jobs(self) -> Progress:
        """The sweep as a Progress over jobs: those skipped (their results were there) are done but
        not fresh, so the rate and the ETA come from the jobs that ran."""
        elapsed = self.clock() - (self.started or 0.0)
        return Progress(len(self.status), len(self.status) - self.count(SKIPPED), len(self.labels), elapsed,
                        unit="jobs")

    @property
    def fraction(self) -> float:
        """Finished jobs as a fraction of all jobs."""
        return self.jobs.fraction

    def headline(self) -> str:
        """The jobs in one line: how many finished, and how, then the rate and ETA over jobs."""
        jobs = self.jobs
        return " · ".join([f"{len(self.status)} of {len(self.labels)} jobs finished: {self.count(DONE)} done, "
                           f"{self.count(SKIPPED)} skipped, {self.count(FAILED)} failed",
                           *filter(None, [jobs.rate_text()]), jobs.eta_text()])

    def job_rows(self) -> list[tuple[str, float, str]]:
        """(label, fraction, text) for each job running now: its suite, percentage and status line."""
        return [(self.labels[job], where.progress.fraction,
                 f"{where.suite} {100 * where.progress.fraction:.0f}%: {where.progress.text()}")
                for job, where in self.running.items() if job not in self.status and job in self.labels]

    def lines(self) -> list[str]:
        """The terminal view: a bar over jobs, then one line per running job."""
        return [f"jobs {text_bar(self.fraction)} {self.headline()}",
                *(f"  {label}: {text}" for label, _, text in self.job_rows())]


@dataclass(frozen=True)
class JobReport:
    """How one job ended: done, skipped (its results were there) or failed, with the reason."""

    job: str
    label: str
    status: str
    reason: str = ""
    seconds: float | None = None


@dataclass
class SweepSummary:
    """The end of a sweep: every job's report, wall time, and what the merges added."""

    plan: str
    out: str
    reports: list[JobReport]
    wall_s: float
    scores: int = 0
    rows: int = 0

    def of(self, status: str) -> list[JobReport]:
        """The reports with one status."""
        return [r for r in self.reports if r.status == status]

    def line(self) -> str:
        """The summary in one line."""
        return (f"{len(self.of(DONE))} done, {len(self.of(SKIPPED))} skipped, {len(self.of(FAILED))} failed "
                f"in {self.wall_s:.1f} s; merged {self.scores:,} new scores and {self.rows:,} results rows "
                f"(shards in {self.out})")

    def to_json(self) -> dict[str, object]:
        """The summary as one JSON object: done / skipped / failed lists, timings, the out folder."""
        return {"plan": self.plan, "out": self.out, "wall_s": round(self.wall_s, 3),
                "merged_scores": self.scores, "merged_rows": self.rows,
                **{status: [asdict(r) for r in self.of(status)] for status in (DONE, SKIPPED, FAILED)}}

    def table(self) -> pd.DataFrame:
        """One row per job: label, status, reason, seconds (failed first)."""
        order = {FAILED: 0, DONE: 1, SKIPPED: 2}
        rows = sorted(self.reports, key=lambda r: order.get(r.status, 3))
        return pd.DataFrame([{"job": r.label, "status": r.status, "reason": r.reason, "seconds": r.seconds}
                             for r in rows], columns=["job", "status", "reason", "seconds"])


def plan_caption(plan: SweepPlan, jobs: Sequence[Job]) -> str:
    """What a plan will run, in one line."""
    suites = ", ".join(c.suite for c in plan.suites)
    return (f"{plan.name}: {len(plan.models)} model(s), {len(jobs)} job(s) (one per model and revision), "
            f"each running {suites}; up to {plan.retries} retries of a job whose worker dies.")


def jobs_table(jobs: Sequence[Job]) -> pd.DataFrame:
    """The plan's jobs, one row each: model name, revision, step, where it loads from, resources."""
    return pd.DataFrame([{"model": j.name, "revision": j.point.label, "step": j.point.step,
                          "loads": j.point.spec.label, "cpus": j.resources.cpus, "gpus": j.resources.gpus}
                         for j in jobs], columns=["model", "revision", "step", "loads", "cpus", "gpus"]
                        ).astype({"step": "Int64"})
