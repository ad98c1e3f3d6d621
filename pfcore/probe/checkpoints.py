"""One sentence across a model's training checkpoints: at each checkpoint, the balanced verdict's
mean effect and the surprisal of the focus-2 words, with the construction and with "or". The one
checkpoint loop (`probe_checkpoints`), which the CLI and the Probe page both use: each checkpoint
is scored on its own in one scorer call through the score cache (a second look scores nothing),
with every setting (the reduction, the word correction), and its model is freed before the next
one loads. The semantic suite's accuracy at that step is read from the results table where a
trajectory put it."""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pfcore.analysis.base_rates import accuracy_over_steps
from pfcore.models.identity import same_weights
from pfcore.models.spec import ModelSpec
from pfcore.names import Reduction
from pfcore.probe.detect import Probe, checked_reduction
from pfcore.probe.sections import Section, probe_sections
from pfcore.probe.verdict import UNIT, ProbeVerdict, unit_key
from pfcore.probe.words import focus2_bits
from pfcore.runs.checkpoints import Checkpoint
from pfcore.scoring.factory import LazyScorer
from pfcore.scoring.kinds import kind_of
from pfcore.scoring.models import MODELS
from pfcore.scoring.requests import LN2, RequestScorer
from pfcore.store.cache import ScoreCache

FOCUS2_COLUMNS = ("focus2_construction_bits", "focus2_or_bits", "focus2_difference_bits")
ScorerOf = Callable[[ModelSpec], RequestScorer]
Started = Callable[[int, int, Checkpoint], None]  # checkpoint number (from 1), how many, the checkpoint


def effect_column(reduction: Reduction) -> str:
    """The series' effect column, named with its unit ("effect_bits_per_token" for the mean)."""
    return unit_key("effect", UNIT[checked_reduction(reduction)])


def columns(reduction: Reduction) -> tuple[str, ...]:
    """The series' columns, in order."""
    return ("checkpoint", "step", effect_column(reduction), "n_correct", "n_decisions", "verdict", *FOCUS2_COLUMNS,
            "suite_accuracy")


@dataclass(frozen=True)
class CheckpointProbe:
    """The sentence at one checkpoint: its verdict and its word table."""

    point: Checkpoint
    verdict: ProbeVerdict | None  # None for a sentence outside the frame given no follow-up pair
    words: pd.DataFrame
    reduction: Reduction = Reduction.MEAN

    def row(self) -> dict[str, object]:
        """The checkpoint's line of the series: the mean effect over the decisions (in the verdict's
        unit, bits per token or bits, named in its key; NaN without decisions) and the focus-2
        surprisals (bits)."""
        cxn, ctl = focus2_bits(self.words)
        verdict = self.verdict
        effects = [d.effect for d in verdict.decisions] if verdict else []
        return {"checkpoint": self.point.label, "step": self.point.step,
                effect_column(self.reduction): float(np.mean(effects)) / LN2 if effects else math.nan,
                "n_correct": verdict.n_correct if verdict else 0, "n_decisions": len(effects),
                "verdict": verdict.verdict if verdict else "",
                "focus2_construction_bits": cxn, "focus2_or_bits": ctl, "focus2_difference_bits": cxn - ctl}


@dataclass(frozen=True, eq=False)
class CheckpointSeries:
    """The sentence over training: one row per checkpoint with distinct weights (`table`, by
    step), their probes, and a warning for each checkpoint left out as a repeat."""

    table: pd.DataFrame
    probes: tuple[CheckpointProbe, ...]
    repeats: tuple[str, ...]


def model_scorer(spec: ModelSpec) -> RequestScorer:
    """A model's (or checkpoint's) scorer, loading the model through pfcore's loader (so that it can
    be freed) only when a score is not in the cache."""
    return LazyScorer(spec, kind_of(spec.kind).text_method)


def probe_checkpoint(scorer: RequestScorer, point: Checkpoint, probe: Probe, pairs: Sequence[tuple[str, str]] = (),
                     *, cache: ScoreCache | None = None, reduction: Reduction = Reduction.MEAN,
                     corrected: bool = True) -> CheckpointProbe:
    """Score the sentence's decisions (when it has some: the frame's, or the pairs') and its words at
    one checkpoint (`scorer` is that checkpoint's), in one scorer call."""
    has_decisions = bool(pairs) or probe.fits_frame
    sections = {Section.WORDS, Section.DECISIONS} if has_decisions else {Section.WORDS}
    shown = probe_sections(scorer, probe, sections=sections, pairs=pairs, cache=cache, reduction=reduction,
                           corrected=corrected)
    assert shown.words is not None  # asked for above
    return CheckpointProbe(point, shown.verdict, shown.words, checked_reduction(reduction))


def probe_checkpoints(points: Sequence[Checkpoint], probe: Probe, pairs: Sequence[tuple[str, str]] = (), *,
                      series: str, results: pd.DataFrame, cache: ScoreCache | None = None,
                      reduction: Reduction = Reduction.MEAN, corrected: bool = True,
                      scorer_of: ScorerOf = model_scorer, started: Started | None = None,
                      done: Callable[[int, int, CheckpointProbe], None] | None = None) -> CheckpointSeries:
    """The sentence at each checkpoint in turn (see the module), one model in memory at a time;
    `started` and `done` are told of each checkpoint before and after it is scored."""
    probes = []
    for number, point in enumerate(points, start=1):
        if started is not None:
            started(number, len(points), point)
        probes.append(probe_checkpoint(scorer_of(point.spec), point, probe, pairs, cache=cache,
                                       reduction=reduction, corrected=corrected))
        MODELS.clear()  # one checkpoint in memory at a time (no reference cycle holds it: no collection needed)
        if done is not None:
            done(number, len(points), probes[-1])
    kept, repeats = distinct_weights(probes)
    table = checkpoint_series(kept, results, series, str(probe.construction), reduction=reduction)
    return CheckpointSeries(table, tuple(kept), tuple(repeats))


def distinct_weights(probes: Sequence[CheckpointProbe]) -> tuple[list[CheckpointProbe], list[str]]:
    """The probes of checkpoints whose weights (`MODELS.weights`, known once each is scored)
    differ from every earlier one's, and a warning for each one left out: the same weights under
    two names are no change over training, and are not drawn as one."""
    repeats = same_weights((p.point, MODELS.weights(p.point.spec)) for p in probes)
    left_out = {point for point, _, _ in repeats}
    return ([p for p in probes if p.point not in left_out],
            [f"{point.label} has the same weights as {first.label} (sha256 {digest[:12]}...): shown once, as "
             f"{first.label}" for point, first, digest in repeats])


def checkpoint_series(probes: Sequence[CheckpointProbe], results: pd.DataFrame, series: str,
                      construction: str, *, reduction: Reduction = Reduction.MEAN) -> pd.DataFrame:
    """One row per checkpoint, ordered by step, with the suite's accuracy at that step where the
    results table holds a trajectory of `series` (NaN elsewhere)."""
    table = pd.DataFrame([p.row() for p in probes], columns=list(columns(reduction))[:-1])
    accuracy = accuracy_over_steps(results, series, construction)
    table["suite_accuracy"] = table["step"].map(accuracy).astype(float)
    return table.sort_values("step", kind="stable").reset_index(drop=True)[list(columns(reduction))]
