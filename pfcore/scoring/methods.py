"""The scoring methods a run can use, and which of their settings change the numbers."""
from __future__ import annotations

SCORINGS = ("causal", "masked-token", "pll-original", "pll-l2r")
PLL_METRICS = {"pll-original": "original", "pll-l2r": "within_word_l2r"}


def scoring_identity(scoring: str, bos: bool = False) -> dict[str, object]:
    """What of a request scorer changes its scores, for cache keys (packing and batching do not)."""
    if scoring == "causal":
        return {"scorer": "causal", "bos": bos}
    return {"scorer": "pll", "metric": PLL_METRICS[scoring]}
