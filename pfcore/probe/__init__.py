"""One sentence probed: detection of the construction and its foci (`detect`), and scoring of
its follow-ups and manipulations against the "or"/"and" controls (`score`)."""
from pfcore.probe.detect import (
                                 EXAMPLES,
                                 FRAME_EXAMPLE,
                                 MAX_CHARS,
                                 Probe,
                                 analyze_sentence,
                                 clean_text,
                                 no_construction_message,
)
from pfcore.probe.score import UNITS, ProbeResult, score_manipulations, score_probe

__all__ = ["EXAMPLES", "FRAME_EXAMPLE", "MAX_CHARS", "UNITS", "Probe", "ProbeResult",
           "analyze_sentence", "clean_text", "no_construction_message", "score_manipulations",
           "score_probe"]
