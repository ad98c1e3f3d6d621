"""Trajectories: accuracy over training checkpoints (the paper's Figures 2-4), published and own."""
from pfcore.ui.links import opened_query
from pfcore.ui.page import start_page
from pfcore.ui.trajectories_view import (
    render_add_results,
    render_constructions,
    render_correlations,
    render_curves,
    render_scope,
)

INTRO = """*When* does a model learn the Paired-Focus constructions? Accuracy over training
checkpoints, as in the paper's Experiment 2: the semantic test on plausible and implausible
follow-ups, the syntactic test, and the BLiMP, COMPS and EWoK benchmarks on one chart (Figure 2),
each construction on its own (Figure 3), and how the changes between checkpoints correlate
(Figure 4). The numbers are the paper's published per-checkpoint summaries, which ship with pfcore,
your own trajectories from `python -m pfcore trajectory`, and any folder of summaries you import."""
WORDS = ("decision", "aligned", "delta-p", "checkpoint", "spearman")

start_page("Trajectories", INTRO, terms=WORDS)
opened = opened_query("trajectories")
models, shown, notes = render_scope(opened)
if shown:
    render_curves(shown, opened, notes)
    render_constructions(shown)
    render_correlations(shown)
render_add_results(bool(models))
