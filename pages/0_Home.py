"""Home: what the tool is for, and its pages."""
import streamlit as st

from pfcore.glossary import probe_path
from pfcore.ui.errors import shown_errors
from pfcore.ui.model import model_loading, wait_for_model
from pfcore.ui.page import PAGES, start_page

EXAMPLES = ("He doesn't like shrimp, let alone squid.", "I can't afford a bike, much less a car.",
            "She speaks French, not to mention Greek.", "We couldn't find a café, never mind a restaurant.")
INTRO = f"""
Do language models *know* the **Paired-Focus constructions**? They join two phrases in focus on
a scale, the second one stronger (open one in the Probe):
{" · ".join(f"[*{sentence}*]({probe_path(sentence)})" for sentence in EXAMPLES)}
This tool measures, with a model's own probabilities, whether
it has learned their form (syntax) and their meaning (the scale they entail), following the
paper *Language Models Learn Constructional Semantics, Not To Mention Syntax*.
"""
WORDS = ("surprisal", "bit", "token", "focus", "follow-up", "control", "decision")

choice = start_page("Paired-Focus explorer", INTRO, terms=WORDS, wait_for_model=False)  # usable while the model loads
with shown_errors():
    st.subheader("Pages")
    for page in PAGES[1:]:  # the description under its link, where it wraps (a link's label is one line)
        st.page_link(page.path, label=f"**{page.title}**", icon=page.icon)
        st.caption(page.what[:1].upper() + page.what[1:])
    st.caption("Choose the model in the sidebar: it is used by every page. Scores are cached on "
               "disk, so anything scored once comes back instantly.")
    if choice is None and not model_loading():
        st.warning("No model is loaded: fix the model in the sidebar. The Models page works without one.")
wait_for_model()
