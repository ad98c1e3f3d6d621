"""Persistent score cache: SQLite in WAL mode, one row per scored request, keyed by sha256 of
(model identity, scorer settings, exact texts). Safe for concurrent processes; each chunk is
committed as it finishes, so an interrupted run resumes without rescoring. `score_cached` scores
requests through it."""
from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from pfcore.paths import cache_root
from pfcore.scoring.requests import Progress, Request, RequestScorer, TokenScores

log = logging.getLogger(__name__)
CHUNK = 2048  # requests scored between two commits to the cache

SCHEMA = """CREATE TABLE IF NOT EXISTS scores (
    key TEXT PRIMARY KEY,
    token_ids BLOB NOT NULL,
    logprobs BLOB NOT NULL,
    created REAL NOT NULL
)"""


def namespace(identity: dict[str, object]) -> str:
    """Digest of everything that changes the numbers (model, revision, dtype, weights, settings)."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()


def request_key(ns: str, prefix: str, text: str) -> str:
    """Key of one request under a namespace."""
    return hashlib.sha256(f"{ns}\0{prefix}\0{text}".encode()).hexdigest()


class ScoreCache:
    """Read and write scored requests; a corrupt file is moved aside and rebuilt with a warning."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path else cache_root() / "scores.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = self._open()

    def _open(self) -> sqlite3.Connection:
        """Connect, set WAL and a busy timeout, create the table; rebuild once if corrupt."""
        try:
            return self._connect()
        except sqlite3.DatabaseError as exc:
            aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
            warnings.warn(f"score cache {self.path} is corrupt ({exc}); moved it to {aside.name} "
                          "and started a new one", stacklevel=2)
            self.path.replace(aside)
            for suffix in ("-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        """A checked connection: fails with DatabaseError on a damaged file."""
        conn = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA busy_timeout=60000")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(SCHEMA)
            if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("integrity check failed")
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def get_many(self, keys: Sequence[str]) -> dict[str, tuple[tuple[int, ...], np.ndarray]]:
        """Cached (token ids, log-probs) for whichever keys are present."""
        found: dict[str, tuple[tuple[int, ...], np.ndarray]] = {}
        for start in range(0, len(keys), 900):
            chunk = keys[start:start + 900]
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT key, token_ids, logprobs FROM scores WHERE key IN ({marks})", chunk)
            for key, ids, lps in rows:
                found[key] = (tuple(np.frombuffer(ids, dtype=np.int64).tolist()),
                              np.frombuffer(lps, dtype=np.float64).copy())
        return found

    def put_many(self, rows: Iterable[tuple[str, Sequence[int], np.ndarray]]) -> None:
        """Store scored requests in one transaction (a chunk is either all there or not at all)."""
        now = time.time()
        data = [(k, np.asarray(ids, dtype=np.int64).tobytes(),
                 np.asarray(lp, dtype=np.float64).tobytes(), now) for k, ids, lp in rows]
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?)", data)

    def count(self) -> int:
        """Number of cached requests."""
        return int(self.conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0])

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()


def score_cached(scorer: RequestScorer, requests: Sequence[Request], cache: ScoreCache | None,
                 progress: Progress | None = None, chunk: int = CHUNK) -> list[TokenScores]:
    """Per-token scores for each request; cached ones are read, the rest scored and stored."""
    if cache is None:
        return scorer.score(requests, progress)
    ns = namespace(scorer.cache_identity())
    unique = list(dict.fromkeys(requests))
    keys = {r: request_key(ns, r.prefix, r.text) for r in unique}
    found = cache.get_many(list(keys.values()))
    results = {r: TokenScores(*found[keys[r]], scorer.display_tokens) for r in unique if keys[r] in found}
    todo = [r for r in unique if r not in results]
    total, base = len(unique), len(results)
    if progress:
        progress(base, total)
    for start in range(0, len(todo), chunk):
        part = todo[start:start + chunk]
        scored = scorer.score(part, _offset(progress, base + start, total))
        cache.put_many((keys[r], s.token_ids, s.logprobs) for r, s in zip(part, scored))
        results.update(zip(part, scored))
    return [results[r] for r in requests]


def _offset(progress: Progress | None, offset: int, total: int) -> Progress | None:
    """A chunk's progress reported as progress of the whole request list."""
    if progress is None:
        return None
    return lambda done, _todo: progress(offset + done, total)


def score_persistent(scorer: RequestScorer, requests: Sequence[Request],
                     progress: Progress | None = None) -> list[TokenScores]:
    """Score through the persistent cache, opened for this call and closed after (the app's way)."""
    cache = ScoreCache()
    try:
        return score_cached(scorer, requests, cache, progress)
    finally:
        cache.close()
