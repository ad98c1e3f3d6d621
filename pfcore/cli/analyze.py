"""`python -m pfcore results ...` (published summaries) and `python -m pfcore analyze ...`."""
from __future__ import annotations

import argparse
import math
import sys
import textwrap
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pfcore.analysis.bands import ITEM_COUNTS_PATH, write_item_counts
from pfcore.analysis.fdcorr import PAPER_VALUES, fd_correlation, paper_comparison
from pfcore.analysis.models import (
    PAPER_P,
    PREDICTORS,
    MixedFit,
    accuracy_data,
    accuracy_parameter_rho,
    fit_mixed,
    refit_variants,
)
from pfcore.analysis.series import available_series, milestones, series_values
from pfcore.cli.common import duplicate_warning
from pfcore.errors import InputError
from pfcore.output import json_text
from pfcore.runs.checkpoints import duplicate_checkpoints
from pfcore.store.fetch import fetch_published
from pfcore.store.published import BUNDLE_PATH, bundle_published, collection_of, manifest_path
from pfcore.store.published_tsv import PUBLISHED_COMMIT, PUBLISHED_REPO
from pfcore.store.results import import_bundled, import_published, load_results, results_path, summarize

SERIES_HELP = ("CONSTRUCTION:FILTER[@METRIC], e.g. let_alone:aligned, pf_avg:all, "
               "ewok:domain_physical-relations, blimp:all, syntax:Avg_Test")


def _print_json(data: object) -> None:
    """JSON on stdout; NaN (an undefined value) and an infinity become null so any JSON reader accepts it."""
    def clean(value: object) -> object:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value
    print(json_text(clean(data), indent=2))


def cmd_import(args: argparse.Namespace) -> int:
    """Import every published summary under PATH (or the bundled table) into the results table."""
    if bool(args.path) == args.bundled:
        raise InputError("give the folder of the published summaries, or --bundled for the table that "
                         "ships with pfcore (not both)")
    rows = import_bundled(replace=args.replace) if args.bundled else import_published(Path(args.path),
                                                                                        replace=args.replace)
    summary = summarize(rows)
    label = collection_of(str(rows["source"].iloc[0]))
    if args.json:
        _print_json({**summary, "label": label})
        return 0
    print(f"imported {summary['rows']} rows from {summary['sources']} files into {results_path()}, "
          f"as source {label}")
    models: dict[str, dict[str, Any]] = summary["models"]  # type: ignore[assignment]
    for model, info in models.items():
        print(f"  {model}: {info['rows']} rows, {info['revisions']} revisions, "
              f"suites {', '.join(info['suites'])}")
    return 0


def cmd_bundle(args: argparse.Namespace) -> int:
    """Make the bundled table (and the item-set counts beside it) from a published folder."""
    out = Path(args.out)
    manifest = bundle_published(Path(args.source), repository=args.repository, commit=args.commit,
                                path=out / BUNDLE_PATH.name)
    counts = write_item_counts(out / ITEM_COUNTS_PATH.name)
    print(f"wrote {out / BUNDLE_PATH.name}: {manifest['rows']:,} rows from {manifest['files']} files for "
          f"{manifest['models']} models ({manifest['bytes']:,} bytes, sha256 {manifest['sha256']}), its manifest "
          f"{manifest_path(out / BUNDLE_PATH.name)}, and {len(counts)} item-set counts in "
          f"{out / ITEM_COUNTS_PATH.name}")
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    """Download the published summaries from GitHub into DEST."""
    files = fetch_published(Path(args.dest))
    print(f"downloaded {len(files)} files into {args.dest}; now run "
          f"`python -m pfcore results import {args.dest}`")
    return 0


def cmd_fdcorr(args: argparse.Namespace) -> int:
    """First-difference correlation of two series of one model."""
    table = load_results()
    duplicates = duplicate_checkpoints(table, args.model)
    for duplicate in duplicates:
        print(duplicate_warning(duplicate, excluded=args.drop_duplicate_checkpoints), file=sys.stderr)
    result = fd_correlation(table, args.model, args.x, args.y, zscale=args.zscale, source=args.source,
                            drop_duplicates=args.drop_duplicate_checkpoints)
    paper = paper_comparison(table, result, source=args.source, drop_duplicates=args.drop_duplicate_checkpoints)
    if args.json:
        extra = {"paper": {"spearman": paper.paper.printed, "where": paper.paper.where, "note": paper.note()}} \
            if paper else {}
        _print_json({**result.summary(), "duplicate_checkpoints": [asdict(d) for d in duplicates], **extra})
        return 0
    how = "z-scaled changes, first checkpoint as 0" if result.zscale else "changes"
    print(f"{result.model}: {result.x} vs {result.y} ({how}, n={result.n}, "
          f"steps {result.steps[0]}..{result.steps[-1]})")
    print(f"  Spearman rho = {result.spearman:.3f} (p = {result.spearman_p:.3g})"
          + (f"   the paper: {paper.paper.printed}" if paper else ""))
    print(f"  Pearson r    = {result.pearson:.3f} (p = {result.pearson_p:.3g})")
    if paper:
        print(textwrap.fill(paper.note(), width=100, initial_indent="  ", subsequent_indent="  "))
    return 0


def cmd_series(args: argparse.Namespace) -> int:
    """List the series names one model's checkpoints support."""
    for name in available_series(load_results(), args.model):
        print(name)
    return 0


def cmd_peak(args: argparse.Namespace) -> int:
    """Peak checkpoint of each series and the first checkpoint near that peak."""
    table = load_results()
    found = [milestones(series_values(table, args.model, name, args.source), args.fraction)
             for name in args.series]
    if args.json:
        _print_json([asdict(m) for m in found])
        return 0
    for m in found:
        print(f"{m.series}: peak {m.peak_value:.3f} at step {m.peak_step}; first within "
              f"{m.fraction:.0%} of it at step {m.near_peak_step}")
    return 0


def _fit_table(fit: MixedFit) -> str:
    """A fit's coefficients as aligned text."""
    rows = [f"  {row.term:<20} {row.coef:9.3f}  se {row.se:7.3f}  z {row.z:7.2f}  p {row.p:.3g}"
            for row in fit.coefficients.itertuples(index=False)]
    return "\n".join([f"{fit.formula}  (n={fit.n_obs}, models={fit.n_models}, random intercept per model)", *rows])


def cmd_mixed(args: argparse.Namespace) -> int:
    """Mixed-effects model of accuracy: all predictors, then each predictor alone."""
    results = load_results() if args.data != "paper" else None
    data = accuracy_data(args.data, results, args.models)
    fits = {"full": fit_mixed(data)}
    fits.update({name: fit_mixed(data, (name,)) for name in PREDICTORS})
    refits = refit_variants() if args.refits else None
    if args.json:
        out: dict[str, object] = {name: fit.summary() for name, fit in fits.items()}
        if refits is not None:
            out["refits"] = refits.to_dict(orient="records")
        _print_json(out)
        return 0
    print("\n\n".join(_fit_table(fit) for fit in fits.values()))
    if refits is not None:
        print(f"\nThe paper reports p = {PAPER_P} for ln parameters; not reproduced, cause unknown. Refits:")
        print(refits.to_string(index=False))
    return 0


def cmd_rho(args: argparse.Namespace) -> int:
    """Spearman's rho of per-model average accuracy against parameter count."""
    results = load_results() if args.data != "paper" else None
    rho = accuracy_parameter_rho(accuracy_data(args.data, results, args.models))
    if args.json:
        _print_json(asdict(rho))
        return 0
    print(f"Spearman rho (average accuracy vs parameters) = {rho.rho:.3f} "
          f"(p = {rho.p:.3g}, n = {rho.n} models)")
    return 0


def _add_data_options(parser: argparse.ArgumentParser) -> None:
    """--data and --models, shared by the across-model analyses."""
    parser.add_argument("--data", choices=("paper", "runs", "both"), default="paper",
                        help="the paper's Table 6 + 9, your runs, or both (default paper)")
    parser.add_argument("--models", type=Path,
                        help="CSV with hf_id, parameters, pretraining_tokens, model_type for "
                             "run models that Table 9 lacks")
    parser.add_argument("--json", action="store_true", help="print JSON")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `results` and `analyze` commands."""
    results = subparsers.add_parser("results", help="the results table: import or fetch the "
                                                    "paper's published summaries")
    rsub = results.add_subparsers(dest="results_command", required=True)
    p = rsub.add_parser("import", help="read every summary TSV under PATH (or the bundled table) into the table")
    p.add_argument("path", nargs="?", help="the outputs_summary folder of the paper's repository")
    p.add_argument("--bundled", action="store_true",
                   help="the published results that ship with pfcore (no network), instead of a folder")
    p.add_argument("--replace", action="store_true",
                   help="replace this folder's earlier import although its files have changed (other "
                        "sources are never touched)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=cmd_import)
    p = rsub.add_parser("bundle", help="make the bundled published table from an outputs_summary folder")
    p.add_argument("--from", dest="source", required=True, metavar="FOLDER",
                   help="the outputs_summary folder of the paper's repository at COMMIT")
    p.add_argument("--commit", default=PUBLISHED_COMMIT, help="the commit FOLDER was taken from (default "
                   "the pinned one)")
    p.add_argument("--repository", default=PUBLISHED_REPO, help="the repository FOLDER was taken from")
    p.add_argument("--out", default=str(BUNDLE_PATH.parent),
                   help="where to write the table, its manifest and the item-set counts (default data/reference)")
    p.set_defaults(func=cmd_bundle)
    p = rsub.add_parser("fetch", help="download the published summaries from GitHub into DEST")
    p.add_argument("dest", help="folder to write them to")
    p.set_defaults(func=cmd_fetch)

    analyze = subparsers.add_parser("analyze", help="correlations, mixed-effects model, rho")
    asub = analyze.add_subparsers(dest="analyze_command", required=True)
    p = asub.add_parser("fdcorr", help="first-difference correlation of two series over "
                                       "checkpoints")
    paper = PAPER_VALUES[0]
    p.add_argument("--model", default=paper.model, help=f"default {paper.model}, as the paper ({paper.where})")
    p.add_argument("--x", default=paper.x, help=f"{SERIES_HELP}; default {paper.x}")
    p.add_argument("--y", default=paper.y, help=f"{SERIES_HELP}; default {paper.y}")
    p.add_argument("--zscale", action="store_true",
                   help="the authors' procedure: changes z-scored over the whole source file, "
                        "first checkpoint kept as 0")
    p.add_argument("--source", help="use only rows whose source starts with this")
    p.add_argument("--drop-duplicate-checkpoints", action="store_true",
                   help="leave out steps whose weights are the same as an earlier step's (recorded by own runs)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_fdcorr)
    p = asub.add_parser("series", help="list the series a model's checkpoints support")
    p.add_argument("--model", required=True)
    p.set_defaults(func=cmd_series)
    p = asub.add_parser("peak", help="when each series peaks over checkpoints")
    p.add_argument("--model", required=True)
    p.add_argument("--series", required=True, nargs="+", help=SERIES_HELP)
    p.add_argument("--fraction", type=float, default=0.95,
                   help="report the first checkpoint reaching this fraction of the peak")
    p.add_argument("--source", help="use only rows whose source starts with this")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_peak)
    p = asub.add_parser("mixed", help="accuracy ~ log parameters + log tokens + architecture, "
                                      "random intercept per model")
    _add_data_options(p)
    p.add_argument("--refits", action="store_true", help="also refit the paper's data under each explanation "
                   "of its difference from the paper (rounding, sizes, t vs z, ML, family, Table 5)")
    p.set_defaults(func=cmd_mixed)
    p = asub.add_parser("rho", help="Spearman's rho of average accuracy vs parameter count")
    _add_data_options(p)
    p.set_defaults(func=cmd_rho)
