"""Persistent score cache: SQLite in WAL mode, one row per scored request, keyed by sha256 of
(model identity, scorer settings, exact texts). Safe for concurrent processes; each chunk is
committed as it finishes, so an interrupted run resumes without rescoring."""
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

log = logging.getLogger(__name__)

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
                          "and started a new one")
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
