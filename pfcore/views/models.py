"""What the Models page shows, in words: its tables' column names as a reader says them."""
from __future__ import annotations

from collections.abc import Iterable

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
