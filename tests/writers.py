"""Writers that tests start as fresh Python processes (`start`): a module of its own, so that a child
imports only pandas, numpy and the store it writes, not the torch and transformers of the test module
that starts it, and a plain `python -m tests.writers`, not multiprocessing's spawn (spawned from a test
worker of the whole suite, two such writers took 58 s against 1.5 s alone)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ROWS = 15  # appends per results-table writer: enough for two to interleave (each append takes the lock)


def append_rows(cache: str, writer: int) -> None:
    """Append ROWS rows of its own source to the results table under `cache`."""
    os.environ["PFCORE_CACHE"] = cache
    import pandas as pd

    from pfcore.store import results
    for i in range(ROWS):
        results.append_results(pd.DataFrame({
            "model": "m", "revision": "main", "step": [None], "suite": "semantic", "construction": "letalone",
            "filter": "all", "metric": "accuracy", "value": [i / ROWS], "source": f"writer{writer}-{i}"}))


def put_scores(path: str, start: int) -> None:
    """Put 200 scores, keys k{start} to k{start + 199}, into the score cache at `path`, ten at a time."""
    import numpy as np

    from pfcore.store.cache import ScoreCache
    with ScoreCache(Path(path)) as cache:
        for i in range(start, start + 200, 10):
            cache.put_many((f"k{j}", [1, 2], np.array([-1.0, -2.0])) for j in range(i, i + 10))


WRITERS = {"append_rows": append_rows, "put_scores": put_scores}


def start(writer: str, path: str, number: int) -> subprocess.Popen[bytes]:
    """One writer (a name of WRITERS) in a fresh Python process."""
    return subprocess.Popen([sys.executable, "-m", "tests.writers", writer, path, str(number)], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


if __name__ == "__main__":
    WRITERS[sys.argv[1]](sys.argv[2], int(sys.argv[3]))
