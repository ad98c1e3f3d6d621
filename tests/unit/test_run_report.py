"""What `pfcore run` prints (issue 40): each accuracy as a percentage with its n ("100.0" was 3 of 3)."""
from __future__ import annotations

import pandas as pd

from pfcore.runs.report import main_table


def test_the_printed_accuracies_carry_their_unit_and_n() -> None:
    summary = pd.DataFrame({"construction": ["let_alone", "let_alone", "much_less"],
                            "filter": ["all", "aligned", "all"], "accuracy": [1.0, 0.5, 2 / 3],
                            "n": [3, 2, 1200]})
    printed = main_table("semantic", summary)
    assert "100.0% (n=3)" in printed and "50.0% (n=2)" in printed and "66.7% (n=1,200)" in printed
    lines = printed.splitlines()
    assert lines[0].split() == ["filter", "all", "aligned"] and lines[-1].split()[0] == "much_less"
