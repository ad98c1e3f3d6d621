"""The Models page's tables: the paper's tables beside the user's own runs, the rows of Figure 1
(paper models plus own runs with known sizes), and the mixed-effects fits on both."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from pfcore.analysis.models import (
    PREDICTORS,
    RUN_SOURCE_PREFIX,
    Origin,
    accuracy_data,
    fit_mixed,
    model_info,
    own_semantic,
    partial_runs,
    per_model_average,
)
from pfcore.analysis.reference import load_reference
from pfcore.analysis.series import USER_MARK
from pfcore.intervals import mean_interval
from pfcore.items.lexicon import load_lexicon
from pfcore.items.schema import PAPER_CONSTRUCTIONS
from pfcore.names import SuiteName, published_name
from pfcore.scoring.kinds import method_named
from pfcore.store.manifest import ModelRecord
from pfcore.store.model_sizes import extra_models_path, read_extra_models
from pfcore.store.runs import RunRecord
from pfcore.suites.registry import get_suite

# paper table -> the suite whose own runs are set beside it (at the suite's paper_filter)
TABLE_SUITES = {"Table 5": SuiteName.SEMANTIC, "Table 6": SuiteName.SEMANTIC, "Table 7": SuiteName.SYNTAX,
                "Table 8": SuiteName.AFFINITY}
PLL_TABLE = "Table 5"  # the semantic table of PLL scores; Table 6 has the other methods'
OWN_SUFFIX = f" ({Origin.RUN})"
OWN_COLUMNS = ("model", "construction", "value", "ci_low", "ci_high", "n", "source")
TABLE_NOTES = {"Table 8": "Your runs' Global Affinity is averaged over the fixed words the paper averaged (for "
                          "not to mention: 'not' and 'mention', as the authors' code scores them) and over "
                          "sentences, with a normal interval over per-sentence means; the paper's ± is its own."}


def value_digits(table: str) -> int:
    """The decimals of a paper table's values, as the paper prints them: 1 for percentages (Tables 5-7),
    3 for probabilities (Table 8). Own runs set beside it are rounded and shown alike."""
    return 1 if get_suite(TABLE_SUITES[table]).percent else 3


@cache
def paper_affinity_words() -> dict[str, tuple[str, ...]]:
    """The words Table 8 averages, where not all (from the shipped lexicon, read on first use)."""
    return dict(load_lexicon().paper.affinity_words)


def _own_rows(table: str, runs: Sequence[RunRecord]) -> pd.DataFrame:
    """Own runs' values in a table's shape, the paper's layout (its columns "letalone"...): semantic
    runs beside Tables 5 (PLL) and 6 (the rest), syntactic Avg_Test beside Table 7, Global Affinity
    beside Table 8."""
    suite = get_suite(TABLE_SUITES[table])
    scale, digits = (100.0 if suite.percent else 1.0), value_digits(table)
    rows = []
    for record in runs:
        m = record.manifest
        if m.suite != suite.name or (suite.name == SuiteName.SEMANTIC
                                     and method_named(m.scoring).is_pll != (table == PLL_TABLE)):
            continue
        values = (_affinity_on_paper_words(record) if suite.name == SuiteName.AFFINITY
                  else _headline(record, suite.paper_filter))
        for construction, (value, low, high, n) in values.items():
            rows.append({"model": run_model(m.model), "construction": marked(published_name(construction)),
                         "value": round(scale * value, digits), "ci_low": round(scale * low, digits),
                         "ci_high": round(scale * high, digits), "n": n,
                         "source": f"{RUN_SOURCE_PREFIX}{m.run_id}"})
    return pd.DataFrame(rows, columns=list(OWN_COLUMNS))


def run_model(model: ModelRecord) -> str:
    """A run's model as the tables name it: its label, or, for scores read from a file (a model run
    elsewhere), its name and the file ("gpt2-xl (scores from scores.tsv)")."""
    return f"{model.name} (scores from {Path(model.source).name})" if model.kind == "scores" else model.label


def marked(construction: str) -> str:
    """A construction column's name in a paper table: the paper's four as its layout spells them, a
    user's own marked "(user-defined)"."""
    return construction if construction in (*PAPER_CONSTRUCTIONS, "avg") else f"{construction} {USER_MARK}"


def _headline(record: RunRecord, filt: str) -> dict[str, tuple[float, float, float, int]]:
    """Each construction's value at one filter of a run's summary, with its 95% interval and count."""
    part = record.summary[record.summary["filter"] == filt]
    return {str(r.construction): (float(r.accuracy), float(r.ci_low), float(r.ci_high), int(r.n))
            for r in part.itertuples()}


def _affinity_on_paper_words(record: RunRecord) -> dict[str, tuple[float, float, float, int]]:
    """Each construction's Global Affinity averaged over the fixed words the paper averaged (for
    not to mention, "not" and "mention" only), from the run's per-word rows, so the value is
    comparable with Table 8; with a normal 95% interval over the per-sentence means."""
    rows = record.tables["rows"]
    out = {}
    for construction, part in rows.groupby("construction", sort=False):
        words = paper_affinity_words().get(str(construction))
        kept = part[part["word"].isin(words)] if words else part
        per_item = kept.groupby("item_id")["affinity"].mean()
        out[str(construction)] = (*mean_interval(per_item.to_numpy()), len(per_item))
    return out


def side_by_side(table: str, runs: Sequence[RunRecord]) -> pd.DataFrame:
    """A paper table in the paper's layout (one row per model, a column per construction as it spells
    them, its source) with the user's own runs of the matching suite as further rows (source
    "pfcore run <run id>")."""
    paper = load_reference(table)
    if table == "Table 9":
        return paper
    own = _own_rows(table, runs)
    long = pd.concat([own[["model", "construction", "value", "source"]],
                      paper[["model", "construction", "value", "source"]]], ignore_index=True)
    wide = long.pivot_table(index=["source", "model"], columns="construction", values="value",
                            aggfunc="first", sort=False).reset_index()
    if "avg" in wide.columns and set(PAPER_CONSTRUCTIONS) <= set(wide.columns):
        wide["avg"] = wide["avg"].fillna(wide[list(PAPER_CONSTRUCTIONS)].mean(axis=1, skipna=False).round(1))
    order = [c for c in (*PAPER_CONSTRUCTIONS, "avg") if c in wide.columns]
    order += [c for c in wide.columns if c not in (*order, "source", "model")]  # a user's constructions, marked
    wide = wide[["model", *order, "source"]]
    wide["origin"] = np.where(wide["source"].str.startswith(RUN_SOURCE_PREFIX), Origin.RUN, Origin.PAPER)
    counts = own.groupby("source")["n"].agg(lambda n: f"{n.min():,}" if n.min() == n.max() else
                                            f"{n.min():,} to {n.max():,}")
    wide["n"] = wide["source"].map(counts)  # decisions per construction, for your runs (the paper gives none)
    return wide


def own_run_values(table: str, runs: Sequence[RunRecord]) -> pd.DataFrame:
    """The own runs' values set beside a paper table, one row per run and construction, each with
    its 95% interval and its number of decisions (or sentences): what a value of one run rests on."""
    return pd.DataFrame(columns=list(OWN_COLUMNS)) if table == "Table 9" else _own_rows(table, runs)


def run_models(results: pd.DataFrame) -> list[str]:
    """Models with own final semantic runs in the results table (what Figure 1 can place)."""
    return sorted(own_semantic(results)["model"].unique())


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
    """Figure 1's rows (model x construction), the own-run models left out for lack of sizes, and
    those left out because not all four constructions were run (Figure 1 averages the four)."""

    data: pd.DataFrame
    left_out: tuple[str, ...]
    partial: tuple[str, ...] = ()


def figure_data(results: pd.DataFrame, *, include_runs: bool) -> FigureData:
    """The paper's Table 6 rows, plus own runs that cover all four constructions and whose model
    has sizes (Table 9 or the user's)."""
    if not include_runs or not run_models(results):
        return FigureData(accuracy_data("paper"), ())
    partial = partial_runs(results)
    extra = extra_models_path() if extra_models_path().is_file() else None
    known = set(model_info(extra)["hf_id"])
    left_out = tuple(m for m in run_models(results) if m not in known and m not in partial)
    usable = results[~results["model"].isin(left_out + partial)]
    if not set(run_models(usable)):
        return FigureData(accuracy_data("paper"), left_out, partial)
    data = accuracy_data("both", usable, extra)
    own = data["origin"] == Origin.RUN
    data.loc[own, "model"] = data.loc[own, "model"] + OWN_SUFFIX
    return FigureData(data, left_out, partial)


def figure_models(data: pd.DataFrame) -> pd.DataFrame:
    """Per-model averages for Figure 1; own runs get their own legend entry."""
    models = per_model_average(data)
    own = models["origin"] == Origin.RUN
    models.loc[own, "model_type"] = models.loc[own, "model_type"] + OWN_SUFFIX
    return models


TERMS = {"Intercept": "intercept", "log_parameters": "ln parameters",
         "log_tokens": "ln training tokens", "architecture[MLM]": "architecture: MLM (vs CausalLM)"}
FITS = {"all three predictors": tuple(PREDICTORS), "ln parameters alone": ("log_parameters",),
        "ln training tokens alone": ("log_tokens",), "architecture alone": ("architecture",)}
PAPER = "paper: Table 6 accuracy + Table 9 sizes (data/reference/)"
COLUMNS = ("data", "fit", "term", "coef", "se", "z", "p", "rows", "models")


def mixed_table(data: pd.DataFrame, label: str) -> pd.DataFrame:
    """Every fit (all predictors, then each alone) of one data set, one row per coefficient."""
    frames = []
    for fit_name, predictors in FITS.items():
        fit = fit_mixed(data, predictors)
        coefs = fit.coefficients.assign(term=fit.coefficients["term"].map(lambda t: TERMS.get(t, t)))
        frames.append(coefs.assign(data=label, fit=fit_name, rows=fit.n_obs, models=fit.n_models))
    return pd.concat(frames, ignore_index=True)[list(COLUMNS)]


@dataclass(frozen=True)
class MixedTables:
    """The coefficients on the paper's data (and with own runs), and the runs that could not join."""

    table: pd.DataFrame
    own_models: tuple[str, ...]
    left_out: tuple[str, ...]


@cache
def _paper_fits() -> pd.DataFrame:
    """The fits on the paper's rows alone: shipped data, so fitted once a process (0.4 s a rerun before)."""
    return mixed_table(accuracy_data("paper"), PAPER)


def mixed_tables(results: pd.DataFrame) -> MixedTables:
    """Fits on the paper's rows, plus on the paper's and own final semantic runs when any has sizes
    (Table 9 or the user's model sizes, as Figure 1 places them)."""
    paper = _paper_fits().copy(deep=False)  # lazy (pandas copies on write): no caller changes the cached one
    both = figure_data(results, include_runs=True)
    own = tuple(sorted(m.removesuffix(OWN_SUFFIX)
                       for m in both.data.loc[both.data["origin"] == Origin.RUN, "model"].unique()))
    if not own:
        return MixedTables(paper, (), both.left_out)
    label = f"paper + your runs ({len(own)} model(s); sizes from Table 9 or {extra_models_path().name})"
    return MixedTables(pd.concat([paper, mixed_table(both.data, label)], ignore_index=True), own,
                       both.left_out)
