"""The paper's published summary TSVs (Meaning_Alone's outputs_summary, at a pinned commit): where
they are, and each file read as long rows of the results table (every numeric column a metric)."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd

from pfcore.errors import InputError, first_line
from pfcore.files import MIB, FileKind, read_bounded
from pfcore.names import SuiteName
from pfcore.store.result_rows import RESULT_COLUMNS, step_from_revision, table_types

SUMMARY_FILE = FileKind("published summary", 16 * MIB)  # the paper's are under 100 kB

BENCHMARK_SUITES = ("blimp", "comps", "ewok")
FILTER_COLUMNS = ("world_knowledge_filter", "test_type")
KEY_COLUMNS = ("revision", "construction")

PUBLISHED_REPO = "WesScivetti/Meaning_Alone"
PUBLISHED_COMMIT = "a6b6990973e9432600d6d5b2e0def79b24c74533"
PUBLISHED_FOLDER = "outputs_summary"
SUMMARY_FOLDER = "output_summaries"  # jhu-clsp keeps two decoder files here, named by model


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
    """One published summary TSV as long result rows (every numeric column becomes a metric), in the
    paper's layout.
    A file cut off mid-line, or a row with too few or too many cells, is refused: a half-read
    number would otherwise enter the table as if it were whole."""
    raw = read_bounded(path, SUMMARY_FILE)
    try:
        wide = pd.read_csv(io.BytesIO(raw), sep="\t", on_bad_lines="error", dtype=str, keep_default_na=False)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not a readable TSV file (not UTF-8 text: {exc.reason})") from exc
    except (ValueError, pd.errors.ParserError) as exc:
        raise InputError(f"{path}: not a readable TSV file ({first_line(exc)})") from exc
    if raw and not raw.endswith(b"\n"):
        raise InputError(f"{path}: the last line is cut off (no line end); the file may be truncated")
    short = (wide.isna() | (wide.apply(lambda col: col.str.strip()) == "")).any(axis=1)
    if short.any():
        raise InputError(f"{path}: line {int(short.to_numpy().argmax()) + 2} has empty or missing cells")
    filter_cols = [col for col in FILTER_COLUMNS if col in wide.columns]
    missing = [col for col in KEY_COLUMNS if col not in wide.columns]
    if missing or len(filter_cols) != 1:
        raise InputError(f"{path}: expected columns revision, construction and one of "
                         f"{' / '.join(FILTER_COLUMNS)} in the header (of {len(wide.columns)} columns)")
    filter_col = filter_cols[0]
    metrics = [col for col in wide.columns if col not in (*KEY_COLUMNS, filter_col)]
    if not metrics:
        raise InputError(f"{path}: no value columns (accuracy, ...) besides the keys")
    long = wide.melt(id_vars=[*KEY_COLUMNS, filter_col], value_vars=metrics,
                     var_name="metric", value_name="value")
    values = pd.to_numeric(long["value"], errors="coerce")
    if values.isna().any():
        bad = list(wide.columns).index(long.loc[values.isna(), "metric"].iloc[0]) + 1
        raise InputError(f"{path}: column {bad} holds values that are not numbers")
    construction = long["construction"].astype(str).str.replace(" ", "", regex=False)
    revision = long["revision"].astype(str)
    steps = {rev: step_from_revision(rev) for rev in revision.unique()}
    long = long.assign(model=model_from_path(path), revision=revision, step=revision.map(steps),
                       suite=_suites(construction, filter_col), construction=construction,
                       filter=long[filter_col].astype(str), value=values, source=source)
    # the paper's layout: constructions as the files spell them ("letalone"), so the content digest
    # (published.content_digest) tells the same files; the results table reads them by name (typed_rows)
    return table_types(long)[list(RESULT_COLUMNS)]  # published rows carry no checkpoint hash


def _suites(construction: pd.Series, filter_col: str) -> pd.Series:
    """Each row's suite: syntax files by their test_type, benchmarks by name, else semantic."""
    if filter_col == "test_type":
        return pd.Series(SuiteName.SYNTAX.value, index=construction.index)
    return construction.where(construction.isin(BENCHMARK_SUITES), SuiteName.SEMANTIC.value)


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
