"""The Paired-Focus explorer's entry point: the pages, named as the navigation shows them."""
import streamlit as st

from pfcore.ui.page import PAGES

st.navigation([st.Page(page.path, title=page.title, icon=page.icon, default=page.title == "Home")
               for page in PAGES]).run()
