"""`pfcore probe SENTENCE`: the balanced verdict on one sentence, as the Probe page gives it, for
scripts: the decisions (the suite's four for a sentence in the paper's frame; for any other, two per
follow-up pair, on the sentence as typed and with its foci swapped) and the verdict from all of
them, beside the model's suite accuracy, for one or several models; the sentence word by word
against "or" (--words, also without any pair); proposed follow-ups (--propose, --auto scores them);
or the same over a model's checkpoints (--checkpoint-dir, --revisions). Every model's sections are
scored in one scorer call (`pfcore.probe.sections`)."""
from __future__ import annotations

import argparse
import sys

import pandas as pd

from pfcore.analysis.base_rates import base_rates, describe_base_rates
from pfcore.cli.common import (
    add_checkpoint_args,
    add_constructions_arg,
    add_model_args,
    json_rows,
    print_envelope,
    specs_from_args,
)
from pfcore.errors import InputError
from pfcore.models.spec import ModelSpec
from pfcore.names import Reduction
from pfcore.output import json_text
from pfcore.probe.checkpoints import CheckpointProbe, effect_column, model_scorer, probe_checkpoints
from pfcore.probe.detect import Probe, analyze_sentence
from pfcore.probe.propose import Proposal, propose_followups
from pfcore.probe.sections import ProbeSections, Section, probe_sections
from pfcore.probe.verdict import CAVEAT, UNIT, ProbeVerdict, anecdote_note
from pfcore.probe.view import with_base_rates
from pfcore.runs.checkpoints import checkpoints, series_name
from pfcore.scoring.requests import LN2, REDUCTIONS
from pfcore.store.cache import ScoreCache
from pfcore.store.results import load_results

NO_PAIR = ("give a follow-up pair (--entailed E --contradicted C): one the construction entails and one it "
           "contradicts; or --propose to see proposed ones (--auto scores them), or --words for the sentence "
           "word by word (sentences in the paper's frame get the suite's four decisions)")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `probe` sub-command."""
    p = sub.add_parser("probe", help="the balanced verdict on one sentence with a construction",
                       description="Score one sentence with a Paired-Focus construction against its 'or' "
                       "control: the suite's four decisions for a sentence in the paper's frame, or two per "
                       "--entailed/--contradicted pair (the sentence as typed and with its foci swapped); the "
                       "verdict comes from all of them, beside the model's suite accuracy.")
    p.add_argument("sentence", help='e.g. "You couldn\'t lift a tiny rock, let alone a huge one."')
    p.add_argument("--entailed", action="append", default=[], help="a follow-up the construction entails "
                   "(give it with --contradicted; repeat the pair for more decisions)")
    p.add_argument("--contradicted", action="append", default=[], help="a follow-up it contradicts")
    p.add_argument("--propose", action="store_true", help="print the follow-ups pfcore proposes for the "
                   "sentence, in the paper's form (not scored)")
    p.add_argument("--auto", action="store_true", help="score the proposed follow-ups as a pair (implies --propose)")
    p.add_argument("--reduction", choices=REDUCTIONS, default=Reduction.MEAN.value,
                   help="mean log-prob per token (the paper's code, default) or sum (a departure from it)")
    p.add_argument("--words", action="store_true", help="add the sentence word by word: each word's surprisal "
                   "(bits) with the construction and with 'or', and the difference (needs no follow-up pair)")
    p.add_argument("--no-corrected", dest="corrected", action="store_false",
                   help="word surprisal as the sum of its tokens', without the beginning-of-word correction")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the score cache")
    p.add_argument("--json", action="store_true", help="print one JSON object (a list under 'results' "
                   "with several models); alone, what was read in the sentence, nothing scored")
    add_model_args(p, several=True)
    add_constructions_arg(p)
    add_checkpoint_args(p)
    p.set_defaults(func=run)


def pairs_from_args(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The follow-up pairs: --entailed and --contradicted given the same number of times."""
    if len(args.entailed) != len(args.contradicted):
        raise InputError(f"give --entailed and --contradicted in pairs ({len(args.entailed)} entailed, "
                         f"{len(args.contradicted)} contradicted)")
    return list(zip(args.entailed, args.contradicted))


def proposed_pairs(probe: Probe, proposal: Proposal | None, pairs: list[tuple[str, str]],
                   *, auto: bool) -> list[tuple[str, str]]:
    """The proposed pair to score with --auto (none for a frame sentence without pairs: its block
    already holds the proposed follow-ups; none when the proposal failed its check, which the
    output says); an InputError saying why when nothing could be proposed or scored."""
    if not auto or proposal is None or (probe.fits_frame and not pairs):
        return []
    if proposal.pair is None:
        raise InputError(f"--auto: no follow-ups could be proposed: {proposal.reason}")
    if not proposal.scorable:
        if pairs:
            return []
        raise InputError(f"--auto: the proposed follow-ups are not scored: {proposal.not_scored}")
    return [proposal.pair]


def text_report(result: ProbeVerdict, model: str, *, rates: pd.DataFrame | None = None) -> str:
    """The verdict as a few lines of plain text, with the suite's accuracy beside each decision."""
    table = with_base_rates(result.table(), rates if rates is not None else pd.DataFrame())
    lines = [_heading(result.probe, model)]
    if result.swap_note and not result.anecdote:  # the anecdote note says it too
        lines.append(f"({result.swap_note})")
    lines.append(f"{'condition':<22} {'effect':>9}  correct  suite accuracy (n)   ({result.unit}; shift with the "
                 "construction minus shift with 'or')")
    for d, row in zip(result.decisions, table.to_dict("records")):
        suite = f"{row['suite_accuracy']:.3f} (n = {row['suite_n']:.0f})" if pd.notna(row.get("suite_accuracy")) \
            else "-"
        lines.append(f"{d.condition:<22} {d.effect / LN2:>+9.3f}  {'yes' if d.correct else 'no':<7}  {suite}")
    lines.append(f"verdict: {result.reading()}")
    if rates is not None:
        lines.append(f"base rate: {describe_base_rates(rates, str(result.probe.construction))}")
    lines.append(anecdote_note(result) if result.anecdote else CAVEAT)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Read the sentence, score it with each model (or at each checkpoint), print the results."""
    probe = analyze_sentence(args.sentence)
    if probe.construction is None:
        raise InputError(probe.message)  # whole: its examples too, on the one line the CLI prints
    pairs = pairs_from_args(args)
    proposal = propose_followups(probe) if args.propose or args.auto else None
    proposed = proposed_pairs(probe, proposal, pairs, auto=args.auto)
    has_decisions = bool(pairs or proposed) or probe.fits_frame
    over_checkpoints = bool(args.revisions or args.checkpoint_dir)
    if not (has_decisions or args.words or proposal or over_checkpoints or args.json):
        raise InputError(NO_PAIR)  # with --json alone, what was read is printed (foci, kinds, control)
    specs = specs_from_args(args)
    with ScoreCache.when(not args.no_cache) as cache:
        if over_checkpoints:
            return _over_checkpoints(args, probe, pairs + proposed, specs, cache)
        sections = {s for s, on in ((Section.DECISIONS, has_decisions), (Section.WORDS, args.words)) if on}
        results = [(spec, probe_sections(model_scorer(spec), probe, sections=sections, pairs=pairs, proposed=proposed,
                                         cache=cache, reduction=args.reduction, corrected=args.corrected)
                    if sections else ProbeSections(probe)) for spec in specs]
    table = load_results() if has_decisions else None
    rates = {spec.label: base_rates(table, spec.name, str(probe.construction)) if table is not None else None
             for spec in specs}
    if args.json:
        print_envelope([_json(spec.label, r, rates[spec.label], proposal, args) for spec, r in results])
    else:
        print("\n\n".join(_text(spec.label, r, rates[spec.label], proposal, args) for spec, r in results))
    return 0


def _heading(probe: Probe, model: str) -> str:
    """The first line of a model's report: the connective, the sentence and its control."""
    return f"{model}: '{probe.connective}' in {probe.text!r} against {probe.control!r}"


def _text(model: str, result: ProbeSections, rates: pd.DataFrame | None, proposal: Proposal | None,
          args: argparse.Namespace) -> str:
    """One model's plain-text report: the verdict, the proposal, the words (each when there)."""
    parts = [text_report(result.verdict, model, rates=rates) if result.verdict else _heading(result.probe, model)]
    if proposal is not None:
        parts.append(_proposal_text(proposal, scored=args.auto))
    if result.words is not None:
        parts.append(result.words.round(3).to_string(index=False))
    return "\n\n".join(parts)


def _proposal_text(proposal: Proposal, *, scored: bool) -> str:
    """The proposed follow-ups (or why there are none) as lines of text."""
    if proposal.pair is None:
        return f"proposed follow-ups: none ({proposal.reason})"
    status = "scored above with --auto" if scored else "a proposal, not scored: edit it, or score it with --auto"
    if not proposal.scorable:
        status = f"shown, not scored ({proposal.not_scored})"
    return (f"proposed follow-ups, from {proposal.source}; {status}:\n  entailed:     {proposal.entailed}\n"
            f"  contradicted: {proposal.contradicted}")


def _json(model: str, result: ProbeSections, rates: pd.DataFrame | None, proposal: Proposal | None,
          args: argparse.Namespace) -> dict[str, object]:
    """One model's JSON object: the detection, then the verdict with its base rate, the proposals
    and the words, each only when there."""
    verdict = result.verdict
    obj: dict[str, object] = verdict.as_json(model) if verdict else {"model": model, **result.probe.as_json()}
    if verdict is not None and rates is not None:
        obj["decisions"] = json_rows(with_base_rates(verdict.table(), rates))
        obj["base_rate"] = {"note": describe_base_rates(rates, str(result.probe.construction)),
                            "rows": json_rows(rates)}
    if proposal is not None:
        obj["proposals"] = [proposal.as_json(scored=args.auto)]
    if result.words is not None:
        obj["words"] = json_rows(result.words)
    return obj


def _over_checkpoints(args: argparse.Namespace, probe: Probe, pairs: list[tuple[str, str]],
                      specs: list[ModelSpec], cache: ScoreCache | None) -> int:
    """The sentence at each checkpoint (`probe_checkpoints`: one loaded at a time), with a line
    per checkpoint on stderr."""
    if len(specs) > 1:
        raise InputError("checkpoints are read for one model: give one --model with --revisions or --checkpoint-dir")
    points = checkpoints(specs[0], args.revisions, args.checkpoint_dir)
    name = series_name(specs[0], args.checkpoint_dir, args.name)
    effect = effect_column(args.reduction)

    def done(number: int, total: int, scored: CheckpointProbe) -> None:
        row = scored.row()
        print(f"[{number}/{total}] {scored.point.label}: effect {row[effect]:+.3f} {UNIT[args.reduction]}, "
              f"{row['n_correct']} of {row['n_decisions']} decisions", file=sys.stderr)

    series = probe_checkpoints(points, probe, pairs, series=name, results=load_results(), cache=cache,
                               reduction=args.reduction, corrected=args.corrected, done=done)
    for warning in series.repeats:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        print(json_text({"series": name, "sentence": probe.text, "construction": probe.construction,
                          "reduction": args.reduction, "corrected": args.corrected,
                          "effect_unit": UNIT[args.reduction], "focus2_unit": "bits",
                          "checkpoints": json_rows(series.table)}))
    else:
        print(f"{name}: {probe.text!r} (effect: mean over the decisions, {UNIT[args.reduction]}; "
              f"focus 2: surprisal in bits{'' if args.corrected else ', without the beginning-of-word correction'})")
        print(series.table.round(3).to_string(index=False))
    return 0
