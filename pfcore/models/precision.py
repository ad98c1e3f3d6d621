"""What a model's precision does to its numbers, said where results are read: the paper scored in
float32, and bfloat16 changed decisions on the golden set (measured on one H200, 2026-12-04)."""
from __future__ import annotations

from collections.abc import Iterable

from pfcore.names import DTYPES

PAPER_DTYPE = DTYPES[0]  # float32: the paper's precision, and pfcore's default
MEASURED = "measured on one H200, 2026-12-04"
EFFECTS = {  # what each other precision was measured to change
    "bfloat16": f"6% of decisions (11 of 180) differed on the golden set, {MEASURED}",
    "float16": f"not measured; in bfloat16, 6% of decisions differed on the golden set, {MEASURED}",
}


def precision_note(dtype: str) -> str:
    """One line saying that a precision is not the paper's and what it was measured to change; ''
    for float32 (the paper's)."""
    if dtype == PAPER_DTYPE:
        return ""
    effect = EFFECTS.get(dtype, "its effect was not measured")
    return f"{dtype}: not the paper's precision ({PAPER_DTYPE}): {effect}"


def mixed_note(dtypes: Iterable[str]) -> str:
    """One line when results of different precisions are compared (a difference between them may
    be the precision's, not the models'); '' when they share one."""
    found = sorted(set(dtypes))
    if len(found) < 2:
        return ""
    return (f"these results mix precisions ({', '.join(found)}): a difference between them may be the "
            "precision's rather than the models'")
