"""A finished run in words and plain data: the JSON summary (CLI `--json`, app downloads) and the
terminal table of its headline numbers."""
from __future__ import annotations

import pandas as pd

from pfcore.models.precision import precision_note
from pfcore.names import construction_words
from pfcore.scoring.requests import finite
from pfcore.store.runs import RunRecord
from pfcore.suites.registry import get_suite


def summary_json(record: RunRecord) -> dict[str, object]:
    """The run as one JSON object: accuracy maps construction -> filter -> value."""
    nested: dict[str, dict[str, float | None]] = {}
    intervals: dict[str, dict[str, list[float | None]]] = {}
    for row in record.summary.itertuples():
        nested.setdefault(str(row.construction), {})[str(row.filter)] = finite(float(row.accuracy))
        intervals.setdefault(str(row.construction), {})[str(row.filter)] = [
            finite(float(row.ci_low)), finite(float(row.ci_high))]
    m = record.manifest
    return {"run_id": m.run_id, "suite": m.suite, "model": m.model.name, "revision": m.model.revision,
            "scoring": m.scoring, "items": m.items.count, "accuracy": nested, "ci95": intervals,
            "dtype": m.model.dtype, "device": m.model.device, "precision_note": precision_note(m.model.dtype),
            "timings_s": vars(m.timings_s), "record": str(record.path)}


def main_table(suite_name: str, summary: pd.DataFrame) -> str:
    """What to print: the headline filters as percentages (construction x filter) for the
    Paired-Focus accuracy suites; affinities as probabilities; every benchmark filter with its
    interval."""
    suite = get_suite(suite_name)
    if suite.pivoted:
        main = summary[summary["filter"].isin(suite.headline)].copy()
        main["cell"] = [_percent_of(a, n) for a, n in zip(main["accuracy"], main["n"])]
        wide = main.pivot(index="construction", columns="filter", values="cell").fillna("")
        return wide[[f for f in suite.headline if f in wide.columns]].to_string()
    cols = ["construction", "filter", "accuracy", "ci_low", "ci_high", "n"]
    return summary[cols].rename(columns={"accuracy": suite.metric}).round(4).to_string(index=False)


def _percent_of(accuracy: float, n: float) -> str:
    """An accuracy as a percentage with its n: "100.0% (n=3)"; "n=0" where there were no decisions."""
    return "n=0" if not n else f"{accuracy * 100:.1f}% (n={int(n):,})"


def headline_filters(suite_name: str, summary: pd.DataFrame) -> list[str]:
    """The suite's headline filters present in a summary (else its first eight filters)."""
    present = set(summary["filter"])
    headline = [f for f in get_suite(suite_name).headline if f in present]
    return headline or list(dict.fromkeys(summary["filter"]))[:8]


def run_label(record: RunRecord) -> str:
    """A run as one line: when, suite, constructions, model, items."""
    m = record.manifest
    names = m.constructions or tuple(dict.fromkeys(record.summary["construction"].astype(str)))
    constructions = ", ".join(construction_words(c) for c in names)
    return (f"{m.created.replace('T', ' ')[:19]} · {m.suite} ({constructions}) · {m.model.label} · "
            f"{m.items.count:,} items")


def filter_names(summary: pd.DataFrame) -> dict[str, str]:
    """What each filter of a summary is called on the page: a SyntaxGym prediction by its formula
    (its number, "0" or "1", names nothing), any other filter by itself."""
    formulas = summary["formula"] if "formula" in summary.columns else pd.Series("", index=summary.index)
    return {str(f): f"prediction {int(f) + 1}: {text}" if isinstance(text, str) and text and str(f).isdigit()
            else str(f) for f, text in zip(summary["filter"], formulas)}


def shown_summary(summary: pd.DataFrame, filters: list[str]) -> pd.DataFrame:
    """The chosen filters' rows, constructions by their names (as every table of pfcore's) and
    filters by `filter_names` (a SyntaxGym prediction by its formula)."""
    rows = summary[summary["filter"].isin(filters)].copy()
    rows["filter"] = rows["filter"].astype(str).map(filter_names(summary))
    return rows.reset_index(drop=True)
