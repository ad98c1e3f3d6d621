"""What every scorer shares: requests (what to score), per-token log-probs (what comes back), the
reductions, progress callbacks, and the RequestScorer protocol the rest of pfcore scores through."""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

from pfcore.errors import InputError
from pfcore.names import Reduction
from pfcore.scoring.align import Span

if TYPE_CHECKING:
    from pfcore.scoring.methods import ScoringMethod

REDUCTIONS: tuple[Reduction, ...] = tuple(Reduction)
Progress = Callable[[int, int], None]
"""progress(done, total), called as work finishes."""
LN2 = math.log(2.0)
MAX_TEXT_CHARS = 20_000  # prefix and text of one request together
BLANK = "<MASK>"  # marks the blank of a text whose fills a masked-token request reads


@dataclass(frozen=True)
class Request:
    """log P(text | prefix); an empty prefix means the whole sentence `text` is scored."""

    prefix: str
    text: str

    def __post_init__(self) -> None:
        check_text(self.prefix)
        check_text(self.text)


class RequestError(InputError):
    """An InputError about one request (too long, nothing to score); it carries the request, so
    whoever scores a file can say which row or item the request came from."""

    def __init__(self, message: str, request: Request) -> None:
        super().__init__(message)
        self.request = request


def finite(value: float) -> float | None:
    """A number for JSON: NaN and infinities become None (JSON has no NaN)."""
    return value if math.isfinite(value) else None


def check_length(req: Request) -> None:
    """Refuse empty or oversized text, before any model is loaded or any tokenizing done."""
    if not req.text.strip():
        raise RequestError("empty text: there is nothing to score", req)
    if len(req.prefix) + len(req.text) > MAX_TEXT_CHARS:
        raise RequestError(f"text too long ({len(req.prefix) + len(req.text):,} characters; "
                           f"the limit is {MAX_TEXT_CHARS:,})", req)


def check_text(text: str) -> None:
    """Refuse text no tokenizer should see: NUL characters, and unpaired surrogates (text that
    was not valid UTF-8 where it came from)."""
    if "\0" in text:
        raise InputError("the text holds a NUL character (\\0); remove it")
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError("the text is not valid UTF-8 (it holds an unpaired surrogate)") from None


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

    def reduce(self, how: Reduction = Reduction.SUM) -> float:
        """Sum or mean log-probability over the scored tokens (NaN when none is scored)."""
        if len(self.logprobs) == 0:
            return float("nan")
        return float(self.logprobs.sum() if how == Reduction.SUM else self.logprobs.mean())

    @property
    def surprisals_bits(self) -> np.ndarray:
        """Surprisal of each scored token in bits."""
        return -self.logprobs / LN2


def reduce_all(scores: Sequence[TokenScores], how: Reduction = Reduction.SUM) -> list[float]:
    """Reduce a list of TokenScores to one number each (NaN where no token is scored), in one
    vectorised pass: a full suite has over 100,000 of them."""
    lengths = np.fromiter((len(s.logprobs) for s in scores), dtype=np.int64, count=len(scores))
    out = np.full(len(scores), np.nan)
    scored = lengths > 0
    if scored.any():
        sums = np.add.reduceat(np.concatenate([s.logprobs for s in scores]),
                               np.cumsum(lengths)[scored] - lengths[scored])
        out[scored] = sums if how == Reduction.SUM else sums / lengths[scored]
    return out.tolist()


class RequestScorer(Protocol):
    """What the rest of pfcore needs of a scorer (causal, masked PLL or blank readout, fake):
    scores, display strings, cache key material, how a text splits into tokens (ids and character
    spans, for words and regions), and the variant that adds beginning-of-word masses."""

    @property
    def method(self) -> ScoringMethod:
        """How the scores are computed."""
        ...

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """Per-token log-probs of each request's scored tokens, in request order."""
        ...

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """Readable strings of token ids."""
        ...

    def cache_identity(self) -> dict[str, object]:
        """Everything that changes the numbers (model identity, settings): the cache's namespace."""
        ...

    def text_token_ids(self, text: str) -> tuple[int, ...]:
        """The ids a whole text tokenizes into, scored or not (to show unscored leading tokens)."""
        ...

    def token_spans(self, text: str) -> tuple[Span, ...]:
        """The character span of each token `text_token_ids(text)` gives (a BOS gets (0, 0))."""
        ...

    def bow_scorer(self) -> RequestScorer | None:
        """The variant whose scores also carry beginning-of-word log-masses, for the word
        correction (it has its own cache identity); None where the correction does not apply."""
        ...
