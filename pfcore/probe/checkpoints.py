"""One sentence across a model's training checkpoints: at each checkpoint, the balanced verdict's
mean effect and the surprisal of the focus-2 words, with the construction and with "or". Each
checkpoint is scored on its own through the score cache (a second look scores nothing), and the
semantic suite's accuracy at that step is read from the results table where a trajectory put it."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pfcore.analysis.base_rates import accuracy_over_steps
from pfcore.models.identity import same_weights, weights_identity
from pfcore.probe.detect import Probe
from pfcore.probe.verdict import ProbeVerdict, probe_sentence
from pfcore.probe.words import focus2_bits, sentence_words
from pfcore.scoring.requests import LN2, Reduction, RequestScorer
from pfcore.store.cache import ScoreCache
from pfcore.suites.checkpoints import Checkpoint

COLUMNS = ("checkpoint", "step", "effect", "n_correct", "n_decisions", "verdict",
           "focus2_construction_bits", "focus2_or_bits", "focus2_difference_bits", "suite_accuracy")


@dataclass(frozen=True)
class CheckpointProbe:
    """The sentence at one checkpoint: its verdict and its word table."""

    point: Checkpoint
    verdict: ProbeVerdict | None  # None for a sentence outside the frame given no follow-up pair
    words: pd.DataFrame

    def row(self) -> dict[str, object]:
        """The checkpoint's line of the series: the mean effect over the decisions (in the verdict's
        unit, bits per token or bits; NaN without decisions) and the focus-2 surprisals (bits)."""
        cxn, ctl = focus2_bits(self.words)
        verdict = self.verdict
        effects = [d.effect for d in verdict.decisions] if verdict else []
        return {"checkpoint": self.point.label, "step": self.point.step,
                "effect": float(np.mean(effects)) / LN2 if effects else math.nan,
                "n_correct": verdict.n_correct if verdict else 0, "n_decisions": len(effects),
                "verdict": verdict.verdict if verdict else "",
                "focus2_construction_bits": cxn, "focus2_or_bits": ctl, "focus2_difference_bits": cxn - ctl}


def probe_checkpoint(scorer: RequestScorer, point: Checkpoint, probe: Probe, pairs: Sequence[tuple[str, str]],
                     cache: ScoreCache | None, *, reduction: Reduction = Reduction.MEAN,
                     corrected: bool = True) -> CheckpointProbe:
    """Score the sentence's decisions (when it has some: the frame's, or the pairs') and its words at
    one checkpoint (`scorer` is that checkpoint's)."""
    verdict = probe_sentence(scorer, probe, pairs, cache, reduction) if pairs or probe.fits_frame else None
    return CheckpointProbe(point, verdict, sentence_words(scorer, probe, cache, corrected=corrected))


def distinct_weights(probes: Sequence[CheckpointProbe]) -> tuple[list[CheckpointProbe], list[str]]:
    """The probes of checkpoints whose weights (`weights_identity`, known once each is scored)
    differ from every earlier one's, and a warning for each one left out: the same weights under
    two names are no change over training, and are not drawn as one."""
    repeats = same_weights((p.point, weights_identity(p.point.spec)) for p in probes)
    left_out = {point for point, _, _ in repeats}
    return ([p for p in probes if p.point not in left_out],
            [f"{point.label} has the same weights as {first.label} (sha256 {digest[:12]}...): shown once, as "
             f"{first.label}" for point, first, digest in repeats])


def checkpoint_series(probes: Sequence[CheckpointProbe], results: pd.DataFrame, series: str,
                      construction: str) -> pd.DataFrame:
    """One row per checkpoint, ordered by step, with the suite's accuracy at that step where the
    results table holds a trajectory of `series` (NaN elsewhere)."""
    table = pd.DataFrame([p.row() for p in probes])
    accuracy = accuracy_over_steps(results, series, construction)
    table["suite_accuracy"] = table["step"].map(accuracy).astype(float)
    return table.sort_values("step", kind="stable").reset_index(drop=True)[list(COLUMNS)]
