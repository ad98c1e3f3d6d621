"""The syntactic suite: the surprisal rise (manipulated minus base sentence) with the construction
against the rise with "and"; correct when the construction's rise is the larger. Whole sentences
are scored as the paper's code does (mean log-prob per token, first token unscored)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pfcore.analysis.intervals import accuracy
from pfcore.items.schema import SYNTAX_CONTROL, SyntaxItem
from pfcore.scoring.requests import Reduction, Request, TokenScores, reduce_all

TESTS = ("NPI", "Pseudocleft", "CP Conjunction")
CONTROLS = ("VP Conjunction", "VP Gap Conjunction")
AVERAGES = {"Avg_Test": TESTS, "Avg_Control": CONTROLS}
ROW_FIELDS = ("item_id", "base_id", "construction", "connective", "manipulation", "sentence",
              "frame", "verb", "noun", "scale", "pronoun", "modal", "context_order")


def requests(items: Sequence[SyntaxItem]) -> list[Request]:
    """One whole-sentence request per item."""
    return [Request("", item.sentence) for item in items]


def row_scores(items: Sequence[SyntaxItem], scores: Sequence[TokenScores], reduction: Reduction) -> pd.DataFrame:
    """One row per sentence with its score and surprisal (negated score)."""
    return rows_from_values(items, np.array(reduce_all(scores, reduction)))


def rows_from_values(items: Sequence[SyntaxItem], values: np.ndarray) -> pd.DataFrame:
    """Per-sentence table from one log-probability score each (any scoring method)."""
    df = pd.DataFrame({f: [getattr(i, f) for i in items] for f in ROW_FIELDS})
    df["score"] = values
    df["surprisal"] = -df["score"]
    return df


def rises(rows: pd.DataFrame) -> pd.DataFrame:
    """Surprisal rise of each manipulated sentence over its base, per connective and base."""
    base = rows[rows["manipulation"] == "base"].set_index(["base_id", "construction"])["surprisal"]
    manip = rows[rows["manipulation"] != "base"].copy()
    idx = pd.MultiIndex.from_arrays([manip["base_id"], manip["construction"]])
    manip["rise"] = manip["surprisal"].to_numpy() - base.reindex(idx).to_numpy()
    return manip.dropna(subset=["rise"])


def decisions(rows: pd.DataFrame) -> pd.DataFrame:
    """Pair each construction's rise with the "and" rise of the same base and manipulation."""
    r = rises(rows)
    ctl = r[r["construction"] == SYNTAX_CONTROL].set_index(["base_id", "manipulation"])["rise"]
    cxn = r[r["construction"] != SYNTAX_CONTROL].set_index(["base_id", "manipulation"])
    paired = cxn.join(ctl.rename("rise_and"), how="inner").reset_index()
    paired["correct"] = paired["rise"] > paired["rise_and"]
    return paired


def summarize(dec: pd.DataFrame) -> pd.DataFrame:
    """Accuracy, mean rises and 95% intervals per construction and test type (plus averages)."""
    out = []
    for construction, part in dec.groupby("construction", sort=False):
        by_test = {}
        for test in TESTS + CONTROLS:
            sel = part[part["manipulation"] == test]
            acc = accuracy(sel["correct"].to_numpy())
            by_test[test] = acc.value
            out.append(_row(construction, test, acc.value, acc, sel))
        for name, members in AVERAGES.items():
            sel = part[part["manipulation"].isin(members)]
            pooled = accuracy(sel["correct"].to_numpy())
            out.append(_row(construction, name, float(np.mean([by_test[m] for m in members])), pooled, sel))
    return pd.DataFrame(out)


def _row(construction: str, test: str, value: float, acc, sel: pd.DataFrame) -> dict[str, object]:
    """One summary row: the published columns plus the interval and count."""
    return {"construction": construction, "filter": test, "accuracy": value,
            "ci_low": acc.low, "ci_high": acc.high, "n": acc.n,
            "delta_surps": float(sel["rise"].mean()) if len(sel) else float("nan"),
            "delta_surps_and": float(sel["rise_and"].mean()) if len(sel) else float("nan")}
