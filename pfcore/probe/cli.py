"""`pfcore probe SENTENCE`: the balanced verdict on one sentence, as the Probe page gives it, for
scripts: the decisions (the suite's four for a sentence in the paper's frame, one per follow-up pair
otherwise) and the verdict from all of them, for one or several models."""
from __future__ import annotations

import argparse
import json
from contextlib import closing, nullcontext

from pfcore.cli_common import add_model_args, specs_from_args
from pfcore.errors import InputError
from pfcore.probe.detect import analyze_sentence
from pfcore.probe.verdict import CAVEAT, ProbeVerdict, anecdote_note, probe_sentence
from pfcore.scoring.factory import scorer_for
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import REDUCTIONS
from pfcore.store.cache import ScoreCache


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `probe` sub-command."""
    p = sub.add_parser("probe", help="the balanced verdict on one sentence with a construction",
                       description="Score one sentence with a Paired-Focus construction against its 'or' "
                       "control: the suite's four decisions for a sentence in the paper's frame, or one "
                       "per --entailed/--contradicted pair; the verdict comes from all of them.")
    p.add_argument("sentence", help='e.g. "You couldn\'t lift a tiny rock, let alone a huge one."')
    p.add_argument("--entailed", action="append", default=[], help="a follow-up the construction entails "
                   "(give it with --contradicted; repeat the pair for more decisions)")
    p.add_argument("--contradicted", action="append", default=[], help="a follow-up it contradicts")
    p.add_argument("--reduction", choices=REDUCTIONS, default="mean",
                   help="mean log-prob per token (the paper's code, default) or sum (a departure from it)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the score cache")
    p.add_argument("--json", action="store_true", help="print one JSON object (a list under 'results' "
                   "with several models)")
    add_model_args(p, several=True)
    p.set_defaults(func=run)


def pairs_from_args(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The follow-up pairs: --entailed and --contradicted given the same number of times."""
    if len(args.entailed) != len(args.contradicted):
        raise InputError(f"give --entailed and --contradicted in pairs ({len(args.entailed)} entailed, "
                         f"{len(args.contradicted)} contradicted)")
    return list(zip(args.entailed, args.contradicted))


def text_report(result: ProbeVerdict, model: str) -> str:
    """The verdict as a few lines of plain text."""
    probe = result.probe
    lines = [f"{model}: '{probe.connective}' in {probe.text!r} against {probe.control!r}",
             f"{'condition':<12} {'effect':>9}  correct   ({result.unit}; shift with the construction "
             "minus shift with 'or')"]
    lines += [f"{d.condition:<12} {d.as_json()['effect']:>+9.3f}  {'yes' if d.correct else 'no'}"
              for d in result.decisions]
    lines.append(f"verdict: {result.verdict} ({result.n_correct} of {len(result.decisions)} decisions)")
    lines.append(anecdote_note(result) if result.anecdote else CAVEAT)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Read the sentence, score its decisions with each model, print the verdicts."""
    probe = analyze_sentence(args.sentence)
    if probe.construction is None:
        raise InputError(probe.message.splitlines()[0])
    pairs = pairs_from_args(args)
    results = []
    for spec in specs_from_args(args):
        scorer = scorer_for(spec, ScoringMethod.CAUSAL if spec.kind == "causal" else ScoringMethod.PLL_ORIGINAL)
        with closing(ScoreCache()) if not args.no_cache else nullcontext() as cache:
            results.append((spec.label, probe_sentence(scorer, probe, pairs, cache, args.reduction)))
    if args.json:
        objects = [r.as_json(label) for label, r in results]
        print(json.dumps(objects[0] if len(objects) == 1 else {"results": objects}, allow_nan=False))
    else:
        print("\n\n".join(text_report(r, label) for label, r in results))
    return 0

