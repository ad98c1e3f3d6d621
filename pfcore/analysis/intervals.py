"""Accuracy with a 95% Wilson interval, the one summary every suite reports."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from statsmodels.stats.proportion import proportion_confint


@dataclass(frozen=True)
class Accuracy:
    """A proportion of correct decisions with its 95% Wilson interval."""

    value: float
    low: float
    high: float
    n: int


def accuracy(correct: np.ndarray | list[bool]) -> Accuracy:
    """Accuracy of boolean decisions; NaN with n=0 when there are none."""
    arr = np.asarray(correct, dtype=bool)
    n = int(arr.size)
    if n == 0:
        return Accuracy(float("nan"), float("nan"), float("nan"), 0)
    k = int(arr.sum())
    low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
    return Accuracy(k / n, float(low), float(high), n)
