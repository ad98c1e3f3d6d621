"""BLiMP (Warstadt et al. 2020): grammatical vs ungrammatical minimal pairs, scored as the paper scores them.

A pair is correct when log P(sentence_good) > log P(sentence_bad), each the summed log-probability of
the full sentence (the paper's predict_blimp.py: minicons sequence_score with a sum reduction).
"""
from __future__ import annotations

import json
from collections.abc import Sequence
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

HUB_ID = "nyu-mll/blimp"
PAIR_FIELDS = ("sentence_good", "sentence_bad")
COLUMNS = ["item_id", "paradigm", "pair_id", "field", "linguistics_term", "sentence_good",
           "sentence_bad"]
SUMMARY_GROUPS = {"paradigm": "paradigm_", "linguistics_term": "phenomenon_"}


def load_blimp(source: str | Path = HUB_ID, paradigms: Sequence[str] | None = None,
               limit: int | None = None) -> pd.DataFrame:
    """BLiMP pairs from a folder of <paradigm>.jsonl, one file, or the hub; `limit` per paradigm."""
    check_limit(limit)
    wanted = list(dict.fromkeys(paradigms)) if paradigms else None
    local = local_or_hub(source)
    files = _paradigm_files(local) if local is not None else _hub_files(str(source), wanted)
    if wanted:
        unknown = [name for name in wanted if name not in files]
        if unknown:
            raise InputError(f"unknown BLiMP paradigm(s) {', '.join(unknown)} in {source}; "
                             f"available: {', '.join(sorted(files)) or 'none'}")
        files = {name: files[name] for name in wanted}
    if not files:
        raise InputError(f"no BLiMP paradigm files (jsonl with sentence_good and sentence_bad) in {source}")
    items = pd.concat([_read_paradigm(name, paths, limit) for name, paths in files.items()],
                      ignore_index=True)
    items["item_id"] = item_ids(SuiteName.BLIMP, items, ["paradigm", *PAIR_FIELDS])
    return items[COLUMNS]


def _hub_files(repo_id: str, wanted: list[str] | None) -> dict[str, list[Path]]:
    """Download the wanted paradigms' parquet files (all when None) and list them by paradigm."""
    patterns = [f"{name}/*.parquet" for name in wanted] if wanted else ["*/*.parquet"]
    return _paradigm_files(hub_snapshot(repo_id, patterns))


def _paradigm_files(path: Path) -> dict[str, list[Path]]:
    """Paradigm -> its files: one file, <paradigm>.jsonl in a folder, or <paradigm>/*.parquet (hub layout)."""
    if path.is_file():
        if path.suffix not in (".jsonl", ".parquet"):
            raise InputError(f"{path}: expected a .jsonl or .parquet BLiMP file")
        return {path.stem: [path]}
    files = {jsonl.stem: [jsonl] for jsonl in sorted(path.glob("*.jsonl")) if _holds_pairs(jsonl)}
    for folder in sorted(p for p in path.iterdir() if p.is_dir()):
        parquet = sorted(folder.glob("*.parquet"))
        if parquet:
            files[folder.name] = parquet
    return files


def _holds_pairs(path: Path) -> bool:
    """Whether a jsonl file is a paradigm (first record has the pair fields), unlike models_summary.jsonl."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        first = next((line for line in handle if line.strip()), "")
    try:
        record = json.loads(first)
    except json.JSONDecodeError:
        return True  # reading it as a paradigm reports the bad line with its number
    return not isinstance(record, dict) or all(name in record for name in PAIR_FIELDS)


def _read_paradigm(name: str, paths: list[Path], limit: int | None) -> pd.DataFrame:
    """One paradigm's pairs in file order, cut to `limit`, with the columns every source shares."""
    frames = [read_jsonl(p, PAIR_FIELDS, limit) if p.suffix == ".jsonl" else read_parquet(p, PAIR_FIELDS)
              for p in paths]
    raw = pd.concat(frames, ignore_index=True).head(limit)
    pair_column = next((c for c in ("pairID", "pair_id") if c in raw.columns), None)
    return pd.DataFrame({
        "paradigm": name,
        "pair_id": (raw[pair_column] if pair_column else pd.Series(range(len(raw)))).astype(str),
        "field": raw.get("field", pd.Series([""] * len(raw))).astype(str),
        "linguistics_term": raw.get("linguistics_term", pd.Series([""] * len(raw))).astype(str),
        "sentence_good": raw["sentence_good"].astype(str),
        "sentence_bad": raw["sentence_bad"].astype(str),
    })


def summarize_blimp(scored: pd.DataFrame) -> pd.DataFrame:
    """Accuracy with 95% intervals: 'all', 'paradigm_<name>' and 'phenomenon_<linguistics term>'."""
    return summarize(scored, SuiteName.BLIMP, SUMMARY_GROUPS)


SUITE = BenchmarkSuite(SuiteName.BLIMP, "BLiMP (grammatical vs ungrammatical pairs)", HUB_ID, Reduction.SUM,
                       BenchmarkRule(load_blimp, score_sentence_pairs, summarize_blimp, conditional=False))
