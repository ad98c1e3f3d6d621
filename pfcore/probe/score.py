"""Scoring one probe: the follow-ups after the construction and after "or", the log-odds shifts,
the construction's effect, per-token tables, and the syntactic manipulations' surprisal rises."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from pfcore.errors import InputError
from pfcore.probe.detect import FRAME_EXAMPLE, Probe, checked_pair, checked_reduction
from pfcore.scoring.requests import LN2, Reduction, Request, RequestScorer, TokenScores
from pfcore.store.cache import ScoreCache, score_cached
from pfcore.suites import syntax

CONTEXTS = ("construction", "control")
FOLLOWUPS = ("entailed", "contradicted")
UNITS = {r: r.unit for r in Reduction}


@dataclass(frozen=True, eq=False)
class ProbeResult:
    """Scores of one probe: the log-odds shift of entailed over contradicted follow-up under the
    construction and under "or", their difference (`effect`), and per-token tables."""

    probe: Probe
    entailed: str
    contradicted: str
    reduction: Reduction
    logprobs: pd.DataFrame  # context, followup, logprob
    shift_construction: float
    shift_control: float
    effect: float
    correct: bool
    verdict: str
    tokens: pd.DataFrame  # one row per token of the six scored texts (see the README, "Probe one sentence")
    moved_most: pd.DataFrame  # followup, position, token, surprisal under each context, change_bits


def score_probe(scorer: RequestScorer, probe: Probe, entailed: str, contradicted: str,
                cache: ScoreCache | None = None, reduction: Reduction = Reduction.MEAN,
                top_k: int = 5) -> ProbeResult:
    """Score both follow-ups after the construction and after "or" (and both sentences alone):
    the log-odds shift of each (nats; mean per token by default, as the paper's code), the
    construction's effect over "or", and per-token tables (surprisal in bits)."""
    if probe.construction is None:
        raise InputError(probe.message)
    reduction = checked_reduction(reduction)
    entailed, contradicted = checked_pair(entailed, contradicted)
    scores = score_cached(scorer, detail_requests(probe, entailed, contradicted), cache)
    return detail_result(scorer, probe, entailed, contradicted, scores, reduction=reduction, top_k=top_k)


def detail_requests(probe: Probe, entailed: str, contradicted: str) -> list[Request]:
    """What one decision's detail scores: both follow-ups after the sentence and after its
    control, then both sentences alone."""
    contexts = (probe.text, probe.control)  # in the order of CONTEXTS, the follow-ups in that of FOLLOWUPS
    return [Request(c, f) for c in contexts for f in (entailed, contradicted)] + [Request("", c) for c in contexts]


def detail_result(scorer: RequestScorer, probe: Probe, entailed: str, contradicted: str,
                  scores: Sequence[TokenScores], *, reduction: Reduction = Reduction.MEAN,
                  top_k: int = 5) -> ProbeResult:
    """One decision in detail from the scores of `detail_requests` (in their order)."""
    contexts = dict(zip(CONTEXTS, (probe.text, probe.control)))
    followups = dict(zip(FOLLOWUPS, (entailed, contradicted)))
    pairs = [(c, f) for c in CONTEXTS for f in FOLLOWUPS]
    logp = {pair: s.reduce(reduction) for pair, s in zip(pairs, scores)}
    shift = {c: logp[(c, "entailed")] - logp[(c, "contradicted")] for c in CONTEXTS}
    effect = shift["construction"] - shift["control"]
    rows = [_token_rows(f"{f} | {c}", c, f, followups[f], s, ()) for (c, f), s in zip(pairs, scores)]
    rows += [_token_rows(c, c, "sentence", contexts[c], s, _unscored_lead(scorer, contexts[c], s))
             for c, s in zip(CONTEXTS, scores[len(pairs):])]
    tokens = pd.DataFrame([r for part in rows for r in part])
    moved = _moved_most(tokens, top_k)
    marked = set(zip(moved["followup"], moved["position"]))
    tokens["moved"] = [key in marked for key in zip(tokens["part"], tokens["position"])]
    return ProbeResult(
        probe, entailed, contradicted, reduction,
        pd.DataFrame([{"context": c, "followup": f, "logprob": logp[(c, f)]} for c, f in pairs]),
        shift["construction"], shift["control"], effect, effect > 0,
        _verdict(probe, shift, UNITS[reduction]), tokens, moved)


def _unscored_lead(scorer: RequestScorer, text: str, scores: TokenScores) -> tuple[str, ...]:
    """The sentence's leading tokens that the scorer leaves unscored (the first one, without BOS)."""
    ids = scorer.text_token_ids(text)
    return scorer.display_tokens(ids[:max(0, len(ids) - len(scores.token_ids))])


def _token_rows(label: str, context: str, part: str, text: str, scores: TokenScores,
                lead: tuple[str, ...]) -> list[dict[str, object]]:
    """Per-token rows of one scored text; unscored leading tokens get NaN and scored=False."""
    unscored = [(t, False, float("nan"), float("nan")) for t in lead]
    scored = [(t, True, float(lp), float(b))
              for t, lp, b in zip(scores.tokens, scores.logprobs, scores.surprisals_bits)]
    return [{"sentence": label, "context": context, "part": part, "text": text, "position": i,
             "token": t, "scored": ok, "logprob": lp, "surprisal_bits": bits}
            for i, (t, ok, lp, bits) in enumerate(unscored + scored)]


def _moved_most(tokens: pd.DataFrame, top_k: int) -> pd.DataFrame:
    """The follow-up tokens whose surprisal changes most from "or" to the construction (bits;
    negative: the construction makes the token less surprising)."""
    followups = tokens[tokens["part"].isin(FOLLOWUPS)]
    by = {c: followups[followups["context"] == c] for c in CONTEXTS}
    both = by["construction"].merge(by["control"], on=["part", "position", "token"],
                                    suffixes=("_construction", "_control"))
    both["change_bits"] = both["surprisal_bits_construction"] - both["surprisal_bits_control"]
    top = both.loc[both["change_bits"].abs().sort_values(ascending=False, kind="stable").index[:top_k]]
    return top.rename(columns={"part": "followup"})[
        ["followup", "position", "token", "surprisal_bits_construction", "surprisal_bits_control",
         "change_bits"]].reset_index(drop=True)


def _verdict(probe: Probe, shift_nats: dict[str, float], unit: str) -> str:
    """The one comparison in words (in bits): the effect, then both log-odds shifts."""
    cxn, ctl = probe.connective, probe.control_word
    shift = {k: v / LN2 for k, v in shift_nats.items()}
    effect = shift["construction"] - shift["control"]
    shifts = (f" (log-odds of entailed over contradicted: {shift['construction']:+.3g} after "
              f"'{cxn}', {shift['control']:+.3g} after '{ctl}').")
    if effect > 0:
        return (f"'{cxn}' moves the model toward the entailed follow-up by {effect:.3g} {unit} "
                f"more than '{ctl}' does" + shifts)
    return (f"'{cxn}' does not move the model toward the entailed follow-up more than '{ctl}' "
            f"does: {-effect:.3g} {unit} less" + shifts)


def score_manipulations(scorer: RequestScorer, probe: Probe, cache: ScoreCache | None = None,
                        reduction: Reduction = Reduction.MEAN) -> pd.DataFrame:
    """Per manipulation, the surprisal rise over the base sentence with the construction and with
    "and" (mean log-prob per token, as the syntactic suite), and whether the construction's is larger."""
    return manipulation_table(probe, score_cached(scorer, manipulation_requests(probe), cache), reduction=reduction)


def manipulation_requests(probe: Probe) -> list[Request]:
    """The manipulated and base sentences of a frame sentence, as the syntactic suite scores them."""
    if not probe.fits_frame:
        raise InputError(f"manipulations need a sentence in the paper's frame, e.g. '{FRAME_EXAMPLE}'")
    return syntax.requests(probe.syntax_items)


def manipulation_table(probe: Probe, scores: Sequence[TokenScores], *,
                       reduction: Reduction = Reduction.MEAN) -> pd.DataFrame:
    """The manipulations' rises from the scores of `manipulation_requests` (in their order)."""
    rows = syntax.row_scores(list(probe.syntax_items), scores, reduction)
    dec = syntax.decisions(rows).set_index("manipulation")
    return pd.DataFrame([{"manipulation": m.name, "kind": m.kind, "sentence": m.sentence,
                          "sentence_and": m.control, "rise_construction": dec.at[m.name, "rise"],
                          "rise_and": dec.at[m.name, "rise_and"], "correct": bool(dec.at[m.name, "correct"])}
                         for m in probe.manipulations])
