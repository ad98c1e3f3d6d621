"""What the paper measured over its whole suites, set beside a lesson step that rests on one sentence:
the range of its models' accuracy for the construction (Table 6 for meaning, Table 7 for form), the
paper's models closest in size to the model in use, and the model's own suite run where there is one."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pfcore.analysis.base_rates import base_rates
from pfcore.analysis.reference import load_reference
from pfcore.names import Construction

SUITES = {"Table 6": "semantic suite (about 3.5k sentence pairs per construction; plausible items)",
          "Table 7": "syntactic suite (the mean of its three tests)"}
NEAREST = 3  # paper models named beside the model in use


def percent(value: float) -> str:
    """A percentage as the paper prints it (one decimal)."""
    return f"{value:.1f}%"


def paper_range(table: str, construction: Construction) -> str:
    """The spread of the paper's models on one construction in one table, in words."""
    values = _values(table, construction)["value"]
    return (f"on *{construction.words}* its {len(values)} models score {percent(values.min())} to "
            f"{percent(values.max())} (median {percent(float(values.median()))}; chance is 50%)")


def nearest_models(table: str, construction: Construction, parameters: int | None) -> str:
    """The paper's models closest in parameter count to a model of `parameters`, with their
    accuracy on the construction ("" when the size is unknown)."""
    if not parameters:
        return ""
    values = _values(table, construction).merge(load_reference("Table 9")[["model", "parameters"]], on="model")
    distance = (np.log(values["parameters"].astype(float)) - math.log(parameters)).abs()
    near = values.assign(distance=distance).sort_values(["distance", "model"], kind="stable").head(NEAREST)
    named = ", ".join(f"{r.model} ({r.parameters / 1e6:,.0f}M) {percent(r.value)}" for r in near.itertuples())
    return f"The paper's models closest in size to this one ({parameters / 1e6:,.0f}M parameters): {named}."


def anecdote_note(table: str, construction: Construction, *, parameters: int | None = None) -> str:
    """Why one sentence is an anecdote, with the paper's suite accuracy beside it."""
    text = (f"One sentence is an anecdote, not a measurement: its numbers move with its words as much as with "
            f"the construction. The paper measures over its whole {SUITES[table]}: in {table} "
            f"{paper_range(table, construction)}.")
    near = nearest_models(table, construction, parameters)
    return f"{text} {near}" if near else text


def own_run_note(results: pd.DataFrame, model: str | None, construction: Construction, condition: str) -> str:
    """The model's own semantic-suite accuracy for one condition, from its latest run ("" without one)."""
    if model is None:
        return ""
    rates = base_rates(results, model, construction.value)
    row = rates[rates["condition"] == condition]
    if row.empty:
        return ""
    r = row.iloc[0]
    count = f" (n = {int(r['n'])})" if pd.notna(r["n"]) else ""
    return (f"This model's own run of the semantic suite ({r['source']}): {percent(100 * float(r['accuracy']))} "
            f"correct on the {condition} decisions{count}.")


def _values(table: str, construction: Construction) -> pd.DataFrame:
    """One construction's rows of a paper table (model, value)."""
    rows = load_reference(table)
    return rows[rows["construction"] == construction.published][["model", "value"]]
