"""What every page starts with: page settings, title, and the shared sidebar."""
from __future__ import annotations

import streamlit as st

from pfcore.ui.model import ModelChoice, sidebar_model

APP_TITLE = "Paired-Focus explorer"


def start_page(title: str, intro: str) -> ModelChoice | None:
    """Set up a page: config, title and intro, and the sidebar model (None if it cannot load)."""
    st.set_page_config(page_title=f"{title} · {APP_TITLE}", page_icon="🔎", layout="wide")
    st.title(title)
    st.markdown(intro)
    return sidebar_model()
