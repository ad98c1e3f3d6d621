"""Word surprisal from token scores, with the beginning-of-word (BOW) correction of Pimentel and
Meister (2024) and Oh and Schuler (2024): p(w | c) = p(tokens(w) | c) * P_bow(c w) / P_bow(c),
where P_bow(x) is the probability that the token after x begins a new word (its text begins with
a whitespace character, or it is EOS). A causal scorer's BOW variant returns those log-masses
beside the token log-probs, packed into one TokenScores so the score cache keeps them; this module
decides which tokens begin a word, packs and unpacks the masses, and turns scores into words."""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pfcore.errors import InputError
from pfcore.scoring.align import Span, attached_owners, word_spans
from pfcore.scoring.requests import LN2, Decoder, Request, RequestScorer, TokenScores

ScoreFn = Callable[[RequestScorer, Sequence[Request]], list[TokenScores]]
"""score(scorer, requests): per-token scores, e.g. through the score cache."""


def plain_score(scorer: RequestScorer, requests: Sequence[Request]) -> list[TokenScores]:
    """Score without a cache."""
    return scorer.score(requests)


# ----- which tokens begin a word -----

def begins_word(tokenizer: Any) -> np.ndarray:
    """Per vocabulary id, whether the token begins a new word: its decoded text starts with a
    whitespace character (byte-level BPE's "Ġ" and "Ċ", SentencePiece's "▁" decode to one), or it
    is EOS. Each token is decoded after an anchor token, since SentencePiece drops the space of a
    token that starts a text."""
    anchor = tokenizer("a", add_special_tokens=False)["input_ids"][-1]
    lead = tokenizer.decode([anchor], clean_up_tokenization_spaces=False)
    size = len(tokenizer)
    texts = tokenizer.batch_decode([[anchor, i] for i in range(size)], clean_up_tokenization_spaces=False)
    mask = np.fromiter((t.startswith(lead) and t[len(lead):][:1].isspace() for t in texts),
                       dtype=bool, count=size)
    if tokenizer.eos_token_id is not None:
        mask[tokenizer.eos_token_id] = True
    return mask


def text_ids(tokenizer: Any, text: str, bos_id: int | None = None) -> tuple[int, ...]:
    """The ids a whole text tokenizes into without special tokens, after BOS when one is given."""
    bos = () if bos_id is None else (bos_id,)
    return bos + tuple(tokenizer(text, add_special_tokens=False)["input_ids"])


def token_spans(tokenizer: Any, text: str, bos_id: int | None = None) -> tuple[Span, ...]:
    """The character span of each token of `text_ids(tokenizer, text, bos_id)` (BOS: (0, 0))."""
    if not getattr(tokenizer, "is_fast", False):
        raise InputError("words and regions need a fast tokenizer (one that gives character offsets); "
                         "this model's tokenizer is not one")
    offsets = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
    bos = () if bos_id is None else ((0, 0),)
    return bos + tuple((int(a), int(b)) for a, b in offsets)


# ----- BOW log-masses packed beside the token log-probs -----

def pack_bow(ids: Sequence[int], logprobs: np.ndarray, rows: Sequence[int] | np.ndarray,
             masses: np.ndarray, decode: Decoder) -> TokenScores:
    """One TokenScores holding the scored tokens' log-probs, then the log BOW mass at some rows
    (row k: before scored token k; row n: after the last token), each row stored as id -1 - k."""
    return TokenScores((*ids, *(-1 - int(k) for k in rows)),
                       np.concatenate([logprobs, masses]).astype(np.float64), decode)


def unpack_bow(packed: TokenScores) -> tuple[TokenScores, np.ndarray]:
    """The token scores and the log BOW mass at each row 0..n (NaN where none was computed)."""
    ids = np.asarray(packed.token_ids, dtype=np.int64)
    n = int((ids >= 0).sum())
    masses = np.full(n + 1, np.nan)
    masses[-1 - ids[n:]] = packed.logprobs[n:]
    return TokenScores(tuple(int(i) for i in ids[:n]), packed.logprobs[:n], packed.decode), masses


# ----- words -----

@dataclass(frozen=True)
class Word:
    """One whitespace-delimited word of a request's text, with its log-probabilities in nats (NaN
    when the word is not scored, as the first word of a text without BOS)."""

    text: str
    start: int  # character span in the request's text
    end: int
    first: int  # index of its first token among the whole text's tokens (-1: none)
    n_tokens: int
    logprob: float  # sum of its tokens' log-probs (what minicons and most studies report)
    logprob_corrected: float  # with the BOW correction (equal to `logprob` where none was computed)

    @property
    def surprisal_bits(self) -> float:
        """Corrected surprisal in bits (the word views' default)."""
        return -self.logprob_corrected / LN2

    @property
    def surprisal_bits_uncorrected(self) -> float:
        """Surprisal in bits as the sum of the tokens' surprisals."""
        return -self.logprob / LN2


@dataclass(frozen=True)
class ScoredText:
    """A scored request seen as tokens and words: the scored tokens, every token of the text (ids
    and character spans in `joined_text(request)`), and the words of `request.text`."""

    request: Request
    scores: TokenScores
    token_ids: tuple[int, ...]
    spans: tuple[Span, ...]
    words: tuple[Word, ...]
    corrected: bool  # whether the words carry the BOW correction

    @property
    def scored_spans(self) -> list[Span]:
        """The scored tokens' character spans in `request.text`."""
        base = text_start(self.request)
        scored = self.spans[len(self.spans) - len(self.scores.token_ids):]
        return [(max(a - base, 0), max(b - base, 0)) for a, b in scored]


def joined_text(request: Request) -> str:
    """The text a request's tokens come from: the prefix and the text joined by one space."""
    return f"{request.prefix} {request.text}" if request.prefix else request.text


def text_start(request: Request) -> int:
    """Where the request's text begins in `joined_text(request)`."""
    return len(request.prefix) + 1 if request.prefix else 0


def score_texts(scorer: RequestScorer, requests: Sequence[Request], score: ScoreFn = plain_score,
                *, corrected: bool = True) -> list[ScoredText]:
    """Score requests and split them into words; with `corrected`, through the scorer's BOW
    variant where it has one (masked models do not: their words keep the plain sums)."""
    bow = scorer.bow_scorer() if corrected else None
    return texts_from_scores(scorer, requests, score(bow or scorer, requests), packed=bow is not None)


def texts_from_scores(scorer: RequestScorer, requests: Sequence[Request], scores: Sequence[TokenScores], *,
                      packed: bool) -> list[ScoredText]:
    """Scored requests split into words; `packed`: the scores are the BOW variant's, with the
    masses the word correction needs packed beside the log-probs."""
    if not packed:
        return [scored_text(scorer, r, s, None) for r, s in zip(requests, scores)]
    return [scored_text(scorer, r, *unpack_bow(p)) for r, p in zip(requests, scores)]


def scored_text(scorer: RequestScorer, request: Request, scores: TokenScores,
                masses: np.ndarray | None) -> ScoredText:
    """One request's scores aligned to its text's tokens and words."""
    joined = joined_text(request)
    ids, spans = scorer.text_token_ids(joined), scorer.token_spans(joined)
    n = len(scores.token_ids)
    if len(ids) != len(spans) or n > len(ids) or tuple(ids[len(ids) - n:]) != scores.token_ids:
        raise InputError(f"the tokenizer splits {request.text[:60]!r} differently from its stored scores; "
                         "rerun without the score cache (--no-cache)")
    words = _words(joined, request, spans, scores.logprobs, masses)
    return ScoredText(request, scores, ids, spans, words, masses is not None)


def _words(joined: str, request: Request, spans: Sequence[Span], logprobs: np.ndarray,
           masses: np.ndarray | None) -> tuple[Word, ...]:
    """The words of the request's text with their tokens (whitespace-only tokens go with the word
    after them) and log-probabilities."""
    base, lead = text_start(request), len(spans) - len(logprobs)
    spans_of_words = word_spans(joined)
    members: dict[int, list[int]] = {}
    for index, owner in enumerate(attached_owners(joined, spans, spans_of_words)):
        if owner is not None:
            members.setdefault(owner, []).append(index)
    words = []
    for number, (start, end) in enumerate(spans_of_words):
        if start >= base:
            tokens = members.get(number, [])
            value, corrected = _word_logprobs(tokens, lead, logprobs, masses, number == 0)
            words.append(Word(joined[start:end], start - base, end - base, tokens[0] if tokens else -1,
                              len(tokens), value, corrected))
    return tuple(words)


def _word_logprobs(tokens: list[int], lead: int, logprobs: np.ndarray, masses: np.ndarray | None,
                   text_initial: bool) -> tuple[float, float]:
    """(sum of the word's token log-probs, corrected value): NaN unless every token is scored. The
    correction adds log P_bow after the word and subtracts it before; before a text's first word
    (after BOS) a word surely begins, so nothing is subtracted there."""
    if not tokens or tokens[0] < lead:
        return math.nan, math.nan
    first, last = tokens[0] - lead, tokens[-1] - lead
    value = float(logprobs[first:last + 1].sum())
    if masses is None:
        return value, value
    before = 0.0 if text_initial else float(masses[first])
    return value, value + float(masses[last + 1]) - before
