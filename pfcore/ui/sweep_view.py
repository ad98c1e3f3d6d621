"""The Run page's Sweep section: a sweep plan (a path or an upload), Start on a local Ray
instance, a bar over jobs and one per running job, Stop, and the done / skipped / failed summary.
The work and its shaping are in pfcore.sweep; only streamlit calls are here."""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from pfcore.deployment import PUBLIC_NOTE, deployment
from pfcore.sweep.driver import run_sweep
from pfcore.sweep.jobs import FAILED, plan_jobs
from pfcore.sweep.plan import PLAN_FILE, load_plan, save_uploaded_plan
from pfcore.sweep.progress import SweepProgress, SweepSummary, jobs_table, plan_caption
from pfcore.ui.downloads import download_json
from pfcore.ui.errors import shown_errors
from pfcore.ui.text import plain
from pfcore.ui.uploads import upload_megabytes

EXPLAIN = """Run a **sweep plan** (models x checkpoints x suites, see `docs/sweeps.md`) on a local
Ray instance: one job per model and revision, several at once, each merged into the score cache and
the results table as it finishes. Jobs whose results are there already are skipped, so **Start**
after **Stop** resumes. For a cluster, use `python -m pfcore sweep PLAN.yaml --address auto`."""


def render_sweep_section() -> None:
    """The Sweep section: choose a plan, see its jobs, Start / Stop, progress and the summary."""
    with shown_errors():
        if not deployment().allows_paths:
            st.caption(f"{PUBLIC_NOTE}: sweep plans are off here; run them on your own machine (docs/sweeps.md).")
            return
        st.subheader("Sweep (Ray)")
        st.markdown(EXPLAIN)
        path = st.text_input("Plan file (YAML)", key="sweep_plan_path", placeholder="docs/plans/example.yaml")
        upload = st.file_uploader("...or upload a plan", type=["yaml", "yml"], key="sweep_plan_upload",
                                  help="paths in an uploaded plan must be absolute",
                                  max_upload_size=upload_megabytes(PLAN_FILE))
        plan_file = str(save_uploaded_plan(upload.name, upload.getvalue())) if upload else path.strip()
        if not plan_file:
            st.info("Give a sweep plan to run: its path on this machine, or upload it.")
            return
        plan = load_plan(plan_file)
        jobs = plan_jobs(plan)
        st.caption(plan_caption(plan, jobs))
        st.dataframe(jobs_table(jobs), hide_index=True, placeholder="")
        row = st.container(horizontal=True)  # each button as wide as its words
        start = row.button("Start (local Ray)", type="primary", key="sweep_start")
        stop = row.button("Stop", key="sweep_stop")
        _status(stop, start)
        if start:
            st.session_state.sweep_running = plan.name
            st.session_state.sweep_summary = run_sweep(plan, on_update=_drawer())
            st.session_state.sweep_running = None
        if st.session_state.get("sweep_summary") is not None:
            _show_summary(st.session_state.sweep_summary)


def _status(stop: bool, start: bool) -> None:
    """What Stop did, or that an interrupted sweep waits to be resumed."""
    running = st.session_state.get("sweep_running")
    if stop:
        st.session_state.sweep_running = None
        if running:
            st.warning(f"Stopped {plain(running)}: finished jobs are merged; unfinished ones keep what they scored "
                       "in their shards. Press **Start** to resume.")
        else:
            st.info("Nothing is running.")
    elif running and not start:
        st.info(f"The sweep {plain(running)} was interrupted: press **Start** to resume it.")


def _drawer() -> Callable[[SweepProgress], None]:
    """A progress callback drawing a bar over jobs and one bar per running job."""
    bar = st.progress(0.0, text="Starting Ray...")
    box = st.empty()

    def draw(progress: SweepProgress) -> None:
        bar.progress(progress.fraction, text=progress.headline())
        with box.container():
            for label, fraction, text in progress.job_rows():
                st.progress(fraction, text=f"{label}: {text}")

    return draw


def _show_summary(summary: SweepSummary) -> None:
    """The last sweep's summary: one line, the failed jobs' reasons, a table and a JSON download."""
    (st.warning if summary.of(FAILED) else st.success)(summary.line())
    st.dataframe(summary.table(), hide_index=True, placeholder="")
    download_json(summary.to_json(), "sweep_summary.json", "Summary (JSON)", key="sweep_summary_json")
