"""`pfcore export lm-eval DIR`: the Paired-Focus suites as lm-evaluation-harness tasks (docs/lm-eval.md)."""
from __future__ import annotations

import argparse
from pathlib import Path

from pfcore.cli.common import add_constructions_arg, positive_int
from pfcore.names import SuiteName
from pfcore.suites.base import RunConfig


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `export` sub-command and its `lm-eval` target."""
    p = sub.add_parser("export", help="the Paired-Focus suites as tasks of another evaluation engine",
                       description="Write the suites' items as tasks another engine runs.")
    targets = p.add_subparsers(dest="target", required=True, metavar="TARGET")
    t = targets.add_parser("lm-eval", help="EleutherAI's lm-evaluation-harness tasks (docs/lm-eval.md)",
                           description="Write lm-eval task files (a group per suite, a task per construction) "
                           "and their documents into DIR: `lm_eval --include_path DIR --tasks "
                           "paired_focus_SUITE --log_samples` then requests exactly the log-likelihoods "
                           "pfcore's decisions need; `pfcore run --scores` reads its sample log back.")
    t.add_argument("dir", help="folder for the task files (created if need be)")
    t.add_argument("--suite", default=SuiteName.SEMANTIC.value, choices=[SuiteName.SEMANTIC.value,
                                                                          SuiteName.SYNTAX.value])
    t.add_argument("--construction", default="all",
                   help="the paper's four (all, the default), or one or more by name, joined by commas, "
                        "or one of --constructions DIR")
    add_constructions_arg(t)
    t.add_argument("--limit-blocks", type=positive_int, help="only the first N blocks (or base sentences) "
                   "of each construction")
    t.set_defaults(func=export)


def export(args: argparse.Namespace) -> int:
    """Write the tasks and say how to run them."""
    from pfcore.runs.lm_eval import export_tasks, group_name

    names = tuple(n.strip() for n in args.construction.split(",") if n.strip())
    config = RunConfig(suite=args.suite, constructions=() if "all" in names else names,
                       limit_blocks=args.limit_blocks)
    written = export_tasks(args.suite, config, Path(args.dir))
    tasks = sum(1 for p in written if p.name.endswith(".jsonl"))
    print(f"{len(written)} files in {Path(args.dir)}: group {group_name(config.suite)}, {tasks} task(s)")
    print(f"run: lm_eval --model hf --model_args pretrained=MODEL --include_path {args.dir} "
          f"--tasks {group_name(config.suite)} --output_path OUT --log_samples")
    return 0
