"""The Paired-Focus explorer's entry point: the pages, named as the navigation shows them, each run
inside the page boundary, so that no error of a page, from its first line on, reaches a visitor as a
traceback, and (but for Home) once torch is wholly imported."""
import streamlit as st

from pfcore.ui.errors import shown_errors
from pfcore.ui.page import PAGES, ready_to_run

chosen = st.navigation([st.Page(page.path, title=page.title, icon=page.icon, default=page.title == "Home")
                        for page in PAGES])
with shown_errors():
    ready_to_run(chosen.title)
    chosen.run()
