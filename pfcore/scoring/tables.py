"""Tables of scores that several views share: several models' tables stacked as one, and the long
per-token table (surprisal in bits) of scored texts."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pfcore.scoring.requests import TokenScores


def stacked(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Several models' tables of the same shape as one, with a `model` column first."""
    frames = [t.assign(model=label) for label, t in tables.items()]
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame({"model": []})
    return table[["model", *[c for c in table.columns if c != "model"]]]


def token_table(labels: Sequence[Mapping[str, object]], scores: Sequence[TokenScores]) -> pd.DataFrame:
    """Long per-token table: the label fields, position, token and surprisal in bits (the unit of
    every number the app shows)."""
    frames = []
    for label, s in zip(labels, scores):
        tokens = s.tokens  # decoded on each access: once here
        frames.append(pd.DataFrame({**{k: [v] * len(tokens) for k, v in label.items()},
                                    "position": np.arange(len(tokens)), "token": list(tokens),
                                    "surprisal_bits": s.surprisals_bits}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
