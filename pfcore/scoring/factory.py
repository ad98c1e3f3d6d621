"""Where a model spec becomes a request scorer (through the one model cache, pfcore.scoring.models), and
the one lazy handle on a model: it loads only when the score cache lacks something (a rerun served from
the cache loads nothing, not even torch; aligning cached scores with words loads the tokenizer alone)."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol, TypeVar

from pfcore.errors import InputError
from pfcore.models.loading import LoadedModel
from pfcore.models.spec import ModelSpec
from pfcore.scoring.align import Span
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS
from pfcore.scoring.next_tokens import TOP_K, NextTokens, most_likely_next
from pfcore.scoring.requests import Progress, Request, RequestScorer, TokenScores
from pfcore.scoring.words import text_ids, token_spans

T = TypeVar("T")


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


@dataclass
class _Load:
    """What a handle and its BOW variant share: the plain scorer, once loaded, and the seconds it took.
    Both point here and not at each other, so that no reference cycle keeps a dropped model in memory
    until a garbage collection (a trajectory's checkpoints had all stayed loaded without one)."""

    scorer: RequestScorer | None = None
    seconds: float = 0.0


class LazyScorer:
    """The one lazy handle on a model and its request scorer: the model loads on first use (timed once,
    in `load_s`), its cache key is found once without loading it, and token strings, ids and spans
    come from the tokenizer alone until the model is loaded. Its BOW variant (`bow_scorer`) shares
    its load; suites that read the model itself get it from `model()`."""

    def __init__(self, spec: ModelSpec, method: ScoringMethod, *, bos: bool = False,
                 source: ScorerSource = scorer_for, bow: bool = False, load: _Load | None = None) -> None:
        self.spec, self.method, self.bos, self._source, self._bow = spec, method, bos, source, bow
        self._load = load or _Load()  # shared with the BOW variant

    @property
    def load_s(self) -> float:
        """Seconds spent loading the model and building the scorer (0: never)."""
        return self._load.seconds

    def _timed(self, load: Callable[[], T]) -> T:
        """What `load` gives, its time added to `load_s`."""
        started = time.monotonic()
        loaded = load()
        self._load.seconds += time.monotonic() - started
        return loaded

    def model(self) -> LoadedModel:
        """The loaded model itself, for suites that read it directly (loading it now the first time)."""
        return self._timed(lambda: MODELS.loaded(self.spec))

    def _plain(self) -> RequestScorer:
        """The plain (not BOW) real scorer, loading the model now the first time."""
        if self._load.scorer is None:
            self._load.scorer = self._timed(lambda: self._source(self.spec, self.method, bos=self.bos))
        return self._load.scorer

    @cached_property
    def scorer(self) -> RequestScorer:
        """The real scorer, loading the model now."""
        return _variant(self._plain()) if self._bow else self._plain()

    @cached_property
    def identity(self) -> dict[str, object]:
        """Model identity and scoring settings, found once without loading the model."""
        return cache_identity(self.spec, self.method, bos=self.bos, bow=self._bow)

    def cache_identity(self) -> dict[str, object]:
        """The score cache's key material (see `identity`)."""
        return self.identity

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """Score with the real scorer (loading the model the first time)."""
        return self.scorer.score(requests, progress)

    def next_tokens(self, prefix: str, *, k: int = TOP_K) -> NextTokens:
        """The model's most likely next tokens after a prefix (loads the model: they are not cached)."""
        return most_likely_next(self._plain(), prefix, k=k)

    def bow_scorer(self) -> LazyScorer | None:
        """The lazy BOW variant, where the method has one (it loads through this handle); None otherwise."""
        return (self if self._bow else self._bow_twin) if self.method.bow else None

    @cached_property
    def _bow_twin(self) -> LazyScorer:
        """The BOW variant, built once; it loads through this handle's load."""
        return LazyScorer(self.spec, self.method, bos=self.bos, source=self._source, bow=True, load=self._load)

    def _tokenizer(self) -> Any:
        """The tokenizer alone while the model is not loaded (None: ask the loaded scorer)."""
        return None if self._load.scorer is not None else MODELS.tokenizer(self.spec)

    def _bos_id(self, tokenizer: Any) -> int | None:
        """The BOS id a scorer with BOS prepends (None otherwise)."""
        return getattr(tokenizer, "bos_token_id", None) if self.bos and self.method.takes_bos else None

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """Token strings, as the real scorer decodes them."""
        tok = self._tokenizer()
        return self._plain().display_tokens(ids) if tok is None else tuple(tok.decode([i]) for i in ids)

    def text_token_ids(self, text: str) -> tuple[int, ...]:
        """A text's token ids, as the real scorer gives them."""
        tok = self._tokenizer()
        return self._plain().text_token_ids(text) if tok is None else text_ids(tok, text, self._bos_id(tok))

    def token_spans(self, text: str) -> tuple[Span, ...]:
        """A text's token spans, as the real scorer gives them."""
        tok = self._tokenizer()
        return self._plain().token_spans(text) if tok is None else token_spans(tok, text, self._bos_id(tok))


def _variant(scorer: RequestScorer) -> RequestScorer:
    """The BOW variant of a loaded scorer."""
    bow = scorer.bow_scorer()
    if bow is None:
        raise InputError(f"the {scorer.method.value} scorer has no beginning-of-word variant")
    return bow
