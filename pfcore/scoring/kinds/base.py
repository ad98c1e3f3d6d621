"""What a kind of model is to pfcore: where a model of it loads from and what identifies its numbers,
how it loads, its tokenizer, how it scores text, its scoring methods, its parameter count, whether it
gives next tokens and how messages name it: pfcore asks a kind these, never which kind it is. `TransformersKind` is the
kind transformers loads (causal and masked); another kind subclasses `Kind` (pfcore.scoring.kinds)."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pfcore.models.identity import model_identity, weights_identity
from pfcore.models.loading import Architecture, LoadedModel, load_weights, read_tokenizer, resolve_source
from pfcore.models.spec import ModelSpec
from pfcore.scoring.methods import TEXTS, ScoringMethod
from pfcore.scoring.requests import RequestScorer

ScorerBuilder = Callable[[LoadedModel, ScoringMethod, bool], RequestScorer]
"""build(loaded, method, bos): the request scorer of a loaded model for one of its kind's methods."""


class Kind(ABC):
    """A kind of model. `methods` are the ones its models score with (the first that reads texts scores
    any whole text); `help` says what the kind is, for pickers."""

    name: str
    help: str
    methods: tuple[ScoringMethod, ...]
    by_name: bool = True  # a model of it loads from its name (a hub id, a folder); False: it comes another way
    note: str = ""  # what the app says beside a ready model of this kind ("" for nothing)

    @property
    def text_method(self) -> ScoringMethod:
        """The method that scores any whole text with a model of this kind."""
        return next(method for method in self.methods if method.reads == TEXTS)

    @property
    def next_tokens(self) -> bool:
        """Whether a model of this kind gives the next token's distribution (a method reads left to right)."""
        return any(method.next_tokens for method in self.methods)

    def offered(self) -> bool:
        """Whether --kind and the sidebar's picker offer it (a kind whose models load from their name)."""
        return self.by_name

    def parameters(self, loaded: LoadedModel) -> int | None:
        """The model's number of parameters; None where the kind cannot say (no weights pfcore sees)."""
        return None

    def resolve(self, spec: ModelSpec) -> tuple[str, bool]:
        """Where the model loads from, and whether that is on this machine."""
        return resolve_source(spec)

    def identity(self, spec: ModelSpec, source: str) -> dict[str, object]:
        """What identifies the model's numbers (the score cache's namespace, with a method's settings)."""
        return model_identity(spec, source)

    def weights(self, spec: ModelSpec, source: str, local: bool) -> str:
        """The content hash of what the model's numbers come from (its weight files), for run records."""
        return weights_identity(spec, source, local)

    @abstractmethod
    def load(self, spec: ModelSpec, source: str, local: bool, identity: dict[str, object]) -> LoadedModel:
        """The model, ready to score, carrying the identity `identity` gave."""

    def tokenizer(self, spec: ModelSpec, source: str, local: bool) -> Any:
        """The model's tokenizer alone (to align cached scores with words without the weights); None: token
        questions go to the loaded scorer."""
        return None

    @abstractmethod
    def scorer(self, loaded: LoadedModel, method: ScoringMethod, *, bos: bool) -> RequestScorer:
        """The request scorer of a loaded model for one of this kind's methods."""


@dataclass(frozen=True)
class TransformersKind(Kind):
    """A kind of model transformers loads with one auto class (safetensors only)."""

    name: str
    help: str
    methods: tuple[ScoringMethod, ...]
    architecture: Architecture
    build: ScorerBuilder

    def load(self, spec: ModelSpec, source: str, local: bool, identity: dict[str, object]) -> LoadedModel:
        """Weights and tokenizer (the embedded model by pfcore's plain-torch Llama)."""
        return load_weights(spec, source, local, self.architecture, identity)

    def tokenizer(self, spec: ModelSpec, source: str, local: bool) -> Any:
        """The tokenizer as a load of the model gives it."""
        return read_tokenizer(spec, source, local)

    def scorer(self, loaded: LoadedModel, method: ScoringMethod, *, bos: bool) -> RequestScorer:
        """The kind's scorer for the method."""
        return self.build(loaded, method, bos)

    def parameters(self, loaded: LoadedModel) -> int | None:
        """The weights' number of parameters."""
        return int(sum(p.numel() for p in loaded.model.parameters()))
