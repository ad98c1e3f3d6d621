"""The golden table: per-item scores (6 decimals), every pairwise decision, and every filter's accuracy
of the semantic and syntactic suites, 5 blocks of each construction, on the embedded default model.
A silent change of numbers fails `tests/unit/test_golden.py`; a deliberate one is re-pinned with

    .venv/bin/python -m tests.golden_table --write   [--threads N]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from pfcore.files import write_atomic
from pfcore.models.spec import DEFAULT_MODEL, ModelSpec
from pfcore.names import SuiteName
from pfcore.runs.runner import run_suite
from pfcore.suites.base import RunConfig

BLOCKS = 5
SUITES = (SuiteName.SEMANTIC, SuiteName.SYNTAX)
NAME = f"{DEFAULT_MODEL}__{'-'.join(SUITES)}__{BLOCKS}-blocks"
PATH = Path(__file__).parent / "golden" / f"{NAME}.csv"
DIGITS = 6
SCORE_COLUMNS = {SuiteName.SEMANTIC: ("logp_easier", "logp_harder", "logodds"), SuiteName.SYNTAX: ("score",)}
SUMMARY_METRICS = ("accuracy", "ci_low", "ci_high", "n")
ITEM, DECISION, SUMMARY = "item", "decision", "summary"  # the table's kinds of row


def golden_table(out: Path | None = None, device: str = "cpu") -> pd.DataFrame:
    """Run both suites (score cache off) on `device` and return one long table: per-item scores, each
    pair's decision (1 correct, 0 not), then every summary value, rounded to 6 decimals."""
    frames = []
    for suite in SUITES:
        config = RunConfig(suite=suite, limit_blocks=BLOCKS, use_cache=False, out=str(out / suite) if out else None)
        record = run_suite(ModelSpec(device=device), config)
        frames += [_scores(record.tables["rows"], suite).assign(suite=suite),
                   _decisions(record.tables["decisions"]).assign(suite=suite),
                   _summary(record.summary).assign(suite=suite)]
    table = pd.concat(frames, ignore_index=True)[["suite", "kind", "construction", "key", "value"]]
    return table.assign(value=table["value"].astype(float).round(DIGITS))


def _scores(rows: pd.DataFrame, suite: SuiteName) -> pd.DataFrame:
    """Each item's scores, keyed item_id:column."""
    long = rows.melt(id_vars=["item_id", "construction"], value_vars=list(SCORE_COLUMNS[suite]), var_name="name")
    return long.assign(kind=ITEM, key=long["item_id"] + ":" + long["name"])


def _decisions(decided: pd.DataFrame) -> pd.DataFrame:
    """Each pair's decision, keyed by its construction item: item_id:correct."""
    return pd.DataFrame({"kind": DECISION, "construction": decided["construction"],
                         "key": decided["item_id"] + ":correct", "value": decided["correct"].astype(int)})


def _summary(summary: pd.DataFrame) -> pd.DataFrame:
    """Every filter's accuracy, interval and count, keyed filter:metric."""
    long = summary.melt(id_vars=["construction", "filter"], value_vars=list(SUMMARY_METRICS), var_name="metric")
    return long.assign(kind=SUMMARY, key=long["filter"] + ":" + long["metric"])


def read_table(path: Path = PATH) -> pd.DataFrame:
    """A golden table from its CSV (the pinned one by default), its values parsed back to the very
    floats that were written."""
    table = pd.read_csv(path, keep_default_na=False, float_precision="round_trip")
    return table.assign(value=table["value"].astype(float))


def main() -> None:
    """Print the table, or write it to tests/golden/ (or to FILE) with --write [FILE]."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", nargs="?", const=PATH, type=Path, metavar="FILE",
                        help="write the table to FILE (default: the pinned one in tests/golden/)")
    parser.add_argument("--threads", type=int, help="torch's intra-op threads (default: as the environment sets)")
    args = parser.parse_args()
    import torch  # the model loads torch anyway; the thread count is set before it runs

    if args.threads:
        torch.set_num_threads(args.threads)
    table = golden_table()
    if args.write:
        write_atomic(args.write, table.to_csv(index=False), "the golden table")
        print(f"wrote {len(table)} values to {args.write} ({torch.get_num_threads()} torch threads)")
    else:
        print(table.to_string())


if __name__ == "__main__":
    main()
