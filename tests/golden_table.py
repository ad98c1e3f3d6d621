"""The golden table: per-item scores (6 decimals) and every filter's accuracy of the semantic and
syntactic suites, 5 blocks of each construction, on the embedded default model. A silent change of
numbers fails `tests/test_golden.py`; a deliberate one is re-pinned with

    .venv/bin/python -m tests.golden_table --write
"""
from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from pfcore.models.spec import DEFAULT_MODEL, ModelSpec
from pfcore.suites.base import RunConfig
from pfcore.suites.runner import run_suite

BLOCKS = 5
SUITES = ("semantic", "syntax")
NAME = f"{DEFAULT_MODEL}__{'-'.join(SUITES)}__{BLOCKS}-blocks"
PATH = Path(__file__).parent / "golden" / f"{NAME}.csv"
DIGITS = 6
VALUE_COLUMNS = {"semantic": ("logp_easier", "logp_harder", "logodds"), "syntax": ("score",)}


def golden_table(out: Path | None = None) -> pd.DataFrame:
    """Run both suites (score cache off) and return one long table: per-item values, then every
    summary value, rounded to 6 decimals."""
    frames = []
    for suite in SUITES:
        config = RunConfig(suite=suite, limit_blocks=BLOCKS, use_cache=False, out=str(out / suite) if out else None)
        record = run_suite(ModelSpec(), config)
        rows = record.tables["rows"].melt(id_vars=["item_id", "construction"], value_vars=list(VALUE_COLUMNS[suite]),
                                          var_name="name", value_name="value")
        summary = record.summary.melt(id_vars=["construction", "filter"],
                                      value_vars=["accuracy", "ci_low", "ci_high", "n"], var_name="metric")
        frames += [rows.assign(suite=suite, kind="item", key=rows["item_id"] + ":" + rows["name"]),
                   summary.assign(suite=suite, kind="summary",
                                  key=summary["filter"] + ":" + summary["metric"])]
    table = pd.concat(frames, ignore_index=True)[["suite", "kind", "construction", "key", "value"]]
    return table.assign(value=table["value"].astype(float).round(DIGITS))


def main() -> None:
    """Print the table, or write it to tests/golden/ with --write."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    table = golden_table()
    if args.write:
        table.to_csv(PATH, index=False)
        print(f"wrote {len(table)} values to {PATH}")
    else:
        print(table.to_string())


if __name__ == "__main__":
    main()
