"""The mixed-effects model of the paper's section 4 for the Models page: accuracy ~ ln parameters +
ln training tokens + architecture (random intercept per model), then each predictor alone, fitted
on the paper's Tables 6 and 9 and, when you have own runs, on the paper's models plus yours."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from pfcore.analysis.models import PREDICTORS, accuracy_data, fit_mixed
from pfcore.store.results import load_results
from pfcore.ui.downloads import download_csv
from pfcore.ui.errors import shown_errors
from pfcore.ui.models_view import OWN_SUFFIX, extra_models_path, figure_data

TERMS = {"Intercept": "intercept", "log_parameters": "ln parameters",
         "log_tokens": "ln training tokens", "architecture[MLM]": "architecture: MLM (vs CausalLM)"}
FITS = {"all three predictors": tuple(PREDICTORS), "ln parameters alone": ("log_parameters",),
        "ln training tokens alone": ("log_tokens",), "architecture alone": ("architecture",)}
PAPER = "paper: Table 6 accuracy + Table 9 sizes (data/reference/)"
COLUMNS = ("data", "fit", "term", "coef", "se", "z", "p", "rows", "models")
EXPLAIN = """Semantic accuracy (percent, one row per model and construction) modelled by the natural
log of the parameter count, the natural log of the pretraining tokens and the architecture (MLM
against CausalLM), with a random intercept per model; statsmodels MixedLM, REML, Wald z-tests. The
paper (section 4) reports, with all predictors, only parameter count significant (β = 6.055,
p = .011), and alone parameters (β = 6.607, p = .003) and tokens (β = 2.651, p = .034); our
coefficients differ because the tables are rounded and Table 9's sizes approximate (see
the README, "Across models")."""


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


def mixed_tables(results: pd.DataFrame) -> MixedTables:
    """Fits on the paper's rows, plus on the paper's and own final semantic runs when any has sizes
    (Table 9 or the user's model sizes, as Figure 1 places them)."""
    paper = mixed_table(accuracy_data("paper"), PAPER)
    both = figure_data(results, include_runs=True)
    own = tuple(sorted(m.removesuffix(OWN_SUFFIX)
                       for m in both.data.loc[both.data["origin"] == "run", "model"].unique()))
    if not own:
        return MixedTables(paper, (), both.left_out)
    label = f"paper + your runs ({len(own)} model(s); sizes from Table 9 or {extra_models_path().name})"
    return MixedTables(pd.concat([paper, mixed_table(both.data, label)], ignore_index=True), own,
                       both.left_out)


def render_mixed_effects() -> None:
    """The mixed-effects coefficients (coef, SE, z, p) with the source of each row and a CSV download."""
    with shown_errors():
        st.subheader("Mixed-effects model (section 4)")
        st.markdown(EXPLAIN)
        tables = mixed_tables(load_results())
        if tables.own_models:
            st.caption("With your runs: " + ", ".join(tables.own_models) + " (final-model semantic accuracy "
                       "on the plausible items, from the results table: `pfcore run ...`).")
        else:
            st.info("Fitted on the paper's 36 models only: run the semantic suite on a model (the **Run** "
                    "page) to fit it again with your runs added.")
        if tables.left_out:
            st.warning("Left out for lack of a parameter and token count: " + ", ".join(tables.left_out)
                       + ". Give their sizes on the Models page.")
        st.dataframe(tables.table, hide_index=True, column_config={
            "coef": st.column_config.NumberColumn(format="%.3f"),
            "se": st.column_config.NumberColumn("SE", format="%.3f"),
            "z": st.column_config.NumberColumn(format="%.2f"),
            "p": st.column_config.NumberColumn(format="%.3g")})
        download_csv(tables.table, "mixed_effects.csv", "Download the coefficients (CSV)",
                     key="mixed_effects_csv")
