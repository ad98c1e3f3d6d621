"""`python -m pfcore sweep PLAN.yaml`: run a sweep plan on Ray with a bar over jobs and a line per
running job (on stderr), then print the summary (or one JSON object). Exit status 2 when a job
failed for a reason of its own; the others are done and merged all the same; 130 when interrupted
(Ctrl-C or SIGTERM)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pfcore.output import json_text
from pfcore.sweep.driver import run_sweep
from pfcore.sweep.jobs import DONE, FAILED
from pfcore.sweep.plan import load_plan
from pfcore.sweep.progress import SweepProgress


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `sweep` sub-command."""
    p = sub.add_parser("sweep", help="run a sweep plan (models x checkpoints x suites) on Ray",
                       description="Run every (model, revision) job of a sweep plan as a Ray task, each in a "
                       "shard of its own, merged into the score cache and the results table as it finishes. "
                       "Jobs whose results are there already are skipped. Ctrl-C or SIGTERM cancels the running "
                       "jobs (exit status 130) and stops a local Ray instance with nothing left running; the "
                       "next run resumes. See docs/sweeps.md.")
    p.add_argument("plan", help="the sweep plan (YAML), e.g. docs/plans/pythia-paper.yaml")
    p.add_argument("--address", help="join an existing Ray cluster: 'auto' or HOST:PORT "
                   "(default: start a local Ray instance sized to this machine)")
    p.add_argument("--out", help="folder for the jobs' shards and the summary (default: cache/sweeps/<plan "
                   "name>); on a cluster, a folder every node sees")
    p.add_argument("--json", action="store_true", help="print one JSON summary object")
    p.set_defaults(func=sweep)


class Screen:
    """The sweep's progress on stderr: redrawn in place on a terminal, else printed whenever a job
    finishes (so a cluster's log gets a line per job, not a flood)."""

    def __init__(self, enabled: bool, tty: bool) -> None:
        self.enabled, self.tty = enabled, tty
        self.drawn = 0
        self.finished = -1

    def draw(self, progress: SweepProgress) -> None:
        """Show the progress now."""
        if not self.enabled or (not self.tty and len(progress.status) == self.finished):
            return
        lines = progress.lines()
        back = f"\x1b[{self.drawn}F\x1b[J" if self.tty and self.drawn else ""
        sys.stderr.write(back + "\n".join(lines) + "\n")
        sys.stderr.flush()
        self.drawn, self.finished = len(lines), len(progress.status)


def sweep(args: argparse.Namespace) -> int:
    """Run the plan and print its summary; 2 when a job failed."""
    plan = load_plan(args.plan)
    tty = sys.stderr.isatty()
    summary = run_sweep(plan, Path(args.out) if args.out else None, args.address,
                        Screen(enabled=tty or not args.json, tty=tty).draw)
    failed = summary.of(FAILED)
    if args.json:
        print(json_text(summary.to_json()))
    else:
        print(f"sweep {plan.name!r}: {summary.line()}")
        for report in summary.of(DONE):
            if report.reason:  # a job merged before that ran again, and why
                print(f"{report.label}: {report.reason}")
        for report in failed:
            print(f"failed {report.label}: {report.reason}")
    if failed:
        print(f"error: {len(failed)} of {len(summary.reports)} jobs failed (see the summary); the others are "
              "merged, and a rerun retries only the failed ones", file=sys.stderr)
        return 2
    return 0
