"""The syntactic suite: the surprisal rise (manipulated minus base sentence) with the construction
against the rise with "and"; correct when the construction's rise is the larger. Whole sentences
are scored as the paper's code does (mean log-prob per token, first token unscored)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pfcore.intervals import Accuracy, accuracy
from pfcore.items.constructions import definition_of
from pfcore.items.schema import SYNTAX_CONTROL, SyntaxItem
from pfcore.models.spec import ModelSpec
from pfcore.names import SuiteName
from pfcore.scoring.kinds import kind_of, method_named
from pfcore.scoring.methods import BLANK, ScoringMethod
from pfcore.scoring.requests import Reduction, Request, TokenScores, reduce_all
from pfcore.suites.base import ItemSuite, ScoreContext

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
            pooled = accuracy(sel["correct"].to_numpy(), sel["base_id"].to_numpy())
            out.append(_row(construction, name, float(np.mean([by_test[m] for m in members])), pooled, sel))
    return pd.DataFrame(out)


def _row(construction: str, test: str, value: float, acc: Accuracy, sel: pd.DataFrame) -> dict[str, object]:
    """One summary row: the published columns plus the interval and count."""
    return {"construction": construction, "filter": test, "accuracy": value,
            "ci_low": acc.low, "ci_high": acc.high, "n": acc.n,
            "delta_surps": float(sel["rise"].mean()) if len(sel) else float("nan"),
            "delta_surps_and": float(sel["rise_and"].mean()) if len(sel) else float("nan")}


def published_summary(summary: pd.DataFrame, revision: str) -> pd.DataFrame:
    """The summary in the paper's layout, its outputs_summary files' (let alone, test_type, delta_surps)."""
    return pd.DataFrame({"revision": revision, "construction": summary["construction"].map(_words),
                         "test_type": summary["filter"], "accuracy": summary["accuracy"],
                         "delta_surps": summary["delta_surps"], "delta_surps_and": summary["delta_surps_and"]})


def _words(construction: str) -> str:
    """A construction as the published layout writes it: its words ("let alone"; "and" as it is)."""
    return construction if construction == SYNTAX_CONTROL else definition_of(construction).connective


class SyntaxSuite(ItemSuite[SyntaxItem]):
    """Table 3: does a manipulation raise surprisal more with the construction than with "and"?"""

    name = SuiteName.SYNTAX
    label = "Syntactic (form)"
    headline = TESTS + CONTROLS + tuple(AVERAGES)
    paired_focus = pivoted = True
    paper_filter = "Avg_Test"
    block = "base_id"

    def method(self, spec: ModelSpec, requested: str | None) -> ScoringMethod:
        """As for every suite, with a blank's readout read as its kind's text method (masked-token as PLL
        original, as the paper's code does)."""
        asked = method_named(requested) if requested is not None else None
        blank = asked is not None and asked.reads == BLANK
        return super().method(spec, kind_of(asked.kind).text_method.value if asked and blank else requested)

    def limit(self, items: list[SyntaxItem], blocks: int) -> list[SyntaxItem]:
        """The first `blocks` base sentences (every connective of each)."""
        keep = set(list(dict.fromkeys(i.base_id for i in items))[:blocks])
        return [i for i in items if i.base_id in keep]

    def requests(self, items: list[SyntaxItem], method: ScoringMethod) -> list[Request]:
        """One per sentence."""
        return requests(items)

    def score(self, items: list[SyntaxItem], ctx: ScoreContext) -> pd.DataFrame:
        """Each sentence's score and surprisal."""
        return row_scores(items, ctx.scores(requests(items)), ctx.reduction)

    def decide(self, rows: pd.DataFrame) -> pd.DataFrame:
        """Each construction's rise against the "and" rise."""
        return decisions(rows)

    def summarize(self, decided: pd.DataFrame) -> pd.DataFrame:
        """Accuracy per construction and test type."""
        return summarize(decided)

    def published(self, summary: pd.DataFrame, revision: str) -> pd.DataFrame:
        """The outputs_summary layout."""
        return published_summary(summary, revision)


SUITE = SyntaxSuite()
