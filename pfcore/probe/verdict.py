"""The balanced verdict on one sentence. For a sentence in the paper's frame, the suite's whole block
is scored (both follow-up orders for the sentence as typed and for the sentence with its foci
swapped: four decisions, each the construction against "or", decided exactly as the semantic suite
decides them); for any other sentence, each follow-up pair the user gives is one decision. The
verdict comes from all decisions, never from one."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pfcore.errors import InputError
from pfcore.probe.detect import Probe, clean_text
from pfcore.scoring.requests import LN2, REDUCTIONS, Reduction, Request, RequestScorer
from pfcore.store.cache import ScoreCache, score_cached
from pfcore.suites import semantic

CONSISTENT, AGAINST, MIXED = "consistent", "against", "mixed"
CAVEAT = ("One sentence is not a measurement: these numbers depend on the tokenizer and on how "
          "token log-probabilities are combined; read them against the suite's accuracy.")
UNIT = {"mean": "bits per token", "sum": "bits"}


@dataclass(frozen=True)
class Decision:
    """One comparison: how much the construction, against "or", moves the model toward the
    follow-up it entails (log-probabilities in nats, as the suites keep them)."""

    context_order: str  # aligned / misaligned in the paper's frame; "as typed" otherwise
    followup_order: str  # same / reversed in the paper's frame; "pair N" otherwise
    condition: str  # the suite's filter (aligned1 ... misaligned2), or "pair N"
    context: str  # the sentence with the construction this decision reads
    entailed: str
    contradicted: str
    shift_construction: float  # log P(entailed) - log P(contradicted) after the construction
    shift_control: float  # the same after the "or" control

    @property
    def effect(self) -> float:
        """How much further the construction moves toward the entailed follow-up than "or"."""
        return self.shift_construction - self.shift_control

    @property
    def correct(self) -> bool:
        """Whether the construction moves it further (the suite's decision rule)."""
        return self.effect > 0

    def as_json(self) -> dict[str, object]:
        """The decision as plain data, shifts in bits."""
        return {"context_order": self.context_order, "followup_order": self.followup_order,
                "condition": self.condition, "context": self.context, "entailed": self.entailed,
                "contradicted": self.contradicted, "shift_construction": self.shift_construction / LN2,
                "shift_control": self.shift_control / LN2, "effect": self.effect / LN2,
                "correct": self.correct}


@dataclass(frozen=True, eq=False)
class ProbeVerdict:
    """All decisions on one sentence and the verdict they give together."""

    probe: Probe
    reduction: Reduction
    decisions: tuple[Decision, ...]

    @property
    def n_correct(self) -> int:
        """How many decisions go the way the construction entails."""
        return sum(d.correct for d in self.decisions)

    @property
    def verdict(self) -> str:
        """consistent (all correct), against (all wrong) or mixed."""
        if self.n_correct == len(self.decisions):
            return CONSISTENT
        return AGAINST if self.n_correct == 0 else MIXED

    @property
    def unit(self) -> str:
        """The unit of the shifts in words."""
        return UNIT[self.reduction]

    @property
    def anecdote(self) -> bool:
        """Whether the verdict rests on a single comparison."""
        return len(self.decisions) == 1

    def table(self) -> pd.DataFrame:
        """One row per decision, shifts in bits (what the page and the CSV show)."""
        return pd.DataFrame([d.as_json() for d in self.decisions])

    def as_json(self, model: str) -> dict[str, object]:
        """Everything the CLI's --json prints for one model."""
        probe = self.probe
        return {"model": model, "sentence": probe.text, "construction": probe.construction,
                "connective": probe.connective, "focus1": probe.focus1, "focus2": probe.focus2,
                "control": probe.control, "fits_frame": probe.fits_frame, "reduction": self.reduction,
                "unit": self.unit, "decisions": [d.as_json() for d in self.decisions],
                "n_decisions": len(self.decisions), "n_correct": self.n_correct, "verdict": self.verdict,
                "note": anecdote_note(self) if self.anecdote else CAVEAT}


def probe_sentence(scorer: RequestScorer, probe: Probe, pairs: Sequence[tuple[str, str]] = (),
                   cache: ScoreCache | None = None, reduction: Reduction = "mean") -> ProbeVerdict:
    """The verdict on a sentence: its suite block when it is in the paper's frame (and no pairs
    are given), else one decision per (entailed, contradicted) pair."""
    if probe.construction is None:
        raise InputError(probe.message)
    if reduction not in REDUCTIONS:
        raise InputError(f"unknown reduction {reduction!r}; use mean (the paper's) or sum")
    if pairs:
        return ProbeVerdict(probe, reduction, tuple(_pair_decisions(scorer, probe, pairs, cache, reduction)))
    if not probe.fits_frame:
        raise InputError("give at least one follow-up pair: one the construction entails and one it "
                         "contradicts (sentences in the paper's frame get the suite's four)")
    return ProbeVerdict(probe, reduction, tuple(_block_decisions(scorer, probe, cache, reduction)))


def _block_decisions(scorer: RequestScorer, probe: Probe, cache: ScoreCache | None,
                     reduction: Reduction) -> list[Decision]:
    """The four decisions of the sentence's suite block, as `suites.semantic` makes them."""
    items = list(probe.block)
    rows = semantic.row_scores(items, score_cached(scorer, semantic.requests(items), cache), reduction)
    by_key = {(i.context_order, i.followup_order, i.is_construction): i for i in items}
    out = []
    for row in semantic.decisions(rows).itertuples():
        sign = semantic.CONDITIONS[(row.context_order, row.followup_order)][1]
        item = by_key[(row.context_order, row.followup_order, True)]
        entailed, contradicted = item.fills[:2] if sign > 0 else item.fills[1::-1]
        out.append(Decision(row.context_order, row.followup_order, row.condition, item.context,
                            semantic.filled(item, entailed), semantic.filled(item, contradicted),
                            sign * row.cxn_logodds, sign * row.or_logodds))
    return sorted(out, key=lambda d: list(semantic.CONDITIONS).index((d.context_order, d.followup_order)))


def _pair_decisions(scorer: RequestScorer, probe: Probe, pairs: Sequence[tuple[str, str]],
                    cache: ScoreCache | None, reduction: Reduction) -> list[Decision]:
    """One decision per (entailed, contradicted) pair, after the sentence and after its control."""
    cleaned = [_checked_pair(e, c) for e, c in pairs]
    requests = [Request(ctx, text) for e, c in cleaned for ctx in (probe.text, probe.control) for text in (e, c)]
    values = np.array([s.reduce(reduction) for s in score_cached(scorer, requests, cache)]).reshape(-1, 2, 2)
    return [Decision("as typed", f"pair {n}", f"pair {n}", probe.text, e, c,
                     float(v[0, 0] - v[0, 1]), float(v[1, 0] - v[1, 1]))
            for n, ((e, c), v) in enumerate(zip(cleaned, values), start=1)]


def _checked_pair(entailed: str, contradicted: str) -> tuple[str, str]:
    """A follow-up pair, cleaned; both present and different."""
    pair = clean_text(entailed, "an entailed follow-up"), clean_text(contradicted, "a contradicted follow-up")
    if pair[0] == pair[1]:
        raise InputError("the entailed and the contradicted follow-up are the same; make them differ")
    return pair


def anecdote_note(result: ProbeVerdict) -> str:
    """What to tell a user whose verdict rests on one pair: it is an anecdote; add the reversed order."""
    decision = result.decisions[0]
    return ("One comparison is an anecdote: the follow-ups' own wording and length move these numbers "
            "as much as the construction can. Add the pair in the reversed order, naming the other focus "
            f"first (e.g. the reverse of {decision.entailed!r}), so that word order cannot decide the verdict.")
