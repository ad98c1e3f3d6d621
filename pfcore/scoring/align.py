"""Tokens to character spans (words, SyntaxGym regions), and per-span aggregation of token values.

A token belongs to the span holding its first non-space character, as in SyntaxGym: a GPT-2
token " word" with offsets (3, 8) belongs to the word starting at 4. With `attached_owners`, a
token of whitespace only (GPT-2's "Ġ" before "2024", a newline) goes with the token after it.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

import numpy as np

from pfcore.errors import InputError

Span = tuple[int, int]


def _sum(values: np.ndarray) -> float:
    """The correctly rounded sum, the same in any order and with a 0 added or not (so a region holding
    an unscored first token of 0 bits sums as one without it); numpy's where that sum overflows."""
    try:
        return math.fsum(values)
    except (OverflowError, ValueError):  # a sum past the largest float, or inf - inf
        return float(np.sum(values))


REDUCERS: dict[str, Callable[[np.ndarray], float]] = {
    "sum": _sum,
    "mean": lambda v: float(np.mean(v)),
    "median": lambda v: float(np.median(v)),
    "range": lambda v: float(np.max(v) - np.min(v)),
    "max": lambda v: float(np.max(v)),
    "min": lambda v: float(np.min(v)),
}
METRICS = tuple(REDUCERS)
WORD = re.compile(r"\S+")


def word_spans(text: str) -> list[Span]:
    """The (start, end) of each whitespace-delimited word; punctuation stays with its word."""
    return [match.span() for match in WORD.finditer(text)]


def owners(text: str, token_offsets: Sequence[Span], spans: Sequence[Span]) -> list[int | None]:
    """For each token, the index of the span holding its first non-space character, or None."""
    table = span_of_char(len(text), spans)
    return [_owner(text, start, end, table) for start, end in token_offsets]


def attached_owners(text: str, token_offsets: Sequence[Span], spans: Sequence[Span]) -> list[int | None]:
    """`owners`, except that a token of whitespace only belongs with the token after it: it is the
    leading space of that token's word, so every token with text has a span and words add up to
    the whole text. Empty tokens (BOS, (0, 0)) and tokens outside every span stay None."""
    found = owners(text, token_offsets, spans)
    following: int | None = None
    for index in reversed(range(len(found))):
        start, end = token_offsets[index]
        piece = text[max(start, 0):min(end, len(text))]
        if found[index] is None and piece.isspace():
            found[index] = following
        following = found[index]
    return found


def span_of_char(length: int, spans: Sequence[Span]) -> list[int | None]:
    """For each character of the text, the index of the first span that covers it."""
    table: list[int | None] = [None] * length
    for index, (start, end) in enumerate(spans):
        for position in range(max(start, 0), min(end, length)):
            if table[position] is None:
                table[position] = index
    return table


def _owner(text: str, start: int, end: int, span_of_char: list[int | None]) -> int | None:
    """The span of the token's first non-space character; None for an all-space or empty token."""
    for position in range(max(start, 0), min(end, len(text))):
        if not text[position].isspace():
            return span_of_char[position]
    return None


def aggregate(values: Sequence[float], owners: Sequence[int | None], n_spans: int,
              metric: str) -> list[float]:
    """Per span, `metric` over the values of the tokens it owns; 0.0 (sum) or NaN if none."""
    if metric not in REDUCERS:
        raise InputError(f"unknown metric {metric!r} (choose from {', '.join(METRICS)})")
    if len(values) != len(owners):
        raise InputError(f"{len(values)} token values but {len(owners)} token owners")
    groups: list[list[float]] = [[] for _ in range(n_spans)]
    for value, owner in zip(values, owners):
        if owner is not None:
            if not 0 <= owner < n_spans:
                raise InputError(f"token owner {owner} is outside the {n_spans} spans")
            groups[owner].append(value)
    empty = 0.0 if metric == "sum" else float("nan")
    return [REDUCERS[metric](np.asarray(group, dtype=float)) if group else empty for group in groups]
