"""The mixed-effects section of the Models page: the fits of `analysis.model_tables.mixed_tables`
on the paper's data (and with own runs), rendered with a CSV download."""
from __future__ import annotations

import streamlit as st

from pfcore.analysis.model_tables import mixed_tables
from pfcore.store.results import load_results
from pfcore.ui.downloads import download_csv
from pfcore.ui.errors import shown_errors

EXPLAIN = """Semantic accuracy (percent, one row per model and construction) modelled by the natural
log of the parameter count, the natural log of the pretraining tokens and the architecture (MLM
against CausalLM), with a random intercept per model; statsmodels MixedLM, REML, Wald z-tests. The
paper (section 4) reports, with all predictors, only parameter count significant (β = 6.055,
p = .011), and alone parameters (β = 6.607, p = .003) and tokens (β = 2.651, p = .034); our
coefficients differ because the tables are rounded and Table 9's sizes approximate (see
the README, "Across models")."""


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
