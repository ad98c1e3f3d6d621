"""The Paired-Focus explorer: what the tool is, the shared model picker, and the pages."""
from pathlib import Path

import streamlit as st

from pfcore.ui.errors import shown_errors
from pfcore.ui.page import start_page

INTRO = """
Do language models *know* the **Paired-Focus constructions**? They join two phrases in focus on
a scale, the second one stronger: *He doesn't like shrimp, **let alone** squid* · *I can't afford
a bike, **much less** a car* · *She speaks French, **not to mention** Greek* · *We couldn't find
a café, **never mind** a restaurant*. This tool measures, with a model's own probabilities, whether
it has learned their form (syntax) and their meaning (the scale they entail), following the
paper *Language Models Learn Constructional Semantics, Not To Mention Syntax*.
"""

PAGES = (
    ("pages/1_Probe.py", "Probe", ":material/biotech:",
     "type one sentence: how much does the construction shift the model's expectations, "
     "against the control *or*, token by token?"),
    ("pages/2_Items.py", "Items", ":material/list_alt:",
     "browse the semantic and syntactic test items and score one block with the model."),
    ("pages/3_Run.py", "Run", ":material/play_circle:",
     "run the full suites with progress, stop and resume, and download the results."),
    ("pages/4_Models.py", "Models", ":material/scatter_plot:",
     "the paper's reference results beside your own runs; accuracy against model size."),
    ("pages/5_Trajectories.py", "Trajectories", ":material/timeline:",
     "accuracy over training checkpoints: when form and meaning are learned."),
)
HERE = Path(__file__).resolve().parent

choice = start_page("Paired-Focus explorer", INTRO)
with shown_errors():
    st.subheader("Pages")
    for path, label, icon, what in PAGES:
        if (HERE / path).is_file():
            st.page_link(path, label=f"**{label}**: {what}", icon=icon)
    st.caption("Choose the model in the sidebar: it is used by every page. Scores are cached on "
               "disk, so anything scored once comes back instantly.")
    if choice is None:
        st.warning("No model is loaded: fix the model in the sidebar. The Models page works "
                   "without one.")
