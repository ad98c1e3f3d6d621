"""Where pfcore keeps what it makes at run time (converted models, score cache, run records) and where
its shipped data lies; the file helpers it writes and reads them with are `pfcore.files`."""
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from pfcore.errors import InputError
from pfcore.files import make_folder, write_atomic

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


def published_results_dir() -> str:
    """The folder of the paper's published per-checkpoint summaries the app offers to import:
    $PFCORE_PUBLISHED_RESULTS, or "" (the user types or fetches it)."""
    return os.environ.get("PFCORE_PUBLISHED_RESULTS", "")


@contextmanager
def environment(**values: str) -> Iterator[None]:
    """Environment variables set for the duration of a block (a command, or one job of a Ray worker
    that runs many), then restored."""
    before = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


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
        """Store the object atomically (`write_atomic`); a failed write is let go (it only costs redoing)."""
        with suppress(InputError):
            write_atomic(self.path, json.dumps(data), "a memo")
