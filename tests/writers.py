"""Writers that tests start in fresh processes (multiprocessing's spawn): a module of its own, so that a
child imports only pandas, numpy and the store it writes, not the torch and transformers of the test
module that starts it (two such imports took 90 s of a 100 s test on a busy machine)."""
from __future__ import annotations

import os
from pathlib import Path

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
