"""One sentence probed: detection of the construction and its foci (`detect`), the balanced verdict
from all its decisions (`verdict`), one pair's per-token detail and the manipulations (`score`)."""
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
from pfcore.probe.verdict import ProbeVerdict, probe_sentence

__all__ = ["EXAMPLES", "FRAME_EXAMPLE", "MAX_CHARS", "UNITS", "Probe", "ProbeResult", "ProbeVerdict",
           "analyze_sentence", "clean_text", "no_construction_message", "probe_sentence",
           "score_manipulations", "score_probe"]
