"""The Models page's data: the paper's tables beside the user's own runs, the models' sizes
(Table 9 plus what the user adds), and Figure 1's inputs."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from pfcore.analysis.models import (INFO_COLUMNS, MODEL_TYPES, RUN_SOURCE_PREFIX, accuracy_data, model_info,
                                    per_model_average)
from pfcore.analysis.reference import load_reference
from pfcore.errors import InputError
from pfcore.paths import cache_subdir
from pfcore.store.results import PF_CONSTRUCTIONS
from pfcore.store.runs import PUBLISHED_SEMANTIC, RunRecord

# paper table -> (suite, filter, scale) of the own-run values set beside it
TABLE_RUNS = {"Table 5": ("semantic", "aligned", 100.0), "Table 6": ("semantic", "aligned", 100.0),
              "Table 7": ("syntax", "Avg_Test", 100.0), "Table 8": ("affinity", "all", 1.0)}
PLL = ("pll-original", "pll-l2r")
EXTRA_COLUMNS = ("hf_id", *INFO_COLUMNS)
OWN_SUFFIX = " (your run)"


def _own_rows(table: str, runs: Sequence[RunRecord]) -> pd.DataFrame:
    """Own runs' values in a table's shape: semantic runs beside Tables 5 (PLL) and 6 (the rest),
    syntactic Avg_Test beside Table 7, Global Affinity beside Table 8."""
    suite, filt, scale = TABLE_RUNS[table]
    rows = []
    for record in runs:
        m = record.manifest
        if m["suite"] != suite or (suite == "semantic" and (m["scoring"] in PLL) != (table == "Table 5")):
            continue
        part = record.summary[record.summary["filter"] == filt]
        label = m["model"]["name"] + (f"@{m['model']['revision']}" if m["model"]["revision"] else "")
        for row in part.itertuples():
            rows.append({"model": label, "construction": PUBLISHED_SEMANTIC.get(row.construction, row.construction),
                         "value": round(scale * float(row.accuracy), 1 if scale > 1 else 3), "n": int(row.n),
                         "source": f"{RUN_SOURCE_PREFIX}{m['run_id']}"})
    return pd.DataFrame(rows, columns=["model", "construction", "value", "n", "source"])


def side_by_side(table: str, runs: Sequence[RunRecord]) -> pd.DataFrame:
    """A paper table (one row per model, a column per construction, its source) with the user's
    own runs of the matching suite as further rows (source "pfcore run <run id>")."""
    if table == "Table 9":
        return load_reference(table)
    paper = load_reference(table)
    own = _own_rows(table, runs)
    long = pd.concat([own[["model", "construction", "value", "source"]],
                      paper[["model", "construction", "value", "source"]]], ignore_index=True)
    wide = long.pivot_table(index=["source", "model"], columns="construction", values="value",
                            aggfunc="first", sort=False).reset_index()
    if "avg" in wide.columns and set(PF_CONSTRUCTIONS) <= set(wide.columns):
        wide["avg"] = wide["avg"].fillna(wide[list(PF_CONSTRUCTIONS)].mean(axis=1, skipna=False).round(1))
    order = [c for c in (*PF_CONSTRUCTIONS, "avg") if c in wide.columns]
    wide = wide[["model", *order, "source"]]
    wide["origin"] = np.where(wide["source"].str.startswith(RUN_SOURCE_PREFIX), "your run", "paper")
    return wide


def extra_models_path() -> Path:
    """Where the sizes the user gives for models outside Table 9 are kept."""
    return cache_subdir("app") / "models.csv"


def read_extra_models() -> pd.DataFrame:
    """The user's model sizes (hf_id, parameters, pretraining_tokens, model_type); empty if none."""
    path = extra_models_path()
    if not path.is_file():
        return pd.DataFrame(columns=list(EXTRA_COLUMNS))
    try:
        df = pd.read_csv(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: unreadable model sizes ({exc}); delete the file and enter them again") from exc
    return df.reindex(columns=list(EXTRA_COLUMNS))


def save_extra_models(df: pd.DataFrame) -> int:
    """Keep the complete, valid rows of the edited sizes; returns how many were kept."""
    rows = df.reindex(columns=list(EXTRA_COLUMNS)).dropna()
    rows = rows[(rows["hf_id"].astype(str).str.strip() != "") & rows["model_type"].isin(MODEL_TYPES)]
    for col in ("parameters", "pretraining_tokens"):
        rows[col] = pd.to_numeric(rows[col], errors="coerce")
    rows = rows[(rows["parameters"] > 0) & (rows["pretraining_tokens"] > 0)]
    rows.to_csv(extra_models_path(), index=False)
    return len(rows)


def run_models(results: pd.DataFrame) -> list[str]:
    """Models with own final semantic runs in the results table (what Figure 1 can place)."""
    own = results[results["source"].str.startswith(RUN_SOURCE_PREFIX) & (results["suite"] == "semantic")
                  & results["step"].isna()]
    return sorted(own["model"].unique())


def sizes_to_edit(results: pd.DataFrame) -> pd.DataFrame:
    """The saved sizes plus a blank row for each own-run model without one (Table 9 excluded)."""
    saved = read_extra_models()
    known = set(model_info()["hf_id"]) | set(saved["hf_id"])
    missing = [m for m in run_models(results) if m not in known]
    blank = pd.DataFrame({"hf_id": missing, "parameters": np.nan, "pretraining_tokens": np.nan,
                          "model_type": "CausalLM"})
    return pd.concat([saved, blank], ignore_index=True) if len(blank) else saved


@dataclass(frozen=True)
class FigureData:
    """Figure 1's rows (model x construction), and the own-run models left out for lack of sizes."""

    data: pd.DataFrame
    left_out: tuple[str, ...]


def figure_data(results: pd.DataFrame, include_runs: bool) -> FigureData:
    """The paper's Table 6 rows, plus own runs whose model has sizes (Table 9 or the user's)."""
    if not include_runs or not run_models(results):
        return FigureData(accuracy_data("paper"), ())
    extra = extra_models_path() if extra_models_path().is_file() else None
    known = set(model_info(extra)["hf_id"])
    left_out = tuple(m for m in run_models(results) if m not in known)
    usable = results[~results["model"].isin(left_out)]
    if not set(run_models(usable)):
        return FigureData(accuracy_data("paper"), left_out)
    data = accuracy_data("both", usable, extra)
    own = data["origin"] == "run"
    data.loc[own, "model"] = data.loc[own, "model"] + OWN_SUFFIX
    return FigureData(data, left_out)


def figure_models(data: pd.DataFrame) -> pd.DataFrame:
    """Per-model averages for Figure 1; own runs get their own legend entry."""
    models = per_model_average(data)
    own = models["origin"] == "run"
    models.loc[own, "model_type"] = models.loc[own, "model_type"] + OWN_SUFFIX
    return models


def mark_own_runs(fig: go.Figure) -> go.Figure:
    """Draw the own-run traces of Figure 1 as large stars, and the legend above the plot (clear
    of the colour bar)."""
    fig.for_each_trace(lambda t: t.update(marker_symbol="star", marker_size=18)
                       if t.name and t.name.endswith(OWN_SUFFIX) else None)
    fig.update_layout(legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0})
    return fig
