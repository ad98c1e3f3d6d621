"""A model's suite accuracy for one construction, per condition, from the results table: the base
rate one sentence's decisions are read against (a single sentence is an anecdote; the suite's
accuracy over its whole item set is the measurement). It comes from the model's largest own run,
with its number of decisions and 95% interval, and a run too small to say much is called so."""
from __future__ import annotations

import pandas as pd

from pfcore.analysis.models import RUN_SOURCE_PREFIX
from pfcore.names import SuiteName, construction_words
from pfcore.store.result_rows import of_construction

CONDITIONS = ("aligned1", "aligned2", "misaligned1", "misaligned2")
ALL = "all"  # every item of the construction: the base rate of a free-form pair's decisions
MAX_WIDTH = 0.20  # an interval wider than 20 points is from a run too small to say much
COLUMNS = ("condition", "accuracy", "ci_low", "ci_high", "n", "source", "too_small")


def base_rates(results: pd.DataFrame, model: str, construction: str) -> pd.DataFrame:
    """Per condition and over all items, the accuracy, 95% interval and number of decisions of the
    model's largest own semantic run of this construction (the most decisions over all items; the
    latest of equal ones), and `too_small` where the interval is wider than MAX_WIDTH (empty when
    there is no run)."""
    rows = results[(results["model"] == model) & (results["suite"] == SuiteName.SEMANTIC)
                   & of_construction(results["construction"], construction)
                   & results["filter"].isin((ALL, *CONDITIONS)) & results["step"].isna()
                   & results["source"].str.startswith(RUN_SOURCE_PREFIX)]
    if rows.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    sizes = rows[(rows["filter"] == ALL) & (rows["metric"] == "n")].groupby("source")["value"].max()
    largest = max(rows["source"].unique(), key=lambda s: (sizes.get(s, 0), s))  # run ids start with their UTC time
    run = rows[rows["source"] == largest]
    wide = run.pivot_table(index="filter", columns="metric", values="value", aggfunc="first")
    wide = wide.reindex(index=[c for c in (*CONDITIONS, ALL) if c in wide.index])
    table = pd.DataFrame({"condition": wide.index, "accuracy": wide["accuracy"], "ci_low": wide.get("ci_low"),
                          "ci_high": wide.get("ci_high"), "n": wide.get("n"), "source": largest})
    table["too_small"] = (table["ci_high"] - table["ci_low"]) > MAX_WIDTH
    return table.reset_index(drop=True)[list(COLUMNS)]


def describe_base_rates(rates: pd.DataFrame, construction: str) -> str:
    """The base rate in one sentence: the run it comes from, its accuracy over all items with n
    and interval, and whether the run is too small to say much."""
    words = construction_words(construction)
    if rates.empty:
        return (f"no semantic run of this model on '{words}' in the results table, so no base rate "
                "(`pfcore run --suite semantic` records one)")
    by = rates.set_index("condition")
    row = by.loc[ALL] if ALL in by.index else by.iloc[0]
    where = "over all items" if ALL in by.index else f"on {by.index[0]}"
    size = ""
    if bool(row["too_small"]):
        size = f"; too small to say much (its interval is wider than {MAX_WIDTH * 100:.0f} points)"
    elif bool(rates["too_small"].any()):
        size = (f"; too small to say much for each condition alone (intervals wider than "
                f"{MAX_WIDTH * 100:.0f} points)")
    return (f"the semantic suite's accuracy on '{words}' {where} is {row['accuracy']:.3f} (n = {row['n']:.0f}, "
            f"95% interval {row['ci_low']:.3f} to {row['ci_high']:.3f}), from {rates['source'].iloc[0]}, this "
            f"model's largest run{size}")


def accuracy_over_steps(results: pd.DataFrame, series: str, construction: str) -> pd.Series:
    """A trajectory's semantic accuracy (all items of the construction) by training step, as the
    results table holds it for `series` (empty when no trajectory of it was run or imported)."""
    rows = results[(results["model"] == series) & (results["suite"] == SuiteName.SEMANTIC)
                   & of_construction(results["construction"], construction)
                   & (results["filter"] == "all") & (results["metric"] == "accuracy") & results["step"].notna()]
    return rows.groupby("step")["value"].last()
