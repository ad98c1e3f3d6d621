"""What the Models page shows, in words: its tables' column names as a reader says them, and their
values with the paper's decimals."""
from __future__ import annotations

from collections.abc import Iterable

from pfcore.analysis.model_tables import TABLE_SUITES, value_digits
from pfcore.names import Construction, construction_title

COLUMN_TITLES = {"avg": "mean of the four"}


def column_titles(columns: Iterable[object]) -> dict[str, str]:
    """A title for each column a reader would not read as it is: "letalone" -> "Let alone",
    "avg" -> "mean of the four" (the data keeps its names; a download keeps them too)."""
    titles = {}
    for column in map(str, columns):
        if column in COLUMN_TITLES:
            titles[column] = COLUMN_TITLES[column]
        elif Construction.parse(column) is not None:
            titles[column] = construction_title(column)
    return titles


def value_format(table: str) -> str | None:
    """How a table's values print: with the paper's decimals in Tables 5-8 (41.0 beside 48.9, not 41);
    None (as they are) for Table 9's counts."""
    return f"%.{value_digits(table)}f" if table in TABLE_SUITES else None
