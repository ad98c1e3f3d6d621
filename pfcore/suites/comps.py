"""COMPS (Misra, Rayz & Ettinger 2023): does a concept have a property? Scored as the paper scores it.

Each item gives an acceptable and an unacceptable concept phrase for one property ("a robin" /
"a penguin" + "can fly."). As in the paper's predict_comps.py, each full sentence is
prefix.capitalize() + " " + property_phrase and is scored by its summed log-probability; an item is
correct when the acceptable sentence is strictly more probable.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from pfcore.errors import InputError
from pfcore.names import Reduction, SuiteName
from pfcore.suites.benchmarks import BenchmarkRule, BenchmarkSuite
from pfcore.suites.benchmarks_common import (
    check_limit,
    hub_snapshot,
    item_ids,
    local_or_hub,
    read_jsonl,
    read_parquet,
    score_sentence_pairs,
    summarize,
)

HUB_ID = "kanishka/comps"
# The hub repo holds a loading script; the data itself is in its parquet export.
HUB_REVISION = "refs/convert/parquet"
FIELDS = ("prefix_acceptable", "prefix_unacceptable", "property_phrase")
METADATA = ("property", "acceptable_concept", "unacceptable_concept", "negative_sample_type")
COLUMNS = ["item_id", "comps_id", *METADATA, "sentence_good", "sentence_bad"]
SUMMARY_GROUPS = {"negative_sample_type": "negative_"}


def load_comps(source: str | Path = HUB_ID, config: str = "base", limit: int | None = None) -> pd.DataFrame:
    """COMPS items from a comps_<config>.jsonl file, a folder holding one, parquet files, or the hub."""
    check_limit(limit)
    local = local_or_hub(source)
    if local is None:
        folder = hub_snapshot(str(source), [f"{config}/*.parquet", f"{config}/*/*.parquet"],
                              revision=HUB_REVISION)
        files = _config_files(folder, config)
    else:
        files = [local] if local.is_file() else _config_files(local, config)
    raw = pd.concat([_read(path) for path in files], ignore_index=True).head(limit)
    items = pd.DataFrame({
        "comps_id": (raw["id"] if "id" in raw.columns else pd.Series(range(len(raw)))).astype(str),
        **{name: raw[name].astype(str) if name in raw.columns else "" for name in METADATA},
        "sentence_good": comps_sentences(raw["prefix_acceptable"], raw["property_phrase"]),
        "sentence_bad": comps_sentences(raw["prefix_unacceptable"], raw["property_phrase"]),
    })
    items["item_id"] = item_ids(SuiteName.COMPS, items, ["sentence_good", "sentence_bad"])
    return items[COLUMNS]


def comps_sentences(prefixes: pd.Series, property_phrases: pd.Series) -> pd.Series:
    """The paper's sentences: prefix.capitalize() (which lower-cases the rest) + ' ' + property phrase."""
    return prefixes.astype(str).str.capitalize() + " " + property_phrases.astype(str)


def _config_files(folder: Path, config: str) -> list[Path]:
    """One config's files in a folder: comps_<config>.jsonl (GitHub layout) or <config>/**/*.parquet (hub)."""
    jsonl = folder / f"comps_{config}.jsonl"
    if jsonl.is_file():
        return [jsonl]
    parquet = sorted((folder / config).rglob("*.parquet")) if (folder / config).is_dir() else []
    if not parquet:
        raise InputError(f"no COMPS '{config}' data in {folder}: expected comps_{config}.jsonl "
                         f"or {config}/*.parquet")
    return parquet


def _read(path: Path) -> pd.DataFrame:
    """One COMPS file (jsonl or parquet) with its required text fields checked."""
    if path.suffix == ".jsonl":
        return read_jsonl(path, FIELDS)
    if path.suffix == ".parquet":
        return read_parquet(path, FIELDS)
    raise InputError(f"{path}: expected a .jsonl or .parquet COMPS file")


def summarize_comps(scored: pd.DataFrame) -> pd.DataFrame:
    """Accuracy with 95% intervals: 'all' and 'negative_<negative sample type>' (taxonomic, overlap...)."""
    return summarize(scored, SuiteName.COMPS, SUMMARY_GROUPS)


SUITE = BenchmarkSuite(SuiteName.COMPS, "COMPS (concept properties)", HUB_ID, Reduction.SUM,
                       BenchmarkRule(load_comps, score_sentence_pairs, summarize_comps, conditional=False))
