"""The Trajectories page's streamlit side: the results table read once per file version, and
widget keys of their own per model and source."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pfcore.store.results import load_results, results_path


@st.cache_data(max_entries=2, show_spinner="Reading the results table...")
def _read_results(path: str, version: int) -> pd.DataFrame:
    """The stored results table, read once per file version (path and mtime key the cache)."""
    return load_results()


def results_table() -> pd.DataFrame:
    """The long results table (published imports and own runs), re-read only when it changes."""
    path = results_path()
    return _read_results(str(path), path.stat().st_mtime_ns if path.exists() else -1)


def widget_key(name: str, model: str, source: str) -> str:
    """A widget key of its own per model and source, so choices never outlive their options."""
    return f"traj_{name}|{source}|{model}"
