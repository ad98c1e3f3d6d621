"""Run: the full suites on the chosen model, with progress, stop and resume, and downloads."""
import streamlit as st

from pfcore.items.schema import CONSTRUCTIONS
from pfcore.plots.accuracy import accuracy_bars_figure
from pfcore.store.runs import list_runs, load_run
from pfcore.suites.cli import summary_json
from pfcore.suites.runner import run_suite
from pfcore.ui.downloads import chart, download_csv, download_json
from pfcore.ui.errors import shown_errors
from pfcore.ui.page import start_page
from pfcore.ui.progress import format_seconds, progress_callback
from pfcore.ui.run_view import (SUITE_LABELS, main_filters, plan, plan_size, run_label, shown_summary,
                                suites_for)

INTRO = """Score whole suites with the model in the sidebar and get accuracy with 95% intervals per
construction and filter, as in the paper's tables. Every score is saved to the score cache as it is
computed: **Stop** any time, and **Resume** (or Run again) continues where it stopped; what was
scored once is never scored again. Results are saved under `cache/runs/` as CSV tables and a
manifest."""

loaded = start_page("Run", INTRO)
state = st.session_state
state.setdefault("run_queue", [])
with shown_errors():
    kind = loaded.spec.kind if loaded else "causal"
    c1, c2, c3 = st.columns([2, 3, 1])
    suites = c1.multiselect("Suites", suites_for(kind), default=["semantic"],
                            format_func=SUITE_LABELS.get, key="run_suites")
    constructions = c2.multiselect("Constructions", list(CONSTRUCTIONS), default=list(CONSTRUCTIONS),
                                   format_func=CONSTRUCTIONS.get, key="run_constructions")
    blocks = c3.number_input("Blocks per construction", min_value=0, value=5, step=5, key="run_blocks",
                             help="semantic blocks of 8, or syntactic base sentences; 0 = all of them")
    configs = plan(suites, constructions, int(blocks))
    n_items, n_requests = plan_size(configs)
    st.caption(f"{n_items:,} items, {n_requests:,} scoring requests: identical requests are scored "
               "once, and those already in the score cache are read back, not scored.")
    b1, b2, b3, _ = st.columns([1, 1, 1, 4])
    start = b1.button("Run", type="primary", disabled=loaded is None, key="run_start")
    stop = b2.button("Stop", key="run_stop")
    resume = b3.button("Resume", disabled=not state.run_queue or loaded is None, key="run_resume")
    if loaded is None:
        st.info("Load a model in the sidebar to run the suites.")
    if start:
        state.run_queue = configs
    if stop and state.run_queue:
        st.warning(f"Stopped. {len(state.run_queue)} suite run(s) left; everything scored so far is in "
                   "the score cache. Press **Resume** to continue where it stopped.")
    elif stop:
        st.info("Nothing is running.")
    elif state.run_queue and not (start or resume):
        st.info(f"An unfinished run is waiting ({', '.join(c.suite for c in state.run_queue)}): press "
                "**Resume** to continue it from the score cache.")
    if (start or resume) and state.run_queue and loaded is not None:
        total = len(state.run_queue)
        for number in range(1, total + 1):
            config = state.run_queue[0]
            bar = progress_callback(f"{config.suite} ({number} of {total})")
            try:
                record = run_suite(loaded.spec, config, bar)
            except Exception:
                state.run_queue = []  # a failed run is not resumable; Stop/leaving the page is
                raise
            state.run_queue = state.run_queue[1:]
            state.run_latest = str(record.path)
            st.success(f"{config.suite}: {record.manifest['items']['count']:,} items scored in "
                       f"{format_seconds(record.manifest['timings_s']['total_s'])}.")

with shown_errors():
    st.subheader("Results")
    runs = list_runs()
    if not runs:
        st.info("No runs yet: choose suites and constructions above and press **Run**. Runs made "
                "with `python -m pfcore run` appear here too.")
        st.stop()
    paths = [str(r.path) for r in runs]
    latest = state.get("run_latest")
    picked = st.selectbox("Run", paths, index=paths.index(latest) if latest in paths else 0,
                          format_func=lambda p: run_label(runs[paths.index(p)]), key="run_pick")
    record = load_run(picked)
    m = record.manifest
    st.caption(f"Model **{m['model']['name']}**{' @ ' + m['model']['revision'] if m['model']['revision'] else ''}"
               f" · scoring {m['scoring']} · {m['items']['count']:,} items "
               f"({', '.join(record.summary['construction'].unique())}) · {m['timings_s']['total_s']:.1f} s · "
               f"record `{record.path}`")
    summary = record.summary
    filters = st.multiselect("Filters", list(dict.fromkeys(summary["filter"])),
                             default=main_filters(summary), key=f"run_filters_{m['suite']}")
    if not filters:
        st.info("Choose at least one filter to show.")
        st.stop()
    shown = shown_summary(summary, filters)
    chance = None if m["suite"] == "affinity" else 0.5
    chart(accuracy_bars_figure(shown, chance=chance), f"{m['run_id']}_accuracy.html", key="run_chart")
    st.dataframe(shown, hide_index=True, column_config={
        c: st.column_config.NumberColumn(format="%.3f") for c in ("accuracy", "ci_low", "ci_high")})
    d1, d2, d3, d4 = st.columns(4)
    with d1:
        download_csv(summary, f"{m['run_id']}_summary.csv", "Summary (CSV)")
    if "rows" in record.tables:
        with d2:
            download_csv(record.tables["rows"], f"{m['run_id']}_rows.csv", "Per-item scores (CSV)")
    with d3:
        download_json(m, f"{m['run_id']}_manifest.json", "Manifest (JSON)")
    with d4:
        download_json(summary_json(record), f"{m['run_id']}_summary.json", "Summary (JSON)")
