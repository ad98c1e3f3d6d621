"""What a causal model expects next: its most likely next tokens after a prefix, taken from the full
distribution over its vocabulary (one forward pass, softmax over every token), with probabilities,
and shown as words a class can read (no tokenizer marks such as "Ġ" or "▁")."""
from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from pfcore.errors import InputError
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import MAX_TEXT_CHARS, check_text

if TYPE_CHECKING:  # pandas only for a table: the app's server and warm-up import this module before any
    import pandas as pd

TOP_K = 10
MAX_K = 100
CONTINUES = "…"  # marks a token that continues the word before it ("…ing")


@dataclass(frozen=True)
class NextToken:
    """One candidate next token: its id, its text as decoded (spaces kept), how a class reads it,
    its probability, and whether it begins a new word (else it continues the last one)."""

    token_id: int
    text: str
    word: str
    probability: float
    begins_word: bool


@dataclass(frozen=True)
class NextTokens:
    """The most likely next tokens after a prefix, best first, and the size of the vocabulary the
    probabilities were taken over."""

    prefix: str
    tokens: tuple[NextToken, ...]
    vocabulary: int

    @property
    def covered(self) -> float:
        """The probability the listed tokens share (at most 1)."""
        return float(sum(t.probability for t in self.tokens))

    def table(self) -> pd.DataFrame:
        """One row per token: rank, word, the token as decoded, probability (0-1 and percent)."""
        import pandas as pd

        return pd.DataFrame({"rank": range(1, len(self.tokens) + 1), "word": [t.word for t in self.tokens],
                             "token": [t.text for t in self.tokens],
                             "probability": [t.probability for t in self.tokens],
                             "probability_percent": [100 * t.probability for t in self.tokens],
                             "begins_word": [t.begins_word for t in self.tokens]})


@runtime_checkable
class NextTokenScorer(Protocol):
    """A scorer that can say what comes next (causal models; the fake scorer for app tests)."""

    def next_tokens(self, prefix: str, *, k: int = TOP_K) -> NextTokens:
        """The k most likely next tokens after `prefix`."""
        ...


def readable(text: str, *, begins_word: bool, special: bool, end_of_text: bool) -> str:
    """How a class reads a token: the word without its space, "…ing" for a piece that continues
    the word before it, "(end of text)" for the end-of-text token, "(new line)", "(space)"."""
    if end_of_text:
        return "(end of text)"
    if special:
        return f"({text.strip()})"
    shown = text.strip()
    if not shown:
        return "(new line)" if "\n" in text else "(space)"
    if not begins_word and shown[0].isalnum():
        return CONTINUES + shown
    return shown


def top_tokens(prefix: str, logprobs: np.ndarray, *, k: int, decode: Callable[[int], str], begins: np.ndarray,
               special: Collection[int] = (), end_of_text: int | None = None) -> NextTokens:
    """The k most probable tokens of a full distribution (natural-log probabilities, one per token
    id), best first, as a class reads them."""
    tokens = []
    for i in np.argsort(-logprobs, kind="stable")[:k].tolist():
        text = decode(i)
        starts = i < len(begins) and bool(begins[i])  # ids beyond the tokenizer's (output-layer padding) do not
        word = readable(text, begins_word=starts, special=i in special, end_of_text=i == end_of_text)
        tokens.append(NextToken(i, text, word, float(np.exp(logprobs[i])), starts))
    return NextTokens(prefix, tuple(tokens), len(logprobs))


def check_prefix(prefix: str, k: int) -> str:
    """The prefix with its spaces made single; InputError for an empty or oversized prefix or k."""
    check_text(prefix)
    text = " ".join(prefix.split())
    if not text:
        raise InputError("type the start of a sentence: the model says what it expects after it")
    if len(text) > MAX_TEXT_CHARS:
        raise InputError(f"the prefix is {len(text):,} characters long; the limit is {MAX_TEXT_CHARS:,}")
    if not 1 <= k <= MAX_K:
        raise InputError(f"ask for between 1 and {MAX_K} next tokens (got {k})")
    return text


def most_likely_next(scorer: object, prefix: str, *, k: int = TOP_K) -> NextTokens:
    """The scorer's k most likely next tokens after the prefix; a scorer whose method does not read
    left to right (a masked model fills blanks in whole sentences) has none, which is said in one line."""
    text = check_prefix(prefix, k)
    method = getattr(scorer, "method", None)
    if not (isinstance(method, ScoringMethod) and method.next_tokens and isinstance(scorer, NextTokenScorer)):
        from pfcore.scoring.kinds import KINDS  # the table of kinds imports the kinds, which import this module

        readers = ", ".join(name for name, kind in KINDS.items() if kind.next_tokens and kind.offered())
        raise InputError(f"the next word does not apply to a {getattr(method, 'kind', 'such')} model: it does not read "
                         f"left to right, so it gives no next token; choose a {readers} model in the sidebar")
    return scorer.next_tokens(text, k=k)
