"""Run records under cache/runs/<run_id>/: per-item scores, decisions and summary (CSV), the
published outputs_summary TSV where the suite has one, the run's rows of the results table
(results.csv), and the manifest (JSON). Every file is written atomically and the manifest last,
so that a folder with a manifest is whole and a folder without one is an unfinished run."""
from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pfcore.errors import InputError
from pfcore.files import make_folder, write_atomic_set
from pfcore.output import json_text
from pfcore.paths import cache_subdir
from pfcore.store.manifest import Manifest, read_manifest

TABLES = ("rows", "decisions", "summary")
MANIFEST = "manifest.json"  # written last: a folder with it is a whole record
RUN_ROWS = "results.csv"  # a run's own rows of the results table, kept in its record
PUBLISHED = "outputs_summary.tsv"  # the summary in the paper's published layout


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
             published: pd.DataFrame | None = None, *, rows: pd.DataFrame | None = None) -> RunRecord:
    """Write the record: its tables, the published-layout summary, its rows of the results table
    and the manifest, all through `files.write_atomic_set` (the manifest last). On a failure
    (a full disk) nothing of it is left: a folder made for it is removed again, and an earlier
    record in an --out folder stays as it was."""
    target = Path(out) if out else cache_subdir("runs") / manifest.run_id
    created = not target.exists()
    folder = make_folder(target, "the run record's folder")
    files: list[tuple[Path, bytes | str, str]] = [
        (folder / f"{name}.csv", df.to_csv(index=False), f"the run record's {name}.csv") for name, df in tables.items()]
    if published is not None:
        files.append((folder / PUBLISHED, published.to_csv(sep="\t", index=False), f"the run record's {PUBLISHED}"))
    if rows is not None:
        files.append((folder / RUN_ROWS, rows.to_csv(index=False), f"the run record's {RUN_ROWS}"))
    files.append((folder / MANIFEST, json_text(manifest.to_json(), indent=2, default=str),
                  f"the run record's {MANIFEST}"))
    try:
        write_atomic_set(files)
    except BaseException:
        if created:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return RunRecord(folder, manifest, tables)


def copy_run(folder: Path, into: Path) -> Path:
    """Copy a whole record (a folder with a manifest) into `into`, manifest last (see `save_run`)."""
    source = Path(folder)
    target = Path(into) / source.name
    names = sorted(p.name for p in source.iterdir() if p.is_file() and p.name != MANIFEST) + [MANIFEST]
    write_atomic_set([(target / name, (source / name).read_bytes(), f"the run record's {name}") for name in names])
    return target


def load_run(folder: Path | str) -> RunRecord:
    """Read a run folder back; a folder without a manifest is an unfinished run."""
    folder = Path(folder)
    manifest_path = folder / MANIFEST
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
        if (folder / MANIFEST).is_file():
            try:
                runs.append(load_run(folder))
            except InputError:
                continue
    return runs


def finished_manifest(run_id: str) -> Path | None:
    """The manifest of the finished run of that id (its folder name under the cache's runs/); None if none."""
    path = cache_subdir("runs") / run_id / MANIFEST
    return path if run_id and "/" not in run_id and path.is_file() else None


def find_run(run_id: str) -> RunRecord:
    """The finished run of that id (see `finished_manifest`); KeyError if none."""
    path = finished_manifest(run_id)
    if path is None:
        raise KeyError(f"no finished run {run_id!r}")
    return load_run(path.parent)
