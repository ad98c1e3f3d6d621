"""The Items page's streamlit side: the item tables read once per process."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pfcore.names import SuiteName
from pfcore.views.blocks import item_table


@st.cache_data(show_spinner="Reading the items...", max_entries=2)
def item_frame(suite: SuiteName) -> pd.DataFrame:
    """All shipped items of a suite as one table (see `suites.blocks.item_table`)."""
    return item_table(suite)
