"""Accuracy across models (the paper's section 4): mixed-effects model and Spearman's rho.

The data is one row per model x construction: semantic accuracy in percent with the model's
parameter count, pretraining tokens and type (CausalLM | MLM). The paper's rows are Table 6 joined
with Table 9; own runs contribute their final-model semantic accuracy on the plausible (aligned)
items, which is what Table 6 reports.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from scipy.stats import spearmanr
from statsmodels.tools.sm_exceptions import ConvergenceWarning

from pfcore.analysis.reference import load_reference
from pfcore.errors import InputError
from pfcore.items.schema import PF_CONSTRUCTIONS
from pfcore.store.model_sizes import INFO_COLUMNS, MODEL_TYPES

RUN_SOURCE_PREFIX = "pfcore run "
RUN_FILTER = "aligned"
PREDICTORS = {
    "log_parameters": "np.log(parameters)",
    "log_tokens": "np.log(pretraining_tokens)",
    "architecture": "C(model_type, Treatment('CausalLM'))",
}


def model_info(extra: Path | None = None) -> pd.DataFrame:
    """Table 9 keyed by Hugging Face id, overridden or extended by a user CSV of the same columns.

    The CSV needs hf_id, parameters, pretraining_tokens and model_type (CausalLM or MLM).
    """
    info = load_reference("Table 9")[["hf_id", "model", *INFO_COLUMNS]]
    if extra is None:
        return info
    try:
        own = pd.read_csv(extra)
    except (OSError, ValueError) as exc:
        raise InputError(f"{extra}: not a readable CSV file ({exc})") from exc
    missing = [col for col in ("hf_id", *INFO_COLUMNS) if col not in own.columns]
    if missing:
        raise InputError(f"{extra}: missing columns {', '.join(missing)}")
    bad = own.loc[~own["model_type"].isin(MODEL_TYPES), "hf_id"].tolist()
    if bad:
        raise InputError(f"{extra}: model_type must be CausalLM or MLM (rows {', '.join(bad)})")
    own = own.assign(model=own.get("model", own["hf_id"]))[["hf_id", "model", *INFO_COLUMNS]]
    return pd.concat([info[~info["hf_id"].isin(own["hf_id"])], own], ignore_index=True)


def paper_accuracy() -> pd.DataFrame:
    """Table 6 (the four constructions, not the average) with Table 9's predictors, by hf_id."""
    table6 = load_reference("Table 6")
    table6 = table6[table6["construction"].isin(PF_CONSTRUCTIONS)]
    info = model_info()
    merged = table6.merge(info, on="model", validate="many_to_one")
    return merged.assign(model=merged["hf_id"], accuracy=merged["value"], origin="paper")[
        ["model", "construction", "accuracy", *INFO_COLUMNS, "origin"]]


def run_accuracy(results: pd.DataFrame, info: pd.DataFrame) -> pd.DataFrame:
    """Own runs' final-model semantic accuracy (aligned filter, percent) with predictors."""
    rows = results[results["source"].str.startswith(RUN_SOURCE_PREFIX)
                   & (results["suite"] == "semantic") & (results["metric"] == "accuracy")
                   & (results["filter"] == RUN_FILTER) & results["step"].isna()
                   & results["construction"].isin(PF_CONSTRUCTIONS)]
    if rows.empty:
        raise InputError("no own runs with semantic accuracy in the results table: run the "
                         "semantic suite on a model first")
    acc = rows.groupby(["model", "construction"], as_index=False)["value"].mean()
    unknown = sorted(set(acc["model"]) - set(info["hf_id"]))
    if unknown:
        raise InputError(f"no parameter/token counts for {', '.join(unknown)}: pass a CSV with "
                         "hf_id, parameters, pretraining_tokens, model_type (--models)")
    merged = acc.merge(info, left_on="model", right_on="hf_id", suffixes=("", "_name"))
    return merged.assign(accuracy=100 * merged["value"], origin="run")[
        ["model", "construction", "accuracy", *INFO_COLUMNS, "origin"]]


def accuracy_data(which: str, results: pd.DataFrame | None = None,
                  models_csv: Path | None = None) -> pd.DataFrame:
    """The rows to analyse: "paper" (Table 6), "runs" (own runs) or "both" together."""
    if which not in ("paper", "runs", "both"):
        raise InputError(f"unknown data {which!r}; choose paper, runs or both")
    parts = [paper_accuracy()] if which in ("paper", "both") else []
    if which in ("runs", "both"):
        if results is None:
            raise InputError("own runs were asked for but no results table was given")
        parts.append(run_accuracy(results, model_info(models_csv)))
    return pd.concat(parts, ignore_index=True)


@dataclass(frozen=True)
class MixedFit:
    """Fixed effects of one mixed-effects fit (random intercept per model)."""

    formula: str  # accuracy ~ log_parameters + log_tokens + architecture
    n_obs: int
    n_models: int
    coefficients: pd.DataFrame  # term, coef, se, z, p

    def summary(self) -> dict[str, object]:
        """Plain-data form for JSON output."""
        return {"formula": self.formula, "n_obs": self.n_obs, "n_models": self.n_models,
                "coefficients": self.coefficients.to_dict(orient="records")}


def fit_mixed(data: pd.DataFrame, predictors: tuple[str, ...] = tuple(PREDICTORS)) -> MixedFit:
    """accuracy ~ predictors (natural logs), random intercept per model; REML, Wald z-tests."""
    unknown = [p for p in predictors if p not in PREDICTORS]
    if unknown:
        raise InputError(f"unknown predictors {unknown}; choose from {list(PREDICTORS)}")
    n_models = int(data["model"].nunique())
    if n_models < 3:
        raise InputError(f"a mixed-effects model across models needs at least 3 models "
                         f"(got {n_models})")
    formula = "accuracy ~ " + " + ".join(PREDICTORS[p] for p in predictors)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = smf.mixedlm(formula, data, groups=data["model"]).fit(reml=True)
    readable = "accuracy ~ " + " + ".join(predictors)
    names = {v: k for k, v in PREDICTORS.items()}
    terms = [t for t in result.fe_params.index]
    coefs = pd.DataFrame({
        "term": [_term_label(t, names) for t in terms],
        "coef": result.fe_params.to_numpy(),
        "se": result.bse_fe.to_numpy(),
        "z": result.tvalues[terms].to_numpy(),
        "p": result.pvalues[terms].to_numpy(),
    })
    return MixedFit(readable, int(result.nobs), n_models, coefs)


def _term_label(term: str, names: dict[str, str]) -> str:
    """A readable coefficient name: log_parameters, log_tokens, architecture[MLM], Intercept."""
    if term in names:
        return names[term]
    if term.startswith(PREDICTORS["architecture"]):
        return "architecture[" + term.split("[T.")[-1].rstrip("]") + "]"
    return term


def per_model_average(data: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy over the four constructions per model, with its predictors (Figure 1)."""
    return (data.groupby("model", as_index=False)
            .agg(accuracy=("accuracy", "mean"), parameters=("parameters", "first"),
                 pretraining_tokens=("pretraining_tokens", "first"),
                 model_type=("model_type", "first"), origin=("origin", "first")))


@dataclass(frozen=True)
class Rho:
    """Spearman's rho of per-model average accuracy against parameter count."""

    rho: float
    p: float
    n: int


def accuracy_parameter_rho(data: pd.DataFrame) -> Rho:
    """Rank correlation of each model's four-construction average with its parameter count."""
    avg = per_model_average(data)
    if len(avg) < 3:
        raise InputError(f"Spearman's rho needs at least 3 models (got {len(avg)})")
    rho, p = spearmanr(avg["accuracy"], np.asarray(avg["parameters"], dtype=float))
    return Rho(float(rho), float(p), int(len(avg)))
