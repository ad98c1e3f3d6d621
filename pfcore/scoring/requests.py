"""Scoring requests and results shared by every scorer: what to score, and per-token log-probs."""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
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


Decoder = Callable[[Sequence[int]], tuple[str, ...]]


@dataclass(frozen=True)
class TokenScores:
    """Per-token log-probabilities (nats) of the scored tokens; their display strings are decoded
    only when asked for, so scores served from the cache need no tokenizer."""

    token_ids: tuple[int, ...]
    logprobs: np.ndarray = field(compare=False)
    decode: Decoder = field(compare=False, repr=False)

    @property
    def tokens(self) -> tuple[str, ...]:
        """Readable strings of the scored tokens."""
        return self.decode(self.token_ids)

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
    """Reduce a list of TokenScores to one number each (NaN where no token is scored), in one
    vectorised pass: a full suite has over 100,000 of them."""
    lengths = np.fromiter((len(s.logprobs) for s in scores), dtype=np.int64, count=len(scores))
    out = np.full(len(scores), np.nan)
    scored = lengths > 0
    if scored.any():
        sums = np.add.reduceat(np.concatenate([s.logprobs for s in scores]),
                               np.cumsum(lengths)[scored] - lengths[scored])
        out[scored] = sums if how == "sum" else sums / lengths[scored]
    return out.tolist()
