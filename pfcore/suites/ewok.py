"""EWoK (Ivanova et al. 2025): world knowledge as targets that fit one context and not the other.

Scored as in the paper's predict_ewok.py / eval_blimp.py: log P(target | context) for the four
(context, target) combinations; an item is correct only when
P(Target1 | Context1) > P(Target1 | Context2) and P(Target2 | Context2) > P(Target2 | Context1)
(chance is 25%). Accuracy is reported overall and per domain.

EWoK's terms forbid plain-text copies: a zip is read member by member into memory, and a hub
download goes to a temporary folder that is deleted as soon as the items are in memory.
"""
from __future__ import annotations

import tempfile
import zipfile
import zlib
from pathlib import Path

import pandas as pd

from pfcore.errors import InputError
from pfcore.names import Reduction, SuiteName
from pfcore.suites.benchmarks import BenchmarkRule, BenchmarkSuite
from pfcore.suites.benchmarks_common import (
    ConditionalScorer,
    Progress,
    check_limit,
    conditional_scores,
    hub_snapshot,
    item_ids,
    local_or_hub,
    parse_csv,
    read_jsonl,
    read_parquet,
    summarize,
)

HUB_ID = "ewok-core/ewok-core-1.0"
FIELDS = ("Domain", "Context1", "Context2", "Target1", "Target2")
RENAME = {"Domain": "domain", "Context1": "context1", "Context2": "context2", "Target1": "target1",
          "Target2": "target2", "ContextType": "context_type", "ContextDiff": "context_diff",
          "TargetDiff": "target_diff", "ConceptA": "concept_a", "ConceptB": "concept_b"}
COLUMNS = ["item_id", *RENAME.values()]
DATA_SUFFIXES = (".parquet", ".csv", ".jsonl", ".zip")  # in a folder, the first kind present is read
SCORE_COLUMNS = {  # column -> (context, target)
    "logprob_t1_c1": ("context1", "target1"),
    "logprob_t1_c2": ("context2", "target1"),
    "logprob_t2_c1": ("context1", "target2"),
    "logprob_t2_c2": ("context2", "target2"),
}


def load_ewok(source: str | Path = HUB_ID, password: str | None = None, limit: int | None = None) -> pd.DataFrame:
    """EWoK items from a (password-protected) zip, a folder or file of csv/parquet/jsonl, or the hub."""
    check_limit(limit)
    local = local_or_hub(source)
    if local is None:
        with tempfile.TemporaryDirectory(prefix="pfcore-ewok-") as tmp:
            folder = hub_snapshot(str(source), [f"*{suffix}" for suffix in DATA_SUFFIXES],
                                  local_dir=Path(tmp))
            raw = _read_folder(folder, password)
    else:
        raw = _read_folder(local, password) if local.is_dir() else _read_file(local, password)
    raw = raw.head(limit)
    items = pd.DataFrame({new: raw[old].astype(str) if old in raw.columns else ""
                          for old, new in RENAME.items()})
    items["item_id"] = item_ids(SuiteName.EWOK, items, ["domain", "context1", "context2", "target1", "target2"])
    return items[COLUMNS]


def _read_folder(folder: Path, password: str | None) -> pd.DataFrame:
    """All data files of the first kind found under `folder` (parquet, csv, jsonl, zip), in path order."""
    for suffix in DATA_SUFFIXES:
        paths = sorted(p for p in folder.rglob(f"*{suffix}")
                       if not any(part.startswith(".") for part in p.relative_to(folder).parts))
        if paths:
            return pd.concat([_read_file(p, password) for p in paths], ignore_index=True)
    raise InputError(f"no EWoK data in {folder}: expected .parquet, .csv, .jsonl or .zip files")


def _read_file(path: Path, password: str | None) -> pd.DataFrame:
    """One EWoK file, by its suffix."""
    if path.suffix == ".zip":
        return _read_zip(path, password)
    if path.suffix == ".csv":
        return parse_csv(path.read_text(encoding="utf-8"), str(path), FIELDS)
    if path.suffix == ".parquet":
        return read_parquet(path, FIELDS)
    if path.suffix == ".jsonl":
        return read_jsonl(path, FIELDS)
    raise InputError(f"{path}: expected a .zip, .csv, .parquet or .jsonl EWoK file")


def _read_zip(path: Path, password: str | None) -> pd.DataFrame:
    """Every csv member of a (ZipCrypto) zip, decrypted in memory and never written to disk."""
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise InputError(f"{path}: not a zip file") from exc
    with archive:
        members = sorted((info for info in archive.infolist()
                          if info.filename.endswith(".csv") and not info.filename.startswith("__MACOSX")),
                         key=lambda info: info.filename)
        if not members:
            raise InputError(f"{path}: the zip holds no .csv files")
        return pd.concat([_read_member(archive, info, path, password) for info in members],
                         ignore_index=True)


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path, password: str | None) -> pd.DataFrame:
    """One csv member, decrypted with `password` when it is encrypted."""
    where = f"{path}:{info.filename}"
    if info.flag_bits & 0x1 and not password:
        raise InputError(f"{path} is password-protected: pass its password "
                         f"(for EWoK it is given in section 3 of its terms of use)")
    try:
        data = archive.read(info, pwd=password.encode() if password else None)
    except (RuntimeError, zlib.error, zipfile.BadZipFile) as exc:
        raise InputError(f"{path}: wrong password (cannot decrypt {info.filename})") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not UTF-8 text") from exc
    return parse_csv(text, where, FIELDS)


def score_ewok(items: pd.DataFrame, score_fn: ConditionalScorer, batch_size: int = 32,
               progress: Progress | None = None) -> pd.DataFrame:
    """Items with the four log P(target | context) and correct (both targets prefer their own context)."""
    contexts = [items[context] for context, _ in SCORE_COLUMNS.values()]
    targets = [items[target] for _, target in SCORE_COLUMNS.values()]
    scores = conditional_scores(pd.concat(contexts).tolist(), pd.concat(targets).tolist(), score_fn,
                                batch_size, progress)
    scored = items.copy()
    for block, column in enumerate(SCORE_COLUMNS):
        scored[column] = scores[block * len(items):(block + 1) * len(items)]
    scored["correct"] = ((scored["logprob_t1_c1"] > scored["logprob_t1_c2"])
                         & (scored["logprob_t2_c2"] > scored["logprob_t2_c1"]))
    return scored


def summarize_ewok(scored: pd.DataFrame) -> pd.DataFrame:
    """Accuracy with 95% intervals: 'all' and 'domain_<domain>' (the published summaries' names)."""
    return summarize(scored, SuiteName.EWOK, {"domain": "domain_"})


SUITE = BenchmarkSuite(SuiteName.EWOK, "EWoK (world knowledge)", HUB_ID, Reduction.MEAN,
                       BenchmarkRule(load_ewok, score_ewok, summarize_ewok, conditional=True, needs_password=True),
                       chance=0.25)
