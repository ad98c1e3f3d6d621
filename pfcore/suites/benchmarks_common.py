"""Shared plumbing of the comparison benchmarks (BLiMP, COMPS, EWoK): files, hub, scoring, summaries."""
from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import requests
from huggingface_hub import snapshot_download
from huggingface_hub.errors import (
    GatedRepoError,
    HfHubHTTPError,
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from pfcore.errors import InputError
from pfcore.intervals import accuracy
from pfcore.items.schema import content_hash
from pfcore.store.result_rows import RESULT_COLUMNS, step_from_revision

SequenceScorer = Callable[[list[str]], list[float]]
"""log P(sentence) for each full sentence, summed over its tokens."""

ConditionalScorer = Callable[[list[str], list[str]], list[float]]
"""log P(continuation | prefix) for each (prefix, continuation) pair, summed over the continuation."""

Progress = Callable[[int, int], None]
"""progress(done, total), called after each scored batch; counts distinct scoring requests."""

SUMMARY_COLUMNS = ["benchmark", "filter", "n", "correct", "accuracy", "ci_low", "ci_high"]
SUMMARY_METRICS = ("accuracy", "ci_low", "ci_high", "n")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


# ---------------------------------------------------------------- sources and files

def local_or_hub(source: str | Path) -> Path | None:
    """The local path `source` names, or None when it is a hub id; InputError when it is neither."""
    path = Path(source).expanduser()
    if path.exists():
        return path
    if isinstance(source, str) and _HUB_ID.match(source):
        return None
    raise InputError(f"no such file or folder: {path} (give a local path or a Hugging Face dataset id)")


def hub_snapshot(repo_id: str, allow_patterns: Sequence[str], revision: str | None = None,
                 local_dir: Path | None = None) -> Path:
    """Download the matching files of a hub dataset repo (HF cache, or `local_dir`); return its folder."""
    try:
        folder = snapshot_download(repo_id, repo_type="dataset", revision=revision,
                                   allow_patterns=list(allow_patterns), local_dir=local_dir)
    except GatedRepoError as exc:
        raise InputError(f"{repo_id} is gated on the Hugging Face hub: accept its terms at "
                         f"https://huggingface.co/datasets/{repo_id}, log in with `hf auth login`, "
                         f"or pass a local path") from exc
    except RevisionNotFoundError as exc:
        raise InputError(f"the Hugging Face hub has no revision {revision!r} of {repo_id}: "
                         f"pass a local path") from exc
    except RepositoryNotFoundError as exc:
        raise InputError(f"no dataset {repo_id} on the Hugging Face hub (or it is private): "
                         f"check the name or pass a local path") from exc
    except (LocalEntryNotFoundError, OfflineModeIsEnabled, requests.ConnectionError,
            requests.Timeout, HfHubHTTPError) as exc:
        raise InputError(f"could not reach the Hugging Face hub for {repo_id}: pass a local path") from exc
    return Path(folder)


def read_jsonl(path: Path, required: Sequence[str], limit: int | None = None) -> pd.DataFrame:
    """The first `limit` records (all when None) of a JSON-lines file, each checked by `_parse_record`."""
    records: list[dict] = []
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if limit is not None and len(records) >= limit:
                    break
                if line.strip():
                    records.append(_parse_record(line, f"{path}:{number}", required))
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text") from exc
    return pd.DataFrame.from_records(records) if records else pd.DataFrame(columns=list(required))


def _parse_record(line: str, where: str, required: Sequence[str]) -> dict:
    """One JSON object with text in every `required` field; otherwise an InputError at `where` (file:line)."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg})") from exc
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(record).__name__}")
    missing = [name for name in required if not isinstance(record.get(name), str)]
    if missing:
        raise InputError(f"{where}: missing text field(s) {', '.join(missing)}")
    return record


def parse_csv(text: str, where: str, required: Sequence[str]) -> pd.DataFrame:
    """Rows of CSV text whose leading '#' lines (EWoK's canary) are skipped; every cell stays a string."""
    lines = text.splitlines(keepends=True)
    skipped = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    try:
        frame = pd.read_csv(io.StringIO("".join(lines[skipped:])), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"{where}: not a readable CSV table ({exc})") from exc
    check_columns(frame, required, where, first_line=skipped + 2)
    return frame


def read_parquet(path: Path, required: Sequence[str]) -> pd.DataFrame:
    """A parquet table whose required columns are all present and filled."""
    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: not a readable parquet file ({exc})") from exc
    check_columns(frame, required, str(path), first_line=None)
    return frame


def check_columns(frame: pd.DataFrame, required: Sequence[str], where: str, first_line: int | None) -> None:
    """Raise InputError when a required column is absent or a cell of it is empty (with its line or row)."""
    missing = [name for name in required if name not in frame.columns]
    if missing:
        raise InputError(f"{where}: missing column(s) {', '.join(missing)}")
    for name in required:
        empty = frame[name].isna() | (frame[name].astype(str).str.strip() == "")
        if empty.any():
            row = int(np.flatnonzero(empty.to_numpy())[0])
            place = f"line {row + first_line}" if first_line is not None else f"row {row + 1}"
            raise InputError(f"{where}: {place}: empty {name}")


def item_ids(benchmark: str, frame: pd.DataFrame, columns: Sequence[str]) -> list[str]:
    """Stable content-hash ids; a repeated item gets '-2', '-3'... so ids stay unique."""
    bases = [f"{benchmark}-{content_hash(benchmark, *map(str, values))}"
             for values in frame[list(columns)].itertuples(index=False)]
    repeat = pd.Series(bases, dtype=object).groupby(bases, sort=False).cumcount() + 1
    return [base if n == 1 else f"{base}-{n}" for base, n in zip(bases, repeat)]


def check_limit(limit: int | None) -> None:
    """InputError unless `limit` is None or a positive number of items."""
    if limit is not None and limit < 1:
        raise InputError(f"limit must be a positive number of items, got {limit}")


# ---------------------------------------------------------------- scoring

def _score_requests(jobs: Sequence[tuple[str, ...]],
                    score_batch: Callable[[list[tuple[str, ...]]], list[float]],
                    batch_size: int, progress: Progress | None) -> np.ndarray:
    """Score each distinct request once, longest first so batches pad little, and map back to input order."""
    if batch_size < 1:
        raise InputError(f"batch size must be at least 1, got {batch_size}")
    unique = list(dict.fromkeys(jobs))
    order = sorted(range(len(unique)), key=lambda i: -sum(len(part) for part in unique[i]))
    values = np.full(len(unique), np.nan)
    for start in range(0, len(order), batch_size):
        batch = order[start:start + batch_size]
        scores = score_batch([unique[i] for i in batch])
        if len(scores) != len(batch):
            raise ValueError(f"scorer returned {len(scores)} scores for {len(batch)} texts")
        values[batch] = scores
        if progress is not None:
            progress(start + len(batch), len(unique))
    position = {job: i for i, job in enumerate(unique)}
    return values[[position[job] for job in jobs]] if jobs else values


def sequence_scores(texts: Sequence[str], score_fn: SequenceScorer, batch_size: int,
                    progress: Progress | None = None) -> np.ndarray:
    """log P(text) of each full sentence, through `score_fn`, each distinct text scored once."""
    return _score_requests([(text,) for text in texts],
                           lambda batch: score_fn([text for (text,) in batch]), batch_size, progress)


def conditional_scores(prefixes: Sequence[str], continuations: Sequence[str],
                       score_fn: ConditionalScorer, batch_size: int,
                       progress: Progress | None = None) -> np.ndarray:
    """log P(continuation | prefix) of each pair, through `score_fn`, each distinct pair scored once."""
    return _score_requests(list(zip(prefixes, continuations, strict=True)),
                           lambda batch: score_fn([p for p, _ in batch], [c for _, c in batch]),
                           batch_size, progress)


def score_sentence_pairs(items: pd.DataFrame, score_fn: SequenceScorer, batch_size: int,
                         progress: Progress | None = None) -> pd.DataFrame:
    """Score sentence_good and sentence_bad; correct when the good sentence is strictly more probable."""
    texts = items["sentence_good"].tolist() + items["sentence_bad"].tolist()
    scores = sequence_scores(texts, score_fn, batch_size, progress)
    scored = items.assign(logprob_good=scores[:len(items)], logprob_bad=scores[len(items):])
    scored["correct"] = scored["logprob_good"] > scored["logprob_bad"]
    return scored


# ---------------------------------------------------------------- summaries and results

def summarize(scored: pd.DataFrame, benchmark: str, groups: Mapping[str, str]) -> pd.DataFrame:
    """Accuracy with its 95% interval overall ('all') and per non-empty value of each `groups` column.

    `groups` maps a column to the prefix of its filter names, e.g. {"domain": "domain_"}.
    """
    groups_present = [(column, prefix) for column, prefix in groups.items() if column in scored.columns]
    rows = [_summary_row(benchmark, "all", scored["correct"])] + [
        _summary_row(benchmark, f"{prefix}{value}", part["correct"]) for column, prefix in groups_present
        for value, part in scored.groupby(column, sort=True) if value != ""]
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def _summary_row(benchmark: str, filter_name: str, correct: pd.Series) -> dict[str, object]:
    """One summary line: accuracy, its Wilson interval, and the counts behind it."""
    acc = accuracy(correct.to_numpy(dtype=bool))
    return {"benchmark": benchmark, "filter": filter_name, "n": acc.n, "correct": int(correct.sum()),
            "accuracy": acc.value, "ci_low": acc.low, "ci_high": acc.high}


def to_results_rows(summary: pd.DataFrame, model: str, revision: str | None, suite: str | None = None,
                    source: str = "pfcore") -> pd.DataFrame:
    """The summary in the long results table, one row per (benchmark, filter, metric).

    suite defaults to the benchmark's name, as the importer of the published summaries sets it.
    """
    long = summary.melt(id_vars=["benchmark", "filter"], value_vars=list(SUMMARY_METRICS),
                        var_name="metric", value_name="value")
    step = step_from_revision(revision or "")
    return pd.DataFrame({
        "model": model, "revision": revision or "",
        "step": pd.array([None if np.isnan(step) else int(step)] * len(long), dtype="Int64"),
        "suite": long["benchmark"] if suite is None else suite, "construction": long["benchmark"],
        "filter": long["filter"], "metric": long["metric"], "value": long["value"].astype(float),
        "source": source,
    })[list(RESULT_COLUMNS)]
