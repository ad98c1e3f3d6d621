"""A run's manifest: exactly what produced its numbers (model and where it loaded from, scoring
method and settings, the item set, package versions, git commit, timings), as typed data with a
JSON round trip. Older manifests (the same JSON layout) read back unchanged."""
from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from pfcore import __version__
from pfcore.errors import InputError
from pfcore.files import MIB, FileKind, read_bounded
from pfcore.models.spec import ModelSpec
from pfcore.paths import REPO_ROOT

MANIFEST_FILE = FileKind("run manifest", MIB)  # a manifest is about 2 kB


@dataclass(frozen=True)
class ModelRecord(ModelSpec):
    """The model a run scored with (its ModelSpec, so one label and one alias rule) and where it
    was loaded from. Its JSON is the spec's fields, then `source` and `weights_sha256`."""

    source: str = ""
    weights_sha256: str = ""  # the weight files' content (a hub id: its local snapshot's): what the checkpoint is

    @classmethod
    def of(cls, spec: ModelSpec, *, source: str, weights_sha256: str) -> ModelRecord:
        """The record of a spec loaded from `source`, with its weights' digest."""
        return cls(**{f.name: getattr(spec, f.name) for f in fields(ModelSpec)}, source=source,
                   weights_sha256=weights_sha256)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelRecord:
        """The record from a manifest's `model` object; its `name` is required (the spec's default
        model would stand in for a missing one)."""
        if isinstance(data, Mapping) and "name" not in data:
            raise KeyError("model name")
        return _record(cls, data)


@dataclass(frozen=True)
class ItemsRecord:
    """The item set a run scored: how many, an order-free digest, and where they came from."""

    count: int
    hash: str
    source: str


@dataclass(frozen=True)
class Timings:
    """Seconds spent reading items, loading the model (0 when fully cached), scoring, in all, summed
    over the `parts` the run took (a stopped or interrupted run that was resumed took more than one;
    manifests written before `parts` existed give the last part's seconds alone and read as 1)."""

    items_s: float = 0.0
    load_s: float = 0.0
    score_s: float = 0.0
    total_s: float = 0.0
    scored: int = 0  # distinct requests scored (not read from the score cache)
    parts: int = 1

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Timings:
        """Timings from their JSON object (keys it does not know are left out)."""
        return _record(cls, data)

    def plus(self, later: Timings) -> Timings:
        """These timings and a later part's, summed: the whole run's so far."""
        return Timings(round(self.items_s + later.items_s, 3), round(self.load_s + later.load_s, 3),
                       round(self.score_s + later.score_s, 3), round(self.total_s + later.total_s, 3),
                       self.scored + later.scored, self.parts + later.parts)

    @property
    def rate(self) -> float | None:
        """Requests scored per second of scoring, when the run scored enough to measure it."""
        return self.scored / self.score_s if self.scored >= 32 and self.score_s > 0 else None


@dataclass(frozen=True)
class Manifest:
    """Everything needed to know what produced a run's numbers (never a password)."""

    run_id: str
    created: str
    suite: str
    model: ModelRecord
    scoring: str
    items: ItemsRecord
    settings: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    git_commit: str | None = None
    timings_s: Timings = field(default_factory=Timings)

    def to_json(self) -> dict[str, Any]:
        """Plain data for manifest.json."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Manifest:
        """The manifest from manifest.json's data; InputError naming what is missing or malformed."""
        try:
            return cls(run_id=str(data["run_id"]), created=str(data["created"]), suite=str(data["suite"]),
                       model=ModelRecord.from_json(data["model"]), scoring=str(data["scoring"]),
                       items=_record(ItemsRecord, data["items"]), settings=dict(data.get("settings") or {}),
                       versions=dict(data.get("versions") or {}), git_commit=data.get("git_commit"),
                       timings_s=Timings.from_json(data.get("timings_s") or {}))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"not a pfcore run manifest ({type(exc).__name__}: {exc})") from exc

    @property
    def constructions(self) -> tuple[str, ...]:
        """The constructions the run was limited to (empty: all)."""
        return tuple(self.settings.get("constructions") or ())


def read_manifest(path: Path) -> Manifest:
    """A run's manifest.json read back (bounded); InputError when it is missing or damaged."""
    try:
        data = json.loads(read_bounded(path, MANIFEST_FILE))
    except ValueError as exc:  # not JSON, or not UTF-8
        raise InputError(f"{path}: damaged run manifest ({exc})") from exc
    return Manifest.from_json(data)


def _record(cls: type, data: Mapping[str, Any]) -> Any:
    """A record dataclass from a mapping, ignoring keys it does not know (newer manifests)."""
    if not isinstance(data, Mapping):
        raise TypeError(f"{cls.__name__} must be an object, got {type(data).__name__}")
    known = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in known})


def item_set_hash(item_ids: Iterable[str]) -> str:
    """Order-free digest of the items a run scored."""
    return hashlib.sha256("\n".join(sorted(item_ids)).encode()).hexdigest()[:16]


def git_commit() -> str | None:
    """The repository's commit, when pfcore runs from a git checkout."""
    try:
        out = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def versions() -> dict[str, str]:
    """Versions of what produced the numbers (read from the installed packages' metadata, so
    a run served from the cache need not import torch)."""
    return {"pfcore": __version__, "transformers": metadata.version("transformers"),
            "torch": metadata.version("torch"), "python": platform.python_version()}


def new_run_id(suite: str, model_label: str) -> str:
    """A sortable, readable, unique run id (to the microsecond: two runs in one second of one
    process once shared a folder, and the second overwrote the first)."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
    slug = "".join(c if c.isalnum() else "-" for c in model_label)[-40:].strip("-")
    return f"{stamp}-{suite}-{slug}-{os.getpid()}"


def now_iso() -> str:
    """The current UTC time, to the second, for `created`."""
    return datetime.now(UTC).isoformat(timespec="seconds")
