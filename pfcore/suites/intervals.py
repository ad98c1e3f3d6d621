"""Accuracy with a 95% Wilson interval, the one summary every suite reports.

The interval is statsmodels' `proportion_confint(method="wilson")`, written out (a test checks
they agree): importing statsmodels pulls in scipy.stats, about 1.5 s, which is most of what a
rerun served from the score cache would otherwise spend starting up."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


@dataclass(frozen=True)
class Accuracy:
    """A proportion of correct decisions with its 95% Wilson interval."""

    value: float
    low: float
    high: float
    n: int


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of k successes in n trials (n > 0)."""
    p = k / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return center - half, center + half


def accuracy(correct: np.ndarray | list[bool]) -> Accuracy:
    """Accuracy of boolean decisions; NaN with n=0 when there are none."""
    arr = np.asarray(correct, dtype=bool)
    n = int(arr.size)
    if n == 0:
        return Accuracy(float("nan"), float("nan"), float("nan"), 0)
    k = int(arr.sum())
    low, high = wilson(k, n)
    return Accuracy(k / n, low, high, n)


def mean_interval(values: np.ndarray | list[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and its normal 95% interval (NaN bounds with fewer than two values)."""
    arr = np.asarray(values, dtype=float)
    mean = float(arr.mean())
    half = z * float(arr.std(ddof=1)) / math.sqrt(arr.size) if arr.size > 1 else float("nan")
    return mean, mean - half, mean + half
