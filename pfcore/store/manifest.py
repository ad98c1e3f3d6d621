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
from pfcore.models.spec import ALIASES
from pfcore.names import ModelKind
from pfcore.paths import REPO_ROOT, ReadKind, read_bounded


@dataclass(frozen=True)
class ModelRecord:
    """The model a run scored with and where it was loaded from."""

    name: str
    revision: str | None = None
    dtype: str = "float32"
    device: str = "cpu"
    kind: str = ModelKind.CAUSAL.value
    trust_remote_code: bool = False
    source: str = ""
    weights_sha256: str = ""  # the weight files' content (a hub id: its local snapshot's): what the checkpoint is

    def __post_init__(self) -> None:
        """Records written under an earlier name of the default model read back under its name now."""
        object.__setattr__(self, "name", ALIASES.get(self.name, self.name))

    @property
    def label(self) -> str:
        """Name, plus @revision when one is set."""
        return f"{self.name}@{self.revision}" if self.revision else self.name


@dataclass(frozen=True)
class ItemsRecord:
    """The item set a run scored: how many, an order-free digest, and where they came from."""

    count: int
    hash: str
    source: str


@dataclass(frozen=True)
class Timings:
    """Seconds spent reading items, loading the model (0 when fully cached), scoring, in all."""

    items_s: float = 0.0
    load_s: float = 0.0
    score_s: float = 0.0
    total_s: float = 0.0
    scored: int = 0  # distinct requests scored (not read from the score cache)

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
                       model=_record(ModelRecord, data["model"]), scoring=str(data["scoring"]),
                       items=_record(ItemsRecord, data["items"]), settings=dict(data.get("settings") or {}),
                       versions=dict(data.get("versions") or {}), git_commit=data.get("git_commit"),
                       timings_s=_record(Timings, data.get("timings_s") or {}))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"not a pfcore run manifest ({type(exc).__name__}: {exc})") from exc

    @property
    def constructions(self) -> tuple[str, ...]:
        """The constructions the run was limited to (empty: all)."""
        return tuple(self.settings.get("constructions") or ())


def read_manifest(path: Path) -> Manifest:
    """A run's manifest.json read back (bounded); InputError when it is missing or damaged."""
    try:
        data = json.loads(read_bounded(path, ReadKind.RUN_MANIFEST))
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
