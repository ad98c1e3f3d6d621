"""The fake kind: a deterministic stand-in for tests that need no model, chosen by tests and app alike. Words
are tokens and each log-probability is a fixed function of the text before it. It is not a language model:
--kind and the sidebar offer it only when PFCORE_FAKE_SCORER=1 is set (the tests set it), it loads only then."""
from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from pfcore.errors import InputError
from pfcore.models.loading import LoadedModel
from pfcore.models.spec import ModelSpec
from pfcore.scoring.align import Span, word_spans
from pfcore.scoring.kinds.base import Kind
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.next_tokens import TOP_K, NextTokens, check_prefix, top_tokens
from pfcore.scoring.requests import Progress, Request, TokenScores
from pfcore.scoring.words import pack_bow

FAKE_MODEL = "pfcore-fake-scorer"
ENABLE_VAR = "PFCORE_FAKE_SCORER"
METHOD = ScoringMethod("fake", "fake", "deterministic stand-in log-probabilities (tests; not a language model)",
                       bow=True, next_tokens=True)
# The fake's next-word candidates; a fixed remainder of probability stands for "any other word".
NEXT_WORDS = ("the", "a", "coffee", "tea", "water", "shoes", "squid", "shrimp", "rock", "one", "it",
              "and", "or", "not", "very", "much", "more", "time", "people", "home")
OTHER_WEIGHT = 1.0
_VOCAB: dict[str, int] = {}  # word -> id, shared by every instance so ids decode anywhere
_WORDS: list[str] = []


def fake_enabled() -> bool:
    """Whether the environment allows the fake scorer (tests only)."""
    return os.environ.get(ENABLE_VAR) == "1"


def _word_id(word: str) -> int:
    """The id of a word in the shared fake vocabulary (added on first sight)."""
    if word not in _VOCAB:
        _VOCAB[word] = len(_WORDS)
        _WORDS.append(word)
    return _VOCAB[word]


def _logprob(context: str, word: str) -> float:
    """A log-probability in [-12, -0.5) fixed by the context and the word (sha256, not random)."""
    digest = hashlib.sha256(f"{context}\x1f{word}".encode()).digest()
    return -0.5 - 11.5 * int.from_bytes(digest[:4], "big") / 2**32


class FakeScorer:
    """Scores requests word by word with `_logprob`; the first word of a whole text is unscored,
    as a causal model without BOS leaves it. Its BOW variant packs a log BOW mass of 0 at every
    row: each of its tokens is a word, so a word surely begins after each."""

    def __init__(self, bow: bool = False, identity: dict[str, object] | None = None) -> None:
        self.bow, self.identity = bow, identity or {"name": FAKE_MODEL}

    @property
    def method(self) -> ScoringMethod:
        """It stands in for a causal scorer, with a method of its own."""
        return METHOD

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """One TokenScores per request."""
        out = [self._one(r) for r in requests]
        if progress:
            progress(len(requests), len(requests))
        return out

    def _one(self, request: Request) -> TokenScores:
        """The scored words of one request and their log-probabilities."""
        words = [f" {w}" for w in request.text.split()]
        if not request.prefix:
            words[0] = words[0].lstrip()
        start = 0 if request.prefix else 1
        history = request.prefix + "".join(words[:start])
        logprobs = []
        for word in words[start:]:
            logprobs.append(_logprob(history, word))
            history += word
        ids = tuple(_word_id(w) for w in words[start:])
        if self.bow:
            return pack_bow(ids, np.array(logprobs), range(len(ids) + 1), np.zeros(len(ids) + 1),
                            self.display_tokens)
        return TokenScores(ids, np.array(logprobs), self.display_tokens)

    def next_tokens(self, prefix: str, *, k: int = TOP_K) -> NextTokens:
        """The k most likely of NEXT_WORDS after the prefix, each weighted by `_logprob`, with a
        fixed share left to any other word (so the probabilities sum to less than 1)."""
        prefix = check_prefix(prefix, k)
        words = [f" {w}" for w in NEXT_WORDS]
        weights = np.exp([_logprob(prefix, w) for w in words])
        logprobs = np.log(weights / (weights.sum() + OTHER_WEIGHT))
        ids = [_word_id(w) for w in words]
        chosen = top_tokens(prefix, logprobs, k=k, decode=words.__getitem__, begins=np.ones(len(words), dtype=bool))
        return NextTokens(prefix, tuple(replace(t, token_id=ids[t.token_id]) for t in chosen.tokens),
                          chosen.vocabulary)

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """The words the ids stand for."""
        return tuple(_WORDS[i] for i in ids)

    def cache_identity(self) -> dict[str, object]:
        """Its own cache namespace."""
        return {**self.identity, **METHOD.identity(bow=self.bow)}

    def text_token_ids(self, text: str) -> tuple[int, ...]:
        """A text's words as ids."""
        return tuple(_word_id(w if i == 0 else f" {w}") for i, w in enumerate(text.split()))

    def token_spans(self, text: str) -> tuple[Span, ...]:
        """Its tokens are the words."""
        return tuple(word_spans(text))

    def bow_scorer(self) -> FakeScorer:
        """The variant with BOW masses (all 0: every token begins a word)."""
        return self if self.bow else FakeScorer(bow=True, identity=self.identity)


class FakeKind(Kind):
    """The stand-in as a kind: nothing to load, no tokenizer, no parameters pfcore can count."""

    name, help, methods = "fake", "a deterministic stand-in for tests, not a language model", (METHOD,)
    note = "a deterministic stand-in for tests, not a language model; its numbers mean nothing"

    def offered(self) -> bool:
        """Only where the environment allows it (tests)."""
        return fake_enabled()

    def resolve(self, spec: ModelSpec) -> tuple[str, bool]:
        """Nothing to find: the name is the model (identified, as a hub id is, by its name)."""
        return spec.name, False

    def load(self, spec: ModelSpec, source: str, local: bool, identity: dict[str, object]) -> LoadedModel:
        """Nothing to load; refused unless the environment allows the stand-in."""
        if not fake_enabled():
            raise InputError(f"the fake kind is for tests: set {ENABLE_VAR}=1 to use it")
        return LoadedModel(spec, None, None, source, 0.0, identity)

    def scorer(self, loaded: LoadedModel, method: ScoringMethod, *, bos: bool) -> FakeScorer:
        """The stand-in scorer, keyed by the model's identity."""
        return FakeScorer(identity=loaded.identity)


KIND = FakeKind()
