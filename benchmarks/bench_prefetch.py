"""Benchmark: a trajectory over the tiny checkpoint series (the test suite's 2-layer GPT-2 saved at
steps 0/8/32, or more steps with --steps), loading each checkpoint when it is needed and loading the
next one while scoring this one (`pfcore.runs.prefetch`), in turns for --rounds rounds, each in a
fresh cache. Reports each side's median wall time, and the prefetching side's share of load time
hidden behind scoring (its own count: the loads ahead's seconds less those the scoring waited for).

    python benchmarks/bench_prefetch.py [--blocks 3] [--steps 0,8,32] [--rounds 3]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.tiny_models builds the checkpoint series

from rounds import alternate, ratio_line, rounds_option  # noqa: E402

from pfcore.models import ModelSpec  # noqa: E402
from pfcore.runs import prefetch  # noqa: E402
from pfcore.runs.checkpoints import checkpoints  # noqa: E402
from pfcore.runs.trajectory import run_trajectory  # noqa: E402
from pfcore.scoring.models import MODELS  # noqa: E402
from pfcore.suites.base import RunConfig  # noqa: E402
from tests.tiny_models import build_checkpoint_series  # noqa: E402


def parse() -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--blocks", type=int, default=3, help="blocks per construction of the semantic and syntax suites")
    p.add_argument("--steps", default="0,8,32", help="the checkpoints' training steps")
    rounds_option(p)
    return p.parse_args()


def main() -> None:
    """Run the trajectory both ways in turns; print the medians, the ratio and the share hidden."""
    args = parse()
    work = Path(tempfile.mkdtemp(prefix="pfcore-bench-prefetch-"))
    series = build_checkpoint_series(work / "series", tuple(int(s) for s in args.steps.split(",")))
    points = checkpoints(ModelSpec(), None, str(series))
    loads: list[tuple[float, float]] = []  # per prefetching trajectory: seconds of loads ahead, of which waited
    real = prefetch.Prefetch.summary

    def summary(self: prefetch.Prefetch) -> str:
        """The prefetch's line, its seconds kept for the report (the prefetching side's only)."""
        if self.enabled:
            loads.append((self.load_s, self.waited_s))
        return real(self)

    prefetch.Prefetch.summary = summary  # type: ignore[method-assign]
    runs = iter(range(10_000))

    def side(ahead: bool) -> None:
        os.environ["PFCORE_CACHE"] = str(work / f"cache-{next(runs)}")
        MODELS.clear()
        run_trajectory("tiny-series", points, ["semantic", "syntax"], RunConfig(limit_blocks=args.blocks),
                       report=lambda _line: None, prefetch=ahead)

    timed = alternate({"sequential": lambda: side(False), "prefetch": lambda: side(True)}, args.rounds, warm_up=True)
    loads = loads[1:]  # the warm-up's
    shares = [(load - waited) / load for load, waited in loads if load > 0]
    speedup = timed.ratio("sequential", "prefetch")
    print(f"{len(points)} checkpoints, semantic + syntax, {args.blocks} blocks; {args.rounds} rounds in turns")
    for name in ("sequential", "prefetch"):
        print(f"{name:<11} median {timed.median(name):.2f} s: " + " ".join(f"{s:.2f}" for s in timed.seconds[name]))
    print(ratio_line("prefetch's speed-up (sequential s / prefetch s, per round)", speedup))
    print(f"load time hidden behind scoring: median {statistics.median(shares):.1%} "
          f"({min(shares):.1%}-{max(shares):.1%}) over {len(shares)} rounds; loads ahead took "
          + ", ".join(f"{load:.2f} s (waited {waited:.3f} s)" for load, waited in loads))
    print(json.dumps({"sequential_s": timed.seconds["sequential"], "prefetch_s": timed.seconds["prefetch"],
                      **speedup, "hidden_share": statistics.median(shares), "hidden_shares": shares,
                      "loads_ahead_s": [load for load, _ in loads], "waited_s": [waited for _, waited in loads]}))


if __name__ == "__main__":
    main()
