"""`python -m pfcore`: one sub-command per area; each area registers its own parsers."""
from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from pfcore.errors import PfcoreError

# Each module exposes `register(subparsers)`; a registered parser sets `func(args) -> int`.
COMMAND_MODULES = (
    "pfcore.scoring.cli",
    "pfcore.items.cli",
    "pfcore.suites.cli",
    "pfcore.analysis.cli",
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every area's sub-commands."""
    parser = argparse.ArgumentParser(prog="python -m pfcore", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a PfcoreError becomes a one-line message and exit status 2."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except PfcoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: finished work is kept in the score cache; run again to resume",
              file=sys.stderr)
        return 130
