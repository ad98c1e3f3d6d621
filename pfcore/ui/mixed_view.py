"""The mixed-effects section of the Models page: the fits of `analysis.model_tables.mixed_tables`
on the paper's data (and with own runs), rendered with a CSV download."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pfcore.analysis.model_tables import mixed_tables
from pfcore.analysis.models import refit_variants
from pfcore.store.results import load_results
from pfcore.ui.downloads import download_csv
from pfcore.ui.errors import shown_errors
from pfcore.ui.text import plain

EXPLAIN = """Semantic accuracy (percent, one row per model and construction) modelled by the natural
log of the parameter count, the natural log of the pretraining tokens and the architecture (MLM
against CausalLM), with a random intercept per model; statsmodels MixedLM, REML, Wald z-tests. The
paper (section 4) reports, with all predictors, only parameter count significant (β = 6.055,
p = .011), and alone parameters (β = 6.607, p = .003) and tokens (β = 2.651, p = .034). Fitted
here on the paper's own tables, the coefficients are close but the p-values are far smaller: **the
paper's p-values are not reproduced, and the cause is unknown**. The conclusion (with all
predictors, only parameter count is significant) holds in both fits. The refits below try each
explanation one could offer; none comes near p = .011."""


def render_mixed_effects() -> None:
    """The mixed-effects coefficients (coef, SE, z, p) with the source of each row and a CSV download."""
    with shown_errors():
        st.subheader("Mixed-effects model (section 4)")
        st.markdown(EXPLAIN)
        tables = mixed_tables(load_results())
        if tables.own_models:
            st.caption("With your runs: " + plain(", ".join(tables.own_models)) + " (final-model semantic accuracy "
                       "on the plausible items, from the results table: `pfcore run ...`).")
        else:
            st.info("Fitted on the paper's 36 models only: run the semantic suite on a model (the **Run** "
                    "page) to fit it again with your runs added.")
        if tables.left_out:
            st.warning("Left out for lack of a parameter and token count: " + plain(", ".join(tables.left_out))
                       + ". Give their sizes on the Models page.")
        st.dataframe(tables.table, hide_index=True, column_config={
            "coef": st.column_config.NumberColumn(format="%.3f"),
            "se": st.column_config.NumberColumn("SE", format="%.3f"),
            "z": st.column_config.NumberColumn(format="%.2f"),
            "p": st.column_config.NumberColumn(format="%.3g")}, placeholder="")
        download_csv(tables.table, "mixed_effects.csv", "Download the coefficients (CSV)", key="mixed_effects_csv")
        with st.expander("What was tried to reproduce the paper's p = .011"):
            if st.button("Refit under each explanation (about 10 s)", key="mixed_refits"):
                refits = _refits()
                st.dataframe(refits, hide_index=True, column_config={
                    "coef": st.column_config.NumberColumn("ln parameters: coef", format="%.3f"),
                    "p_min": st.column_config.NumberColumn("p (lowest)", format="%.2g"),
                    "p_max": st.column_config.NumberColumn("p (highest)", format="%.2g")}, placeholder="")
                download_csv(refits, "mixed_effects_refits.csv", "Download the refits (CSV)", key="mixed_refits_csv")


@st.cache_data(show_spinner="Refitting (seeded draws)...")
def _refits() -> pd.DataFrame:
    """The refits of the paper's data, computed once per server (they do not change)."""
    return refit_variants(draws=20)
