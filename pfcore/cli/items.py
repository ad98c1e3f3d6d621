"""`python -m pfcore items semantic|syntax|affinity|check`: generate and validate item files."""
from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pfcore import __version__
from pfcore.cli.common import add_constructions_arg, positive_int
from pfcore.files import check_writable_file, write_output
from pfcore.items.card import build_card, write_card
from pfcore.items.check import check_items
from pfcore.items.formats import FORMATS, format_for, render_items
from pfcore.items.generate import GENERATORS, resolve_constructions
from pfcore.items.lexicon import load_lexicon
from pfcore.items.schema import Item, SemanticItem, SyntaxItem
from pfcore.names import SuiteName
from pfcore.scoring.kinds.scores import text_id
from pfcore.suites import semantic, syntax
from pfcore.suites.base import ItemSuite
from pfcore.suites.registry import get_suite

if TYPE_CHECKING:
    import pandas as pd

HELP = {SuiteName.SEMANTIC: "the semantic suite: blocks of 8 (construction/or x context x follow-up order)",
        SuiteName.SYNTAX: "the syntactic suite: base sentences and five manipulations, with 'and'",
        SuiteName.AFFINITY: "Global Affinity sentences with the spans of each construction's fixed words"}


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `items` command and its sub-commands."""
    items = subparsers.add_parser("items", help="generate and check Paired-Focus item files")
    sub = items.add_subparsers(dest="items_command", required=True)
    for suite, text in HELP.items():
        parser = sub.add_parser(suite, help=text, description=text)
        parser.add_argument("--construction", default="all",
                            help="a construction name, several joined by commas, or all (default: all)")
        parser.add_argument("--paper-compatible", action="store_true",
                            help="reproduce the published items row for row (misspelling and "
                                 "repeated blocks included); no card")
        parser.add_argument("--format", choices=FORMATS,
                            help="file format (default: from the --out name; jsonl otherwise)")
        parser.add_argument("--lexicon", type=Path, help="lexicon YAML (default: data/lexicon.yaml)")
        add_constructions_arg(parser)
        parser.add_argument("--reference", type=Path,
                            help="folder of the published data (meaning_alone/data) to check against in the card")
        parser.add_argument("--out", type=Path, required=True, help="file to write (.gz compresses)")
        parser.add_argument("--limit-blocks", type=positive_int,
                            help="only the first N blocks (base sentences for syntax, sentences for affinity) of "
                                 "each construction, as `run --limit-blocks N` reads them")
        if suite != SuiteName.AFFINITY:  # Global Affinity reads a masked model itself: no texts to score elsewhere
            parser.add_argument("--sentences", action="store_true",
                                help="write, in place of the items, every distinct text a decision needs (id, "
                                     "prefix, text: score each as log P(text | prefix) for run --scores)")
        parser.set_defaults(func=generate_command, suite=suite)
    check = sub.add_parser("check", help="validate an item file and list its problems")
    check.add_argument("path", type=Path, help="item file: paper TSV, CSV or JSONL (.gz too)")
    check.add_argument("--lexicon", type=Path, help="lexicon YAML (default: data/lexicon.yaml)")
    add_constructions_arg(check)
    check.set_defaults(func=check_command)


def _command_line(args: argparse.Namespace) -> str:
    """The command that regenerates this output, for the card."""
    parts = [args.suite]
    if args.construction != "all":
        parts += ["--construction", args.construction]
    for flag in ("format", "lexicon", "constructions", "reference", "limit_blocks"):
        if getattr(args, flag) is not None:
            parts += [f"--{flag.replace('_', '-')}", str(getattr(args, flag))]
    parts += ["--out", str(args.out)]
    return "python -m pfcore items " + " ".join(shlex.quote(p) for p in parts)


def generate_command(args: argparse.Namespace) -> int:
    """Generate one suite's items: the place they go proven writable first, all built before anything is written."""
    check_writable_file(args.out, "the item file")
    lexicon = load_lexicon(args.lexicon)
    definitions = resolve_constructions(lexicon, args.construction.split(","), paper_compatible=args.paper_compatible,
                                        folder=args.constructions)
    names = [d.name for d in definitions]
    items = GENERATORS[args.suite](lexicon, names, paper_compatible=args.paper_compatible, folder=args.constructions)
    suite = get_suite(args.suite)
    if args.limit_blocks and isinstance(suite, ItemSuite):  # every suite `items` writes is one
        items = suite.limit(list(items), args.limit_blocks)
    if getattr(args, "sentences", False):
        table = sentences_table(args.suite, items)
        write_output(args.out, table.to_csv(sep="," if ".csv" in args.out.suffixes else "\t", index=False),
                     "the sentences")
        print(f"wrote the {len(table):,} texts the {args.suite} decisions of {len(items):,} items need to {args.out}")
        return 0
    meta = {"lexicon_version": lexicon.version, "lexicon_sha256": lexicon.sha256,
            "paper_compatible": args.paper_compatible, "constructions": names,
            "generator": f"pfcore {__version__}"}
    text = render_items(items, format_for(args.out, args.format), meta)
    card = None if args.paper_compatible else build_card(items, lexicon, definitions, _command_line(args),
                                                         args.reference)
    write_output(args.out, text, "the item file")
    print(f"wrote {len(items):,} {args.suite} items ({', '.join(names)}; lexicon {lexicon.version}) to {args.out}")
    if card is not None:
        md_path, json_path = write_card(args.out, *card)
        print(f"dataset card: {md_path} and {json_path}")
    return 0


def sentences_table(suite: SuiteName, items: Sequence[Item]) -> pd.DataFrame:
    """Every distinct text a suite's decisions need, in the order they are scored, with its id
    (`scoring.kinds.scores.text_id`): what a model run elsewhere scores for `run --scores`."""
    import pandas as pd  # only where a table is made

    requests = (semantic.requests([i for i in items if isinstance(i, SemanticItem)]) if suite == SuiteName.SEMANTIC
                else syntax.requests([i for i in items if isinstance(i, SyntaxItem)]))
    unique = list(dict.fromkeys(requests))
    return pd.DataFrame({"id": [text_id(r.prefix, r.text) for r in unique], "prefix": [r.prefix for r in unique],
                         "text": [r.text for r in unique]})


def check_command(args: argparse.Namespace) -> int:
    """List an item file's problems; exit status 1 when there are any."""
    problems = check_items(args.path, load_lexicon(args.lexicon))
    for problem in problems:
        print(problem)
    print(f"{args.path}: " + (f"{len(problems)} kinds of problem" if problems else "no problems"),
          file=sys.stderr if problems else sys.stdout)
    return 1 if problems else 0

