"""The long results table: published per-checkpoint summaries and own runs.

One row per value: model, revision, step, suite, construction, filter, metric, value, source.
It lives as one parquet file under the cache so the app and the CLI read the same table. Writers
take a file lock and replace the file atomically, so two processes appending lose nothing. Every
run also keeps its own rows (results.csv in its record) and every import is remembered, so a
damaged table is moved aside and rebuilt from them. A new cache's table starts with the bundled
published rows (pfcore.store.published); each source keeps its own rows, and rows of a source are
replaced by different ones only when asked (`replace=True`, `--replace`).
"""
from __future__ import annotations

import time
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from pfcore.errors import InputError, first_line
from pfcore.files import atomic_path, locked
from pfcore.paths import JsonMemo, cache_subdir
from pfcore.store.published import (
    BUNDLED_PREFIX,
    IMPORT_PREFIX,
    Bundle,
    bundled_label,
    bundling_enabled,
    collection_of,
    content_digest,
    import_label,
    labelled,
    read_bundle,
    read_manifest,
)
from pfcore.store.published_tsv import read_published
from pfcore.store.result_rows import RESULT_COLUMNS, TABLE_COLUMNS, empty_results, typed_rows
from pfcore.store.runs import MANIFEST, RUN_ROWS

WITHDRAWN = "results.withdrawn.csv"  # a superseded run's rows: kept in its record, out of the table
IMPORTS = "imports.json"  # the folders imported, and run records kept outside the cache: to rebuild from
KEYS = ["source", "model", "revision", "suite", "construction", "filter", "metric"]  # one value each


def results_path() -> Path:
    """Where the results table is stored (cache/results/results.parquet)."""
    return cache_subdir("results") / "results.parquet"


@contextmanager
def _locked() -> Iterator[None]:
    """Hold the results table's write lock (an flock on a file beside it) for a read-change-write."""
    with locked(results_path().with_name("results.lock")):
        yield


def load_results() -> pd.DataFrame:
    """The stored results table; a new cache's empty table first gets the bundled published rows
    (once, see `_with_bundle`). A damaged table is moved aside (results.parquet.corrupt-<time>) and
    rebuilt, with a warning."""
    try:
        table = _read_table()
    except (OSError, ValueError, KeyError, TypeError):
        with _locked():
            table = _read_or_rebuild()
    if table.empty and _bundle_due():
        with _locked():
            stored = _read_or_rebuild()
            table = _with_bundle(stored)
            if table is not stored:
                _save(table)
    return table


def _read_table() -> pd.DataFrame:
    """The stored table as it is (empty when there is none); raises when it is unreadable."""
    path = results_path()
    return typed_rows(pd.read_parquet(path)) if path.exists() else empty_results()


def _read_or_rebuild() -> pd.DataFrame:
    """The stored table, rebuilt first when it is damaged (call with the lock held)."""
    try:
        return _read_table()
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return _rebuild(results_path(), exc)


def _rebuild(path: Path, exc: Exception) -> pd.DataFrame:
    """Move the damaged table aside and build it again from the whole run records and the imports
    (a folder without a manifest, or whose rows are incomplete, is skipped with one warning)."""
    aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
    path.replace(aside)
    folders = sorted(p.parent for p in cache_subdir("runs").glob(f"*/{RUN_ROWS}"))
    folders += [Path(run) for run in _remembered("runs") if (Path(run) / RUN_ROWS).is_file()]
    found = [(folder, whole_run_rows(folder)) for folder in folders]
    parts = [rows for _, rows in found if isinstance(rows, pd.DataFrame)]
    parts += remembered_sources()
    table = typed_rows(pd.concat([empty_results(), *parts], ignore_index=True))
    table = table.drop_duplicates(subset=KEYS, keep="last")
    _save(table)
    warnings.warn(f"the results table {path} was unreadable ({first_line(exc)}); moved it to "
                  f"{aside.name} and rebuilt it ({len(table):,} rows) from the run records and the "
                  "imported folders", stacklevel=3)
    if skipped := Counter(why for _, why in found if isinstance(why, str)):
        warnings.warn(f"left {sum(skipped.values())} run folders out of the rebuilt results table, as they are "
                      f"not whole records ({'; '.join(f'{n} {why}' for why, n in sorted(skipped.items()))}); "
                      "run them again to add their rows", stacklevel=3)
    return table


NOT_WHOLE = "without manifest.json (unfinished runs)"
INCOMPLETE = "whose results.csv does not hold every row of their summary"


def whole_run_rows(folder: Path) -> pd.DataFrame | str:
    """A record's rows of the table when the record is whole: its manifest is there, and its
    results.csv reads complete (every cell filled, a 64-digit weight hash or none, one row per
    value of its summary.csv); otherwise why not (NOT_WHOLE or INCOMPLETE)."""
    if not (folder / MANIFEST).is_file():
        return NOT_WHOLE
    try:
        rows = run_rows(folder / RUN_ROWS)
        summary = pd.read_csv(folder / "summary.csv")
    except (OSError, ValueError, pd.errors.ParserError):
        return INCOMPLETE
    values = summary[[c for c in ("accuracy", "ci_low", "ci_high", "n") if c in summary.columns]]
    required = [c for c in RESULT_COLUMNS if c != "step"]
    complete = (set(TABLE_COLUMNS) <= set(rows.columns) and len(rows) == int(values.notna().to_numpy().sum())
                and not (rows[required].isna() | (rows[required].astype(str) == "")).any().any()
                and rows["weights_sha256"].astype(str).str.fullmatch(r"(?:[0-9a-f]{64})?").all())
    return rows if complete else INCOMPLETE


def run_rows(path: Path) -> pd.DataFrame:
    """One run record's own rows of the table (refused when a row has too few or too many cells)."""
    return pd.read_csv(path, dtype={"revision": str, "weights_sha256": str}, keep_default_na=False,
                       na_values={"step": [""], "value": [""]}, on_bad_lines="error")


def _remembered(listing: str) -> list[str]:
    """The folders the table is rebuilt from besides the cache's runs and imports, by listing: run
    records saved elsewhere with --out ("runs"), and folders imported before sources were labelled ("roots")."""
    return list(_memo().read().get(listing, []))


def _remember(listing: str, folder: Path) -> None:
    """Add a folder to a listing of those the table is rebuilt from (see `_remembered`)."""
    memo = _memo()
    folders = [f for f in _remembered(listing) if f != str(folder.resolve())] + [str(folder.resolve())]
    memo.write({**memo.read(), listing: folders})


def add_run_rows(folder: Path, rows: pd.DataFrame) -> pd.DataFrame:
    """Add a saved run's rows (kept in its record as results.csv) to the table, and remember a
    record kept outside the cache, so the table can be rebuilt from it; returns the table."""
    if folder.resolve().parent != cache_subdir("runs").resolve():
        _remember("runs", folder)
    return append_results(rows)


def _save(table: pd.DataFrame) -> None:
    """Write the table atomically (`files.atomic_path`), so a reader never sees half a file."""
    with atomic_path(results_path(), "the results table") as tmp:
        table.to_parquet(tmp, index=False)


SAME = 1e-12  # values closer than this are the same number (a CSV round trip keeps them exact)


def append_results(rows: pd.DataFrame, *, replace: bool = False) -> pd.DataFrame:
    """Add rows to the stored table in place of earlier rows of the same sources; returns the table.

    Own runs call this with source "pfcore run <run_id>", so re-recording a run is idempotent. Rows
    that would change a stored source's values are refused (InputError) unless `replace` is given.
    """
    new = _checked_rows(rows)
    with _locked():
        combined = _merged(_with_bundle(_read_or_rebuild()), new, replace=replace)
        _save(combined)
    return combined


def _checked_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows typed as the table's, or InputError saying what is wrong with them."""
    if missing := [col for col in RESULT_COLUMNS if col not in rows.columns]:
        raise InputError(f"results rows lack the columns {', '.join(missing)}")
    try:
        new = typed_rows(rows)
    except (ValueError, TypeError) as exc:
        raise InputError(f"results rows: step must hold whole numbers (or be empty) and value "
                         f"numbers ({exc})") from exc
    if (new["source"].str.strip() == "").any():
        raise InputError("results rows need a non-empty source")
    if not np.isfinite(new["value"]).all():
        raise InputError("results rows hold values that are not finite numbers")
    return new


def _merged(table: pd.DataFrame, new: pd.DataFrame, *, replace: bool) -> pd.DataFrame:
    """The table with the new rows in place of the stored rows of their sources; InputError when
    that would change a stored source's values and `replace` is False (nothing is changed then)."""
    stored = table["source"].isin(set(new["source"]))
    changed = [] if replace else changed_sources(table[stored], new)
    if changed:
        raise InputError(f"these rows would replace the stored rows of {len(changed)} source(s) "
                         f"({changed[0]}{', ...' if len(changed) > 1 else ''}) with different ones; "
                         "nothing was changed. Replace a source only on purpose: --replace (replace=True)")
    kept = table[~stored]
    return typed_rows(pd.concat([kept, new], ignore_index=True)) if len(kept) else new


def changed_sources(stored: pd.DataFrame, new: pd.DataFrame) -> list[str]:
    """The sources of `stored` whose rows `new` would change: a value that differs, a row that is
    gone or a row that is added."""
    if stored.empty:
        return []
    incoming = new[new["source"].isin(set(stored["source"]))]
    both = stored[[*KEYS, "value"]].merge(incoming[[*KEYS, "value"]], on=KEYS, how="outer",
                                           suffixes=("_old", "_new"), indicator=True)
    differs = (both["_merge"] != "both") | ((both["value_old"] - both["value_new"]).abs() > SAME)
    return sorted(set(both.loc[differs, "source"]))


def _memo() -> JsonMemo:
    """imports.json: the folders imported, the runs kept outside the cache, the bundled rows given."""
    return JsonMemo(f"results/{IMPORTS}")


def _imports() -> dict[str, dict[str, str]]:
    """The imported folders, each with the label and the content digest of the rows it gave."""
    found = _memo().read().get("imports", {})
    return found if isinstance(found, dict) else {}


def _bundle_due() -> bool:
    """Whether this cache is still to be given the bundled published rows (never given before)."""
    return bundling_enabled() and "bundled" not in _memo().read()


def _bundle_or_warn() -> Bundle | None:
    """The bundled published rows, or None with a warning saying why they cannot be used."""
    try:
        return read_bundle()
    except InputError as exc:
        warnings.warn(str(exc), stacklevel=4)
        return None


def _remember_bundle(bundle: Bundle) -> None:
    """Note that the cache's table was given the bundled rows (a rebuilt table gets them back)."""
    memo = _memo()
    memo.write({**memo.read(), "bundled": {"label": bundle.label, "commit": bundle.manifest["commit"],
                                           "content_sha256": bundle.manifest["content_sha256"]}})


def _with_bundle(table: pd.DataFrame) -> pd.DataFrame:
    """An empty table of a cache never given the bundled published rows, with them (once: a table
    emptied later stays empty until `results import --bundled`); otherwise the table itself.
    Call with the lock held."""
    if not table.empty or not _bundle_due():
        return table
    bundle = _bundle_or_warn()
    if bundle is None:
        return table
    _remember_bundle(bundle)
    return typed_rows(bundle.table_rows())


def _bundled_label_for(digest: str) -> str | None:
    """The bundled rows' label when published rows of this content digest are the bundled ones."""
    try:
        manifest = read_manifest()
    except InputError:
        return None
    return bundled_label(manifest) if manifest["content_sha256"] == digest else None


def import_bundled(*, replace: bool = False) -> pd.DataFrame:
    """Put the bundled published rows into the stored table (source label published@<commit>);
    returns them. A damaged or edited bundle is refused with the reason."""
    bundle = read_bundle()
    rows = typed_rows(bundle.table_rows())
    with _locked():
        _save(_merged(_read_or_rebuild(), rows, replace=replace))
        _remember_bundle(bundle)
    return rows[list(RESULT_COLUMNS)]


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
        return _without_sources(sources)


def withdraw_sources(sources: set[str]) -> int:
    """Take the rows of these sources out of the table (a record replaced by a rerun into its
    folder took them with it); how many rows left."""
    with _locked():
        return _without_sources(sources)


def _without_sources(sources: set[str]) -> int:
    """The table without the rows of these sources, saved when that changes it; how many rows left."""
    table = _read_or_rebuild()
    kept = table[~table["source"].isin(sources)]
    if len(kept) < len(table):
        _save(kept.reset_index(drop=True))
    return len(table) - len(kept)


def import_published(root: Path, *, replace: bool = False) -> pd.DataFrame:
    """Read every summary under root into the stored table as a source of its own, labelled by its
    content (the bundled rows' label when it holds the very same numbers); returns the rows stored.

    Other sources are never touched. A folder imported before whose files have changed is refused
    unless `replace` is given, which swaps that folder's earlier rows for the new ones.
    """
    rows = read_published(root)
    digest = content_digest(rows)
    folder = str(Path(root).resolve())
    label = _bundled_label_for(digest) or import_label(digest)
    new = typed_rows(labelled(rows, label))
    with _locked():
        table = _with_bundle(_read_or_rebuild())
        earlier = _imports().get(folder)
        if earlier and earlier.get("content_sha256") != digest:
            if not replace:
                raise InputError(f"{root} was imported before (source {earlier.get('label')}) and its files "
                                 "have changed since; nothing was imported and the earlier rows are kept. "
                                 "To replace them with the files as they are now, import it again with "
                                 "--replace (in the app: tick \"Replace my earlier import of this folder\")")
            table = _without_import(table, folder, str(earlier.get("label")))
        _save(_merged(table, new, replace=False))
        memo = _memo()
        memo.write({**memo.read(), "imports": {**_imports(), folder: {"label": label, "content_sha256": digest}}})
    return new[list(RESULT_COLUMNS)]


def imported_folders() -> dict[str, list[str]]:
    """Each imported collection's label with the folders it was imported from."""
    found: dict[str, list[str]] = {}
    for folder, entry in _imports().items():
        found.setdefault(str(entry.get("label")), []).append(folder)
    return found


def _without_import(table: pd.DataFrame, folder: str, label: str) -> pd.DataFrame:
    """The table without a folder's earlier import, unless another folder or the bundle gave the same rows."""
    others = {entry.get("label") for other, entry in _imports().items() if other != folder}
    if label in others or not label.startswith(IMPORT_PREFIX):
        return table
    return table[table["source"].map(collection_of) != label]


def remembered_sources() -> list[pd.DataFrame]:
    """The published rows a rebuilt table gets back: the bundled rows when the cache was given them,
    each imported folder whose files still hold what was imported, and the folders imported before
    sources were labelled. A folder that changed or went is left out, with a warning."""
    bundle = _bundle_or_warn() if "bundled" in _memo().read() else None
    parts = [bundle.table_rows()] if bundle else []
    for folder, entry in _imports().items():
        rows = _reread(Path(folder))
        if rows is not None and content_digest(rows) != entry.get("content_sha256"):
            warnings.warn(f"{folder} has changed since it was imported; its rows were not restored "
                          "(import it again)", stacklevel=4)
        elif rows is not None:
            parts.append(labelled(rows, str(entry.get("label"))))
    for root in _remembered("roots"):
        rows = _reread(Path(root))
        if rows is not None:
            digest = content_digest(rows)
            parts.append(labelled(rows, _bundled_label_for(digest) or import_label(digest)))
    return parts


def _reread(folder: Path) -> pd.DataFrame | None:
    """An imported folder's rows read again, or None with a warning when it cannot be."""
    try:
        return read_published(folder)
    except InputError as exc:
        warnings.warn(f"an imported folder was not restored: {exc}", stacklevel=5)
        return None


def summarize(rows: pd.DataFrame) -> dict[str, object]:
    """Rows, revisions and suites per model: what `results import` reports."""
    per_model = {
        model: {"rows": int(len(group)), "revisions": int(group["revision"].nunique()),
                "suites": sorted(group["suite"].unique())}
        for model, group in rows.groupby("model", sort=True)
    }
    return {"rows": int(len(rows)), "sources": int(rows["source"].nunique()), "models": per_model}


def import_note(rows: pd.DataFrame, where: str) -> str:
    """What an import added, in one line, with the source label its rows carry."""
    label = collection_of(str(rows["source"].iloc[0]))
    same = " (the same numbers as the bundled published results)" if label.startswith(BUNDLED_PREFIX) else ""
    return (f"Imported {len(rows):,} rows from {rows['source'].nunique()} files ({where}) for "
            f"{rows['model'].nunique()} models, as source {label}{same}.")


def import_folder(folder: str, *, replace: bool = False) -> str:
    """Import every published summary TSV under a folder into the results table; a report line."""
    if not folder.strip():
        raise InputError("give the folder of the published summaries (Meaning_Alone's outputs_summary)")
    root = Path(folder.strip()).expanduser()
    return import_note(import_published(root, replace=replace), str(root))


def load_bundled() -> str:
    """Put the bundled published results into the table (no network); a report line."""
    rows = import_bundled()
    return (f"Loaded the bundled published results: {len(rows):,} rows from {rows['source'].nunique()} files "
            f"for {rows['model'].nunique()} models, as source {collection_of(str(rows['source'].iloc[0]))}.")
