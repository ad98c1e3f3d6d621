"""`python -m pfcore run`: run a suite on one model with a progress bar, save its record,
print the accuracies (or one JSON summary)."""
from __future__ import annotations

import argparse
import os
import sys

from pfcore.cli.common import (
    add_checkpoint_args,
    add_constructions_arg,
    add_model_args,
    duplicate_warning,
    positive_int,
    progress_view,
    spec_from_args,
)
from pfcore.errors import InputError
from pfcore.items.schema import CONSTRUCTIONS
from pfcore.models.precision import precision_note
from pfcore.models.spec import DEFAULT_MODEL, ModelSpec
from pfcore.names import Reduction, SuiteName
from pfcore.output import json_text
from pfcore.progress import ProgressView
from pfcore.runs.checkpoints import checkpoints, duplicate_checkpoints, series_name
from pfcore.runs.report import main_table, summary_json
from pfcore.runs.runner import RunConfig, run_suite
from pfcore.runs.trajectory import run_trajectory
from pfcore.scoring.kinds import all_methods, scores
from pfcore.store.results import load_results
from pfcore.store.runs import RunRecord
from pfcore.suites.registry import SUITES

ALL_SUITES = tuple(SUITES)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `run` and `trajectory` sub-commands."""
    register_trajectory(sub)
    p = sub.add_parser("run", help="run a test suite on a model",
                       description="Score a suite's items, decide each pair, report accuracy "
                       "with 95%% intervals, and save a run record under cache/runs/.")
    p.add_argument("--suite", default=SuiteName.SEMANTIC.value, choices=ALL_SUITES,
                   help="Paired-Focus suites (semantic, syntax, affinity) or a comparison benchmark")
    add_run_args(p)
    p.add_argument("--out", help="folder for the run record (default: cache/runs/<run id>)")
    p.add_argument("--scores", help="a scores file of a model run elsewhere, in place of loading one: its id, "
                   "logprob and n_tokens of every text `pfcore items SUITE --sentences` lists; --model names "
                   "the model that made them (docs/words-and-regions.md); or an lm-eval sample log, "
                   "samples_paired_focus_SUITE_..._DATE.jsonl, of the tasks `pfcore export lm-eval` wrote "
                   "(docs/lm-eval.md)")
    p.add_argument("--json", action="store_true", help="print one JSON summary object")
    add_model_args(p)
    p.set_defaults(func=run)


def register_trajectory(sub: argparse._SubParsersAction) -> None:
    """Add the `trajectory` sub-command."""
    p = sub.add_parser("trajectory", help="run suites over a model's checkpoints",
                       description="Run suites at each checkpoint (one loaded at a time); results go "
                       "into the results table as each finishes, so a rerun resumes.")
    add_checkpoint_args(p)
    p.add_argument("--suite", default="semantic,syntax",
                   help=f"comma-separated suites from: {', '.join(ALL_SUITES)}")
    add_run_args(p)
    p.add_argument("--json", action="store_true", help="print the finished runs as JSON")
    add_model_args(p)
    p.set_defaults(func=trajectory)


def add_run_args(p: argparse.ArgumentParser) -> None:
    """Options shared by `run` and `trajectory`."""
    p.add_argument("--construction", default="all",
                   help="the paper's four (all, the default), or one or more by name, joined by commas: "
                        f"{', '.join(CONSTRUCTIONS)}, or one of --constructions DIR")
    add_constructions_arg(p)
    p.add_argument("--items", help="item file (ours, or the published TSVs); for blimp/comps/ewok "
                   "a local folder or file, or a hub id (default: shipped items / the hub)")
    p.add_argument("--limit-blocks", type=positive_int, help="only the first N blocks (or base sentences) "
                   "of each construction; for benchmarks the first N items (per BLiMP paradigm)")
    p.add_argument("--password", help="password of a protected EWoK zip (or set PFCORE_EWOK_PASSWORD)")
    p.add_argument("--scoring", choices=[m.value for m in all_methods()],
                   help="causal models: causal, in every suite. Masked models: semantic reads the blank "
                   "(masked-token, the default) or takes pll-original or pll-l2r; syntax, syntaxgym and the "
                   "benchmarks take pll-original (default) or pll-l2r (syntax reads masked-token as "
                   "pll-original); affinity always uses its own global-affinity")
    p.add_argument("--reduction", choices=tuple(Reduction), default=Reduction.MEAN.value,
                   help="log-prob per token (the paper's code) or summed")
    p.add_argument("--bos", action="store_true", help="prepend BOS so first tokens are scored")
    p.add_argument("--corrected", action=argparse.BooleanOptionalAction, default=True,
                   help="syntaxgym, causal models: regions summed over words with the beginning-of-word "
                   "correction (default); --no-corrected sums token surprisals, as syntaxgym-core does")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the score cache")
    p.add_argument("--chunk", type=positive_int, default=2048, help="requests scored between two commits "
                   "to the score cache (what an interruption can lose at most)")


def config_from_args(args: argparse.Namespace, suite: SuiteName) -> RunConfig:
    """The RunConfig the arguments describe."""
    names = tuple(n.strip() for n in args.construction.split(",") if n.strip())
    constructions = () if "all" in names else names
    return RunConfig(suite=suite, constructions=constructions, items_path=args.items,
                     limit_blocks=args.limit_blocks, scoring=args.scoring,
                     reduction=args.reduction, bos=args.bos, corrected=args.corrected,
                     use_cache=not args.no_cache,
                     chunk=args.chunk, out=getattr(args, "out", None),
                     password=args.password or os.environ.get("PFCORE_EWOK_PASSWORD"))


def run_spec(args: argparse.Namespace) -> ModelSpec:
    """The model of a run: the one --model loads, or, with --scores FILE, the model --model names,
    whose scores the file holds."""
    if not args.scores:
        return spec_from_args(args)
    if args.model == DEFAULT_MODEL:
        raise InputError("with --scores FILE, name the model the scores come from with --model NAME "
                         "(it is what the results table and the pages show)")
    return scores.KIND.attach(args.model, args.scores)


def run(args: argparse.Namespace) -> int:
    """Run the suite and print its results."""
    config = config_from_args(args, args.suite)
    bar = progress_view(f"{config.suite}", enabled=sys.stderr.isatty() or not args.json)
    if args.scores and args.scores.lower().endswith(".jsonl"):
        return run_lm_eval_log(args, config, bar)
    return report(run_suite(run_spec(args), config, bar), args.json)


def report(record: RunRecord, as_json: bool, extra: dict[str, object] | None = None) -> int:
    """Print a run's accuracies (or one JSON summary, with `extra` under its keys)."""
    if as_json:
        print(json_text({**summary_json(record), **(extra or {})}))
        return 0
    m = record.manifest
    print(f"{m.suite} suite, {m.model.label} ({m.scoring}, {m.model.dtype} on {m.model.device}), "
          f"{m.items.count} items, {m.timings_s.score_s:.1f} s scoring")
    if note := precision_note(m.model.dtype):
        print(f"note: {note}")
    print(main_table(m.suite, record.summary))
    print(f"record: {record.path}")
    return 0


def run_lm_eval_log(args: argparse.Namespace, config: RunConfig, bar: ProgressView | None) -> int:
    """Run the suite from lm-eval sample logs (docs/lm-eval.md), recording where its scores came from."""
    from pfcore.runs.lm_eval import run_from_log

    record, provenance = run_from_log(args.scores, None if args.model == DEFAULT_MODEL else args.model, config,
                                      lambda line: print(line, file=sys.stderr), bar)
    return report(record, args.json, {"lm_eval": provenance})


def trajectory(args: argparse.Namespace) -> int:
    """Run the suites over the checkpoints, skipping what an earlier run finished."""
    names = [x.strip() for x in args.suite.split(",") if x.strip()]
    unknown = set(names) - set(ALL_SUITES)
    if unknown or not names:
        raise InputError(f"unknown suite(s) {', '.join(sorted(unknown)) or '(none)'}; "
                         f"choose from {', '.join(ALL_SUITES)}")
    suites = [SuiteName(x) for x in names]
    spec = spec_from_args(args)
    points = checkpoints(spec, args.revisions, args.checkpoint_dir)
    name = series_name(spec, args.checkpoint_dir, args.name)
    quiet = args.json
    table = run_trajectory(name, points, suites, config_from_args(args, suites[0]),
                           report=lambda msg: _report(msg, quiet),
                           progress_for=lambda label: progress_view(label, enabled=not quiet))
    for duplicate in duplicate_checkpoints(load_results(), name):
        print(duplicate_warning(duplicate, excluded=False), file=sys.stderr)
    if quiet:
        print(table.to_json(orient="records"))
    else:
        print(f"trajectory {name!r}: {len(table)} (checkpoint, suite) runs recorded; "
              f"see `python -m pfcore analyze series --model {name}`")
    if note := precision_note(spec.dtype):
        print(f"note: {note}", file=sys.stderr if quiet else sys.stdout)
    return 0


def _report(message: str, quiet: bool) -> None:
    """A trajectory's line: warnings always to stderr, the rest to stdout unless printing JSON."""
    if message.startswith("warning:"):
        print(message, file=sys.stderr)
    elif not quiet:
        print(message)
