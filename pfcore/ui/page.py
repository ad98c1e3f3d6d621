"""What every page starts with: page settings, title, and the shared sidebar."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from pfcore.deployment import deployment
from pfcore.errors import InputError
from pfcore.glossary import glossary_line
from pfcore.scoring.kinds import named_kinds
from pfcore.ui.model import ModelChoice, sidebar_model

APP_TITLE = "Paired-Focus explorer"


@dataclass(frozen=True)
class PageInfo:
    """One page of the app: its file, its name in the navigation, its icon, what it is for."""

    path: str
    title: str
    icon: str
    what: str


PAGES = (
    PageInfo("pages/0_Home.py", "Home", ":material/home:", "what the tool is for."),
    PageInfo("pages/1_Probe.py", "Probe", ":material/biotech:",
             "type one sentence: does the construction, against the control *or*, move the model "
             "toward what it entails? The verdict comes from all its decisions."),
    PageInfo("pages/2_Items.py", "Items", ":material/list_alt:",
             "browse the semantic and syntactic test items and score one block with the model."),
    PageInfo("pages/3_Run.py", "Run", ":material/play_circle:",
             "run the full suites with progress, stop and resume, and download the results."),
    PageInfo("pages/4_Models.py", "Models", ":material/scatter_plot:",
             "the paper's reference results beside your own runs; accuracy against model size."),
    PageInfo("pages/5_Trajectories.py", "Trajectories", ":material/timeline:",
             "accuracy over training checkpoints: when form and meaning are learned."),
    PageInfo("pages/6_Stimuli.py", "Stimuli", ":material/table_view:",
             "your own sentences or SyntaxGym suites, scored per word and per region."),
    PageInfo("pages/7_Lesson.py", "Lesson", ":material/school:",
             "a guided lesson a class can follow live: eight steps from what a model expects next to what the "
             "paper found, with a presenter view, a handout and a glossary."),
)


def start_page(title: str, intro: str, *, terms: Sequence[str] = (), wait_for_model: bool = True
               ) -> ModelChoice | None:
    """Set up a page: config, title and intro, a line linking the words it uses (`terms`, glossary
    keys) to the lesson's glossary, and the sidebar model (None if it cannot load; with
    wait_for_model=False, also while the server is still loading it: the page then ends with
    `pfcore.ui.model.wait_for_model`)."""
    st.set_page_config(page_title=f"{title} · {APP_TITLE}", page_icon="🔎", layout="wide")
    st.title(title)
    st.markdown(intro)
    if terms:
        st.markdown(f":small[{glossary_line(terms)}]")
    try:
        deployment().check_kinds(named_kinds())
    except InputError as exc:  # a bad setting of the server: nothing runs until the teacher fixes it
        st.error(str(exc))
        st.stop()
    return sidebar_model(wait=wait_for_model)
