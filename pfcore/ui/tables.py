"""How the numbers of a table print on the pages where a table sets no format of its own, alike in
each: streamlit trims trailing zeros (-2.986 stood beside -3.0025 in one column) and writes 1400000000
without separators."""
from __future__ import annotations

import pandas as pd
import streamlit as st
from pandas.api.types import is_bool_dtype, is_float_dtype, is_integer_dtype
from streamlit.elements.lib.column_types import ColumnConfig

BITS = "%.4f"  # a value in bits, to a tenth of a millibit (the data and the downloads keep every digit)


def number_columns(table: pd.DataFrame) -> dict[str, ColumnConfig]:
    """Column settings for a table's numbers: a value in bits (a float column named with "_bits") to 4
    decimals, a whole number with the reader's thousands separators; other columns as they are."""
    config: dict[str, ColumnConfig] = {}
    for name, dtype in table.dtypes.items():
        if is_float_dtype(dtype) and "_bits" in str(name):
            config[str(name)] = st.column_config.NumberColumn(format=BITS)
        elif is_integer_dtype(dtype) and not is_bool_dtype(dtype):
            config[str(name)] = st.column_config.NumberColumn(format="localized")
    return config
