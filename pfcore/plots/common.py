"""Pieces every figure builder shares: input checks and display names."""
from __future__ import annotations

import pandas as pd

from pfcore.items.schema import CONSTRUCTIONS, PUBLISHED_NAMES

CONSTRUCTION_TITLES = {PUBLISHED_NAMES[name]: words.capitalize() for name, words in CONSTRUCTIONS.items()}


def require_columns(df: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    """ValueError naming the missing columns: the builders take fixed shapes."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} needs columns {', '.join(missing)}")
