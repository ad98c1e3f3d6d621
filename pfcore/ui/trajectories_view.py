"""The Trajectories page's streamlit side, one view function per section (the model and source,
Figures 2, 3 and 4, adding results), the results table read once per file version, and widget keys
of their own per model and source."""
from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pandas as pd
import streamlit as st

from pfcore.analysis.bands import band_note
from pfcore.analysis.fdcorr import MIN_CHECKPOINTS, fd_correlation
from pfcore.analysis.precision import precision_notes, with_precision
from pfcore.analysis.series import available_series, parse_series, user_constructions
from pfcore.analysis.trajectories import (
    FD_YS,
    FIGURE2,
    FIGURE3_FILTERS,
    X_AXES,
    by_tokens,
    checkpoint_models,
    compare_choices,
    construction_curves,
    construction_filters,
    curves,
    default_model,
    defaults,
    fd_choices,
    fd_panels,
    fd_points,
    fd_stats,
    filter_label,
    pair_defaults,
    paper_notes,
    provenance,
    readable_series,
    scope_key,
    scope_label,
    scoped,
    series_label,
    smoothed,
    source_choices,
    source_label,
)
from pfcore.deployment import PUBLIC_NOTE, deployment
from pfcore.errors import InputError
from pfcore.paths import published_results_dir
from pfcore.plots.trajectories import construction_figure, curves_figure, fd_figure
from pfcore.store.fetch import fetch_and_import
from pfcore.store.published import bundle_problem, uploaded_published
from pfcore.store.published_tsv import SUMMARY_FILE
from pfcore.store.results import import_folder, load_bundled, load_results, results_path
from pfcore.ui.downloads import chart, download_csv, slug
from pfcore.ui.errors import shown_errors
from pfcore.ui.links import Param, Query, apply, choice_of, current, publish, show_link
from pfcore.ui.text import plain, without_server_folders
from pfcore.ui.uploads import upload_megabytes
from pfcore.views.trajectories import missing_series_notes


@st.cache_data(max_entries=2, show_spinner="Reading the results table...")
def _read_results(path: str, version: int) -> pd.DataFrame:
    """The stored results table, read once per file version (path and mtime key the cache)."""
    return load_results()


def results_table() -> pd.DataFrame:
    """The long results table (published imports and own runs), re-read only when it changes."""
    path = results_path()
    return _read_results(str(path), path.stat().st_mtime_ns if path.exists() else -1)


def widget_key(name: str, model: str, source: str) -> str:
    """A widget key of its own per model and source, so choices never outlive their options."""
    return f"traj_{name}|{source}|{model}"


RUN_HINT = ("Run your own trajectory (results land here as each checkpoint finishes):\n"
            "```bash\npython -m pfcore trajectory --model EleutherAI/pythia-160m --revisions pythia-log "
            "--suite semantic,syntax\npython -m pfcore trajectory --checkpoint-dir my_run/ --suite semantic "
            "--limit-blocks 50\n```")
Scope = tuple[str, str, pd.DataFrame, list[str], pd.DataFrame]  # model, source, its rows, their series, all rows


def _labels(rows: pd.DataFrame) -> Callable[[str], str]:
    """How a series is named in the pickers: a user's constructions marked user-defined."""
    return partial(series_label, user=user_constructions(rows))


def render_scope(opened: Query | None) -> tuple[dict[str, str], Scope | None, list[str]]:
    """The page's head: a message from the last action, the model and the source of its numbers;
    the models with checkpoints, what is shown (None when nothing), and notes on the link opened."""
    state = st.session_state
    models: dict[str, str] = {}
    shown: Scope | None = None
    link_notes: list[str] = []
    with shown_errors():
        if "traj_message" in state:
            st.success(plain(state.pop("traj_message")))
        table = results_table()
        if "traj_uploaded" in state:  # public mode: this visitor's uploaded summaries, in the session only
            table = pd.concat([table, state["traj_uploaded"]], ignore_index=True)
        models = checkpoint_models(table)
        if problem := bundle_problem():
            st.warning(without_server_folders(problem))
        if not models:
            st.info("No checkpoint results yet: load the published summaries that ship with pfcore below "
                    "(or import a folder of them, or fetch them from the paper's repository), or run a "
                    "trajectory of your own with `python -m pfcore trajectory` (commands below).")
        else:
            names = list(models)
            link_notes = apply([Param("model", "traj_model", choice_of(names))], opened, ("series",)) if opened else []
            c1, c2 = st.columns([3, 2])
            model = c1.selectbox("Model", names, index=default_model(names), format_func=models.__getitem__,
                                 key="traj_model", persist_state="session")
            source = c2.selectbox("Numbers from", source_choices(table, model), format_func=source_label,
                                  key=widget_key("source", model, ""))
            rows = scoped(table, model, source)
            st.caption(plain(provenance(rows, source)))
            shown = (model, source, rows, available_series(rows, model), table)
    return models, shown, link_notes


def render_curves(shown: Scope, opened: Query | None, link_notes: list[str]) -> None:
    """Figure 2: the learning curves, side by side with other models, the link that reopens them."""
    model, source, rows, available, table = shown
    label = _labels(rows)
    with shown_errors():
        st.subheader("Learning curves (Figure 2)")
        pick = choice_of(available)
        params = (Param("model", "traj_model"),  # a link's series in any spelling ("letalone:aligned") by its name
                  Param("series", widget_key("series", model, source), lambda text: pick(parse_series(text).name),
                        many=True))
        if opened:
            link_notes += apply(params[1:], opened, ("model",))
        show_link(publish("trajectories", current(params)), link_notes)
        picked = st.multiselect("Series", available, default=defaults(list(FIGURE2), available),
                                format_func=label, key=widget_key("series", model, source),
                                help="CONSTRUCTION:FILTER; pf_avg is the mean of the four constructions' "
                                     "semantic accuracy, syntax their syntactic accuracy")
        others = st.multiselect("Side by side with", compare_choices(table, model, source),
                                format_func=scope_label, key=widget_key("compare", model, source),
                                help="draw the same series of other models, or of your own runs")
        c1, c2 = st.columns([2, 3])
        x = c1.radio("x-axis", list(X_AXES), format_func=lambda a: X_AXES[a].capitalize(), horizontal=True,
                     key="traj_x", help="tokens seen = step x tokens per step (Pythia: 2,097,152), where known")
        window = c2.select_slider("Smoothing (checkpoints in the moving mean)", [1, 3, 5, 7, 9], value=1,
                                  format_func=lambda w: "off" if w == 1 else str(w), key="traj_smooth",
                                  help="a centred moving mean over that many checkpoints; the raw values "
                                       "stay faint beside it, and the CSV keeps them (value_smoothed beside)")
        data = with_precision(curves(table, [scope_key(model, source), *others], picked))
        for note in missing_series_notes(table, [scope_key(model, source), *others], picked):
            st.info(plain(note))
        data = _on_x_axis(data, x)
        data = smoothed(data, window) if window > 1 else data
        chart(curves_figure(data, f"{model}: accuracy over training", x=x), f"trajectories_{slug(model)}.html",
              key="traj_fig2")
        st.caption(band_note(data))
        for note in precision_notes(data):
            st.warning(plain(note))
        download_csv(data, f"trajectories_{slug(model)}.csv", "Download the plotted values (CSV)",
                     key="traj_fig2_csv")


def _on_x_axis(data: pd.DataFrame, x: str) -> pd.DataFrame:
    """The curves that can be drawn on the chosen x-axis, a note for each model left out (by tokens
    seen: those whose tokens per step are unknown)."""
    if x == "step":
        return data
    known, notes = by_tokens(data)
    for note in notes:
        st.info(plain(note))
    if known.empty:
        raise InputError("tokens seen unknown for every model shown: choose the x-axis by training step")
    return known


def render_constructions(shown: Scope) -> None:
    """Figure 3: each construction's curves, a line per filter."""
    model, source, rows, available, _ = shown
    with shown_errors():
        st.subheader("Each construction (Figure 3)")
        filters = construction_filters(rows, model)
        chosen = st.multiselect("Filters", filters, default=defaults(FIGURE3_FILTERS, filters),
                                format_func=filter_label, key=widget_key("filters", model, source))
        per_construction = construction_curves(rows, model, chosen)
        chart(construction_figure(per_construction, f"{model}: each construction over training"),
              f"constructions_{slug(model)}.html", key="traj_fig3")
        st.caption(band_note(per_construction))
        download_csv(per_construction, f"constructions_{slug(model)}.csv",
                     "Download the plotted values (CSV)", key="traj_fig3_csv")


def render_correlations(shown: Scope) -> None:
    """Figure 4 and any two series: first-difference correlations with the paper's values beside them."""
    model, source, rows, available, _ = shown
    label = _labels(rows)
    st.subheader("First-difference correlations (Figure 4)")
    fd = fd_choices(rows, model, available)
    if not fd.enough:
        st.info(f"A first-difference correlation needs at least {MIN_CHECKPOINTS} checkpoints; "
                f"{model} has {fd.checkpoints} here. Add checkpoints to the trajectory to see them.")
    else:
        st.caption("Each point is one checkpoint: how much each series changed since the previous "
                   "one. Spearman's ρ of those changes says whether two abilities grow together.")
        zscale = st.toggle("Z-scale the changes (the authors' method)", value=True, key="traj_zscale",
                           help="changes z-scored over every series of the same published file, the "
                                "first checkpoint kept as a change of 0 (docs/analysis.md)")
        for duplicate in fd.duplicates:
            st.warning(f"{plain(duplicate.finding())}: the switch below leaves such steps out.")
        drop = bool(fd.duplicates) and st.toggle("Leave out checkpoints whose weights repeat an earlier step's",
                                                 value=True, key="traj_drop_duplicates")
        with shown_errors():
            x = st.selectbox("Against", fd.against, index=fd.first, format_func=label,
                             key=widget_key("fd_x", model, source))
            ys = st.multiselect("Series", available, default=defaults(FD_YS, available, besides=x),
                                format_func=label, key=widget_key("fd_ys", model, source))
            panels = fd_panels(rows, model, x, ys, zscale=zscale, drop_duplicates=drop)
            for problem in panels.problems:
                st.warning(plain(problem))
            if panels.results:
                chart(fd_figure(panels.results, f"{model}: changes between checkpoints, "
                                                f"{'z-scaled' if zscale else 'raw'}"),
                      f"fd_correlations_{slug(model)}.html", key="traj_fig4")
                st.dataframe(fd_stats(panels.results), hide_index=True, column_config={
                    c: st.column_config.NumberColumn(format="%.3f")
                    for c in ("spearman", "spearman_p", "pearson", "pearson_p")}, placeholder="")
                for note in paper_notes(rows, panels.results, drop_duplicates=drop):
                    st.caption(note)
                download_csv(fd_points(panels.results), f"fd_correlations_{slug(model)}.csv",
                             "Download the plotted changes (CSV)", key="traj_fig4_csv")

        with shown_errors():
            st.subheader("Any two series")
            ix, iy = pair_defaults(available)
            c1, c2 = st.columns(2)
            px = c1.selectbox("First series", available, index=ix, format_func=label,
                              key=widget_key("pair_x", model, source))
            py = c2.selectbox("Second series", available, index=iy, format_func=label,
                              key=widget_key("pair_y", model, source))
            pair = fd_correlation(rows, model, px, py, zscale=zscale, drop_duplicates=drop)
            m1, m2, m3, m4, m5 = st.columns(5)
            m1.metric("Spearman ρ", f"{pair.spearman:.2f}")
            m2.metric("p (Spearman)", f"{pair.spearman_p:.3f}")
            m3.metric("Pearson r", f"{pair.pearson:.2f}")
            m4.metric("p (Pearson)", f"{pair.pearson_p:.3f}")
            m5.metric("n changes", pair.n)
            for note in paper_notes(rows, [pair], drop_duplicates=drop):
                st.caption(note)
            chart(fd_figure([pair], f"{model}: {readable_series(px)} against {readable_series(py)}"),
                  f"fd_pair_{slug(model)}.html", key="traj_pair")
            download_csv(fd_points([pair]), f"fd_pair_{slug(model)}.csv",
                         "Download the plotted changes (CSV)", key="traj_pair_csv")


def render_add_results(has_models: bool) -> None:
    """The published summaries loaded, a folder imported or fetched (or, in public mode, uploaded)."""
    state = st.session_state
    with st.expander("Add results: the published summaries, or a folder of them", expanded=not has_models):
        st.markdown("The paper's per-checkpoint summaries (Pythia-12b, the Pythia-deduped series, OLMo, "
                    "Ettin) ship with pfcore and are loaded on first start. Each folder you import is kept "
                    "as a source of its own, beside them and your runs: nothing replaces another source's "
                    "numbers. Importing a folder again after its files changed is refused unless you tick "
                    "Replace.")
        if st.button("Load the published results that ship with pfcore", key="traj_bundled",
                     help="no network needed; adds nothing when they are already in the table"):
            with shown_errors(), st.spinner("Loading..."):
                state["traj_message"] = load_bundled()
                st.rerun()
        if not deployment().allows_paths:
            st.caption(f"{PUBLIC_NOTE}: folder imports and fetches are off here. Upload published summary TSVs "
                       "instead: they stay in your session, and nobody else sees them.")
            uploads = st.file_uploader("Published summary TSVs of one model", type=["tsv"], accept_multiple_files=True,
                                       key="traj_uploads", max_upload_size=upload_megabytes(SUMMARY_FILE))
            owner = st.text_input("The model they belong to (hub id)", key="traj_upload_model",
                                  placeholder="EleutherAI/pythia-160m")
            if st.button("Add to my view", key="traj_add_uploads", disabled=not uploads):
                with shown_errors():
                    for upload in uploads or []:
                        deployment().check_upload(upload.size)
                    state["traj_uploaded"] = uploaded_published([(u.name, u.getvalue()) for u in uploads or []], owner)
                    added = len(state["traj_uploaded"])
                    state["traj_message"] = f"Added {added:,} rows to your view (this session only)."
                    st.rerun()
            st.stop()
        folder = st.text_input("Folder of the published summaries", value=published_results_dir(),
                               key="traj_import_folder", placeholder="path/to/Meaning_Alone/outputs_summary")
        replace = st.checkbox("Replace my earlier import of this folder", key="traj_replace",
                              help="only that folder's earlier rows; the bundled results and your runs stay")
        row = st.container(horizontal=True)  # each button as wide as its words (half a row cut one at 800 px)
        if row.button("Import published results", type="primary", key="traj_import"):
            with shown_errors(), st.spinner("Importing..."):
                state["traj_message"] = import_folder(folder, replace=replace)
                st.rerun()
        if row.button("Fetch from the paper's repository", key="traj_fetch",
                     help="downloads the summaries from github.com (needs network), then imports them"):
            with shown_errors(), st.spinner("Downloading from github.com..."):
                state["traj_message"] = fetch_and_import(replace=replace)
                st.rerun()
        st.markdown(RUN_HINT)
