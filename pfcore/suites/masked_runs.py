"""Masked LMs in the suites: PLL as a request scorer (so it shares the score cache), the
masked-token readout of the semantic blank, and the Global Affinity suite."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pfcore.analysis.intervals import Z95
from pfcore.items.schema import AffinityItem, SemanticItem
from pfcore.models.loading import LoadedModel
from pfcore.scoring.cached import model_identity
from pfcore.scoring.methods import PLL_METRICS, scoring_identity
from pfcore.scoring.requests import Request, TokenScores
from pfcore.suites import semantic

if TYPE_CHECKING:  # torch loads with the first masked scorer, not with this module
    from pfcore.scoring.masked import MaskedScorer

Progress = Callable[[int, int], None]


def masked_scorer(loaded: LoadedModel) -> MaskedScorer:
    """The masked scorer for a loaded masked LM."""
    from pfcore.scoring.masked import MaskedScorer

    return MaskedScorer(loaded.model, loaded.tokenizer, device=loaded.spec.device)


class PllRequestScorer:
    """Pseudo-log-likelihood of Requests (continuation given context, or a whole sentence)."""

    def __init__(self, loaded: LoadedModel, scoring: str) -> None:
        self.loaded = loaded
        self.scoring = scoring
        self.metric = PLL_METRICS[scoring]
        self.scorer = masked_scorer(loaded)

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """Per-token PLL scores of each request's scored part."""
        whole = [r for r in requests if not r.prefix]
        given = [r for r in requests if r.prefix]
        found = dict(zip(whole, self.scorer.pll_sentences([r.text for r in whole], self.metric)))
        found.update(zip(given, self.scorer.pll_pairs([r.prefix for r in given], [r.text for r in given],
                                                      self.metric)))
        pairs = [found[r] for r in requests]
        if progress:
            progress(len(requests), len(requests))
        return [TokenScores(tuple(i for i, _ in p), np.array([lp for _, lp in p], dtype=np.float64),
                            self.display_tokens) for p in pairs]

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """Readable token strings."""
        return tuple(self.loaded.tokenizer.decode([i]) for i in ids)

    def cache_identity(self) -> dict[str, object]:
        """Model identity plus the PLL metric (for the score cache)."""
        return {**model_identity(self.loaded.spec, self.loaded.source), **scoring_identity(self.scoring)}


def pll_scorer(loaded: LoadedModel, scoring: str) -> PllRequestScorer:
    """A PLL request scorer for `pll-original` or `pll-l2r`."""
    return PllRequestScorer(loaded, scoring)


def masked_token_rows(items: Sequence[SemanticItem], loaded: LoadedModel,
                      progress: Progress | None = None) -> pd.DataFrame:
    """Semantic rows by the masked-token readout of the blank in the whole two-sentence text."""
    scores = masked_scorer(loaded).blank_logodds([i.sentence for i in items], fills=items[0].fills[:2])
    if progress:
        progress(len(items), len(items))
    rows = semantic.rows_from_logps(items, np.array([s.logp[0] for s in scores]),
                                    np.array([s.logp[1] for s in scores]))
    rows["fill_method"] = [s.method for s in scores]
    return rows


def affinity_rows(items: Sequence[AffinityItem], loaded: LoadedModel,
                  progress: Progress | None = None) -> pd.DataFrame:
    """One row per item and fixed word: P(word | that word masked) (Global Affinity)."""
    probs = masked_scorer(loaded).global_affinity([i.sentence for i in items], [i.spans for i in items])
    if progress:
        progress(len(items), len(items))
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
    n = len(values)
    mean = float(values.mean())
    half = Z95 * float(values.std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
    return {"construction": construction, "filter": name, "accuracy": mean,
            "ci_low": mean - half, "ci_high": mean + half, "n": n}
