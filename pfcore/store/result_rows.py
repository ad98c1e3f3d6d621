"""The rows of the long results table: their columns and types, and the step a revision names."""
from __future__ import annotations

import re

import pandas as pd

from pfcore.models.spec import ALIASES
from pfcore.names import construction_name

RESULT_COLUMNS = ("model", "revision", "step", "suite", "construction", "filter", "metric", "value", "source")
# Columns a row may lack (published summaries, older tables): filled with their default.
OPTIONAL_COLUMNS = {"weights_sha256": ""}  # the checkpoint's content hash, for own runs
TABLE_COLUMNS = (*RESULT_COLUMNS, *OPTIONAL_COLUMNS)


def empty_results() -> pd.DataFrame:
    """A results table with the right columns and no rows."""
    return typed_rows(pd.DataFrame({col: [] for col in TABLE_COLUMNS}))


def typed_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Rows as the results table holds them: `table_types`, and models and constructions by their
    names, whatever spelling the rows were written in (an older table, the paper's files)."""
    out = table_types(df)
    out["model"] = out["model"].replace(ALIASES)  # rows written under the default model's earlier name
    out["construction"] = named_constructions(out["construction"])  # "letalone", "let alone" -> "let_alone"
    return out


def table_types(df: pd.DataFrame) -> pd.DataFrame:
    """Column order and dtypes: nullable integer step, float value, strings elsewhere; optional
    columns a row lacks get their default; every label as it is written."""
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
    return out.reset_index(drop=True)


def named_constructions(labels: pd.Series) -> pd.Series:
    """A construction column with each built-in's label as its name ("letalone" -> "let_alone"; see
    `names.construction_name`), each distinct label respelled once; other labels as they are."""
    renamed = {label: name for label in labels.unique() if (name := construction_name(str(label))) != label}
    return labels.replace(renamed) if renamed else labels


def of_construction(labels: pd.Series, construction: str) -> pd.Series:
    """Which labels of a construction column name this construction, a built-in in any spelling, so
    that rows not read through the results table (a published file as it is) are found too."""
    return named_constructions(labels) == construction_name(construction)


def step_from_revision(revision: str) -> float:
    """The step a revision names ("step1000", "stage1-step477000-tokens2001B"); NaN if none."""
    match = re.search(r"(?:^|[^a-z])step(\d+)", str(revision), flags=re.IGNORECASE)
    return float(match.group(1)) if match else float("nan")
