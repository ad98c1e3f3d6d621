"""A model's suite accuracy for one construction, per condition, from the results table: the base
rate one sentence's decisions are read against (a single sentence is an anecdote; the suite's
accuracy over its whole item set is the measurement)."""
from __future__ import annotations

import pandas as pd

from pfcore.analysis.models import RUN_SOURCE_PREFIX
from pfcore.items.schema import PUBLISHED_NAMES

CONDITIONS = ("aligned1", "aligned2", "misaligned1", "misaligned2")


def base_rates(results: pd.DataFrame, model: str, construction: str) -> pd.DataFrame:
    """Per condition, the accuracy and 95% interval of the model's latest own semantic run of this
    construction (empty when there is none): columns condition, accuracy, ci_low, ci_high, n, source."""
    rows = results[(results["model"] == model) & (results["suite"] == "semantic")
                   & (results["construction"] == PUBLISHED_NAMES.get(construction, construction))
                   & results["filter"].isin(CONDITIONS) & results["step"].isna()
                   & results["source"].str.startswith(RUN_SOURCE_PREFIX)]
    if rows.empty:
        return pd.DataFrame(columns=["condition", "accuracy", "ci_low", "ci_high", "n", "source"])
    latest = rows[rows["source"] == max(rows["source"])]  # run ids start with their UTC time
    wide = latest.pivot_table(index="filter", columns="metric", values="value", aggfunc="first")
    wide = wide.reindex(index=[c for c in CONDITIONS if c in wide.index])
    return pd.DataFrame({"condition": wide.index, "accuracy": wide["accuracy"], "ci_low": wide.get("ci_low"),
                         "ci_high": wide.get("ci_high"), "n": wide.get("n"),
                         "source": latest["source"].iloc[0]}).reset_index(drop=True)


def accuracy_over_steps(results: pd.DataFrame, series: str, construction: str) -> pd.Series:
    """A trajectory's semantic accuracy (all items of the construction) by training step, as the
    results table holds it for `series` (empty when no trajectory of it was run or imported)."""
    rows = results[(results["model"] == series) & (results["suite"] == "semantic")
                   & (results["construction"] == PUBLISHED_NAMES.get(construction, construction))
                   & (results["filter"] == "all") & (results["metric"] == "accuracy") & results["step"].notna()]
    return rows.groupby("step")["value"].last()
