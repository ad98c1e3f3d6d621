"""Pieces every figure builder shares: input checks."""
from __future__ import annotations

import pandas as pd


def require_columns(df: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    """ValueError naming the missing columns: the builders take fixed shapes."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} needs columns {', '.join(missing)}")
