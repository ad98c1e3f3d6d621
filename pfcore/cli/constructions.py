"""`pfcore constructions list|check`: the constructions pfcore knows (the paper's four, and a user's
folder of definitions), and the check of one definition file (docs/constructions.md)."""
from __future__ import annotations

import argparse
from pathlib import Path

from pfcore.cli.common import add_constructions_arg
from pfcore.errors import InputError
from pfcore.items.constructions import Definition, constructions, read_definition
from pfcore.items.definition_checks import definition_problems, frame_names
from pfcore.items.lexicon import load_lexicon
from pfcore.output import json_text


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `constructions` command and its sub-commands."""
    command = subparsers.add_parser("constructions", help="list the constructions, or check a definition file")
    sub = command.add_subparsers(dest="constructions_command", required=True)
    listing = sub.add_parser("list", help="the paper's four and those of --constructions DIR")
    add_constructions_arg(listing)
    listing.add_argument("--json", action="store_true", help="print them as JSON")
    listing.set_defaults(func=list_command)
    check = sub.add_parser("check", help="check one definition file (exit 2 with its problems)")
    check.add_argument("path", type=Path, help="a construction definition (*.yaml)")
    add_constructions_arg(check)
    check.set_defaults(func=check_command)
    frames = sub.add_parser("frames", help="the lexicon's frame names, as a definition's `frames` lists them")
    frames.set_defaults(func=frames_command)


def described(definition: Definition) -> dict[str, object]:
    """A definition as plain data."""
    return {"name": definition.name, "words": list(definition.words), "licensing": definition.licensing,
            "focus2": definition.focus2, "controls": {"semantic": definition.semantic_control,
                                                      "syntax": definition.syntax_control},
            "tests": {"semantic": definition.semantic, "syntax": list(definition.syntax),
                      "affinity": definition.affinity},
            "frames": list(definition.frames) or "all",
            "verb_form": "gerund" if definition.gerund_foci else "bare",
            "look_alike": [{"reads_as": p.reads_as, "before": list(p.before), "after": list(p.after)}
                           for p in definition.look_alikes] or definition.look_alike, **definition.record()}


def list_command(args: argparse.Namespace) -> int:
    """Print every known construction, the paper's four first."""
    found = constructions(args.constructions)
    if args.json:
        print(json_text([described(d) for d in found.values()]))
        return 0
    for d in found.values():
        tests = ", ".join(t for t, on in (("semantic", d.semantic), ("syntax", d.syntax), ("affinity", d.affinity))
                          if on)
        print(f"{d.name:<16} '{d.connective}'  {d.licensing} context, focus 2 {d.focus2}; tests {tests} "
              f"({d.origin}, {d.path.name})")
    return 0


def check_command(args: argparse.Namespace) -> int:
    """Check a definition: its one-line summary, or its problems (exit 2 through the CLI's boundary)."""
    definition = read_definition(args.path)
    known = constructions(args.constructions)
    clash = known.get(definition.name)
    if clash is not None and clash.built_in:
        raise InputError(f"{args.path}: name: {definition.name!r} is a built-in construction; choose another name")
    problems = definition_problems(definition, known.values(), load_lexicon())
    if problems:
        raise InputError("; ".join(problems))
    print(f"{args.path}: a valid definition of {definition.name} ('{definition.connective}', "
          f"{definition.licensing} context, focus 2 {definition.focus2})")
    return 0


def frames_command(args: argparse.Namespace) -> int:
    """Print the lexicon's frame names, one a line."""
    print("\n".join(frame_names(load_lexicon())))
    return 0
