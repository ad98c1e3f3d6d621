"""How this server is deployed: a private workstation (every feature), or public mode for a class
server (PFCORE_PUBLIC=1), where no server path is typed or shown, models come only from the teacher's
allow-list, uploads are capped, runs are small and one at a time, and nothing one visitor does
changes what another sees. The setting is read from the environment (parsed once per distinct
value); a bad value is an InputError naming the variable, shown at start."""
from __future__ import annotations

import os
import re
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from pfcore.errors import InputError
from pfcore.files import MIB
from pfcore.names import DEFAULT_MODEL, DTYPES, ModelKind

PUBLIC_VAR = "PFCORE_PUBLIC"
MODELS_VAR = "PFCORE_MODELS_ALLOWED"
BLOCKS_VAR = "PFCORE_MAX_BLOCKS"
UPLOAD_VAR = "PFCORE_UPLOAD_MIB"
DEFAULT_MAX_BLOCKS = 5  # blocks per construction and run: a few minutes on a class server's CPU
MOST_BLOCKS = 100  # the most a teacher may allow per run
DEFAULT_UPLOAD_MIB = 2  # a stimuli CSV of 20,000 rows is about 2 MiB
MOST_UPLOAD_MIB = 64  # the bounded reader's cap for stimuli and suites
PUBLIC_NOTE = "This server is in public mode (a class server)"
RUN_BUSY = (f"{PUBLIC_NOTE}: a run is under way for another visitor, and the server runs one at a time. "
            "Press Run again when it has finished (the Probe, Items and Models pages work meanwhile).")
HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?(@[\w.-]+)?")
KIND_NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")  # a kind's name; which kinds exist, the page checks
_RUN_LOCK = threading.Lock()  # one run at a time per server process in public mode


class Loadable(Protocol):
    """What the policy reads of a model to load (a ModelSpec): its label and whether it runs remote code."""

    @property
    def label(self) -> str:
        """name, or name@revision."""
        ...

    @property
    def trust_remote_code(self) -> bool:
        """Whether the model may run its own code."""
        ...

    @property
    def kind(self) -> str:
        """What the model predicts (causal, masked)."""
        ...

    @property
    def dtype(self) -> str:
        """The precision it loads in."""
        ...


Variant = tuple[str, str]  # an allowed model's kind and dtype
DEFAULT_VARIANT: Variant = (ModelKind.CAUSAL, DTYPES[0])


@dataclass(frozen=True)
class Deployment:
    """The server's mode and, in public mode, its limits: the models allowed (labels, name or
    name@revision), blocks per construction and run, and the bytes an upload may have."""

    public: bool = False
    models_allowed: tuple[str, ...] = (DEFAULT_MODEL,)
    max_blocks: int = DEFAULT_MAX_BLOCKS
    upload_cap: int = DEFAULT_UPLOAD_MIB * MIB
    variants: tuple[tuple[str, Variant], ...] = ()  # the allowed models whose kind or dtype is not the default

    # The questions pages and the server ask of the mode (the one place that reads `public`; a test holds it so).

    @property
    def allows_paths(self) -> bool:
        """Whether pages may offer path boxes, folder imports, checkpoint folders and sweep plans."""
        return not self.public

    @property
    def hides_server_folders(self) -> bool:
        """Whether shown text has the server's folders left out (they are not a visitor's own)."""
        return self.public

    @property
    def allows_saving(self) -> bool:
        """Whether a visitor may change what every visitor sees: save model sizes, add a run from uploaded
        lm-eval logs to the shared results table."""
        return not self.public

    @property
    def picks_from_allow_list(self) -> bool:
        """Whether the sidebar offers only the allow-list's models (no free text, no revision box), and
        links and comparisons keep to it."""
        return self.public

    @property
    def keeps_runs_in_session(self) -> bool:
        """Whether a visitor's runs live in a folder of the session's own, out of the shared results."""
        return self.public

    @property
    def allows_typed_definitions(self) -> bool:
        """Whether a construction definition may be typed on the page (in public mode it comes by upload only)."""
        return not self.public

    @property
    def hardens_server(self) -> bool:
        """Whether the server takes the class server's settings (no table export of streamlit's own,
        uploads capped in streamlit too)."""
        return self.public

    def blocks_offered(self, private: int | None) -> int | None:
        """The most blocks a page's box offers: the public limit, or `private` on a workstation."""
        return self.max_blocks if self.public else private

    def is_allowed(self, spec: Loadable) -> bool:
        """Whether this model may load: any in private mode; in public mode a listed one in the kind and
        dtype the list gives it (no other variant loads, nor evicts the class's model), never with remote code."""
        return not self.public or (spec.label in self.models_allowed and not spec.trust_remote_code
                                   and (spec.kind, spec.dtype) == self.variant(spec.label))

    def variant(self, label: str) -> Variant:
        """The kind and dtype an allowed model loads in (causal, float32 unless the list says otherwise)."""
        return dict(self.variants).get(label, DEFAULT_VARIANT)

    def check_kinds(self, kinds: Collection[str]) -> None:
        """InputError naming the first allowed model whose kind is none of `kinds` (the registered kinds,
        which this floor cannot list itself)."""
        for number, label in enumerate(self.models_allowed, start=1):
            if self.variant(label)[0] not in kinds:
                raise _bad_entry(number, kinds)

    def first_label(self) -> str:
        """The model a page starts with: the embedded default, or in public mode the first allowed."""
        return self.models_allowed[0] if self.public else DEFAULT_MODEL

    def refusal(self) -> str:
        """Why a model was not loaded in public mode (naming none of what was asked: it may be a path)."""
        return (f"{PUBLIC_NOTE}: it offers only {', '.join(self.models_allowed)}, so the model asked for was "
                f"not loaded; {self.models_allowed[0]} is shown instead.")

    def check_blocks(self, blocks: int | None) -> None:
        """InputError when a run of `blocks` per construction (None: all) is over the public limit."""
        if self.public and (blocks is None or blocks > self.max_blocks):
            raise InputError(f"{PUBLIC_NOTE}: a run takes at most {self.max_blocks} blocks per construction; "
                             "choose fewer (the command line runs whole suites)")

    def check_upload(self, size: int) -> None:
        """InputError when an upload of `size` bytes is over the public cap."""
        if self.public and size > self.upload_cap:
            raise InputError(f"{PUBLIC_NOTE}: an upload may have at most {self.upload_cap / MIB:g} MiB, and this "
                             f"one has {size / MIB:.1f} MiB; upload a smaller file")

    @contextmanager
    def run_slot(self) -> Iterator[None]:
        """Hold the server's one run slot for the block in public mode (InputError at once when
        another visitor holds it); no limit in private mode."""
        if not self.public:
            yield
            return
        if not _RUN_LOCK.acquire(blocking=False):
            raise InputError(RUN_BUSY)
        try:
            yield
        finally:
            _RUN_LOCK.release()


def deployment() -> Deployment:
    """The deployment the environment sets now; InputError naming the variable when a value is bad."""
    return _parse(tuple(os.environ.get(name, "") for name in (PUBLIC_VAR, MODELS_VAR, BLOCKS_VAR, UPLOAD_VAR)))


@lru_cache(maxsize=8)
def _parse(values: tuple[str, str, str, str]) -> Deployment:
    """A Deployment from the four variables' text (parsed once per distinct text)."""
    public, models, blocks, upload = (v.strip() for v in values)
    if public not in ("", "0", "1"):
        raise InputError(f"{PUBLIC_VAR} must be 1 (public mode) or 0 (private); unset it or set one of them")
    entries = _models(models)
    return Deployment(public=public == "1", models_allowed=tuple(label for label, _ in entries),
                      variants=tuple(entry for entry in entries if entry[1] != DEFAULT_VARIANT),
                      max_blocks=_whole(blocks, BLOCKS_VAR, DEFAULT_MAX_BLOCKS, MOST_BLOCKS),
                      upload_cap=_whole(upload, UPLOAD_VAR, DEFAULT_UPLOAD_MIB, MOST_UPLOAD_MIB) * MIB)


def _models(text: str) -> tuple[tuple[str, Variant], ...]:
    """The allow-list's entries, LABEL[:KIND[:DTYPE]], as labels with their kind and dtype (the embedded
    default, causal, float32 when empty); paths are refused, so that no server path is ever shown in the picker."""
    entries = dict(_entry(number, entry.strip()) for number, entry in enumerate(
        (e for e in text.split(",") if e.strip()), start=1))
    return tuple(entries.items()) or ((DEFAULT_MODEL, DEFAULT_VARIANT),)


def _entry(number: int, entry: str) -> tuple[str, Variant]:
    """One allow-list entry as its label and variant; InputError naming its number (never its text) otherwise."""
    label, *rest = (part.strip() for part in entry.split(":"))
    if not HUB_ID.fullmatch(label) or label.endswith(".gguf"):
        raise InputError(f"{MODELS_VAR}: entry {number} is not a hub id (ORG/NAME, optionally @revision) or "
                         f"the embedded model's name ({DEFAULT_MODEL}); public mode takes no paths")
    kind, dtype = (*rest, *DEFAULT_VARIANT[len(rest):])[:2] if len(rest) <= 2 else ("", "")
    if not KIND_NAME.fullmatch(kind) or dtype not in DTYPES:
        raise _bad_entry(number, tuple(ModelKind))
    return label, (kind, dtype)


def _bad_entry(number: int, kinds: Collection[str]) -> InputError:
    """The one message for an allow-list entry that is not LABEL[:KIND[:DTYPE]] (never quoting it)."""
    return InputError(f"{MODELS_VAR}: entry {number} is not LABEL, LABEL:KIND or LABEL:KIND:DTYPE (a kind of "
                      f"{', '.join(kinds)}; a dtype of {', '.join(DTYPES)})")


def _whole(text: str, name: str, default: int, most: int) -> int:
    """A whole number from 1 to `most` (the default when empty); InputError naming the variable otherwise."""
    if not text:
        return default
    if not text.isdigit() or not 1 <= int(text) <= most:
        raise InputError(f"{name} must be a whole number from 1 to {most}; unset it for {default}")
    return int(text)
