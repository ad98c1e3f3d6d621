"""The balanced verdict on one sentence. For a sentence in the paper's frame, the suite's whole block
is scored (both follow-up orders for the sentence as typed and for the sentence with its foci
swapped: four decisions, each the construction against "or", decided exactly as the semantic suite
decides them). For any other sentence, each follow-up pair is scored on the sentence as typed and
on the sentence with its foci swapped, with the entailed and the contradicted follow-up exchanged
there: two decisions per pair (one, with the reason, when the swapped sentence cannot be built).
The verdict comes from all decisions; a single decision is reported as one, never as a verdict."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pfcore.errors import InputError
from pfcore.names import Reduction
from pfcore.probe.detect import Probe, analyze_sentence, checked_pair, checked_reduction
from pfcore.probe.swap import swap_foci
from pfcore.scoring.requests import LN2, Request, RequestScorer, TokenScores, reduce_all
from pfcore.store.cache import ScoreCache, score_cached
from pfcore.suites import semantic

CONSISTENT, AGAINST, MIXED, SINGLE = "consistent", "against", "mixed", "single"
AS_TYPED, SWAPPED = "as typed", "swapped"
# Where a decision's follow-ups come from: the suite's block, the user's pair, or a proposal.
SUITE, TYPED, PROPOSED = "suite", "typed", "proposed"
CAVEAT = ("One sentence is not a measurement: these numbers depend on the tokenizer and on how "
          "token log-probabilities are combined; read them against the suite's accuracy.")
UNIT = {r: r.unit for r in Reduction}


def unit_key(name: str, unit: str) -> str:
    """A column or key named with its unit ("effect" in bits per token -> "effect_bits_per_token")."""
    return f"{name}_{unit.replace(' ', '_')}"


@dataclass(frozen=True)
class NotScored:
    """A sentence pfcore built for a decision (the swapped order) that is shown but not scored,
    because it does not keep the parse of the sentence as typed, and why."""

    what: str
    sentence: str
    reason: str

    def as_json(self) -> dict[str, str]:
        """The sentence, what it is and why it was not scored, as plain data."""
        return {"what": self.what, "sentence": self.sentence, "reason": self.reason}


@dataclass(frozen=True)
class PlannedDecision:
    """One comparison to make: the follow-ups after a sentence with the construction and after
    its "or" control, before anything is scored."""

    context_order: str  # aligned / misaligned in the paper's frame; "as typed" or "swapped" otherwise
    followup_order: str  # same / reversed in the paper's frame; "pair N" otherwise
    condition: str  # the suite's filter (aligned1 ... misaligned2), or "pair N, as typed" ...
    context: Probe  # the sentence this decision reads (the typed one, or the other order)
    entailed: str
    contradicted: str
    origin: str  # SUITE, TYPED or PROPOSED

    def requests(self) -> list[Request]:
        """Both follow-ups after the sentence, then after its control."""
        return [Request(ctx, text) for ctx in (self.context.text, self.context.control)
                for text in (self.entailed, self.contradicted)]


@dataclass(frozen=True)
class Decision:
    """One comparison: how much the construction, against "or", moves the model toward the
    follow-up it entails (log-probabilities in nats, as the suites keep them)."""

    context_order: str
    followup_order: str
    condition: str
    context: str  # the sentence with the construction this decision reads
    entailed: str
    contradicted: str
    shift_construction: float  # log P(entailed) - log P(contradicted) after the construction
    shift_control: float  # the same after the "or" control
    origin: str = SUITE

    @property
    def effect(self) -> float:
        """How much further the construction moves toward the entailed follow-up than "or"."""
        return self.shift_construction - self.shift_control

    @property
    def correct(self) -> bool:
        """Whether the construction moves it further (the suite's decision rule)."""
        return self.effect > 0

    def as_json(self, *, unit: str) -> dict[str, object]:
        """The decision as plain data, shifts in bits (per token with the mean), named with `unit`."""
        return {"context_order": self.context_order, "followup_order": self.followup_order,
                "condition": self.condition, "context": self.context, "entailed": self.entailed,
                "contradicted": self.contradicted, "origin": self.origin,
                unit_key("shift_construction", unit): self.shift_construction / LN2,
                unit_key("shift_control", unit): self.shift_control / LN2,
                unit_key("effect", unit): self.effect / LN2, "correct": self.correct}


@dataclass(frozen=True, eq=False)
class ProbeVerdict:
    """All decisions on one sentence and the verdict they give together: `swapped` is the sentence
    with its foci swapped that some decisions read (None when there is none), `swap_note` why there
    is none, `not_scored` the sentences built but left out of the verdict (with why)."""

    probe: Probe
    reduction: Reduction
    decisions: tuple[Decision, ...]
    swapped: str | None = None
    swap_note: str = ""
    not_scored: tuple[NotScored, ...] = ()

    @property
    def n_correct(self) -> int:
        """How many decisions go the way the construction entails."""
        return sum(d.correct for d in self.decisions)

    @property
    def verdict(self) -> str:
        """single (one decision is no verdict), else consistent (all correct), against (all
        wrong) or mixed."""
        if len(self.decisions) < 2:
            return SINGLE
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

    def reading(self) -> str:
        """The verdict in words: how many decisions go the construction's way, or what the one
        decision did."""
        if self.verdict == SINGLE:
            d = self.decisions[0]
            way = "toward" if d.correct else "away from"
            return (f"one decision: against '{self.probe.control_word}', '{self.probe.connective}' "
                    f"moved the model {way} the entailed follow-up ({d.effect / LN2:+.3g} {self.unit})")
        return f"{self.verdict} ({self.n_correct} of {len(self.decisions)} decisions)"

    def table(self) -> pd.DataFrame:
        """One row per decision, shifts in bits, each column named with its unit (the CSV the page
        downloads)."""
        return pd.DataFrame([d.as_json(unit=self.unit) for d in self.decisions])

    def as_json(self, model: str) -> dict[str, object]:
        """Everything the CLI's --json prints for one model's decisions."""
        return {"model": model, **self.probe.as_json(), "reduction": self.reduction, "unit": self.unit,
                "decisions": [d.as_json(unit=self.unit) for d in self.decisions],
                "n_decisions": len(self.decisions), "n_correct": self.n_correct, "verdict": self.verdict,
                "reading": self.reading(), "swapped_sentence": self.swapped, "swap_note": self.swap_note or None,
                "not_scored": [n.as_json() for n in self.not_scored],
                "note": anecdote_note(self) if self.anecdote else CAVEAT}


@dataclass(frozen=True)
class DecisionPlan:
    """The decisions one sentence gets, planned before scoring: the suite's block for a frame
    sentence without pairs, else each pair on the sentence as typed and with its foci swapped."""

    probe: Probe
    planned: tuple[PlannedDecision, ...]
    swapped: str | None = None
    swap_note: str = ""
    not_scored: tuple[NotScored, ...] = ()

    @property
    def from_block(self) -> bool:
        """Whether the decisions are the suite's block (scored and decided as the suite does)."""
        return all(p.origin == SUITE for p in self.planned)

    def requests(self) -> list[Request]:
        """What to score: the block's rows as the semantic suite asks for them, else four per
        planned decision."""
        if self.from_block:
            return semantic.requests(self.probe.block)
        return [r for p in self.planned for r in p.requests()]

    def decide(self, scores: Sequence[TokenScores], reduction: Reduction) -> ProbeVerdict:
        """The verdict from the scores of `requests()`, in their order."""
        if self.from_block:
            return ProbeVerdict(self.probe, reduction, tuple(_block_decisions(self, scores, reduction)), self.swapped)
        values = np.array(reduce_all(scores, reduction)).reshape(-1, 2, 2)
        decisions = [Decision(p.context_order, p.followup_order, p.condition, p.context.text, p.entailed,
                              p.contradicted, float(v[0, 0] - v[0, 1]), float(v[1, 0] - v[1, 1]), p.origin)
                     for p, v in zip(self.planned, values)]
        return ProbeVerdict(self.probe, reduction, tuple(decisions), self.swapped, self.swap_note, self.not_scored)


def plan_decisions(probe: Probe, pairs: Sequence[tuple[str, str]] = (), *,
                   proposed: Sequence[tuple[str, str]] = ()) -> DecisionPlan:
    """The decisions of a sentence: its suite block when it is in the paper's frame and no pairs
    are given, else two per (entailed, contradicted) pair, typed or proposed (see the module)."""
    if probe.construction is None:
        raise InputError(probe.message)
    if pairs or proposed:
        return _pair_plan(probe, [(p, TYPED) for p in pairs] + [(p, PROPOSED) for p in proposed])
    if not probe.fits_frame:
        raise InputError("give at least one follow-up pair: one the construction entails and one it "
                         "contradicts (sentences in the paper's frame get the suite's four)")
    planned = _block_plan(probe)
    typed = _order_names(probe)[0]
    return DecisionPlan(probe, tuple(planned), next(p.context.text for p in planned if p.context_order != typed))


def probe_sentence(scorer: RequestScorer, probe: Probe, pairs: Sequence[tuple[str, str]] = (),
                   cache: ScoreCache | None = None, reduction: Reduction = Reduction.MEAN) -> ProbeVerdict:
    """The verdict on a sentence: its suite block when it is in the paper's frame (and no pairs
    are given), else two decisions per (entailed, contradicted) pair (see `plan_decisions`)."""
    reduction = checked_reduction(reduction)
    plan = plan_decisions(probe, pairs)
    return plan.decide(score_cached(scorer, plan.requests(), cache), reduction)


def _block_plan(probe: Probe) -> list[PlannedDecision]:
    """The block's four decisions in the suite's order of conditions, each with the fill its
    condition calls for as the entailed follow-up."""
    items = {(i.context_order, i.followup_order, i.is_construction): i for i in probe.block}
    contexts: dict[str, Probe] = {}
    planned = []
    for (context_order, followup_order), (condition, sign) in semantic.CONDITIONS.items():
        item = items[(context_order, followup_order, True)]
        if item.context not in contexts:
            contexts[item.context] = probe if item.context == probe.text else analyze_sentence(item.context)
        entailed, contradicted = item.fills[:2] if sign > 0 else item.fills[1::-1]
        planned.append(PlannedDecision(context_order, followup_order, condition, contexts[item.context],
                                       semantic.filled(item, entailed), semantic.filled(item, contradicted), SUITE))
    return planned


def _block_decisions(plan: DecisionPlan, scores: Sequence[TokenScores], reduction: Reduction) -> list[Decision]:
    """The four decisions of the block, decided by `suites.semantic` itself."""
    rows = semantic.decisions(semantic.row_scores(list(plan.probe.block), scores, reduction)).set_index(
        ["context_order", "followup_order"])
    out = []
    for p in plan.planned:
        row = rows.loc[(p.context_order, p.followup_order)]
        sign = semantic.CONDITIONS[(p.context_order, p.followup_order)][1]
        out.append(Decision(p.context_order, p.followup_order, p.condition, p.context.text, p.entailed,
                            p.contradicted, sign * float(row["cxn_logodds"]), sign * float(row["or_logodds"])))
    return out


def _pair_plan(probe: Probe, pairs: Sequence[tuple[tuple[str, str], str]]) -> DecisionPlan:
    """Two decisions per pair: on the sentence as typed, and on the sentence with its foci swapped
    with the follow-ups' roles exchanged (aligned / misaligned where the frame says which order
    is the plausible one)."""
    swap = swap_foci(probe)
    typed, other = _order_names(probe)
    planned = []
    for n, ((entailed, contradicted), origin) in enumerate(pairs, start=1):
        entailed, contradicted = checked_pair(entailed, contradicted)
        planned.append(PlannedDecision(typed, f"pair {n}", f"pair {n}, {typed}", probe, entailed, contradicted,
                                       origin))
        if swap.scored and swap.probe is not None:
            planned.append(PlannedDecision(other, f"pair {n}", f"pair {n}, {other}", swap.probe, contradicted,
                                           entailed, origin))
    if swap.probe is None:
        note = f"the sentence with its foci swapped was not scored: {swap.reason}"
        return DecisionPlan(probe, tuple(planned), None, note)
    if not swap.scored:
        return DecisionPlan(probe, tuple(planned), None, swap.reason,
                            (NotScored("the sentence with its foci swapped", swap.probe.text, swap.reason),))
    return DecisionPlan(probe, tuple(planned), swap.probe.text)


def _order_names(probe: Probe) -> tuple[str, str]:
    """What the typed order and the swapped one are called: the paper's aligned and misaligned
    when the frame says which order is the plausible one, else "as typed" and "swapped"."""
    if probe.frame is None:
        return AS_TYPED, SWAPPED
    return ("aligned", "misaligned") if probe.frame.aligned else ("misaligned", "aligned")


def anecdote_note(result: ProbeVerdict) -> str:
    """What to tell a user whose verdict rests on one decision: it is an anecdote; add the pair
    in the reversed order (and why the swapped sentence was not scored, when it was not)."""
    decision = result.decisions[0]
    why = f" ({result.swap_note})" if result.swap_note else ""
    return ("One comparison is an anecdote: the follow-ups' own wording and length move these numbers "
            f"as much as the construction can{why}. Add the pair in the reversed order, naming the other focus "
            f"first (e.g. the reverse of {decision.entailed!r}), so that word order cannot decide the verdict.")
