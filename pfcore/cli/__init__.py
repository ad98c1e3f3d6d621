"""`pfcore` / `python -m pfcore`: one sub-command per area, behind one error boundary. Only the
chosen command's module is imported (torch and transformers load only when a command needs them),
so help is instant.

Exit status: 0 done; 2 bad input or a refusal of the machine such as a full disk (one line on
stderr saying what and what to do); 1 a bug in pfcore (one line asking for a report; `--debug`
shows the traceback); 130 interrupted."""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import NoReturn

from pfcore.cli.common import bar_line_ended
from pfcore.errors import InputError, PfcoreError, environment_problem
from pfcore.paths import environment

# command -> (module exposing `register(subparsers)`, one-line help for the command list)
COMMANDS: dict[str, tuple[str, str]] = {
    "score": ("pfcore.cli.score", "score a continuation given a prefix, or one sentence"),
    "probe": ("pfcore.cli.probe", "the balanced verdict on one sentence with a construction"),
    "items": ("pfcore.cli.items", "generate or check item files (semantic, syntax, affinity)"),
    "run": ("pfcore.cli.run", "run a test suite on a model"),
    "syntaxgym": ("pfcore.cli.syntaxgym", "a SyntaxGym suite's sentences; the suite evaluated from surprisals"),
    "trajectory": ("pfcore.cli.run", "run suites over a model's checkpoints"),
    "constructions": ("pfcore.cli.constructions", "list the constructions, or check a definition file"),
    "export": ("pfcore.cli.export", "the suites as lm-evaluation-harness tasks (docs/lm-eval.md)"),
    "sweep": ("pfcore.cli.sweep", "run a sweep plan (models x checkpoints x suites) on Ray"),
    "results": ("pfcore.cli.analyze", "import or fetch the published per-checkpoint results"),
    "analyze": ("pfcore.cli.analyze", "correlations, mixed-effects model, rho over results"),
}
DEBUG_FLAG = "--debug"


class UsageError(InputError):
    """A command line argparse cannot read (shown as one line, exit 2)."""


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised as UsageError instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        """Raise the problem for the boundary to report in one line."""
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def program_name() -> str:
    """How the user called pfcore: `pfcore` (the console script) or `python -m pfcore`."""
    return "python -m pfcore" if sys.argv[0].endswith("__main__.py") else os.path.basename(sys.argv[0] or "pfcore")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; the chosen command's module registers its real sub-parsers, the others are
    listed by name and help only."""
    parser = Parser(prog=program_name(), description="Paired-Focus construction tests for language models.",
                    epilog=f"{DEBUG_FLAG}: show the full traceback of an unexpected error")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if command in COMMANDS:
        importlib.import_module(COMMANDS[command][0]).register(sub)
    for name, (_module, help_text) in COMMANDS.items():
        if name not in sub.choices:
            sub.add_parser(name, help=help_text)
    return parser


def check_arguments(argv: Sequence[str]) -> None:
    """Every argument must be text (an invalid UTF-8 byte from the shell arrives as an unpaired
    surrogate, which would fail much later, on output)."""
    for number, arg in enumerate(argv, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(f"argument {number} is not valid UTF-8 text; retype it") from None


def one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                     line: str | None = None) -> str:
    """Warnings as one line on stderr ("warning: ..."), not a source excerpt."""
    return f"warning: {message}\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command behind the boundary: every failure becomes one line and an exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = DEBUG_FLAG in args_list
    args_list = [a for a in args_list if a != DEBUG_FLAG]
    warnings.formatwarning = one_line_warning
    try:
        check_arguments(args_list)
        command = next((a for a in args_list if not a.startswith("-")), None)
        args = build_parser(command).parse_args(args_list)
        with bar_line_ended(), constructions_folder(getattr(args, "constructions", None)):
            return int(args.func(args) or 0)
    except PfcoreError as exc:
        print(f"error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`pfcore ... | head`): not an error of pfcore's
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's own flush is quiet too
        return 141
    except KeyboardInterrupt:
        print("interrupted: finished work is kept in the score cache; run again to resume", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the boundary: no traceback reaches a user
        problem = environment_problem(exc)
        if problem is not None and not debug:  # the machine's refusal (full disk...): the user's to fix
            print(f"error: {_one_line(str(problem))}", file=sys.stderr)
            return 2
        if debug:
            traceback.print_exc()
        else:
            print(f"error: unexpected {type(exc).__name__}: {_one_line(str(exc))} -- a bug in pfcore; please "
                  f"report it with the command (rerun with {DEBUG_FLAG} for the traceback)", file=sys.stderr)
        return 1


@contextmanager
def constructions_folder(folder: str | None) -> Iterator[None]:
    """--constructions DIR is the folder of definitions for this command and what it starts (sweep
    workers too): it is put where pfcore.items.constructions looks, $PFCORE_CONSTRUCTIONS, until the
    command ends."""
    if not folder:
        yield
        return
    from pfcore.items.constructions import FOLDER_VAR

    with environment(**{FOLDER_VAR: folder}):
        yield


def _one_line(text: str) -> str:
    """A message on one line: its lines joined by ' / ' (lists of problems stay readable)."""
    return " / ".join(line.strip() for line in text.splitlines() if line.strip()) or "(no message)"
