"""The Models page's streamlit side, one view function per section: the paper's tables beside
your runs, Figure 1 with Spearman's rho, and the sizes of models outside Table 9."""
from __future__ import annotations

import streamlit as st

from pfcore.analysis.model_tables import (
    OWN_SUFFIX,
    TABLE_NOTES,
    figure_data,
    figure_models,
    own_run_values,
    side_by_side,
    sizes_to_edit,
)
from pfcore.analysis.models import PAPER_RHO, Origin, accuracy_data, accuracy_parameter_rho
from pfcore.analysis.precision import precision_notes, with_precision
from pfcore.analysis.reference import TABLES
from pfcore.deployment import PUBLIC_NOTE, deployment
from pfcore.models.spec import DEFAULT_MODEL_TITLE
from pfcore.plots.accuracy import accuracy_vs_parameters_figure, mark_own_runs
from pfcore.store.model_sizes import save_extra_models
from pfcore.store.results import load_results
from pfcore.store.runs import list_runs
from pfcore.ui.downloads import chart, download_csv
from pfcore.ui.errors import shown_errors
from pfcore.ui.lm_eval_view import render_lm_eval_upload
from pfcore.ui.model import ModelChoice
from pfcore.ui.text import plain
from pfcore.views.models import column_titles, value_format


def render_tables() -> None:
    """A paper table with your runs set beside it, and what each of your values rests on."""
    with shown_errors():
        st.subheader("Reference tables and your runs")
        table = st.selectbox("Table", list(TABLES), index=1, format_func=lambda t: f"{t}: {TABLES[t]}",
                             key="models_table")
        runs = list_runs()
        shown = with_precision(side_by_side(table, runs))
        if table != "Table 9" and not (shown["origin"] == Origin.RUN).any():
            st.info("None of your runs fits this table yet: run the matching suite on the **Run** page "
                    "(semantic for Tables 5-6, syntactic for 7, Global Affinity for 8).")
        if table in TABLE_NOTES and (shown["origin"] == Origin.RUN).any():
            st.info(TABLE_NOTES[table])
        for note in precision_notes(shown):
            st.warning(plain(note))
        printed = value_format(table)
        st.dataframe(shown, hide_index=True, height=420, placeholder="–", column_config={
            **{c: st.column_config.NumberColumn(t, format=printed) for c, t in column_titles(shown.columns).items()},
            "source": st.column_config.TextColumn("source", width="large"),
            "n": st.column_config.TextColumn("n (your runs: decisions per construction)")})
        download_csv(shown, f"{table.replace(' ', '_').lower()}_with_runs.csv", "Download this table (CSV)")
        values = own_run_values(table, runs)
        if len(values):
            st.markdown("**Your runs in this table**, each value with its 95% interval and the number of decisions "
                        "(sentences, for Global Affinity) it rests on:")
            st.dataframe(values, hide_index=True, placeholder="–", column_config={
                **{c: st.column_config.NumberColumn(format=printed) for c in ("value", "ci_low", "ci_high")},
                "source": st.column_config.TextColumn("source", width="large")})
        st.caption(f"The embedded default model is {DEFAULT_MODEL_TITLE}: instruction tuning and 4-bit quantization "
                   "both set it apart from the paper's base models, so its rows are not a reproduction of any of them.")
        render_lm_eval_upload()


def render_figure1() -> None:
    """Figure 1: accuracy against parameters, your runs as stars, Spearman's rho beside the paper's."""
    with shown_errors():
        st.subheader("Accuracy against parameters (Figure 1)")
        results = load_results()
        include = st.toggle("Include your runs", value=True, key="models_include_runs",
                            help="own runs' final semantic accuracy on the aligned items, as in Table 6")
        fig_data = figure_data(results, include_runs=include)
        if fig_data.left_out:
            st.warning(f"Not placed for lack of a parameter and token count: {plain(', '.join(fig_data.left_out))}. "
                       "Give them below.")
        if fig_data.partial:
            st.warning(f"Not placed because not all four constructions were run: {plain(', '.join(fig_data.partial))}. "
                       "Figure 1 and Spearman's ρ average the four; run the semantic suite with all four.")
        models = figure_models(fig_data.data)
        rho = accuracy_parameter_rho(fig_data.data)
        figure = accuracy_vs_parameters_figure(models)
        runs_too = " and your runs" if (fig_data.data["origin"] == Origin.RUN).any() else ""
        figure.update_layout(title="Figure 1: semantic accuracy (plausible items) against parameters, the paper's 36 "
                                   "models" + runs_too)
        chart(mark_own_runs(figure, OWN_SUFFIX), "accuracy_vs_parameters.html", key="models_figure")
        paper_rho = accuracy_parameter_rho(accuracy_data("paper"))
        st.markdown(f"Spearman's ρ between average accuracy and parameter count: **{rho.rho:.3f}** "
                    f"(p = {rho.p:.2g}, n = {rho.n} models). The paper reports {PAPER_RHO} for its 36 models; "
                    f"computed from its own Tables 6 and 9 it is {paper_rho.rho:.3f} here, a difference the tables "
                    "do not explain.")
        download_csv(models, "accuracy_vs_parameters.csv", "Download the plotted values (CSV)")


def render_sizes(choice: ModelChoice | None) -> None:
    """The sizes of models outside Table 9, which Figure 1 needs to place their runs."""
    with shown_errors():
        st.subheader("Sizes of models outside Table 9")
        st.caption("Figure 1 places your run only when its model's parameter count and pretraining tokens "
                   "are known. Table 9 covers the paper's 36 models; give the others here (model_type "
                   "CausalLM or MLM). They are kept in `cache/app/models.csv`.")
        if choice is not None and choice.parameters is not None:
            st.caption(f"The model in the sidebar, {plain(choice.spec.name)}, has {choice.parameters:,} "
                       "parameters (counted from its weights); its pretraining tokens are on its model card.")
        if "models_saved" in st.session_state:
            st.success(st.session_state.pop("models_saved"))
        edited = st.data_editor(sizes_to_edit(load_results()), num_rows="dynamic", hide_index=True, key="models_sizes")
        if "models_refused" in st.session_state:
            st.warning("Not saved: " + plain("; ".join(st.session_state.pop("models_refused"))))
        if not deployment().allows_saving:
            st.caption(f"{PUBLIC_NOTE}: sizes are not saved here, so that no visitor changes what another sees.")
        elif st.button("Save sizes", key="models_save"):
            kept, refused = save_extra_models(edited)
            st.session_state["models_saved"] = f"Saved {kept} complete row(s)."
            if refused:
                st.session_state["models_refused"] = refused
            st.rerun()
