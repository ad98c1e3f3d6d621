"""`pfcore probe SENTENCE`: the balanced verdict on one sentence, as the Probe page gives it, for
scripts: the decisions (the suite's four for a sentence in the paper's frame, one per follow-up pair
otherwise) and the verdict from all of them, for one or several models, with the sentence word by
word against "or" (--words); or the same over a model's checkpoints (--checkpoint-dir, --revisions)."""
from __future__ import annotations

import argparse
import json
import sys
from contextlib import closing, nullcontext

import pandas as pd

from pfcore.cli_common import add_checkpoint_args, add_model_args, json_rows, specs_from_args
from pfcore.errors import InputError
from pfcore.models.loading import clear_loaded
from pfcore.models.spec import ModelSpec
from pfcore.probe.checkpoints import checkpoint_series, distinct_weights, probe_checkpoint
from pfcore.probe.detect import Probe, analyze_sentence
from pfcore.probe.verdict import CAVEAT, UNIT, ProbeVerdict, anecdote_note, probe_sentence
from pfcore.probe.words import sentence_words
from pfcore.scoring.factory import LazyScorer
from pfcore.scoring.methods import text_method
from pfcore.scoring.requests import REDUCTIONS, RequestScorer
from pfcore.store.cache import ScoreCache
from pfcore.store.results import load_results
from pfcore.suites.trajectory import checkpoints, series_name


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
    p.add_argument("--words", action="store_true", help="add the sentence word by word: each word's surprisal "
                   "(bits) with the construction and with 'or', and the difference")
    p.add_argument("--no-corrected", dest="corrected", action="store_false",
                   help="word surprisal as the sum of its tokens', without the beginning-of-word correction")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the score cache")
    p.add_argument("--json", action="store_true", help="print one JSON object (a list under 'results' "
                   "with several models)")
    add_model_args(p, several=True)
    add_checkpoint_args(p)
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
    """Read the sentence, score it with each model (or at each checkpoint), print the results."""
    probe = analyze_sentence(args.sentence)
    if probe.construction is None:
        raise InputError(probe.message.splitlines()[0])
    pairs = pairs_from_args(args)
    specs = specs_from_args(args)
    with closing(ScoreCache()) if not args.no_cache else nullcontext() as cache:
        if args.revisions or args.checkpoint_dir:
            return _over_checkpoints(args, probe, pairs, specs, cache)
        results = [(spec, probe_sentence(_scorer(spec), probe, pairs, cache, args.reduction)) for spec in specs]
        words = [sentence_words(_scorer(spec), probe, cache, args.corrected) if args.words else None
                 for spec in specs]
    if args.json:
        objects = [_with_words(r.as_json(spec.label), w) for (spec, r), w in zip(results, words)]
        print(json.dumps(objects[0] if len(objects) == 1 else {"results": objects}, allow_nan=False))
    else:
        print("\n\n".join(text_report(r, spec.label) + ("\n\n" + w.round(3).to_string(index=False)
                                                         if w is not None else "")
                          for (spec, r), w in zip(results, words)))
    return 0


def _scorer(spec: ModelSpec) -> RequestScorer:
    """A model's scorer, loading the model only if a score is not in the cache."""
    return LazyScorer(spec, text_method(spec.kind))


def _with_words(obj: dict[str, object], words: pd.DataFrame | None) -> dict[str, object]:
    """A model's JSON object, with its word table when one was asked for (NaN as null)."""
    if words is None:
        return obj
    return {**obj, "words": json_rows(words)}


def _over_checkpoints(args: argparse.Namespace, probe: Probe, pairs: list[tuple[str, str]],
                      specs: list[ModelSpec], cache: ScoreCache | None) -> int:
    """The sentence at each checkpoint, one loaded at a time, with progress on stderr."""
    if len(specs) > 1:
        raise InputError("checkpoints are read for one model: give one --model with --revisions or --checkpoint-dir")
    points = checkpoints(specs[0], args.revisions, args.checkpoint_dir)
    name = series_name(specs[0], args.checkpoint_dir, args.name)
    probes = []
    for number, point in enumerate(points, start=1):
        probes.append(probe_checkpoint(_scorer(point.spec), point, probe, pairs, cache, args.reduction, args.corrected))
        clear_loaded()  # one checkpoint in memory at a time
        row = probes[-1].row()
        print(f"[{number}/{len(points)}] {point.label}: effect {row['effect']:+.3f} {UNIT[args.reduction]}, "
              f"{row['n_correct']} of {row['n_decisions']} decisions", file=sys.stderr)
    probes, repeats = distinct_weights(probes)
    for warning in repeats:
        print(f"warning: {warning}", file=sys.stderr)
    table = checkpoint_series(probes, load_results(), name, str(probe.construction))
    if args.json:
        print(json.dumps({"series": name, "sentence": probe.text, "construction": probe.construction,
                          "reduction": args.reduction,
                          "effect_unit": UNIT[args.reduction], "focus2_unit": "bits",
                          "checkpoints": json_rows(table)}, allow_nan=False))
    else:
        print(f"{name}: {probe.text!r} (effect: mean over the decisions, {UNIT[args.reduction]}; "
              "focus 2: surprisal in bits)")
        print(table.round(3).to_string(index=False))
    return 0
