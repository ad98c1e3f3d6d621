"""One Probe request in one scorer call: the requests of every section the Probe shows (the
sentence word by word, the decisions, including those on the sentence with its foci swapped, one
decision in detail, and the manipulations) are gathered and scored through one `score_cached`
call, so the causal scorer packs them into one prefix tree and the sentence runs through the model
once. Each section is then built from its share of the scores, by the same functions that score it
alone.

With the word correction on, every request is scored by the scorer's beginning-of-word variant: its
log-probabilities are the plain scorer's (the masses ride beside them), so the decisions are the
same numbers; they are cached under that variant's identity."""
from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import islice

import pandas as pd

from pfcore.errors import InputError
from pfcore.names import Reduction
from pfcore.probe.detect import Probe, checked_reduction
from pfcore.probe.score import ProbeResult, detail_requests, detail_result, manipulation_requests, manipulation_table
from pfcore.probe.verdict import DecisionPlan, PlannedDecision, ProbeVerdict, plan_decisions
from pfcore.probe.words import sentence_requests, word_table
from pfcore.scoring.requests import Request, RequestScorer, TokenScores
from pfcore.scoring.words import ScoredText, texts_from_scores, unpack_bow
from pfcore.store.cache import ScoreCache, ScoreStats, score_cached


class Section(StrEnum):
    """The parts of the Probe that score something."""

    WORDS = "words"
    DECISIONS = "decisions"
    DETAIL = "detail"
    MANIPULATIONS = "manipulations"


ALL_SECTIONS = frozenset(Section)


@dataclass(frozen=True, eq=False)
class ProbeSections:
    """What each asked-for section needs (None where it was not asked for or does not apply: no
    decisions for a sentence outside the frame without pairs, no manipulations outside the frame)."""

    probe: Probe
    sentences: tuple[ScoredText, ScoredText] | None = None  # the sentence and its control, scored whole
    words: pd.DataFrame | None = None
    verdict: ProbeVerdict | None = None
    detail: ProbeResult | None = None
    manipulations: pd.DataFrame | None = None
    stats: ScoreStats = field(default_factory=ScoreStats)  # requests read from the cache and scored


def probe_sections(scorer: RequestScorer, probe: Probe, *, sections: Collection[Section] = ALL_SECTIONS,
                   pairs: Sequence[tuple[str, str]] = (), proposed: Sequence[tuple[str, str]] = (),
                   detail: int = 0, cache: ScoreCache | None = None, reduction: Reduction = Reduction.MEAN,
                   corrected: bool = True, top_k: int = 5) -> ProbeSections:
    """Score the asked-for sections of one probe in one scorer call (see the module); `detail` is
    the index of the decision shown token by token."""
    if probe.construction is None:
        raise InputError(probe.message)
    reduction = checked_reduction(reduction)
    wanted = set(sections)
    has_decisions = bool(pairs or proposed) or probe.fits_frame
    plan = plan_decisions(probe, pairs, proposed=proposed) \
        if wanted & {Section.DECISIONS, Section.DETAIL} and has_decisions else None
    parts: dict[Section, list[Request]] = {}
    if Section.WORDS in wanted:
        parts[Section.WORDS] = sentence_requests(probe)
    if plan is not None and Section.DECISIONS in wanted:
        parts[Section.DECISIONS] = plan.requests()
    chosen = _chosen(plan, detail) if plan is not None and Section.DETAIL in wanted else None
    if chosen is not None:
        parts[Section.DETAIL] = detail_requests(chosen.context, chosen.entailed, chosen.contradicted)
    if Section.MANIPULATIONS in wanted and probe.fits_frame:
        parts[Section.MANIPULATIONS] = manipulation_requests(probe)
    bow = scorer.bow_scorer() if corrected else None
    stats = ScoreStats()
    scores = _split(parts, score_cached(bow or scorer, [r for rs in parts.values() for r in rs], cache, stats=stats))
    plain = {k: [unpack_bow(s)[0] for s in v] if bow is not None else v for k, v in scores.items()}
    return _built(scorer, probe, parts, scores, plain, plan=plan, chosen=chosen, packed=bow is not None,
                  reduction=reduction, corrected=corrected, top_k=top_k, stats=stats)


def _built(scorer: RequestScorer, probe: Probe, parts: dict[Section, list[Request]],
           scores: dict[Section, list[TokenScores]], plain: dict[Section, list[TokenScores]], *,
           plan: DecisionPlan | None, chosen: PlannedDecision | None, packed: bool, reduction: Reduction,
           corrected: bool, top_k: int, stats: ScoreStats) -> ProbeSections:
    """Each section built from its own scores (`plain`: without the BOW masses)."""
    sentences = None
    if Section.WORDS in parts:
        cxn, ctl = texts_from_scores(scorer, parts[Section.WORDS], scores[Section.WORDS], packed=packed)
        sentences = (cxn, ctl)
    verdict = plan.decide(plain[Section.DECISIONS], reduction) \
        if plan is not None and Section.DECISIONS in parts else None
    shown = detail_result(scorer, chosen.context, chosen.entailed, chosen.contradicted, plain[Section.DETAIL],
                          reduction=reduction, top_k=top_k) if chosen is not None else None
    rises = manipulation_table(probe, plain[Section.MANIPULATIONS], reduction=reduction) \
        if Section.MANIPULATIONS in parts else None
    return ProbeSections(probe, sentences, word_table(probe, *sentences, corrected=corrected) if sentences else None,
                         verdict, shown, rises, stats)


def _chosen(plan: DecisionPlan, index: int) -> PlannedDecision:
    """The planned decision shown in detail, by its index."""
    if not 0 <= index < len(plan.planned):
        raise InputError(f"there is no decision {index + 1}: this sentence has {len(plan.planned)}")
    return plan.planned[index]


def _split(parts: dict[Section, list[Request]], scores: list[TokenScores]) -> dict[Section, list[TokenScores]]:
    """The flat scores of all parts' requests, handed back to each part."""
    flat = iter(scores)
    return {name: list(islice(flat, len(requests))) for name, requests in parts.items()}
