"""Benchmark: the same small sweep plan run sequentially (`run_trajectory`, one process, torch's
own thread count) and on a local Ray instance with N single-CPU workers (one job per worker), each
run in a fresh score cache. The two take turns for --rounds rounds (benchmarks/rounds.py; Ray is
started and stopped in each of its rounds). Prints each side's median wall time, the median ratio
with its range and each job's scoring rate, then one JSON line. On 2 cores expect no speed-up: it
measures what fanning out costs.

    python benchmarks/bench_sweep.py [--model tiny|default] [--blocks 3] [--workers 2] [--rounds 3]

`tiny`: the test suite's 2-layer GPT-2 trained and saved at steps 0/8/32 (3 jobs); `default`: the
default model under two names (2 jobs). Both run the semantic and syntactic suites on --blocks blocks.
"""
from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.tiny_models builds the checkpoint series

from rounds import alternate, ratio_line, rounds_option  # noqa: E402

from pfcore.models import DEFAULT_MODEL  # noqa: E402
from pfcore.paths import models_dir  # noqa: E402
from pfcore.runs.trajectory import run_trajectory  # noqa: E402
from pfcore.store.cache import TABLE  # noqa: E402
from pfcore.store.runs import list_runs  # noqa: E402
from pfcore.sweep.driver import run_sweep  # noqa: E402
from pfcore.sweep.jobs import Job, plan_jobs, shard_folder  # noqa: E402
from pfcore.sweep.plan import load_plan  # noqa: E402

SUITES = ("semantic", "syntax")


def parse() -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", choices=("tiny", "default"), default="tiny")
    p.add_argument("--blocks", type=int, default=3, help="blocks (or base sentences) per construction")
    p.add_argument("--workers", type=int, default=2, help="Ray CPUs, one single-thread job on each")
    rounds_option(p)
    return p.parse_args()


def write_plan(folder: Path, model: str, blocks: int) -> Path:
    """The plan both paths run: the tiny checkpoint series, or the default model under two names."""
    settings = f"{{limit-blocks: {blocks}}}"
    if model == "tiny":
        from tests.tiny_models import build_checkpoint_series

        series = build_checkpoint_series(folder / "ckpts")
        shutil.rmtree(series / "_base")
        models = f"  - checkpoint-dir: {series}\n    name: tiny-series\n"
    else:
        models = "".join(f"  - model: {DEFAULT_MODEL}\n    name: default-{i}\n" for i in (1, 2))
    path = folder / "plan.yaml"
    path.write_text("name: bench\nsuites:\n" + "".join(f"  {s}: {settings}\n" for s in SUITES)
                    + f"resources: {{cpus: 1}}\nmodels:\n{models}")
    return path


def sequential(plan_path: Path, cache: Path) -> None:
    """The plan's jobs one after another through `run_trajectory`, in this process, each model in a
    score cache of its own as each sweep job has (the default model under two names would otherwise
    be scored once); the plan's suites share their settings."""
    plan = load_plan(plan_path)
    for number, entry in enumerate(plan.models):
        os.environ["PFCORE_CACHE"] = str(cache / str(number))
        run_trajectory(entry.name, entry.points, [c.suite for c in plan.suites], plan.suites[0],
                       report=lambda _msg: None)


def on_ray(plan_path: Path, cache: Path, workers: int) -> tuple[float, Path]:
    """The plan as a sweep on a local Ray instance started and stopped here: (seconds of Ray's
    start, the sweep's folder)."""
    import ray

    os.environ["PFCORE_CACHE"] = str(cache)
    plan = load_plan(plan_path)
    started = time.monotonic()
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    ray_s = time.monotonic() - started
    try:
        summary = run_sweep(plan)
    finally:
        ray.shutdown()
    return ray_s, Path(summary.out)


def job_rate(out: Path, job: Job) -> dict[str, object]:
    """One job's distinct requests scored, its scoring seconds (all suites) and their rate."""
    shard = shard_folder(out, job)
    scored = _distinct(shard)
    score_s = sum(r.manifest.timings_s.score_s for r in list_runs(shard / "runs"))
    return {"job": job.label, "requests": scored, "score_s": round(score_s, 2),
            "requests_per_s": round(scored / score_s, 1) if score_s else None}


def _distinct(shard: Path) -> int:
    """Distinct requests in a shard's score cache (what the job scored)."""
    with sqlite3.connect(shard / "scores.sqlite") as conn:
        return int(conn.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0])


def job_medians(plan_path: Path, outs: list[Path]) -> list[dict[str, object]]:
    """Each job's distinct requests with its median scoring seconds and rate over the Ray rounds."""
    found = []
    for job in plan_jobs(load_plan(plan_path)):
        runs = [job_rate(out, job) for out in outs]
        score_s = statistics.median(float(str(r["score_s"])) for r in runs)
        requests = int(str(runs[0]["requests"]))
        found.append({"job": job.label, "requests": requests, "score_s": round(score_s, 2),
                      "requests_per_s": round(requests / score_s, 1) if score_s else None})
    return found


def main() -> None:
    """Run both paths on the same plan, in turns, and print the comparison."""
    args = parse()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["PFCORE_MODELS"] = str(models_dir())  # the default model is converted once, not per cache
    ray_runs: list[tuple[float, Path]] = []
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
        folder = Path(tmp)
        plan = write_plan(folder, args.model, args.blocks)
        fresh = itertools.count()  # a new score cache for every run: nothing is served from an earlier one
        timed = alternate({"sequential": lambda: sequential(plan, folder / f"cache-{next(fresh)}"),
                           "ray": lambda: ray_runs.append(on_ray(plan, folder / f"cache-{next(fresh)}",
                                                                 args.workers))}, args.rounds)
        rates = job_medians(plan, [out for _, out in ray_runs])
    import torch

    ratio = timed.ratio("ray", "sequential")
    ray_start_s = statistics.median(start for start, _ in ray_runs)
    per_round = {side: " ".join(f"{t:.1f}" for t in timed.seconds[side]) for side in timed.seconds}
    print(f"plan: {args.model} model, {len(rates)} jobs x {', '.join(SUITES)} on {args.blocks} blocks; "
          f"{args.rounds} rounds in turns")
    print(f"sequential (run_trajectory, {torch.get_num_threads()} torch threads): "
          f"median {timed.median('sequential'):.1f} s ({per_round['sequential']})")
    print(f"Ray, {args.workers} workers x 1 CPU (incl. Ray start, median {ray_start_s:.1f} s): "
          f"median {timed.median('ray'):.1f} s ({per_round['ray']})")
    print(ratio_line("ratio Ray / sequential (per round)", ratio))
    for rate in rates:
        print(f"  {rate['job']}: {rate['requests']} requests in {rate['score_s']} s scoring, median "
              f"({rate['requests_per_s']} requests/s, 1 thread)")
    print(json.dumps({"model": args.model, "blocks": args.blocks, "workers": args.workers,
                      "sequential_s": round(timed.median("sequential"), 2), "ray_s": round(timed.median("ray"), 2),
                      "ray_start_s": round(ray_start_s, 2), **ratio, "sequential_s_rounds": timed.seconds["sequential"],
                      "ray_s_rounds": timed.seconds["ray"], "jobs": rates}))

if __name__ == "__main__":
    main()
