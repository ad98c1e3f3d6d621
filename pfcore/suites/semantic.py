"""The semantic suite (Experiment 1): per-row log-odds log P(easier) - log P(harder) of the
follow-up given the context, and accuracy by the paper's rule: the construction must move the
log-odds further, in the direction it entails, than its "or" twin does."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pfcore.intervals import accuracy
from pfcore.items.schema import MASK, SemanticItem
from pfcore.names import SuiteName, published_name
from pfcore.scoring.methods import BLANK, TEXTS, ScoringMethod
from pfcore.scoring.requests import Reduction, Request, TokenScores, reduce_all
from pfcore.suites.base import ItemSuite, RunConfig, ScoreContext

# (context_order, followup_order) -> (filter name, +1 if the construction's log-odds must be higher)
CONDITIONS: dict[tuple[str, str], tuple[str, int]] = {
    ("aligned", "same"): ("aligned1", +1),
    ("aligned", "reversed"): ("aligned2", -1),
    ("misaligned", "same"): ("misaligned1", -1),
    ("misaligned", "reversed"): ("misaligned2", +1),
}
MAIN_FILTERS = ("all", "aligned", "misaligned", "aligned1", "aligned2", "misaligned1", "misaligned2")
GROUP_FIELDS = ("verb", "scale", "pronoun", "modal")
ROW_FIELDS = ("item_id", "block_id", "construction", "connective", "is_construction",
              "context_order", "followup_order", "frame", "verb", "noun", "scale", "weak_adj",
              "strong_adj", "pronoun", "modal", "context", "followup")


def filled(item: SemanticItem, fill: str) -> str:
    """The follow-up with its blank filled, as the paper builds it."""
    head, tail = item.followup.split(MASK, 1)
    return f"{head.strip()} {fill}{tail}"


def requests(items: Sequence[SemanticItem], method: ScoringMethod = ScoringMethod.CAUSAL) -> list[Request]:
    """Two requests per row: the follow-up with each fill given the context; for the masked-token
    readout, each fill in the blank of the whole two-sentence text."""
    if method.reads == BLANK:
        return [Request(item.sentence, fill) for item in items for fill in item.fills[:2]]
    return [Request(item.context, filled(item, fill)) for item in items for fill in item.fills[:2]]


def row_scores(items: Sequence[SemanticItem], scores: Sequence[TokenScores], reduction: Reduction) -> pd.DataFrame:
    """One row per item with log P of each fill and their difference (the log-odds)."""
    values = np.array(reduce_all(scores, reduction)).reshape(len(items), 2)
    return rows_from_logps(items, values[:, 0], values[:, 1])


def fill_methods(scores: Sequence[TokenScores]) -> list[str]:
    """Per row, how the masked-token readout read its fills: one masked token each, or
    within-word left-to-right PLL when a fill is several word pieces."""
    pieces = np.array([len(s.token_ids) for s in scores]).reshape(-1, 2).max(axis=1)
    return ["pll_within_word_l2r" if n > 1 else "masked_token" for n in pieces]


def rows_from_logps(items: Sequence[SemanticItem], easier: np.ndarray, harder: np.ndarray) -> pd.DataFrame:
    """Per-row table from the two fills' log-probabilities (any scoring method)."""
    df = pd.DataFrame({f: [getattr(i, f) for i in items] for f in ROW_FIELDS})
    df["logp_easier"], df["logp_harder"] = easier, harder
    df["logodds"] = df["logp_easier"] - df["logp_harder"]
    return df


def decisions(rows: pd.DataFrame) -> pd.DataFrame:
    """Pair each construction row with its "or" twin (same block, same orders) and decide."""
    key = ["block_id", "context_order", "followup_order"]
    cxn = rows[rows["is_construction"]].set_index(key)
    ctl = rows[~rows["is_construction"]].set_index(key)["logodds"].rename("or_logodds")
    paired = cxn.join(ctl, how="inner").reset_index().rename(columns={"logodds": "cxn_logodds"})
    cond = [CONDITIONS[(c, f)] for c, f in zip(paired["context_order"], paired["followup_order"])]
    paired["condition"] = [name for name, _ in cond]
    sign = np.array([s for _, s in cond])
    paired["correct"] = sign * (paired["cxn_logodds"] - paired["or_logodds"]) > 0
    return paired


def filter_masks(dec: pd.DataFrame) -> dict[str, pd.Series]:
    """Boolean masks of every reported filter, named as the published summaries name them."""
    masks = {"all": pd.Series(True, index=dec.index)}
    for order in ("aligned", "misaligned"):
        masks[order] = dec["context_order"] == order
    for name, _ in CONDITIONS.values():
        masks[name] = dec["condition"] == name
    for field in GROUP_FIELDS:
        for value in sorted(dec[field].unique()):
            sel = dec[field] == value
            masks[f"{field}_{value}_all"] = sel
            for order in ("aligned", "misaligned"):
                masks[f"{field}_{value}_{order}"] = sel & (dec["context_order"] == order)
    return masks


def summarize(dec: pd.DataFrame) -> pd.DataFrame:
    """Accuracy with 95% intervals per construction and filter."""
    out = []
    for construction, part in dec.groupby("construction", sort=False):
        for name, mask in filter_masks(part).items():
            acc = accuracy(part.loc[mask, "correct"].to_numpy(), part.loc[mask, "block_id"].to_numpy())
            out.append({"construction": construction, "filter": name, "accuracy": acc.value,
                        "ci_low": acc.low, "ci_high": acc.high, "n": acc.n})
    return pd.DataFrame(out)


def decision_counts(items: Sequence[SemanticItem]) -> pd.DataFrame:
    """How many decisions an item set gives each construction under every filter, without scoring
    it: columns construction (its name), filter, n."""
    blank = np.zeros(len(items))
    dec = decisions(rows_from_logps(items, blank, blank))
    return pd.DataFrame([{"construction": c, "filter": name, "n": int(mask.sum())}
                         for c, part in dec.groupby("construction", sort=False)
                         for name, mask in filter_masks(part).items()])


def published_summary(summary: pd.DataFrame, revision: str) -> pd.DataFrame:
    """The summary in the paper's layout, its outputs_summary files' (letalone, world_knowledge_filter)."""
    return pd.DataFrame({"revision": revision, "construction": summary["construction"].map(published_name),
                         "world_knowledge_filter": summary["filter"], "accuracy": summary["accuracy"]})


def limit_blocks(items: list[SemanticItem], blocks: int) -> list[SemanticItem]:
    """The first `blocks` blocks of each construction."""
    seen: dict[str, list[str]] = {}
    for i in items:
        ids = seen.setdefault(i.construction, [])
        if i.block_id not in ids and len(ids) < blocks:
            ids.append(i.block_id)
    keep = {b for ids in seen.values() for b in ids}
    return [i for i in items if i.block_id in keep]


class SemanticSuite(ItemSuite[SemanticItem]):
    """Experiment 1: does the construction move the easier/harder log-odds as it entails?"""

    name = SuiteName.SEMANTIC
    label = "Semantic (meaning, Experiment 1)"
    headline = MAIN_FILTERS
    paired_focus = pivoted = True
    paper_filter = "aligned"
    block = "block_id"
    reads = (BLANK, TEXTS)  # a masked model reads the blank's fill (its masked-token readout) by default

    def reduction(self, config: RunConfig, method: ScoringMethod) -> Reduction:
        """The configured reduction; the masked-token readout sums a fill's pieces."""
        return Reduction.SUM if method.reads == BLANK else config.reduction

    def limit(self, items: list[SemanticItem], blocks: int) -> list[SemanticItem]:
        """The first blocks of each construction."""
        return limit_blocks(items, blocks)

    def requests(self, items: list[SemanticItem], method: ScoringMethod) -> list[Request]:
        """Two per row: the follow-up with each fill."""
        return requests(items, method)

    def score(self, items: list[SemanticItem], ctx: ScoreContext) -> pd.DataFrame:
        """log P of each fill per row, and the log-odds."""
        scores = ctx.scores(requests(items, ctx.scorer.method))
        rows = row_scores(items, scores, ctx.reduction)
        if ctx.scorer.method.reads == BLANK:
            rows["fill_method"] = fill_methods(scores)
        return rows

    def decide(self, rows: pd.DataFrame) -> pd.DataFrame:
        """Each construction row against its "or" twin."""
        return decisions(rows)

    def summarize(self, decided: pd.DataFrame) -> pd.DataFrame:
        """Accuracy per construction and filter."""
        return summarize(decided)

    def published(self, summary: pd.DataFrame, revision: str) -> pd.DataFrame:
        """The outputs_summary layout."""
        return published_summary(summary, revision)


SUITE = SemanticSuite()
