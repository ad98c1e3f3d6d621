"""What the paper measured over its whole suites, set beside a lesson step that rests on one sentence:
the range of its models' accuracy for the construction (Table 6 for meaning, Table 7 for form; the
published per-checkpoint results for implausible items, which the tables leave out), the paper's
models closest in size to the model in use, and the model's own suite run where there is one, with
the margins its decisions were decided by (what a step's one margin is read against)."""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pandas as pd

from pfcore.analysis.base_rates import base_rates
from pfcore.analysis.models import RUN_SOURCE_PREFIX
from pfcore.analysis.reference import load_reference
from pfcore.errors import InputError
from pfcore.names import Construction, Reduction, SuiteName
from pfcore.paths import cache_subdir
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import LN2
from pfcore.store.result_rows import of_construction
from pfcore.store.runs import find_run

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


ANECDOTE = ("One sentence is an anecdote, not a measurement: its numbers move with its words as much as with "
            "the construction.")


def anecdote_note(table: str, construction: Construction, *, parameters: int | None = None) -> str:
    """Why one sentence is an anecdote, with the paper's suite accuracy beside it."""
    text = (f"{ANECDOTE} The paper measures over its whole {SUITES[table]}: in {table} "
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
    """One construction's rows of a paper table (model, value): the paper's layout ("letalone")."""
    rows = load_reference(table)
    return rows[rows["construction"] == construction.published][["model", "value"]]


def published_final(results: pd.DataFrame, construction: Construction, filter_name: str) -> pd.DataFrame:
    """Each model's published semantic accuracy on one filter of a construction at its last published
    checkpoint (`main` where published, else the latest step): columns model, revision, value."""
    rows = results[(results["suite"] == SuiteName.SEMANTIC) & of_construction(results["construction"], construction)
                   & (results["filter"] == filter_name) & (results["metric"] == "accuracy")
                   & ~results["source"].str.startswith(RUN_SOURCE_PREFIX)]
    ordered = rows.assign(main=rows["revision"] == "main", at=rows["step"].fillna(-1)).sort_values(
        ["model", "main", "at"], kind="stable")
    return ordered.groupby("model", sort=True).tail(1)[["model", "revision", "value"]].reset_index(drop=True)


def implausible_note(results: pd.DataFrame, construction: Construction) -> str:
    """The paper's implausible-item accuracies on the construction (its tables give plausible ones
    only), from the published per-checkpoint results: the range over its models at their last
    checkpoint, with Pythia-12b's."""
    final = published_final(results, construction, "misaligned")
    if final.empty:
        return ("The paper's tables give plausible items only; its implausible ones are in its published "
                "per-checkpoint results, which this results table does not hold (`pfcore results import --bundled`).")
    values = 100 * final["value"]
    pythia = final[final["model"] == "EleutherAI/pythia-12b"]
    named = f"; Pythia-12b {percent(100 * float(pythia['value'].iloc[0]))}" if len(pythia) else ""
    models = f"{len(final)} model{'' if len(final) == 1 else 's'}"
    return (f"The paper's tables give plausible items only. On implausible (misaligned) items, its published results "
            f"give its {models} with checkpoints {percent(values.min())} to {percent(values.max())} on "
            f"*{construction.words}* at their last checkpoint (median {percent(float(values.median()))}{named}; "
            "chance is 50%).")


MARGIN_FILTER = {SuiteName.SEMANTIC: None, SuiteName.SYNTAX: "NPI"}  # the decisions a lesson step makes


def run_margins(results: pd.DataFrame, model: str | None, suite: SuiteName, construction: Construction,
                method: ScoringMethod) -> tuple[str, np.ndarray] | None:
    """The model's largest own run of the suite on this construction (scored as the lesson scores, the
    mean per token) and the margin of each of its decisions of the kind the lesson makes (bits per
    token: the construction's value minus the control's, unsigned); None without such a run."""
    if model is None:
        return None
    rows = results[(results["model"] == model) & (results["suite"] == suite) & results["step"].isna()
                   & of_construction(results["construction"], construction) & (results["metric"] == "n")
                   & results["source"].str.startswith(RUN_SOURCE_PREFIX)]
    if rows.empty:
        return None
    sizes = rows.groupby("source")["value"].max()
    source = max(sizes.index, key=lambda s: (sizes[s], s))  # run ids start with their UTC time
    run = str(source).removeprefix(RUN_SOURCE_PREFIX)
    margins = _margins(str(cache_subdir("runs")), run, suite, construction, method)
    return (run, margins) if margins is not None and len(margins) else None


@lru_cache(maxsize=32)
def _margins(root: str, run: str, suite: SuiteName, construction: Construction,
             method: ScoringMethod) -> np.ndarray | None:
    """One run's decision margins (see `run_margins`; `root` keys the cache by the cache folder)."""
    try:
        record = find_run(run)
    except (KeyError, InputError):
        return None
    mean = str(record.manifest.settings.get("reduction")) == Reduction.MEAN.value
    decisions = record.tables.get("decisions")
    if record.manifest.scoring != method.value or not mean or decisions is None:
        return None
    mine = decisions[decisions["construction"] == construction.value]
    if MARGIN_FILTER[suite]:
        mine = mine[mine["manipulation"] == MARGIN_FILTER[suite]]
    pairs = ("cxn_logodds", "or_logodds") if suite == SuiteName.SEMANTIC else ("rise", "rise_and")
    return (np.abs(mine[pairs[0]] - mine[pairs[1]]) / LN2).to_numpy()
