"""Run records under cache/runs/<run_id>/: per-item scores, decisions and summary (CSV), the
published outputs_summary TSV where the suite has one, and the manifest (JSON), written last so
that a folder with a manifest is whole."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pfcore.errors import InputError
from pfcore.paths import cache_subdir, make_folder
from pfcore.store.manifest import Manifest, read_manifest

TABLES = ("rows", "decisions", "summary")


@dataclass
class RunRecord:
    """A finished run: its folder, manifest and tables."""

    path: Path
    manifest: Manifest
    tables: dict[str, pd.DataFrame]

    @property
    def summary(self) -> pd.DataFrame:
        """Accuracy per construction and filter."""
        return self.tables["summary"]


def save_run(manifest: Manifest, tables: dict[str, pd.DataFrame], out: Path | None = None,
             published: pd.DataFrame | None = None) -> RunRecord:
    """Write tables, the published-layout summary and the manifest into the run's folder."""
    folder = make_folder(Path(out) if out else cache_subdir("runs") / manifest.run_id, "the run record's folder")
    for name, df in tables.items():
        df.to_csv(folder / f"{name}.csv", index=False)
    if published is not None:
        published.to_csv(folder / "outputs_summary.tsv", sep="\t", index=False)
    tmp = folder / "manifest.json.tmp"
    tmp.write_text(json.dumps(manifest.to_json(), indent=2, default=str))
    tmp.replace(folder / "manifest.json")
    return RunRecord(folder, manifest, tables)


def load_run(folder: Path | str) -> RunRecord:
    """Read a run folder back; a folder without a manifest is an unfinished run."""
    folder = Path(folder)
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        raise InputError(f"{folder} has no manifest.json: not a finished run")
    try:
        manifest = read_manifest(manifest_path)
        tables = {name: pd.read_csv(folder / f"{name}.csv") for name in TABLES
                  if (folder / f"{name}.csv").is_file()}
    except (json.JSONDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(f"{folder}: damaged run record ({exc})") from exc
    if "summary" not in tables:
        raise InputError(f"{folder}: damaged run record (summary.csv is missing)")
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


def find_run(run_id: str) -> RunRecord:
    """The finished run of that id (its folder name under the cache's runs/); KeyError if none."""
    folder = cache_subdir("runs") / run_id
    if not run_id or "/" in run_id or not (folder / "manifest.json").is_file():
        raise KeyError(f"no finished run {run_id!r}")
    return load_run(folder)
