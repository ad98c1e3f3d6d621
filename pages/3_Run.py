"""Run: the full suites on the chosen model, with progress, stop and resume, and downloads."""
from pfcore.ui.constructions_view import render_constructions_section
from pfcore.ui.page import start_page
from pfcore.ui.run_view import open_run_page, render_results, render_run_section
from pfcore.ui.sweep_view import render_sweep_section

INTRO = """Score whole suites with the model in the sidebar and get accuracy with 95% intervals per
construction and filter, as in the paper's tables. Every score is saved to the score cache as it is
computed: **Stop** any time, and **Resume** (or Run again) continues where it stopped; what was
scored once is never scored again. Results are saved under `cache/runs/` as CSV tables and a
manifest."""
WORDS = ("decision", "aligned", "control", "delta-p", "bos", "pll")

choice = start_page("Run", INTRO, terms=WORDS)
own_runs, link_notes = open_run_page()
render_run_section(choice, own_runs)
render_constructions_section(choice, own_runs)
render_sweep_section()  # before Results, which stops the page when there are no runs yet
render_results(own_runs, link_notes)
