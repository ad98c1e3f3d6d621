"""Scoring requests and results shared by every scorer: what to score, and per-token log-probs."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

Reduction = Literal["sum", "mean"]
LN2 = math.log(2.0)


@dataclass(frozen=True)
class Request:
    """log P(text | prefix); an empty prefix means the whole sentence `text` is scored."""

    prefix: str
    text: str


@dataclass(frozen=True)
class TokenScores:
    """Per-token log-probabilities (nats) of the scored tokens, with their display strings."""

    tokens: tuple[str, ...]
    token_ids: tuple[int, ...]
    logprobs: np.ndarray = field(compare=False)

    def reduce(self, how: Reduction = "sum") -> float:
        """Sum or mean log-probability over the scored tokens (NaN when none is scored)."""
        if len(self.logprobs) == 0:
            return float("nan")
        return float(self.logprobs.sum() if how == "sum" else self.logprobs.mean())

    @property
    def surprisals_bits(self) -> np.ndarray:
        """Surprisal of each scored token in bits."""
        return -self.logprobs / LN2


def reduce_all(scores: Sequence[TokenScores], how: Reduction = "sum") -> list[float]:
    """Reduce a list of TokenScores to one number each."""
    return [s.reduce(how) for s in scores]
