"""The Items page's data in pfcore (suites/blocks.py): each suite's layout, and the count of
correct decisions per model the page shows."""
from __future__ import annotations

import pandas as pd

from pfcore.views.blocks import BROWSED, LAYOUTS, correct_per_model


def test_every_item_suite_has_a_layout_that_names_its_token_column() -> None:
    assert set(LAYOUTS) == set(BROWSED)
    assert {suite: (layout.token_key, layout.condition) for suite, layout in LAYOUTS.items()} == {
        "semantic": ("row", "Condition"), "syntax": ("sentence", "Manipulation")}
    for layout in LAYOUTS.values():
        assert layout.chart_title.format(group="g", picked="p").startswith("g")


def test_correct_decisions_are_counted_per_model_in_their_order() -> None:
    decisions = pd.DataFrame({"model": ["b", "b", "a", "a", "a"], "correct": [True, False, True, True, False]})
    assert correct_per_model(decisions) == [("b", 1, 2), ("a", 2, 3)]
