"""Where pfcore keeps what it makes at run time (converted models, score cache, run records)."""
from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "data"


def cache_root() -> Path:
    """The cache folder: $PFCORE_CACHE if set, else cache/ at the repository root; created on use."""
    root = Path(os.environ.get("PFCORE_CACHE") or REPO_ROOT / "cache")
    root.mkdir(parents=True, exist_ok=True)
    return root


def cache_subdir(name: str) -> Path:
    """A named folder under the cache root (models, runs, results...), created on use."""
    path = cache_root() / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def published_results_dir() -> str:
    """The folder of the paper's published per-checkpoint summaries the app offers to import:
    $PFCORE_PUBLISHED_RESULTS, or "" (the user types or fetches it)."""
    return os.environ.get("PFCORE_PUBLISHED_RESULTS", "")
