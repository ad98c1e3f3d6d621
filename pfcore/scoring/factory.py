"""Where a model spec becomes a request scorer (through the one model cache, pfcore.scoring.models), and
the lazy scorer that loads the model only when the score cache lacks something (a rerun served from
the cache loads nothing, not even torch; aligning cached scores with words loads the tokenizer alone)."""
from __future__ import annotations

import time
from collections.abc import Sequence
from functools import cached_property
from typing import Protocol

from pfcore.errors import InputError
from pfcore.models.spec import ModelSpec
from pfcore.scoring.align import Span
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS
from pfcore.scoring.next_tokens import TOP_K, NextTokens, most_likely_next
from pfcore.scoring.requests import Progress, Request, RequestScorer, TokenScores
from pfcore.scoring.words import text_ids, token_spans


class ScorerSource(Protocol):
    """Builds the scorer of a model spec and method: `scorer_for` here, the app's own in pfcore.ui.model."""

    def __call__(self, spec: ModelSpec, method: ScoringMethod, *, bos: bool) -> RequestScorer:
        """The scorer (bos by keyword)."""


def scorer_for(spec: ModelSpec, method: ScoringMethod, *, bos: bool = False) -> RequestScorer:
    """The process's one scorer of the model and method, loaded through the model cache."""
    return MODELS.scorer(spec, method, bos=bos)


def cache_identity(spec: ModelSpec, method: ScoringMethod, *, bos: bool = False,
                   bow: bool = False) -> dict[str, object]:
    """The score cache's key material for a model and method (and its BOW variant), found without
    loading the model; equal to what the loaded scorer's `cache_identity()` gives."""
    return {**MODELS.identity(spec), **method.identity(bos=bos, bow=bow)}


class LazyScorer:
    """A request scorer whose model loads on first use; its cache keys equal the loaded scorer's.
    Token strings, ids and spans come from the tokenizer alone until the model is loaded (when the
    scorer is built by `scorer_for`; another source, such as the app's, has its models at hand)."""

    def __init__(self, spec: ModelSpec, method: ScoringMethod, *, bos: bool = False,
                 source: ScorerSource = scorer_for, bow_of: LazyScorer | None = None) -> None:
        self.spec, self._method, self.bos, self._source = spec, method, bos, source
        self._bow_of = bow_of  # the lazy scorer this one is the BOW variant of
        self.load_s = 0.0  # seconds spent loading the model and building the scorer (0: never)

    @property
    def method(self) -> ScoringMethod:
        """The scoring method."""
        return self._method

    @cached_property
    def scorer(self) -> RequestScorer:
        """The real scorer, loading the model now."""
        if self._bow_of is not None:
            return _variant(self._bow_of.scorer)
        started = time.monotonic()
        scorer = self._source(self.spec, self._method, bos=self.bos)
        self.load_s = time.monotonic() - started
        return scorer

    @cached_property
    def identity(self) -> dict[str, object]:
        """Model identity and scoring settings, found once without loading the model."""
        return cache_identity(self.spec, self._method, bos=self.bos, bow=self._bow_of is not None)

    def cache_identity(self) -> dict[str, object]:
        """The score cache's key material (see `identity`)."""
        return self.identity

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """Score with the real scorer (loading the model the first time)."""
        return self.scorer.score(requests, progress)

    def next_tokens(self, prefix: str, *, k: int = TOP_K) -> NextTokens:
        """The model's most likely next tokens after a prefix (loads the model: they are not cached)."""
        return most_likely_next((self._bow_of or self).scorer, prefix, k=k)

    def bow_scorer(self) -> LazyScorer | None:
        """The lazy BOW variant for causal scoring (it loads through this one); None otherwise."""
        if self._method is not ScoringMethod.CAUSAL:
            return None
        return self if self._bow_of is not None else self._bow_twin

    @cached_property
    def _bow_twin(self) -> LazyScorer:
        """The BOW variant, built once."""
        return LazyScorer(self.spec, self._method, bos=self.bos, source=self._source, bow_of=self)

    def _loaded(self) -> bool:
        """Whether token questions go to the real scorer: it is there, or the source is not ours."""
        base = self._bow_of or self
        return "scorer" in vars(base) or base._source is not scorer_for

    def _bos_id(self) -> int | None:
        """The BOS id a causal scorer with BOS prepends (None otherwise)."""
        bos = self.bos and self._method is ScoringMethod.CAUSAL
        return MODELS.tokenizer(self.spec).bos_token_id if bos else None

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """Token strings, as the real scorer decodes them."""
        if self._loaded():
            return (self._bow_of or self).scorer.display_tokens(ids)
        tokenizer = MODELS.tokenizer(self.spec)
        return tuple(tokenizer.decode([i]) for i in ids)

    def text_token_ids(self, text: str) -> tuple[int, ...]:
        """A text's token ids, as the real scorer gives them."""
        if self._loaded():
            return (self._bow_of or self).scorer.text_token_ids(text)
        return text_ids(MODELS.tokenizer(self.spec), text, self._bos_id())

    def token_spans(self, text: str) -> tuple[Span, ...]:
        """A text's token spans, as the real scorer gives them."""
        if self._loaded():
            return (self._bow_of or self).scorer.token_spans(text)
        return token_spans(MODELS.tokenizer(self.spec), text, self._bos_id())


def _variant(scorer: RequestScorer) -> RequestScorer:
    """The BOW variant of a loaded scorer (only causal scorers have one)."""
    bow = scorer.bow_scorer()
    if bow is None:
        raise InputError(f"the {scorer.method.value} scorer has no beginning-of-word variant")
    return bow
