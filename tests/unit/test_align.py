"""Token-to-span alignment (words, SyntaxGym regions) and per-span aggregation."""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from pfcore.errors import InputError
from pfcore.items.syntaxgym import build_condition
from pfcore.scoring.align import METRICS, aggregate, owners, word_spans

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("text, spans", [
    ("The cat, sat.", [(0, 3), (4, 8), (9, 13)]),
    ("  two   spaces ", [(2, 5), (8, 14)]),
    ("tab\tand\nnewline", [(0, 3), (4, 7), (8, 15)]),
    ("(quoted) \"words\"!", [(0, 8), (9, 17)]),
    ("", []),
    ("   ", []),
])
def test_word_spans(text: str, spans: list[tuple[int, int]]) -> None:
    """Words are runs of non-space characters; punctuation stays with its word."""
    assert word_spans(text) == spans


def test_gpt2_style_offsets_to_words() -> None:
    """A token " word" (offsets include the space) belongs to the word it starts."""
    text = "The dog barked."
    tokens = [(0, 3), (3, 7), (7, 12), (12, 14), (14, 15)]  # The| dog| bark|ed|.
    assert owners(text, tokens, word_spans(text)) == [0, 1, 2, 2, 2]


def test_offsets_without_leading_space() -> None:
    """Tokenizers that leave the space out (offsets (4, 7)) align the same way."""
    text = "The dog barked."
    tokens = [(0, 3), (4, 7), (8, 12), (12, 14), (14, 15)]
    assert owners(text, tokens, word_spans(text)) == [0, 1, 2, 2, 2]


def test_tokens_owned_by_no_span() -> None:
    """Whitespace-only tokens, special tokens (0, 0) and tokens outside every span get None."""
    text = "a  b"
    tokens = [(0, 0), (0, 1), (1, 2), (2, 4), (4, 4), (9, 12)]
    assert owners(text, tokens, word_spans(text)) == [None, 0, None, 1, None, None]
    assert owners(text, [(0, 1), (3, 4)], [(3, 4)]) == [None, 0]


def test_first_span_wins_where_spans_overlap() -> None:
    """A character covered by two spans belongs to the first one listed."""
    assert owners("abcd", [(1, 2), (3, 4)], [(0, 2), (1, 4)]) == [0, 1]


def test_alignment_to_syntaxgym_regions() -> None:
    """Regions with leading spaces and an empty region: tokens go to the region they start in."""
    condition = build_condition("c", [(1, "The keys"), (2, " are"), (3, ""), (4, "  here .")])
    text = condition.sentence
    assert text == "The keys are here ."
    tokens = [(0, 3), (3, 8), (8, 12), (12, 17), (17, 19)]  # The| keys| are| here| .
    token_owners = owners(text, tokens, condition.spans)
    assert token_owners == [0, 0, 1, 3, 3]
    values = [1.0, 2.0, 4.0, 8.0, 16.0]
    assert aggregate(values, token_owners, len(condition.regions), "sum") == [3.0, 4.0, 0.0, 24.0]
    means = aggregate(values, token_owners, len(condition.regions), "mean")
    assert means[:2] == [1.5, 4.0] and math.isnan(means[2]) and means[3] == 12.0


VALUES = [1.0, 4.0, 2.0, 10.0, -3.0, 7.0]
OWNERS: list[int | None] = [0, 0, 0, 2, None, 2]


@pytest.mark.parametrize("metric, expected", [
    ("sum", [7.0, 0.0, 17.0]),
    ("mean", [7.0 / 3, math.nan, 8.5]),
    ("median", [2.0, math.nan, 8.5]),
    ("range", [3.0, math.nan, 3.0]),
    ("max", [4.0, math.nan, 10.0]),
    ("min", [1.0, math.nan, 7.0]),
])
def test_every_metric(metric: str, expected: list[float]) -> None:
    """Each metric over each span's tokens; an empty span is 0.0 for sum, NaN otherwise."""
    result = aggregate(VALUES, OWNERS, 3, metric)
    assert result == pytest.approx(expected, nan_ok=True)
    assert all(isinstance(value, float) for value in result)


def test_metrics_are_syntaxgyms() -> None:
    """The six SyntaxGym metrics, sum first (the default)."""
    assert METRICS == ("sum", "mean", "median", "range", "max", "min")


@pytest.mark.parametrize("values, token_owners, n_spans, metric, message", [
    ([1.0], [0], 1, "mode", "unknown metric 'mode'"),
    ([1.0, 2.0], [0], 1, "sum", "2 token values but 1 token owners"),
    ([1.0], [3], 2, "sum", "owner 3 is outside the 2 spans"),
    ([1.0], [-1], 2, "sum", "owner -1 is outside"),
])
def test_aggregate_bad_input(values: list[float], token_owners: list[int | None], n_spans: int,
                             metric: str, message: str) -> None:
    """Unknown metrics and mismatched inputs are InputErrors."""
    with pytest.raises(InputError, match=message):
        aggregate(values, token_owners, n_spans, metric)


def test_no_spans_no_tokens() -> None:
    """Nothing in, nothing out."""
    assert aggregate([], [], 0, "sum") == []
    assert owners("", [], []) == []


def test_align_imports_light() -> None:
    """align loads without torch, transformers, streamlit or pfcore.items."""
    code = ("import sys, pfcore.scoring.align; "
            "print(sorted(m for m in ('torch', 'transformers', 'streamlit', 'pfcore.items') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, check=True)
    assert out.stdout.strip() == "[]"
