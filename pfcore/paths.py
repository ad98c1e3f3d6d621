"""Where pfcore keeps what it makes at run time (converted models, score cache, run records)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pfcore.errors import InputError

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "data"


def cache_root() -> Path:
    """The cache folder: $PFCORE_CACHE if set, else cache/ at the repository root; created on use
    (InputError when it cannot be, e.g. PFCORE_CACHE names a file)."""
    root = Path(os.environ.get("PFCORE_CACHE") or REPO_ROOT / "cache")
    return make_folder(root, "the cache folder (PFCORE_CACHE)")


def cache_subdir(name: str) -> Path:
    """A named folder under the cache root (models, runs, results...), created on use."""
    return make_folder(cache_root() / name, f"the cache's {name} folder")


def models_dir() -> Path:
    """Where converted models live: $PFCORE_MODELS if set, else the cache's models folder (a
    sweep's jobs each have a cache of their own but share the main cache's converted models)."""
    folder = os.environ.get("PFCORE_MODELS")
    return make_folder(Path(folder), "the models folder (PFCORE_MODELS)") if folder else cache_subdir("models")


def make_folder(path: Path, what: str) -> Path:
    """A folder, created with its parents when missing; InputError saying why it cannot be."""
    if path.exists() and not path.is_dir():
        raise InputError(f"cannot use {path} as {what}: it is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot use {path} as {what}: {exc.strerror or exc}") from exc
    if not path.is_dir():
        raise InputError(f"cannot use {path} as {what}: it is a file, not a folder")
    return path


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """A small file's bytes; InputError when it cannot be read or is over `limit` bytes (refused
    unread, so that a wrong path such as a device file cannot stall the program)."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(limit + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from exc
    if len(raw) > limit:
        raise InputError(f"{path}: the {what} is larger than {limit / 2**20:g} MiB; is this the right file?")
    return raw


def published_results_dir() -> str:
    """The folder of the paper's published per-checkpoint summaries the app offers to import:
    $PFCORE_PUBLISHED_RESULTS, or "" (the user types or fetches it)."""
    return os.environ.get("PFCORE_PUBLISHED_RESULTS", "")


class JsonMemo:
    """A small JSON object kept in the cache folder to remember work between processes (weight
    hashes, scorer checks); unreadable means empty, and a failed write only costs redoing it."""

    def __init__(self, name: str) -> None:
        self.path = cache_root() / name

    def read(self) -> dict[str, Any]:
        """The remembered object ({} when missing or unreadable)."""
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def write(self, data: dict[str, Any]) -> None:
        """Store the object atomically (temporary file, then rename)."""
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(data))
            os.replace(tmp, self.path)
        except OSError:
            tmp.unlink(missing_ok=True)
