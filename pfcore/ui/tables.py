"""How the numbers of a table print on the pages where a table sets no format of its own, alike in
each: streamlit trims trailing zeros (-2.986 stood beside -3.0025 in one column, 71.275 beside 52 in
the Lesson's accuracies) and writes 1400000000 without separators."""
from __future__ import annotations

import pandas as pd
import streamlit as st
from pandas.api.types import is_bool_dtype, is_float_dtype, is_integer_dtype
from streamlit.elements.lib.column_types import ColumnConfig

BITS = "%.4f"  # a value in bits, to a tenth of a millibit (the data and the downloads keep every digit)
PERCENT = "%.2f"  # a percentage (an accuracy, a probability in percent), as the charts' hovers print it
FRACTION = "%.4f"  # any other fraction: an accuracy between 0 and 1, its interval, a probability
WHOLE = "localized"  # a count, with the reader's thousands separators


def number_columns(table: pd.DataFrame) -> dict[str, ColumnConfig]:
    """Column settings for a table's numbers, each column with one number of decimals; other columns
    as they are."""
    config: dict[str, ColumnConfig] = {}
    for name, column in table.items():
        if is_float_dtype(column.dtype):
            config[str(name)] = st.column_config.NumberColumn(format=float_format(str(name), column))
        elif is_integer_dtype(column.dtype) and not is_bool_dtype(column.dtype):
            config[str(name)] = st.column_config.NumberColumn(format=WHOLE)
    return config


def float_format(name: str, column: pd.Series) -> str:
    """A float column's format: bits (named with "_bits") to 4 decimals, a percentage (named with
    "percent", or "accuracy" in percent) to 2, whole numbers held as floats (tokens seen, n) as counts,
    any other fraction to 4."""
    if "_bits" in name:
        return BITS
    if "percent" in name or name == "accuracy":
        return PERCENT
    known = column.dropna()
    return WHOLE if len(known) and bool((known == known.round()).all()) else FRACTION
