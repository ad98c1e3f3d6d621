"""The one place a loaded model becomes a request scorer, and the lazy scorer that loads the model
only when the score cache lacks something (a rerun served from the cache loads nothing, not even
torch)."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import cached_property

from pfcore.errors import InputError
from pfcore.models.identity import model_identity
from pfcore.models.loading import LoadedModel, load_model, resolve_source
from pfcore.models.spec import ModelSpec
from pfcore.scoring.methods import ScoringMethod, check_fits
from pfcore.scoring.requests import Progress, Request, RequestScorer, TokenScores

ScorerSource = Callable[[ModelSpec, ScoringMethod, bool], RequestScorer]
"""Builds the scorer of (model spec, method, bos): `scorer_for` here, a cached one in the app."""


def make_scorer(loaded: LoadedModel, method: ScoringMethod, bos: bool = False) -> RequestScorer:
    """The request scorer of a loaded model for a method (causal, PLL, or masked-token readout)."""
    check_fits(method, loaded.spec.kind, loaded.spec.label)
    if method is ScoringMethod.CAUSAL:
        from pfcore.scoring.causal import CausalScorer, ScorerSettings  # torch: only when scoring

        return CausalScorer(loaded, ScorerSettings(bos=bos))
    from pfcore.scoring.pll import BlankRequestScorer, PllRequestScorer

    if method is ScoringMethod.MASKED_TOKEN:
        return BlankRequestScorer(loaded)
    if method.is_pll:
        return PllRequestScorer(loaded, method)
    raise InputError(f"{method.value!r} has no request scorer: it reads the model directly")


def scorer_for(spec: ModelSpec, method: ScoringMethod, bos: bool = False) -> RequestScorer:
    """Load the model (cached per process) and build its scorer."""
    return make_scorer(load_model(spec), method, bos)


def cache_identity(spec: ModelSpec, method: ScoringMethod, bos: bool = False) -> dict[str, object]:
    """The score cache's key material for a model and method, found without loading the model;
    equal to what the loaded scorer's `cache_identity()` gives."""
    source, _ = resolve_source(spec)
    return {**model_identity(spec, source), **method.identity(bos)}


class LazyScorer:
    """A request scorer whose model loads on first use; its cache keys equal the loaded scorer's."""

    def __init__(self, spec: ModelSpec, method: ScoringMethod, bos: bool = False,
                 source: ScorerSource = scorer_for) -> None:
        self.spec, self._method, self.bos, self._source = spec, method, bos, source
        self.load_s = 0.0  # seconds spent loading the model and building the scorer (0: never)

    @property
    def method(self) -> ScoringMethod:
        """The scoring method."""
        return self._method

    @cached_property
    def scorer(self) -> RequestScorer:
        """The real scorer, loading the model now."""
        started = time.monotonic()
        scorer = self._source(self.spec, self._method, self.bos)
        self.load_s = time.monotonic() - started
        return scorer

    @cached_property
    def identity(self) -> dict[str, object]:
        """Model identity and scoring settings, found once without loading the model."""
        return cache_identity(self.spec, self._method, self.bos)

    def cache_identity(self) -> dict[str, object]:
        """The score cache's key material (see `identity`)."""
        return self.identity

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """Score with the real scorer (loading the model the first time)."""
        return self.scorer.score(requests, progress)

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """Token strings, from the real scorer's tokenizer."""
        return self.scorer.display_tokens(ids)

    def text_token_ids(self, text: str) -> tuple[int, ...]:
        """A text's token ids, from the real scorer's tokenizer."""
        return self.scorer.text_token_ids(text)
