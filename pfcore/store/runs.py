"""Run records under cache/runs/<run_id>/: per-item scores, decisions and summary (CSV), a
manifest (JSON) saying exactly what produced them, and the published outputs_summary TSV."""
from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from importlib import metadata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from pfcore import __version__
from pfcore.errors import InputError
from pfcore.paths import REPO_ROOT, cache_subdir

TABLES = ("rows", "decisions", "summary")
# our construction names -> the published summaries' names
PUBLISHED_SEMANTIC = {"let_alone": "letalone", "much_less": "muchless",
                      "not_to_mention": "nottomention", "never_mind": "nevermind"}
PUBLISHED_SYNTAX = {"let_alone": "let alone", "much_less": "much less",
                    "not_to_mention": "not to mention", "never_mind": "never mind"}


@dataclass
class RunRecord:
    """A finished run: its folder, manifest and tables."""

    path: Path
    manifest: dict[str, object]
    tables: dict[str, pd.DataFrame]

    @property
    def summary(self) -> pd.DataFrame:
        """Accuracy per construction and filter."""
        return self.tables["summary"]


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
    """A sortable, readable, unique run id."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    slug = "".join(c if c.isalnum() else "-" for c in model_label)[-40:].strip("-")
    return f"{stamp}-{suite}-{slug}-{os.getpid()}"


def save_run(manifest: dict[str, object], tables: dict[str, pd.DataFrame], out: Path | None = None) -> RunRecord:
    """Write tables and manifest into a new folder (written last, so a folder with a manifest is whole)."""
    run_id = str(manifest["run_id"])
    folder = Path(out) if out else cache_subdir("runs") / run_id
    folder.mkdir(parents=True, exist_ok=True)
    for name, df in tables.items():
        df.to_csv(folder / f"{name}.csv", index=False)
    published = published_summary(str(manifest["suite"]), tables["summary"],
                                   str(manifest.get("model", {}).get("revision") or "NONE"))
    if published is not None:
        published.to_csv(folder / "outputs_summary.tsv", sep="\t", index=False)
    tmp = folder / "manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=2, default=str))
    tmp.replace(folder / "manifest.json")
    return RunRecord(folder, manifest, tables)


def published_summary(suite: str, summary: pd.DataFrame, revision: str) -> pd.DataFrame | None:
    """The summary in the paper's outputs_summary TSV layout (semantic and syntax suites)."""
    if suite == "semantic":
        return pd.DataFrame({"revision": revision,
                             "construction": summary["construction"].map(PUBLISHED_SEMANTIC),
                             "world_knowledge_filter": summary["filter"],
                             "accuracy": summary["accuracy"]})
    if suite == "syntax":
        return pd.DataFrame({"revision": revision,
                             "construction": summary["construction"].map(PUBLISHED_SYNTAX),
                             "test_type": summary["filter"], "accuracy": summary["accuracy"],
                             "delta_surps": summary["delta_surps"],
                             "delta_surps_and": summary["delta_surps_and"]})
    return None


def load_run(folder: Path) -> RunRecord:
    """Read a run folder back; a folder without a manifest is an unfinished run."""
    folder = Path(folder)
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        raise InputError(f"{folder} has no manifest.json: not a finished run")
    try:
        manifest = json.loads(manifest_path.read_text())
        tables = {name: pd.read_csv(folder / f"{name}.csv") for name in TABLES
                  if (folder / f"{name}.csv").is_file()}
    except (json.JSONDecodeError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputError(f"{folder}: damaged run record ({exc})") from exc
    return RunRecord(folder, manifest, tables)


def list_runs(root: Path | None = None) -> list[RunRecord]:
    """Finished runs, newest first; damaged folders are skipped."""
    root = Path(root) if root else cache_subdir("runs")
    runs = []
    for folder in sorted(root.iterdir(), reverse=True):
        if (folder / "manifest.json").is_file():
            try:
                runs.append(load_run(folder))
            except InputError:
                continue
    return runs
