"""Accuracy with a 95% Wilson interval, the one summary every suite reports; where decisions are
linked (several per semantic block or syntactic base), with the effective number of decisions.

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


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of k successes in n trials (n > 0; both may be effective, fractional
    counts)."""
    p = k / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return center - half, center + half


def accuracy(correct: np.ndarray | list[bool], clusters: np.ndarray | list[str] | None = None) -> Accuracy:
    """Accuracy of boolean decisions; NaN with n=0 when there are none. Decisions that share a
    cluster (the four of one semantic block, the three tests of one syntactic base) are not
    independent: the Wilson interval is then computed with the effective number of decisions
    (n over the design effect), so pooled filters get honestly wider intervals."""
    arr = np.asarray(correct, dtype=bool)
    n = int(arr.size)
    if n == 0:
        return Accuracy(float("nan"), float("nan"), float("nan"), 0)
    return proportion(int(arr.sum()), n, n_eff=None if clusters is None else effective_n(arr, np.asarray(clusters)))


def proportion(k: int, n: int, *, n_eff: float | None = None) -> Accuracy:
    """k of n decisions correct (n > 0), with the 95% Wilson interval of n_eff effective decisions
    (n when not given); exact at the ends (0 when none is correct, 1 when all are)."""
    eff = float(n) if n_eff is None else n_eff
    low, high = wilson(k * eff / n, eff)
    low, high = (0.0 if k == 0 else max(0.0, low)), (1.0 if k == n else min(1.0, high))
    return Accuracy(k / n, float(low), float(high), n)


def effective_n(correct: np.ndarray, clusters: np.ndarray) -> float:
    """n divided by the design effect (Kish): the cluster-robust variance of the proportion over
    the variance independent decisions would have, never below 1 (a conservative choice)."""
    n = correct.size
    _, index = np.unique(clusters, return_inverse=True)
    size = np.bincount(index)
    if size.size < 2 or size.max() == 1:
        return float(n)
    hits = np.bincount(index, weights=correct.astype(float))
    p = hits.sum() / n
    if p in (0.0, 1.0):
        return float(n)
    robust = size.size / (size.size - 1) * float(np.sum((hits - p * size) ** 2)) / n ** 2
    return n / max(1.0, robust / (p * (1 - p) / n))


def mean_interval(values: np.ndarray | list[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and its normal 95% interval (NaN bounds with fewer than two values)."""
    arr = np.asarray(values, dtype=float)
    mean = float(arr.mean())
    half = z * float(arr.std(ddof=1)) / math.sqrt(arr.size) if arr.size > 1 else float("nan")
    return mean, mean - half, mean + half
