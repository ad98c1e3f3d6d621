"""Benchmark: torch's CPU threads on a busy machine. Times the same loop of small matrix products (the
size of the embedded model's hidden layer) with 1 and with 2 torch threads, first on the machine as it
is, then beside --busy CPU-bound processes (`yes > /dev/null`), each in a fresh process; prints one line
per case and one JSON line. On a busy 2-core machine torch's OpenMP threads wait for each other by
spinning, so 2 threads can be many times slower than 1 (the reason the tests run one thread each).

    python benchmarks/bench_busy_threads.py [--busy 4] [--repeats 3000]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

LOOP = """
import sys, time, torch
torch.set_num_threads(int(sys.argv[1]))
x, w = torch.randn(64, 576), torch.randn(576, 576)
started = time.perf_counter()
for _ in range(int(sys.argv[2])):
    (x @ w).relu_()
print(time.perf_counter() - started)
"""


def timed(threads: int, repeats: int) -> float:
    """Seconds the loop takes with `threads` torch threads, in a process of its own."""
    found = subprocess.run([sys.executable, "-c", LOOP, str(threads), str(repeats)], check=True,
                           capture_output=True, text=True)
    return float(found.stdout)


def main() -> None:
    """Time 1 and 2 threads on the machine as it is, then beside --busy busy processes; print both."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=4, help="CPU-bound processes beside the loop (default 4)")
    parser.add_argument("--repeats", type=int, default=3000, help="matrix products per timing (default 3000)")
    args = parser.parse_args()
    found: dict[str, dict[str, float]] = {"as it is": {}, f"beside {args.busy} busy": {}}
    for threads in (1, 2):
        found["as it is"][f"{threads} threads"] = timed(threads, args.repeats)
    busy = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(args.busy)]
    try:
        for threads in (1, 2):
            found[f"beside {args.busy} busy"][f"{threads} threads"] = timed(threads, args.repeats)
    finally:
        for process in busy:
            process.kill()
    for machine, times in found.items():
        print(f"{machine:<16} " + "   ".join(f"{name}: {seconds:6.2f} s" for name, seconds in times.items()))
    print(json.dumps(found))


if __name__ == "__main__":
    main()
