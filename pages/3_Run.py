"""Run: the full suites on the chosen model, with progress, stop and resume, and downloads."""
from pathlib import Path

import streamlit as st

from pfcore.items.schema import CONSTRUCTIONS
from pfcore.names import ModelKind, SuiteName
from pfcore.plots.accuracy import accuracy_bars_figure
from pfcore.store.runs import find_run, list_runs, load_run
from pfcore.suites.registry import get_suite, suites_for
from pfcore.suites.report import headline_filters, run_label, shown_summary, summary_json
from pfcore.suites.runner import PlanState, estimate_plan, plan_configs, run_plan
from pfcore.ui.downloads import chart, download_csv, download_json
from pfcore.ui.errors import shown_errors
from pfcore.ui.links import Param, apply, current, opened_query, publish, show_link
from pfcore.ui.model import scorer
from pfcore.ui.page import start_page
from pfcore.ui.progress import UI_CHUNK, format_seconds, plan_caption, progress_callback
from pfcore.ui.sweep_view import render_sweep_section

INTRO = """Score whole suites with the model in the sidebar and get accuracy with 95% intervals per
construction and filter, as in the paper's tables. Every score is saved to the score cache as it is
computed: **Stop** any time, and **Resume** (or Run again) continues where it stopped; what was
scored once is never scored again. Results are saved under `cache/runs/` as CSV tables and a
manifest."""

choice = start_page("Run", INTRO)
state = st.session_state
RUN_PARAM = Param("run", "run_pick", read=lambda run_id: str(find_run(run_id).path),
                  write=lambda path: Path(str(path)).name)
opened = opened_query("run")
link_notes = apply([RUN_PARAM], opened) if opened is not None else []
state.setdefault("run_queue", [])
state.setdefault("run_finished", [])
with shown_errors():
    kind = choice.spec.kind if choice else ModelKind.CAUSAL
    c1, c2, c3 = st.columns([2, 3, 1])
    suites = c1.multiselect("Suites", [s for s in suites_for(kind) if get_suite(s).paired_focus],
                            default=[SuiteName.SEMANTIC],
                            format_func=lambda s: get_suite(s).label, key="run_suites")
    constructions = c2.multiselect("Constructions", list(CONSTRUCTIONS), default=list(CONSTRUCTIONS),
                                   format_func=CONSTRUCTIONS.__getitem__, key="run_constructions")
    blocks = c3.number_input("Blocks per construction", min_value=0, value=5, step=5, key="run_blocks",
                             help="semantic blocks of 8, or syntactic base sentences; 0 = all of them")
    configs = plan_configs(suites, constructions, int(blocks), UI_CHUNK)
    runs = list_runs()
    if choice is not None:
        estimate = estimate_plan(choice.spec, configs, runs)
        st.caption(plan_caption(estimate))
    b1, b2, b3, _ = st.columns([1, 1, 1, 4])
    start = b1.button("Run", type="primary", disabled=choice is None, key="run_start")
    stop = b2.button("Stop", key="run_stop")
    resume = b3.button("Resume", disabled=not state.run_queue or choice is None, key="run_resume")
    if choice is None:
        st.info("Load a model in the sidebar to run the suites.")
    if start:
        state.run_queue, state.run_finished = list(configs), []
    plan = PlanState(state.run_queue, state.run_finished)
    if stop and plan.queue:
        st.warning(f"Stopped. {len(plan.queue)} suite run(s) left; everything scored so far is in "
                   "the score cache. Press **Resume** to continue where it stopped.")
    elif stop:
        st.info("Nothing is running.")
    elif plan.queue and not (start or resume):
        st.info(f"An unfinished run is waiting ({', '.join(c.suite for c in plan.queue)}): press "
                "**Resume** to continue it from the score cache.")
    if (start or resume) and plan.queue and choice is not None:
        try:
            run_plan(choice.spec, plan, lambda c, n, t: progress_callback(f"{c.suite} ({n} of {t})"),
                     scorers=scorer)
        except Exception:
            plan.queue.clear()  # a failed run is not resumable; Stop/leaving the page is
            raise
        for record in plan.finished:
            st.success(f"{record.manifest.suite}: {record.manifest.items.count:,} items scored in "
                       f"{format_seconds(record.manifest.timings_s.total_s)}.")
        if plan.finished:
            state.run_pick = str(plan.finished[-1].path)  # set, not cleared: the browser keeps a cleared pick

render_sweep_section()  # before Results, which stops the page when there are no runs yet

with shown_errors():
    st.subheader("Results")
    runs = list_runs()  # again: a run may have finished above
    if not runs:
        st.info("No runs yet: choose suites and constructions above and press **Run**. Runs made "
                "with `python -m pfcore run` appear here too.")
        st.stop()
    paths = [str(r.path) for r in runs]
    if state.get("run_pick") not in paths:
        state.pop("run_pick", None)
    picked = st.selectbox("Run", paths,
                          format_func=lambda p: run_label(runs[paths.index(p)]), key="run_pick")
    show_link(publish("run", current([RUN_PARAM])), link_notes)
    record = load_run(picked)
    m = record.manifest
    st.caption(f"Model **{m.model.label}** · scoring {m.scoring} · {m.items.count:,} items "
               f"({', '.join(record.summary['construction'].astype(str).unique())}) · "
               f"{m.timings_s.total_s:.1f} s · record `{record.path}`")
    summary = record.summary
    filters = st.multiselect("Filters", list(dict.fromkeys(summary["filter"])),
                             default=headline_filters(m.suite, summary), key=f"run_filters_{m.suite}")
    if not filters:
        st.info("Choose at least one filter to show.")
        st.stop()
    shown = shown_summary(summary, filters)
    chart(accuracy_bars_figure(shown, chance=get_suite(m.suite).chance,
                               title=f"{get_suite(m.suite).label}: {m.model.label}, {m.items.count:,} items"),
          f"{m.run_id}_accuracy.html", key="run_chart")
    st.dataframe(shown, hide_index=True, column_config={
        c: st.column_config.NumberColumn(format="%.3f") for c in ("accuracy", "ci_low", "ci_high")})
    d1, d2, d3, d4 = st.columns(4)
    with d1:
        download_csv(summary, f"{m.run_id}_summary.csv", "Summary (CSV)")
    if "rows" in record.tables:
        with d2:
            download_csv(record.tables["rows"], f"{m.run_id}_rows.csv", "Per-item scores (CSV)")
    with d3:
        download_json(m.to_json(), f"{m.run_id}_manifest.json", "Manifest (JSON)")
    with d4:
        download_json(summary_json(record), f"{m.run_id}_summary.json", "Summary (JSON)")
