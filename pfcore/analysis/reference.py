"""The paper's result tables (Tables 5-9), typed into data/reference/ to set runs beside them: the
paper's layout, its columns as it spells them ("letalone")."""
from __future__ import annotations

import pandas as pd

from pfcore.errors import InputError
from pfcore.paths import DATA_DIR

REFERENCE_DIR = DATA_DIR / "reference"
ACCURACY_FILE = REFERENCE_DIR / "paper_accuracy.csv"
MODELS_FILE = REFERENCE_DIR / "paper_models.csv"
TABLES = {
    "Table 5": "semantic accuracy of the MLMs scored by pseudo-log-likelihood (percent)",
    "Table 6": "semantic accuracy of all 36 models (percent)",
    "Table 7": "syntactic accuracy, mean of the three manipulations (percent)",
    "Table 8": "global affinity of the fixed words, MLMs (probability, 95% half-width)",
    "Table 9": "model type, family, parameter count and pretraining tokens of the 36 models",
}


def load_reference(table: str | None = None) -> pd.DataFrame:
    """One paper table ("Table 6", or "6"); without a name, all values of Tables 5-8 in long form.

    Table 9 is one row per model; the others are one row per value (model, construction, value).
    """
    if table is None:
        return pd.read_csv(ACCURACY_FILE)
    name = f"Table {table}" if str(table).isdigit() else str(table).strip()
    if name not in TABLES:
        raise InputError(f"unknown reference table {table!r}; choose one of {', '.join(TABLES)}")
    if name == "Table 9":
        return pd.read_csv(MODELS_FILE)
    values = pd.read_csv(ACCURACY_FILE)
    return values[values["source"] == name].reset_index(drop=True)
