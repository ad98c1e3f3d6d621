"""The Run page's data: the planned runs, their size, and a finished run's results for display."""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from pfcore.errors import InputError
from pfcore.store.runs import PUBLISHED_SEMANTIC, RunRecord
from pfcore.suites.cli import MAIN
from pfcore.suites.runner import RunConfig, load_suite_items

UI_CHUNK = 64  # requests scored between two commits to the score cache: what Stop can lose
SUITE_LABELS = {"semantic": "Semantic (meaning, Experiment 1)", "syntax": "Syntactic (form)",
                "affinity": "Global Affinity (masked models)"}
REQUESTS_PER_ITEM = {"semantic": 2, "syntax": 1, "affinity": 1}


def suites_for(kind: str) -> tuple[str, ...]:
    """The suites a model of this kind can run (Global Affinity needs a masked model)."""
    return ("semantic", "syntax", "affinity") if kind == "masked" else ("semantic", "syntax")


def plan(suites: Sequence[str], constructions: Sequence[str], blocks: int) -> list[RunConfig]:
    """One RunConfig per suite; blocks 0 means every block."""
    if not suites:
        raise InputError("choose at least one suite")
    if not constructions:
        raise InputError("choose at least one construction")
    if blocks < 0:
        raise InputError("the number of blocks cannot be negative")
    return [RunConfig(suite=s, constructions=tuple(constructions), limit_blocks=blocks or None,
                      chunk=UI_CHUNK) for s in suites]


def plan_size(configs: Sequence[RunConfig]) -> tuple[int, int]:
    """(items, scoring requests) the planned runs will score (before the cache is consulted)."""
    items = [len(load_suite_items(c)) for c in configs]
    return sum(items), sum(n * REQUESTS_PER_ITEM[c.suite] for n, c in zip(items, configs))


def run_label(record: RunRecord) -> str:
    """A run as one line: when, suite, model, items."""
    m = record.manifest
    return (f"{m['created'].replace('T', ' ')[:19]} · {m['suite']} · {m['model']['name']} · "
            f"{m['items']['count']:,} items")


def main_filters(summary: pd.DataFrame) -> list[str]:
    """The headline filters present in a summary (all/aligned/... or the syntactic tests)."""
    present = set(summary["filter"])
    headline = [f for f in MAIN if f in present]
    return headline or list(dict.fromkeys(summary["filter"]))[:8]


def shown_summary(summary: pd.DataFrame, filters: Sequence[str]) -> pd.DataFrame:
    """The chosen filters' rows, constructions named as in the paper's figures."""
    rows = summary[summary["filter"].isin(filters)].copy()
    rows["construction"] = rows["construction"].map(lambda c: PUBLISHED_SEMANTIC.get(c, c))
    return rows.reset_index(drop=True)
