"""Score requests for the app through the persistent score cache (opened per call, closed after)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import closing

import numpy as np
import pandas as pd

from pfcore.scoring.cached import RequestScorer, score_cached
from pfcore.scoring.requests import Request, TokenScores
from pfcore.store.cache import ScoreCache


def cached_scores(scorer: RequestScorer, requests: Sequence[Request],
                  progress: Callable[[int, int], None] | None = None) -> list[TokenScores]:
    """Per-token scores, read from or written to the score cache."""
    with score_cache() as cache:
        return score_cached(scorer, requests, cache, progress)


def token_table(labels: Sequence[dict[str, object]], scores: Sequence[TokenScores]) -> pd.DataFrame:
    """Long per-token table: the label fields, position, token, log-prob (nats), surprisal (bits)."""
    frames = []
    for label, s in zip(labels, scores):
        tokens = s.tokens  # decoded on each access: once here
        frames.append(pd.DataFrame({**{k: [v] * len(tokens) for k, v in label.items()},
                                    "position": np.arange(len(tokens)), "token": list(tokens),
                                    "logprob": s.logprobs, "surprisal_bits": s.surprisals_bits}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def scoring_label(scorer: RequestScorer) -> str:
    """How the scores were computed, in words."""
    if getattr(scorer, "scoring", "causal") == "causal":
        return "causal log-probabilities (first token of a whole sentence unscored, no BOS)"
    return f"pseudo-log-likelihood ({scorer.scoring}) of a masked model"


def score_cache() -> closing[ScoreCache]:
    """The persistent score cache, closed when the `with` block ends."""
    return closing(ScoreCache())
