"""The one model cache of a process, used by the command line, the app's sessions and its warm-up, and a
sweep's workers. Per model spec it keeps where the model loads from, what identifies its numbers, its
tokenizer, its weights and its scorers, each worked out once. One eviction policy: at most MAX_LOADED
models hold their weights (the least recently used gives them up first, with its scorers), and what is
known of a model without its weights is kept for the MAX_KNOWN most recently used. A local model whose
weight files change on disk is found again from scratch."""
from __future__ import annotations

import os
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pfcore.models.loading import LoadedModel
from pfcore.models.spec import ModelSpec
from pfcore.scoring.kinds import kind_of
from pfcore.scoring.kinds.base import Kind
from pfcore.scoring.methods import ScoringMethod, check_fits
from pfcore.scoring.requests import RequestScorer

MAX_LOADED = 2  # models with their weights in memory
MAX_KNOWN = 16  # models whose source, identity and tokenizer are remembered
Fingerprint = tuple[tuple[str, int, int], ...]


@dataclass
class Entry:
    """What is known of one model spec: its kind and source, then (as they are asked for) its
    identity, tokenizer, weights and scorers."""

    kind: Kind
    source: str
    local: bool
    fingerprint: Fingerprint
    identity: dict[str, object] | None = None
    tokenizer: Any = None
    loaded: LoadedModel | None = None
    scorers: dict[tuple[ScoringMethod, bool], RequestScorer] = field(default_factory=dict)

    def drop_weights(self) -> None:
        """Let the weights and the scorers built on them go."""
        self.loaded, self.scorers = None, {}


def fingerprint(source: str, local: bool) -> Fingerprint:
    """Name, size and modification time of a local model folder's files (nothing for a hub id): what
    changes when the weights are replaced, found with a few stat calls."""
    folder = Path(source)
    if not local or not folder.is_dir():
        return ()
    try:
        stats = [(entry.name, entry.stat()) for entry in os.scandir(folder) if entry.is_file()]
    except OSError:
        return ()
    return tuple(sorted((name, st.st_size, st.st_mtime_ns) for name, st in stats))


class ModelCache:
    """Models by spec (see the module's docstring); thread-safe, one load at a time."""

    def __init__(self) -> None:
        self._entries: OrderedDict[ModelSpec, Entry] = OrderedDict()
        self._lock = threading.RLock()  # one load at a time: the app's warm-up and its pages share models
        self._wanted: Counter[ModelSpec] = Counter()  # loads under way or promised, per spec (see `promised`)
        self._settled = threading.Condition(threading.Lock())  # told whenever a load (or its promise) ends

    def _entry(self, spec: ModelSpec) -> Entry:
        """The spec's entry, found now when unknown or when its files changed; most recently used."""
        with self._lock:
            entry = self._entries.get(spec)
            if entry is not None and fingerprint(entry.source, entry.local) == entry.fingerprint:
                self._entries.move_to_end(spec)
                return entry
            kind = kind_of(spec.kind)
            source, local = kind.resolve(spec)
            self._entries[spec] = entry = Entry(kind, source, local, fingerprint(source, local))
            self._entries.move_to_end(spec)
            while len(self._entries) > MAX_KNOWN:
                self._entries.popitem(last=False)
            return entry

    def source(self, spec: ModelSpec) -> str:
        """Where the model loads from (a folder, or a hub id), found without loading it."""
        return self._entry(spec).source

    def identity(self, spec: ModelSpec) -> dict[str, object]:
        """What identifies the model's numbers, without loading it (worked out once)."""
        entry = self._entry(spec)
        with self._lock:
            if entry.identity is None:
                entry.identity = entry.kind.identity(spec, entry.source)
            return entry.identity

    def weights(self, spec: ModelSpec) -> str:
        """The content hash of the model's weights (`identity.weights_identity`; a hub id's once its
        snapshot is on this machine, so it is asked each time)."""
        entry = self._entry(spec)
        return entry.kind.weights(spec, entry.source, entry.local)

    def loaded(self, spec: ModelSpec) -> LoadedModel:
        """The model with its weights, loading it now the first time."""
        with self.promised(spec), self._lock:
            entry = self._entry(spec)
            if entry.loaded is None:
                entry.loaded = entry.kind.load(spec, entry.source, entry.local, self.identity(spec))
                self._keep_weights(spec)
            return entry.loaded

    def load_beside(self, spec: ModelSpec) -> LoadedModel:
        """The model with its weights, loaded without holding the cache's lock, so that the models it
        holds keep scoring and it keeps answering meanwhile (a trajectory loads its next checkpoint so,
        while it scores this one); the caller makes sure nobody else loads the same spec meanwhile."""
        with self.promised(spec):
            entry, identity = self._entry(spec), self.identity(spec)
            loaded = entry.loaded or entry.kind.load(spec, entry.source, entry.local, identity)
            with self._lock:
                if entry.loaded is None:
                    entry.loaded = loaded
                    self._keep_weights(spec)
                return entry.loaded

    def forget(self, spec: ModelSpec) -> None:
        """Forget one model, its weights with it (a trajectory's checkpoint once its suites are run)."""
        with self._lock:
            self._entries.pop(spec, None)

    def _keep_weights(self, newest: ModelSpec) -> None:
        """Leave at most MAX_LOADED models with their weights, the newest and the most recently used."""
        for spec in [s for s in reversed(self.holding()) if s != newest][MAX_LOADED - 1:]:
            self._entries[spec].drop_weights()

    def tokenizer(self, spec: ModelSpec) -> Any:
        """The model's tokenizer: the loaded model's, else read alone (once)."""
        entry = self._entry(spec)
        with self._lock:
            if entry.loaded is not None:
                return entry.loaded.tokenizer
            if entry.tokenizer is None:
                entry.tokenizer = entry.kind.tokenizer(spec, entry.source, entry.local)
            return entry.tokenizer

    def scorer(self, spec: ModelSpec, method: ScoringMethod, *, bos: bool = False) -> RequestScorer:
        """The process's one scorer of (model, method, BOS), shared by every caller, so what a scorer
        works out once (exactness checks, word-start tokens) is worked out once."""
        check_fits(method, spec.kind, spec.label)
        with self._lock:
            loaded = self.loaded(spec)
            scorers = self._entries[spec].scorers
            if (method, bos) not in scorers:
                scorers[(method, bos)] = self._entries[spec].kind.scorer(loaded, method, bos=bos)
            return scorers[(method, bos)]

    def loaded_now(self, spec: ModelSpec) -> LoadedModel | None:
        """The model if its weights are in memory now, without loading it or waiting for a load."""
        entry = self._entries.get(spec)
        return entry.loaded if entry is not None else None

    def holding(self) -> list[ModelSpec]:
        """The models whose weights are in memory now, least recently used first."""
        return [spec for spec, entry in list(self._entries.items()) if entry.loaded is not None]

    @contextmanager
    def promised(self, spec: ModelSpec) -> Iterator[None]:
        """While active, a load of this model is under way or on its way (a `loaded` call, or the app's
        warm-up waiting for its turn): `being_loaded` says so."""
        with self._settled:
            self._wanted[spec] += 1
        try:
            yield
        finally:
            with self._settled:
                self._wanted[spec] -= 1
                if not self._wanted[spec]:
                    del self._wanted[spec]
                self._settled.notify_all()

    def being_loaded(self, spec: ModelSpec) -> bool:
        """Whether some thread is loading this model or is about to, so a page that does not need it
        yet can go on without waiting."""
        return self.loaded_now(spec) is None and self._wanted[spec] > 0

    def wait_while_loading(self, spec: ModelSpec, timeout: float) -> bool:
        """Wait until no load of this model is under way, at most `timeout` seconds; whether none is.
        Wakes as soon as a load ends, so a page waiting for the model is not late."""
        with self._settled:
            return self._settled.wait_for(lambda: not self.being_loaded(spec), timeout)

    def clear(self) -> None:
        """Forget every model (between checkpoints of a trajectory, and in tests)."""
        with self._lock:
            self._entries.clear()


MODELS = ModelCache()


def load_model(spec: ModelSpec | None = None) -> LoadedModel:
    """The model of a spec (the embedded default when none), through the process's model cache."""
    return MODELS.loaded(spec or ModelSpec())
