"""The golden table (tests/golden_table.py): the default model's scores and accuracies on 5 blocks of
each construction must not change silently."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.golden_table import DIGITS, PATH, golden_table

pytestmark = pytest.mark.slow


def test_default_model_scores_equal_the_golden_table(default_model_cache: Path, tmp_path: Path) -> None:
    pinned = pd.read_csv(PATH, keep_default_na=False)
    now = golden_table(tmp_path / "runs")
    assert list(now["key"]) == list(pinned["key"]), "the item set or the filters changed"
    diff = (now["value"] - pinned["value"].astype(float)).abs()
    assert diff.max() <= 2 * 10 ** -DIGITS, now.loc[diff.idxmax()].to_dict()
