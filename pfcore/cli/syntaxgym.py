"""`pfcore syntaxgym sentences|evaluate`: a SyntaxGym suite's sentences for a model run elsewhere, and
the suite evaluated from that model's token surprisals (an lm-zoo file), as syntaxgym-core did."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from pfcore.files import write_output
from pfcore.items.syntaxgym import read_suite, read_suite_json
from pfcore.output import json_text
from pfcore.scoring.lmzoo import read_surprisals
from pfcore.suites.syntaxgym import FileEvaluation, evaluate_surprisals, evaluated_json, suite_sentences

REGION_COLUMNS = ("item_number", "condition_name", "region_number", "region_name", "content")
DIGITS = 4  # of the values in the printed tables (--json keeps them whole)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `syntaxgym` command and its sub-commands."""
    gym = subparsers.add_parser("syntaxgym", help="a SyntaxGym suite's sentences, and the suite evaluated from "
                                "token surprisals made elsewhere (lm-zoo's format)")
    sub = gym.add_subparsers(dest="syntaxgym_command", required=True)
    sentences = sub.add_parser("sentences", help="the suite's sentences, one a line, in syntaxgym-core's order")
    sentences.add_argument("suite", type=Path, help="a SyntaxGym suite JSON")
    sentences.add_argument("--out", type=Path, help="file to write (default: standard output)")
    sentences.set_defaults(func=sentences_command)
    evaluate = sub.add_parser("evaluate", help="region surprisals and predictions from an lm-zoo surprisal file",
                              description="Align each sentence's tokens to its regions, aggregate their "
                              "surprisals (bits) with the suite's metrics, and evaluate its predictions.")
    evaluate.add_argument("suite", type=Path, help="a SyntaxGym suite JSON")
    evaluate.add_argument("--surprisals", type=Path, required=True,
                          help="token surprisals: sentence_id, token_id, token, surprisal (bits), tab-separated")
    evaluate.add_argument("--json", action="store_true",
                          help="write the suite with a metric_value per region, as syntaxgym-core's output files")
    evaluate.add_argument("--model-name", help="with --json: the model's name, recorded in meta.model")
    evaluate.add_argument("--out", type=Path, help="file to write (default: standard output)")
    evaluate.set_defaults(func=evaluate_command)


def sentences_command(args: argparse.Namespace) -> int:
    """Write the suite's sentences, one a line."""
    suite = read_suite(args.suite)
    sentences = suite_sentences(suite)
    text = "".join(f"{s}\n" for s in sentences)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    write_output(args.out, text, "the sentence file")
    print(f"wrote {len(sentences):,} sentences of suite {suite.name!r} to {args.out}")
    return 0


def evaluate_command(args: argparse.Namespace) -> int:
    """Evaluate the suite from the surprisal file; print or write the tables, or the suite as JSON."""
    suite, data = read_suite_json(args.suite)
    evaluation = evaluate_surprisals(suite, read_surprisals(args.surprisals))
    text = (json_text(evaluated_json(data, evaluation, args.model_name), indent=4) + "\n" if args.json
            else report(evaluation))
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_output(args.out, text, "the evaluated suite" if args.json else "the report")
        print(f"wrote {'the evaluated suite' if args.json else 'the report'} of {suite.name!r} to {args.out}")
    return 0


def report(evaluation: FileEvaluation) -> str:
    """The region table and the predictions with their accuracy and 95% interval, as text."""
    suite, source = evaluation.suite, evaluation.source
    regions = evaluation.rows[[*REGION_COLUMNS, *suite.all_metrics, "n_tokens"]]
    lines = [f"suite {suite.name}: {len(source.sentences):,} sentences, {source.n_tokens:,} tokens; surprisals read "
             f"from a file, {source.label} (sha256 {source.sha256})",
             f"regions: the {', '.join(suite.all_metrics)} of their tokens' surprisals, in bits", "",
             _table(regions), ""]
    if evaluation.summary.empty:
        lines.append("the suite has no predictions")
    else:
        predictions = evaluation.summary.rename(columns={"construction": "suite", "filter": "prediction"})
        lines += [f"predictions (accuracy over items, with its 95% Wilson interval; predictions read the "
                  f"{suite.metric}):", _table(predictions)]
    return "\n".join(lines) + "\n"


def _table(frame: pd.DataFrame) -> str:
    """A table as text, values rounded (and -0, which a `<eos>` of "-0.000000" bits gives, shown as 0)."""
    numbers = frame.select_dtypes("floating").columns
    return frame.assign(**{c: frame[c].round(DIGITS) + 0.0 for c in numbers}).to_string(index=False)
