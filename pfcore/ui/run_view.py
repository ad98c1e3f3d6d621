"""The Run page's streamlit side, one view function per section: the plan with Run, Stop and Resume,
and the results of a chosen run with its chart and downloads (pfcore.runs.run_control decides)."""
from __future__ import annotations

import tempfile
from contextlib import nullcontext
from pathlib import Path

import streamlit as st

from pfcore.deployment import deployment
from pfcore.items.constructions import constructions
from pfcore.names import ModelKind, SuiteName
from pfcore.plots.accuracy import accuracy_bars_figure
from pfcore.runs.report import filter_names, headline_filters, run_label, shown_summary, summary_json
from pfcore.runs.run_control import NoticeLevel, Press, RunControl, private_runs
from pfcore.runs.runner import PlanState, estimate_plan, plan_configs
from pfcore.store.runs import find_run, list_runs, load_run
from pfcore.suites.registry import get_suite, suites_for
from pfcore.ui.downloads import chart, download_csv, download_json
from pfcore.ui.errors import shown_errors
from pfcore.ui.links import Param, apply, current, opened_query, publish, show_link
from pfcore.ui.model import ModelChoice, scorer
from pfcore.ui.progress import UI_CHUNK, format_seconds, plan_caption, progress_view
from pfcore.ui.text import plain

SHOW = {NoticeLevel.INFO: st.info, NoticeLevel.WARNING: st.warning, NoticeLevel.SUCCESS: st.success}
RUN_PARAM = Param("run", "run_pick", read=lambda run_id: str(find_run(run_id).path),
                  write=lambda path: Path(str(path)).name)


def open_run_page() -> tuple[Path | None, list[str]]:
    """The page's state: a public visitor's own folder of runs (None in private mode, where runs are
    shared), the run queue, and notes on the link opened."""
    state = st.session_state
    policy = deployment()
    if policy.keeps_runs_in_session:  # a visitor's runs live in a folder of this session's, removed with the session
        state.setdefault("run_session_dir", tempfile.TemporaryDirectory(prefix="pfcore-session-"))
    own_runs = Path(state.run_session_dir.name) if policy.keeps_runs_in_session else None
    opened = opened_query("run")
    link_notes = apply([RUN_PARAM], opened) if opened is not None else []
    state.setdefault("run_queue", [])
    state.setdefault("run_finished", [])
    return own_runs, link_notes


def render_run_section(choice: ModelChoice | None, own_runs: Path | None) -> None:
    """Suites, constructions and blocks chosen; Run, Stop and Resume applied to the queued plan."""
    state = st.session_state
    policy = deployment()
    with shown_errors():
        kind = choice.spec.kind if choice else ModelKind.CAUSAL
        suites = st.multiselect("Suites", [s for s in suites_for(kind) if get_suite(s).paired_focus],
                                default=[SuiteName.SEMANTIC], format_func=lambda s: get_suite(s).label,
                                key="run_suites")  # a row of its own: a suite's name is long
        defined = constructions()
        c1, c2 = st.columns([3, 1])
        constructions_picked = c1.multiselect(
            "Constructions", list(defined), default=[n for n, d in defined.items() if d.built_in],
            key="run_constructions", wrap=True,
            format_func=lambda n: defined[n].connective + ("" if defined[n].built_in else " (user-defined)"))
        every = policy.allows_paths and c2.checkbox("All blocks", key="run_all", help="every block of the suites")
        blocks = c2.number_input("Blocks per construction", min_value=1, max_value=policy.blocks_offered(None),
                                 value=5, step=5, key="run_blocks", disabled=every,
                                 help="semantic blocks of 8, or syntactic base sentences")
        policy.check_blocks(None if every else int(blocks))
        configs = plan_configs(suites, constructions_picked, 0 if every else int(blocks), UI_CHUNK)
        configs = private_runs(configs, own_runs) if own_runs else configs
        runs = list_runs(own_runs)
        if choice is not None:
            st.caption(plan_caption(estimate_plan(choice.spec, configs, runs)))
        control = RunControl(PlanState(state.run_queue, state.run_finished))
        has_model = choice is not None
        row = st.container(horizontal=True)  # each as wide as its word (a seventh of a row cut "Resume")
        start = row.button("Run", type="primary", disabled=not control.can_run(has_model=has_model), key="run_start")
        stop = row.button("Stop", key="run_stop")
        resume = row.button("Resume", disabled=not control.can_resume(has_model=has_model), key="run_resume")
        with policy.run_slot() if start or resume else nullcontext():  # public mode: one run per server
            step = control.step(Press.of(run=start, stop=stop, resume=resume), configs=configs,
                                spec=choice.spec if choice else None, duration=format_seconds,
                                progress_for=lambda c, n, t: progress_view(f"{c.suite} ({n} of {t})"), scorers=scorer)
        for notice in step.notices:
            SHOW[notice.level](notice.text)
        if step.newest is not None:
            state.run_pick = str(step.newest.path)  # set, not cleared: the browser keeps a cleared pick


def render_results(own_runs: Path | None, link_notes: list[str]) -> None:
    """The chosen run: its summary as a chart and a table, the link that reopens it, its downloads."""
    state = st.session_state
    policy = deployment()
    with shown_errors():
        st.subheader("Results")
        runs = list_runs(own_runs)  # again: a run may have finished above
        if not runs:
            show_link(publish("run", {}), link_notes)
            st.info("No runs yet: choose suites and constructions above and press **Run**. Runs made "
                    "with `python -m pfcore run` appear here too.")
            st.stop()
        paths = [str(r.path) for r in runs]
        if state.get("run_pick") not in paths:
            state.pop("run_pick", None)
        picked = st.selectbox("Run", paths, format_func=lambda p: run_label(runs[paths.index(p)]), key="run_pick")
        show_link(publish("run", current([RUN_PARAM])), link_notes)
        record = load_run(picked)
        m = record.manifest
        st.caption(f"Model **{plain(m.model.label)}** · scoring {m.scoring} · {m.items.count:,} items "
                   f"({', '.join(record.summary['construction'].astype(str).unique())}) · "
                   f"{m.timings_s.total_s:.1f} s" + (f" · record `{record.path}`" if policy.allows_paths else ""))
        summary = record.summary
        names = filter_names(summary)
        filters = st.multiselect("Filters", list(dict.fromkeys(summary["filter"])), format_func=lambda f: names[str(f)],
                                 default=headline_filters(m.suite, summary), key=f"run_filters_{m.suite}")
        if not filters:
            st.info("Choose at least one filter to show.")
            st.stop()
        shown = shown_summary(summary, filters)
        chart(accuracy_bars_figure(shown, chance=get_suite(m.suite).chance,
                                   title=f"{get_suite(m.suite).label}: {m.model.label}, {m.items.count:,} items"),
              f"{m.run_id}_accuracy.html", key="run_chart")
        st.dataframe(shown, hide_index=True, column_config={
            c: st.column_config.NumberColumn(format="%.3f") for c in ("accuracy", "ci_low", "ci_high")}, placeholder="")
        with st.container(horizontal=True):  # each button as wide as its words
            download_csv(summary, f"{m.run_id}_summary.csv", "Summary (CSV)")
            if "rows" in record.tables:
                download_csv(record.tables["rows"], f"{m.run_id}_rows.csv", "Per-item scores (CSV)")
            if not policy.allows_paths:  # the manifest and the JSON summary name folders of the server
                st.stop()
            download_json(m.to_json(), f"{m.run_id}_manifest.json", "Manifest (JSON)")
            download_json(summary_json(record), f"{m.run_id}_summary.json", "Summary (JSON)")
