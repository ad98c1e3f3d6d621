"""Global Affinity (Appendix C, Table 8; masked models): P(fixed word | that word masked), per
construction sentence and fixed word, averaged per sentence and then per construction."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from pfcore.intervals import mean_interval
from pfcore.items.schema import AffinityItem
from pfcore.models.spec import ModelSpec
from pfcore.names import SuiteName
from pfcore.scoring.methods import MODEL, ScoringMethod
from pfcore.suites.base import ItemSuite, ScoreContext

if TYPE_CHECKING:  # torch loads with the first masked scorer, not with this module
    from pfcore.scoring.masked import MaskedScorer


def affinity_rows(items: list[AffinityItem], scorer: MaskedScorer) -> pd.DataFrame:
    """One row per item and fixed word: P(word | that word masked)."""
    probs = scorer.global_affinity([i.sentence for i in items], [i.spans for i in items])
    return pd.DataFrame([{"item_id": item.item_id, "construction": item.construction,
                          "context_order": item.context_order, "sentence": item.sentence,
                          "word": word, "affinity": p}
                         for item, ps in zip(items, probs) for word, p in zip(item.words, ps)])


def affinity_summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean Global Affinity with a 95% normal interval, per construction (items average their
    words) and per fixed word."""
    per_item = rows.groupby(["construction", "item_id"], sort=False)["affinity"].mean().reset_index()
    out = [_mean_row(c, "all", part["affinity"]) for c, part in per_item.groupby("construction", sort=False)]
    out += [_mean_row(c, f"word_{w}", part["affinity"])
            for (c, w), part in rows.groupby(["construction", "word"], sort=False)]
    return pd.DataFrame(out)


def _mean_row(construction: str, name: str, values: pd.Series) -> dict[str, object]:
    """Mean, 95% interval and count of one group."""
    mean, low, high = mean_interval(values.to_numpy())
    return {"construction": construction, "filter": name, "accuracy": mean,
            "ci_low": low, "ci_high": high, "n": len(values)}


class AffinitySuite(ItemSuite[AffinityItem]):
    """How strongly a masked model expects the construction's fixed words in place."""

    name = SuiteName.AFFINITY
    label = "Global Affinity (masked models)"
    metric = "global_affinity"
    chance = None
    paired_focus = True
    percent = False
    reads = (MODEL,)  # Global Affinity reads the masked model itself

    def method(self, spec: ModelSpec, requested: str | None) -> ScoringMethod:
        """Always its own masked readout (a masked model is required; --scoring is not asked)."""
        return super().method(spec, None)

    def limit(self, items: list[AffinityItem], blocks: int) -> list[AffinityItem]:
        """The first `blocks` sentences of each construction."""
        counts: dict[str, int] = {}
        kept = []
        for i in items:
            counts[i.construction] = counts.get(i.construction, 0) + 1
            if counts[i.construction] <= blocks:
                kept.append(i)
        return kept

    def score(self, items: list[AffinityItem], ctx: ScoreContext) -> pd.DataFrame:
        """Reads the model directly (word spans, several pieces masked at once)."""
        from pfcore.scoring.masked import MaskedScorer

        rows = affinity_rows(items, MaskedScorer(ctx.loaded()))
        if ctx.progress:
            ctx.progress(len(items), len(items))
        return rows

    def decide(self, rows: pd.DataFrame) -> pd.DataFrame:
        """Affinity has no pairwise decisions: its rows are its data."""
        return rows

    def summarize(self, decided: pd.DataFrame) -> pd.DataFrame:
        """Mean affinity per construction and fixed word."""
        return affinity_summary(decided)


SUITE = AffinitySuite()
