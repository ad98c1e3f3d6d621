"""`python -m pfcore`: one sub-command per area. Only the chosen command's module is imported
(torch and transformers load only when a command needs them), so help is instant."""
from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from pfcore.errors import PfcoreError

# command -> (module exposing `register(subparsers)`, one-line help for the command list)
COMMANDS: dict[str, tuple[str, str]] = {
    "score": ("pfcore.scoring.cli", "score a continuation given a prefix, or one sentence"),
    "items": ("pfcore.items.cli", "generate or check item files (semantic, syntax, affinity)"),
    "run": ("pfcore.suites.cli", "run a test suite on a model"),
    "trajectory": ("pfcore.suites.cli", "run suites over a model's checkpoints"),
    "results": ("pfcore.analysis.cli", "import or fetch the published per-checkpoint results"),
    "analyze": ("pfcore.analysis.cli", "correlations, mixed-effects model, rho over results"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; the chosen command's module registers its real sub-parsers, the others are
    listed by name and help only."""
    parser = argparse.ArgumentParser(prog="python -m pfcore",
                                     description="Paired-Focus construction tests for language models.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if command in COMMANDS:
        importlib.import_module(COMMANDS[command][0]).register(sub)
    for name, (_module, help_text) in COMMANDS.items():
        if name not in sub.choices:
            sub.add_parser(name, help=help_text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a PfcoreError becomes a one-line message and exit status 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(command).parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except PfcoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: finished work is kept in the score cache; run again to resume",
              file=sys.stderr)
        return 130
