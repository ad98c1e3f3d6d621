"""The long results table (DESIGN.md section 5): published per-checkpoint summaries and own runs.

One row per value: model, revision, step, suite, construction, filter, metric, value, source.
It lives as one parquet file under the cache so the app and the CLI read the same table. Writers
take a file lock and replace the file atomically, so two processes appending lose nothing. Every
run also keeps its own rows (results.csv in its record) and every import is remembered, so a
damaged table is moved aside and rebuilt from them.
"""
from __future__ import annotations

import io
import json
import os
import re
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pfcore.errors import InputError
from pfcore.models.identity import same_weights
from pfcore.models.spec import ALIASES
from pfcore.paths import JsonMemo, cache_subdir, locked

RESULT_COLUMNS = ("model", "revision", "step", "suite", "construction", "filter", "metric",
                  "value", "source")
# Columns a row may lack (published summaries, older tables): filled with their default.
OPTIONAL_COLUMNS = {"weights_sha256": ""}  # the checkpoint's content hash, for own runs
TABLE_COLUMNS = (*RESULT_COLUMNS, *OPTIONAL_COLUMNS)
BENCHMARK_SUITES = ("blimp", "comps", "ewok")
FILTER_COLUMNS = ("world_knowledge_filter", "test_type")
KEY_COLUMNS = ("revision", "construction")

PUBLISHED_REPO = "WesScivetti/Meaning_Alone"
PUBLISHED_COMMIT = "a6b6990973e9432600d6d5b2e0def79b24c74533"
PUBLISHED_FOLDER = "outputs_summary"
SUMMARY_FOLDER = "output_summaries"  # jhu-clsp keeps two decoder files here, named by model
OFFLINE_HINT = ("could not reach github.com: download the repository and run "
                "`python -m pfcore results import PATH`")


RUN_ROWS = "results.csv"  # a run's own rows of the table, kept in its record
WITHDRAWN = "results.withdrawn.csv"  # a superseded run's rows: kept in its record, out of the table
IMPORTS = "imports.json"  # the folders imported, and run records kept outside the cache: to rebuild from


def results_path() -> Path:
    """Where the results table is stored (cache/results/results.parquet)."""
    return cache_subdir("results") / "results.parquet"


@contextmanager
def _locked() -> Iterator[None]:
    """Hold the results table's write lock (an flock on a file beside it) for a read-change-write."""
    with locked(results_path().with_name("results.lock")):
        yield


def empty_results() -> pd.DataFrame:
    """A results table with the right columns and no rows."""
    return _typed(pd.DataFrame({col: [] for col in TABLE_COLUMNS}))


def _typed(df: pd.DataFrame) -> pd.DataFrame:
    """Column order and dtypes: nullable integer step, float value, strings elsewhere; optional
    columns a row lacks get their default."""
    out = df.assign(**{col: default for col, default in OPTIONAL_COLUMNS.items() if col not in df.columns})
    out = out.loc[:, list(TABLE_COLUMNS)].copy()
    out[list(OPTIONAL_COLUMNS)] = out[list(OPTIONAL_COLUMNS)].fillna("")
    for col in TABLE_COLUMNS:
        if col == "step":
            out[col] = pd.to_numeric(out[col]).astype("Int64")
        elif col == "value":
            out[col] = pd.to_numeric(out[col]).astype("float64")
        else:
            out[col] = out[col].astype(str)
    out["model"] = out["model"].replace(ALIASES)  # rows written under the default model's earlier name
    return out.reset_index(drop=True)


def step_from_revision(revision: str) -> float:
    """The step a revision names ("step1000", "stage1-step477000-tokens2001B"); NaN if none."""
    match = re.search(r"(?:^|[^a-z])step(\d+)", str(revision), flags=re.IGNORECASE)
    return float(match.group(1)) if match else float("nan")


def model_from_path(path: Path) -> str:
    """The Hugging Face id a published file belongs to: ORG/MODEL from its folders.

    Files in jhu-clsp/output_summaries carry the model in their name (accuracy_summary_decoder1b.tsv
    is jhu-clsp/ettin-decoder-1b).
    """
    org, folder = path.parent.parent.name, path.parent.name
    if folder != SUMMARY_FOLDER:
        return f"{org}/{folder}"
    match = re.search(r"(encoder|decoder)[-_]?(\d+[mb])", path.stem, flags=re.IGNORECASE)
    if not match:
        raise InputError(f"{path}: cannot tell which model this summary belongs to from its name")
    return f"{org}/ettin-{match.group(1).lower()}-{match.group(2).lower()}"


def read_published_file(path: Path, source: str) -> pd.DataFrame:
    """One published summary TSV as long result rows (every numeric column becomes a metric).
    A file cut off mid-line, or a row with too few or too many cells, is refused: a half-read
    number would otherwise enter the table as if it were whole."""
    try:
        raw = path.read_bytes()
        wide = pd.read_csv(io.BytesIO(raw), sep="\t", on_bad_lines="error", dtype=str, keep_default_na=False)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise InputError(f"{path}: not a readable TSV file ({_first_line(exc)})") from exc
    if raw and not raw.endswith(b"\n"):
        raise InputError(f"{path}: the last line is cut off (no line end); the file may be truncated")
    short = (wide.isna() | (wide.apply(lambda col: col.str.strip()) == "")).any(axis=1)
    if short.any():
        raise InputError(f"{path}: line {int(short.to_numpy().argmax()) + 2} has empty or missing cells")
    filter_cols = [col for col in FILTER_COLUMNS if col in wide.columns]
    missing = [col for col in KEY_COLUMNS if col not in wide.columns]
    if missing or len(filter_cols) != 1:
        raise InputError(f"{path}: expected columns revision, construction and one of "
                         f"{' / '.join(FILTER_COLUMNS)}; found {', '.join(map(str, wide.columns))}")
    filter_col = filter_cols[0]
    metrics = [col for col in wide.columns if col not in (*KEY_COLUMNS, filter_col)]
    if not metrics:
        raise InputError(f"{path}: no value columns (accuracy, ...) besides the keys")
    long = wide.melt(id_vars=[*KEY_COLUMNS, filter_col], value_vars=metrics,
                     var_name="metric", value_name="value")
    values = pd.to_numeric(long["value"], errors="coerce")
    if values.isna().any():
        bad = long.loc[values.isna(), "metric"].iloc[0]
        raise InputError(f"{path}: column {bad!r} holds values that are not numbers")
    construction = long["construction"].astype(str).str.replace(" ", "", regex=False)
    revision = long["revision"].astype(str)
    steps = {rev: step_from_revision(rev) for rev in revision.unique()}
    long = long.assign(
        model=model_from_path(path),
        revision=revision,
        step=revision.map(steps),
        suite=_suites(construction, filter_col),
        construction=construction,
        filter=long[filter_col].astype(str),
        value=values,
        source=source,
    )
    return _typed(long)[list(RESULT_COLUMNS)]  # published rows carry no checkpoint hash


def _suites(construction: pd.Series, filter_col: str) -> pd.Series:
    """Each row's suite: syntax files by their test_type, benchmarks by name, else semantic."""
    if filter_col == "test_type":
        return pd.Series("syntax", index=construction.index)
    return construction.where(construction.isin(BENCHMARK_SUITES), "semantic")


def read_published(root: Path) -> pd.DataFrame:
    """Every summary TSV under root (the published outputs_summary folder) as one long table."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root}: not a folder (give the outputs_summary folder of Meaning_Alone)")
    files = sorted(root.rglob("*.tsv"))
    if not files:
        raise InputError(f"{root}: no .tsv summary files found under this folder")
    return pd.concat([read_published_file(path, path.relative_to(root).as_posix())
                      for path in files], ignore_index=True)


def load_results() -> pd.DataFrame:
    """The stored results table; an empty table when nothing has been imported or run yet. A
    damaged table is moved aside (results.parquet.corrupt-<time>) and rebuilt, with a warning."""
    try:
        return _read_table()
    except (OSError, ValueError, KeyError, TypeError):
        with _locked():
            return _read_or_rebuild()


def _read_table() -> pd.DataFrame:
    """The stored table as it is (empty when there is none); raises when it is unreadable."""
    path = results_path()
    return _typed(pd.read_parquet(path)) if path.exists() else empty_results()


def _read_or_rebuild() -> pd.DataFrame:
    """The stored table, rebuilt first when it is damaged (call with the lock held)."""
    try:
        return _read_table()
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return _rebuild(results_path(), exc)


def _rebuild(path: Path, exc: Exception) -> pd.DataFrame:
    """Move the damaged table aside and build it again from the run records and the imports."""
    aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
    path.replace(aside)
    records = sorted(cache_subdir("runs").glob(f"*/{RUN_ROWS}"))
    records += [Path(run) / RUN_ROWS for run in _remembered("runs") if (Path(run) / RUN_ROWS).is_file()]
    parts = [run_rows(path) for path in records]
    parts += [read_published(Path(root)) for root in _remembered("roots") if Path(root).is_dir()]
    table = _typed(pd.concat([empty_results(), *parts], ignore_index=True))
    table = table.drop_duplicates(subset=["source", "model", "revision", "suite", "construction",
                                          "filter", "metric"], keep="last")
    _save(table)
    warnings.warn(f"the results table {path} was unreadable ({_first_line(exc)}); moved it to "
                  f"{aside.name} and rebuilt it ({len(table):,} rows) from the run records and the "
                  "imported folders", stacklevel=3)
    return table


def run_rows(path: Path) -> pd.DataFrame:
    """One run record's own rows of the table."""
    return pd.read_csv(path, dtype={"revision": str}, keep_default_na=False, na_values={"step": [""], "value": [""]})


def _remembered(kind: str) -> list[str]:
    """The folders the table is rebuilt from besides the cache's runs: imported published folders
    ("roots") and run records saved elsewhere with --out ("runs")."""
    return list(JsonMemo(f"results/{IMPORTS}").read().get(kind, []))


def _remember(kind: str, folder: Path) -> None:
    """Add a folder to those the table is rebuilt from (see `_remembered`)."""
    memo = JsonMemo(f"results/{IMPORTS}")
    folders = [f for f in _remembered(kind) if f != str(folder.resolve())] + [str(folder.resolve())]
    memo.write({**memo.read(), kind: folders})


def record_run_rows(folder: Path, rows: pd.DataFrame) -> pd.DataFrame:
    """Keep a run's rows beside its record (the table can be rebuilt from them, wherever the record
    lives) and add them to the table; returns the table."""
    rows.to_csv(folder / RUN_ROWS, index=False)
    if folder.resolve().parent != cache_subdir("runs").resolve():
        _remember("runs", folder)
    return append_results(rows)


def _first_line(exc: BaseException) -> str:
    """The first line of an error's message."""
    return (str(exc).splitlines() or [type(exc).__name__])[0]


def _save(table: pd.DataFrame) -> None:
    """Write the table atomically, so a reader never sees half a file."""
    path = results_path()
    tmp_path = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        table.to_parquet(tmp_path, index=False)
        os.replace(tmp_path, path)
    finally:
        tmp_path.unlink(missing_ok=True)


def append_results(rows: pd.DataFrame) -> pd.DataFrame:
    """Add rows to the stored table, replacing earlier rows of the same sources; returns the table.

    Own runs call this with source "pfcore run <run_id>", so re-recording a run is idempotent.
    """
    missing = [col for col in RESULT_COLUMNS if col not in rows.columns]
    if missing:
        raise InputError(f"results rows lack the columns {', '.join(missing)}")
    try:
        new = _typed(rows)
    except (ValueError, TypeError) as exc:
        raise InputError(f"results rows: step must hold whole numbers (or be empty) and value "
                         f"numbers ({exc})") from exc
    if (new["source"].str.strip() == "").any():
        raise InputError("results rows need a non-empty source")
    if not np.isfinite(new["value"]).all():
        raise InputError("results rows hold values that are not finite numbers")
    with _locked():
        table = _read_or_rebuild()
        kept = table[~table["source"].isin(set(new["source"]))]
        combined = _typed(pd.concat([kept, new], ignore_index=True)) if len(kept) else new
        _save(combined)
    return combined


def withdraw_run(folder: Path) -> int:
    """Take a superseded run's rows out of the table (a rerun of the same model, revision and suite
    with other settings or weights stands for it now); its record keeps them, renamed to WITHDRAWN
    so that a rebuild leaves them out too. How many rows left the table."""
    own = Path(folder) / RUN_ROWS
    if not own.is_file():
        return 0
    sources = set(run_rows(own)["source"])
    with _locked():
        own.replace(own.with_name(WITHDRAWN))
        table = _read_or_rebuild()
        kept = table[~table["source"].isin(sources)]
        if len(kept) < len(table):
            _save(kept.reset_index(drop=True))
    return len(table) - len(kept)


def import_published(root: Path) -> pd.DataFrame:
    """Read every summary under root into the stored table (re-import replaces those sources)."""
    rows = read_published(root)
    append_results(rows)
    _remember("roots", Path(root))
    return rows


def summarize(rows: pd.DataFrame) -> dict[str, object]:
    """Rows, revisions and suites per model: what `results import` reports."""
    per_model = {
        model: {"rows": int(len(group)), "revisions": int(group["revision"].nunique()),
                "suites": sorted(group["suite"].unique())}
        for model, group in rows.groupby("model", sort=True)
    }
    return {"rows": int(len(rows)), "sources": int(rows["source"].nunique()),
            "models": per_model}


def _get(url: str, timeout: float = 60.0) -> bytes:
    """Body of a GET request; InputError with the offline hint when GitHub cannot be reached."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read()
    except urllib.error.HTTPError as exc:
        raise InputError(f"github.com answered {exc.code} {exc.reason} for {url}; try again later, "
                         "or download the repository and run `python -m pfcore results import "
                         "PATH`") from exc
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        raise InputError(f"{OFFLINE_HINT} ({url}: {exc})") from exc


def published_files() -> list[str]:
    """Paths of the summary TSVs in the paper's repository at the pinned commit."""
    url = (f"https://api.github.com/repos/{PUBLISHED_REPO}/git/trees/{PUBLISHED_COMMIT}"
           "?recursive=1")
    tree = json.loads(_get(url))
    return sorted(item["path"] for item in tree.get("tree", [])
                  if item.get("type") == "blob" and item["path"].endswith(".tsv")
                  and item["path"].startswith(f"{PUBLISHED_FOLDER}/"))


def fetch_published(dest: Path) -> list[Path]:
    """Download the published summaries into dest (laid out as outputs_summary/ is); returns files.

    Import them afterwards with `python -m pfcore results import DEST`.
    """
    dest = Path(dest)
    written = []
    for remote in published_files():
        body = _get(f"https://raw.githubusercontent.com/{PUBLISHED_REPO}/{PUBLISHED_COMMIT}/"
                    f"{remote}")
        target = dest / Path(remote).relative_to(PUBLISHED_FOLDER)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
        written.append(target)
    if not written:
        raise InputError(f"github.com lists no summary files under {PUBLISHED_FOLDER}/ at "
                         f"{PUBLISHED_REPO}@{PUBLISHED_COMMIT[:7]}")
    return written


def _imported(rows: pd.DataFrame, where: str) -> str:
    """What an import added, in one line."""
    return (f"Imported {len(rows):,} rows from {rows['source'].nunique()} files ({where}) for "
            f"{rows['model'].nunique()} models.")


def import_folder(folder: str) -> str:
    """Import every published summary TSV under a folder into the results table; a report line."""
    if not folder.strip():
        raise InputError("give the folder of the published summaries (Meaning_Alone's outputs_summary)")
    root = Path(folder.strip()).expanduser()
    return _imported(import_published(root), str(root))


def fetch_and_import() -> str:
    """Download the published summaries from the paper's repository into the cache and import
    them; InputError (with what to do instead) when github.com cannot be reached."""
    dest = cache_subdir("published")
    fetch_published(dest)
    return _imported(import_published(dest), f"downloaded from {PUBLISHED_REPO} into {dest}")


@dataclass(frozen=True)
class DuplicateCheckpoint:
    """A checkpoint whose weights are the very same as an earlier step's (a published revision
    that served other weights under its name): its changes are false zeros in a correlation."""

    model: str
    step: int
    same_as: int
    weights_sha256: str

    def warning(self) -> str:
        """The warning a user reads."""
        return (f"{self.model}: step {self.step} has the same weights as step {self.same_as} (sha256 "
                f"{self.weights_sha256[:12]}...); its changes are false zeros in first-difference "
                "correlations (exclude it with --drop-duplicate-checkpoints)")


def duplicate_checkpoints(table: pd.DataFrame, model: str) -> list[DuplicateCheckpoint]:
    """The steps of one model's trajectory whose weight hash equals an earlier step's."""
    rows = table[(table["model"] == model) & table["step"].notna() & (table["weights_sha256"] != "")]
    steps = sorted((int(step), str(digest)) for step, digest in rows.groupby("step")["weights_sha256"].first().items())
    return [DuplicateCheckpoint(model, step, first, digest) for step, first, digest in same_weights(steps)]
