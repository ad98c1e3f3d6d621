"""Sizes of models outside the paper's Table 9 that the user gives (parameters, pretraining tokens,
architecture), kept in cache/app/models.csv so Figure 1 and the mixed model can place own runs."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from pfcore.errors import InputError
from pfcore.files import write_atomic
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


MIN_PARAMETERS = 1e5  # no language model worth placing is smaller (a typo such as "8" is refused)
MIN_TOKENS = 1e6


def save_extra_models(df: pd.DataFrame) -> tuple[int, list[str]]:
    """Keep the complete, plausible rows of the edited sizes; returns how many were kept and, for
    each refused row, why."""
    rows = df.reindex(columns=list(EXTRA_COLUMNS))
    for col in ("parameters", "pretraining_tokens"):
        rows[col] = pd.to_numeric(rows[col], errors="coerce")
    ok = ((rows["hf_id"].astype(str).str.strip() != "") & rows["hf_id"].notna() & rows["model_type"].isin(MODEL_TYPES)
          & (rows["parameters"] >= MIN_PARAMETERS) & (rows["pretraining_tokens"] >= MIN_TOKENS))
    refused = [f"{r.hf_id}: parameters must be at least {MIN_PARAMETERS:,.0f}, tokens at least {MIN_TOKENS:,.0f}, "
               f"and model_type one of {', '.join(MODEL_TYPES)}" for r in rows[~ok].itertuples()
               if not all(pd.isna(v) or str(v).strip() == "" for v in (r.hf_id, r.parameters, r.pretraining_tokens))]
    write_atomic(extra_models_path(), rows[ok].to_csv(index=False), "the model sizes")
    return int(ok.sum()), refused
