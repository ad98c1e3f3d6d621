"""Accuracy intervals that respect linked decisions (issue 12): the design effect of clusters."""
from __future__ import annotations

import numpy as np
import pytest

from pfcore.intervals import accuracy, effective_n, wilson


def test_independent_decisions_keep_the_wilson_interval() -> None:
    correct = np.array([True, False, True, True, False, True, True, True, False, True] * 4)
    plain = accuracy(correct)
    assert accuracy(correct, np.arange(correct.size)) == plain
    assert (plain.low, plain.high) == pytest.approx(wilson(28, 40))


def test_decisions_that_always_agree_within_a_block_count_about_once_per_block() -> None:
    blocks = np.repeat(np.arange(10), 4)
    correct = np.repeat([1, 0, 1, 1, 0, 1, 1, 1, 0, 1], 4).astype(bool)
    assert effective_n(correct, blocks) == pytest.approx(10 * 9 / 10)  # C/(C-1) small-sample factor
    pooled, plain = accuracy(correct, blocks), accuracy(correct)
    assert pooled.value == plain.value and pooled.n == 40
    assert pooled.high - pooled.low > plain.high - plain.low


def test_decisions_that_disagree_within_blocks_are_never_counted_as_more_than_n() -> None:
    correct = np.array([True, False] * 20)
    assert effective_n(correct, np.repeat(np.arange(10), 4)) == 40.0


def test_bounds_stay_within_zero_and_one() -> None:
    for values in ([True] * 30, [False] * 30, [True] * 29 + [False]):
        acc = accuracy(values, np.repeat(np.arange(10), 3))
        assert 0.0 <= acc.low <= acc.value <= acc.high <= 1.0
    assert accuracy([True] * 30).high <= 1.0
