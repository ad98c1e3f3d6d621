"""BLiMP, COMPS and EWoK through the same runner as the Paired-Focus suites: the model's scorer
(through the score cache) feeds the benchmark's own scoring rule, as the paper scores each."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from pfcore.scoring.cached import RequestScorer, score_cached
from pfcore.scoring.requests import Reduction, Request, reduce_all
from pfcore.store.cache import ScoreCache
from pfcore.suites import blimp, comps, ewok

Progress = Callable[[int, int], None]
BATCH = 4096  # requests handed to the scorer at once, so it can share prefixes across them


@dataclass(frozen=True)
class Benchmark:
    """How one benchmark is loaded, scored and summarized, and the reduction the paper used."""

    load: Callable[..., pd.DataFrame]
    score: Callable[..., pd.DataFrame]
    summarize: Callable[[pd.DataFrame], pd.DataFrame]
    reduction: Reduction
    default_source: str


BENCHMARKS = {
    "blimp": Benchmark(blimp.load_blimp, blimp.score_blimp, blimp.summarize_blimp, "sum", blimp.HUB_ID),
    "comps": Benchmark(comps.load_comps, comps.score_comps, comps.summarize_comps, "sum", comps.HUB_ID),
    "ewok": Benchmark(ewok.load_ewok, ewok.score_ewok, ewok.summarize_ewok, "mean", ewok.HUB_ID),
}


def load_benchmark(name: str, source: str | None, limit: int | None, password: str | None) -> pd.DataFrame:
    """The benchmark's items from a local path or its hub id; `limit` per paradigm for BLiMP."""
    bench = BENCHMARKS[name]
    kwargs: dict[str, object] = {"limit": limit}
    if name == "ewok":
        kwargs["password"] = password
    return bench.load(source or bench.default_source, **kwargs)


def run_benchmark(name: str, items: pd.DataFrame, scorer: RequestScorer, cache: ScoreCache | None,
                  progress: Progress | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scored items and the summary (construction = the benchmark, as in the published files)."""
    bench = BENCHMARKS[name]

    def sequences(texts: list[str]) -> list[float]:
        return reduce_all(score_cached(scorer, [Request("", t) for t in texts], cache), bench.reduction)

    def conditionals(prefixes: list[str], texts: list[str]) -> list[float]:
        reqs = [Request(p, t) for p, t in zip(prefixes, texts)]
        return reduce_all(score_cached(scorer, reqs, cache), bench.reduction)

    fn = conditionals if name == "ewok" else sequences
    scored = bench.score(items, fn, batch_size=BATCH, progress=progress)
    summary = bench.summarize(scored).rename(columns={"benchmark": "construction"})
    return scored, summary
