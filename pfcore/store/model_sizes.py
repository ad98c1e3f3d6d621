"""Sizes of models outside the paper's Table 9 that the user gives (parameters, pretraining tokens,
architecture), kept in cache/app/models.csv so Figure 1 and the mixed model can place own runs."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from pfcore.errors import InputError
from pfcore.paths import cache_subdir

INFO_COLUMNS = ("parameters", "pretraining_tokens", "model_type")
MODEL_TYPES = ("CausalLM", "MLM")
EXTRA_COLUMNS = ("hf_id", *INFO_COLUMNS)


def extra_models_path() -> Path:
    """Where the sizes the user gives for models outside Table 9 are kept."""
    return cache_subdir("app") / "models.csv"


def read_extra_models() -> pd.DataFrame:
    """The user's model sizes (hf_id, parameters, pretraining_tokens, model_type); empty if none."""
    path = extra_models_path()
    if not path.is_file():
        return pd.DataFrame(columns=list(EXTRA_COLUMNS))
    try:
        df = pd.read_csv(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: unreadable model sizes ({exc}); delete the file and enter them again") from exc
    return df.reindex(columns=list(EXTRA_COLUMNS))


def save_extra_models(df: pd.DataFrame) -> int:
    """Keep the complete, valid rows of the edited sizes; returns how many were kept."""
    rows = df.reindex(columns=list(EXTRA_COLUMNS)).dropna()
    rows = rows[(rows["hf_id"].astype(str).str.strip() != "") & rows["model_type"].isin(MODEL_TYPES)]
    for col in ("parameters", "pretraining_tokens"):
        rows[col] = pd.to_numeric(rows[col], errors="coerce")
    rows = rows[(rows["parameters"] > 0) & (rows["pretraining_tokens"] > 0)]
    rows.to_csv(extra_models_path(), index=False)
    return len(rows)
