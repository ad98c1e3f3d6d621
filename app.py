"""The Paired-Focus explorer's entry point: the pages, named as the navigation shows them, each run
inside the page boundary, so that no error of a page, from its first line on, reaches a visitor as a
traceback."""
import streamlit as st

from pfcore.ui.errors import shown_errors
from pfcore.ui.page import PAGES

chosen = st.navigation([st.Page(page.path, title=page.title, icon=page.icon, default=page.title == "Home")
                        for page in PAGES])
with shown_errors():
    chosen.run()
