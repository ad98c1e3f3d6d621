"""Persistent score cache: SQLite in WAL mode, one row per scored request, keyed by sha256 of the
JSON of (model identity, scorer settings, exact texts), each row with a checksum verified on read.
Safe for concurrent processes; each chunk is committed as it finishes, so an interrupted run resumes
without rescoring. `score_cached` scores requests through it and never stores a non-finite score."""
from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from pfcore.errors import InputError, environment_problem
from pfcore.files import check_writable, make_folder
from pfcore.paths import cache_root
from pfcore.scoring.requests import Progress, Request, RequestScorer, TokenScores
from pfcore.scoring.words import ScoreFn
from pfcore.store.manifest import Timings

log = logging.getLogger(__name__)
CHUNK = 2048  # requests scored between two commits to the cache

TABLE = "scores_v2"  # v1 ("scores") keyed a NUL-joined string that two requests could share
SCHEMA = f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    key TEXT PRIMARY KEY,
    token_ids BLOB NOT NULL,
    logprobs BLOB NOT NULL,
    checksum TEXT NOT NULL,
    created REAL NOT NULL
)"""
PARTS_TABLE = "run_parts"  # the summed timings of runs stopped before they finished, keyed by run_key
PARTS_SCHEMA = f"""CREATE TABLE IF NOT EXISTS {PARTS_TABLE} (
    key TEXT PRIMARY KEY,
    timings TEXT NOT NULL,
    updated REAL NOT NULL
)"""
NO_PARTS = Timings(parts=0)  # a run with no earlier parts
Row = tuple[str, bytes, bytes, str, float]
INTEGRITY_FAILED = "integrity check failed"


def namespace(identity: dict[str, object]) -> str:
    """Digest of everything that changes the numbers (model, revision, dtype, weights, settings)."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()


def request_key(ns: str, prefix: str, text: str) -> str:
    """Key of one request under a namespace: the digest of an unambiguous encoding (JSON) of the
    three parts, so no two different requests share a key."""
    return hashlib.sha256(json.dumps([ns, prefix, text], ensure_ascii=False).encode()).hexdigest()


CORRUPT_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def corrupt(exc: sqlite3.DatabaseError) -> bool:
    """Whether an error on opening the cache means the file is damaged (SQLite's own codes, or
    the quick check failing), not that the machine refused (full disk, read-only, I/O error)."""
    return getattr(exc, "sqlite_errorcode", None) in CORRUPT_CODES or str(exc) == INTEGRITY_FAILED


def checksum(key: str, ids: bytes, logprobs: bytes) -> str:
    """The digest stored beside a row, so a value damaged on disk is detected on read."""
    return hashlib.sha256(key.encode() + b"\x1f" + ids + b"\x1f" + logprobs).hexdigest()[:32]


BUSY_S = 60  # how long a writer waits for another process's hold on the cache file


def _write_ahead(conn: sqlite3.Connection) -> None:
    """Put the file in WAL mode, waiting as for any busy file: while another process opening the cache
    at the same moment sets the mode, SQLite answers "database is locked" at once, without its busy
    timeout (two commands started together on one cache: one died with that traceback)."""
    deadline = time.monotonic() + BUSY_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class ScoreCache:
    """Read and write scored requests; a corrupt file is moved aside and rebuilt with a warning. The
    one way to open it is `with ScoreCache() as cache:` (or `ScoreCache.when(use)` for work that may
    go without it), which closes it at the block's end: Python's sqlite3 keeps an open connection in a
    reference cycle, so only a garbage collection would close a forgotten one, its scores left in the
    write-ahead log meanwhile."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path else cache_root() / "scores.sqlite"
        self._conn: sqlite3.Connection | None = None

    def __enter__(self) -> ScoreCache:
        make_folder(self.path.parent, "the score cache's folder")
        if self.path.is_dir():
            raise InputError(f"the score cache {self.path} is a folder, not a file: move it aside (pfcore then "
                             "starts a new cache file there) or set PFCORE_CACHE to another folder")
        with self._refusals("open"):
            self._conn = self._open()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @staticmethod
    def when(use: bool) -> AbstractContextManager[ScoreCache | None]:
        """The persistent score cache for a block of work, or None in its place when the work asked
        for no cache (`--no-cache`)."""
        return ScoreCache() if use else nullcontext()

    @property
    def conn(self) -> sqlite3.Connection:
        """The open connection (the cache is used inside its `with` block only)."""
        if self._conn is None:
            raise RuntimeError("the score cache is used outside its `with ScoreCache() as cache:` block")
        return self._conn

    @contextmanager
    def _refusals(self, action: str) -> Iterator[None]:
        """SQLite's errors of the machine (a full disk, a read-only file) as an EnvironmentProblem
        naming the cache file; SQLite rolls the transaction back, so the file keeps what it had."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            if action == "open":  # SQLite says "unable to open": the folder's own refusal names the reason
                check_writable(self.path.parent, "the score cache's folder")
            problem = environment_problem(exc, self.path, "the score cache", action)
            if problem is None:
                raise
            raise problem from exc

    def _open(self) -> sqlite3.Connection:
        """Connect, set WAL and a busy timeout, create the table; rebuild once if corrupt (only
        then: a full disk or a read-only file is the machine's refusal, not damage)."""
        try:
            return self._connect()
        except sqlite3.DatabaseError as exc:
            if not corrupt(exc):
                raise
            aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
            warnings.warn(f"score cache {self.path} is corrupt ({exc}); moved it to {aside.name} "
                          "and started a new one", stacklevel=2)
            self.path.replace(aside)
            for suffix in ("-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        """A checked connection: fails with DatabaseError on a damaged file."""
        conn = sqlite3.connect(self.path, timeout=BUSY_S, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_S * 1000}")
            _write_ahead(conn)
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(SCHEMA)
            conn.execute(PARTS_SCHEMA)
            if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError(INTEGRITY_FAILED)
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def get_many(self, keys: Sequence[str]) -> dict[str, tuple[tuple[int, ...], np.ndarray]]:
        """Cached (token ids, log-probs) for whichever keys are present and intact; a row whose
        checksum fails is reported once and left out, so it is scored again."""
        found: dict[str, tuple[tuple[int, ...], np.ndarray]] = {}
        damaged = 0
        for key, ids, lps, digest in self._rows_of(keys, "key, token_ids, logprobs, checksum"):
            if checksum(key, ids, lps) != digest or len(ids) % 8 or len(lps) != len(ids):
                damaged += 1
                continue
            found[key] = (tuple(np.frombuffer(ids, dtype=np.int64).tolist()),
                          np.frombuffer(lps, dtype=np.float64).copy())
        if damaged:
            warnings.warn(f"score cache {self.path}: {damaged} stored scores fail their checksum "
                          "(damaged on disk); they are scored again", stacklevel=2)
        return found

    def put_many(self, rows: Iterable[tuple[str, Sequence[int], np.ndarray]]) -> None:
        """Store scored requests in one transaction (a chunk is either all there or not at all)."""
        now = time.time()
        data: list[Row] = []
        for key, ids, lp in rows:
            id_bytes = np.asarray(ids, dtype=np.int64).tobytes()
            lp_bytes = np.asarray(lp, dtype=np.float64).tobytes()
            data.append((key, id_bytes, lp_bytes, checksum(key, id_bytes, lp_bytes), now))
        with self._refusals("write to"), self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany(f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?, ?, ?)", data)

    def merge_from(self, other: Path) -> int:
        """Copy every row of another cache file that this one lacks (INSERT OR IGNORE: merging
        twice changes nothing); returns how many rows were added. Rows failing their checksum stay out."""
        with ScoreCache(other) as source:
            rows = source.conn.execute(f"SELECT key, token_ids, logprobs, checksum, created FROM {TABLE}").fetchall()
        good = [r for r in rows if checksum(r[0], r[1], r[2]) == r[3]]
        before = self.count()
        with self._refusals("write to"), self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany(f"INSERT OR IGNORE INTO {TABLE} VALUES (?, ?, ?, ?, ?)", good)
        return self.count() - before

    def present(self, keys: Sequence[str]) -> set[str]:
        """Which of the keys have a stored row (for estimates; values are not read or checked)."""
        return {k for (k,) in self._rows_of(keys, "key")}

    def _rows_of(self, keys: Sequence[str], columns: str) -> Iterator[tuple]:
        """The columns of the stored rows of these keys, asked for 900 keys at a time (under SQLite's
        limit on a statement's parameters)."""
        for start in range(0, len(keys), 900):
            chunk = keys[start:start + 900]
            yield from self.conn.execute(f"SELECT {columns} FROM {TABLE} WHERE key IN ({','.join('?' * len(chunk))})",
                                         chunk)

    def earlier_parts(self, run: str) -> Timings:
        """The summed timings of the earlier, interrupted parts of an unfinished run (NO_PARTS when it
        has none; a damaged row is reported once and the run's time starts again from this part)."""
        row = self.conn.execute(f"SELECT timings FROM {PARTS_TABLE} WHERE key = ?", (run,)).fetchone()
        if row is None:
            return NO_PARTS
        try:
            return Timings.from_json(json.loads(row[0]))
        except (ValueError, TypeError):
            warnings.warn(f"score cache {self.path}: the stored time of an unfinished run is damaged; "
                          "its run reports the time from now on", stacklevel=2)
            return NO_PARTS

    def keep_parts(self, run: str, timings: Timings) -> None:
        """Store the summed timings of an unfinished run's parts so far, for the part that resumes it."""
        with self._refusals("write to"), self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute(f"INSERT OR REPLACE INTO {PARTS_TABLE} VALUES (?, ?, ?)",
                              (run, json.dumps(asdict(timings)), time.time()))

    def forget_parts(self, run: str) -> None:
        """Drop a finished run's earlier parts (its manifest has their time now)."""
        with self._refusals("write to"), self.conn:
            self.conn.execute(f"DELETE FROM {PARTS_TABLE} WHERE key = ?", (run,))

    def count(self) -> int:
        """Number of cached requests."""
        return int(self.conn.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0])


@dataclass
class ScoreStats:
    """How many distinct requests a run read from the cache and how many it scored (the rate of
    the scored ones estimates later runs)."""

    cached: int = 0
    scored: int = 0


def score_cached(scorer: RequestScorer, requests: Sequence[Request], cache: ScoreCache | None,
                 progress: Progress | None = None, chunk: int = CHUNK,
                 stats: ScoreStats | None = None) -> list[TokenScores]:
    """Per-token scores for each request; cached ones are read, the rest scored and stored. Progress
    is first reported before anything is scored, with what the cache held (none without a cache)."""
    stats = stats if stats is not None else ScoreStats()
    if cache is None:
        stats.scored += len(set(requests))
        if progress:
            progress(0, len(set(requests)))
        return require_finite(requests, scorer.score(requests, progress))
    ns = namespace(scorer.cache_identity())
    unique = list(dict.fromkeys(requests))
    keys = {r: request_key(ns, r.prefix, r.text) for r in unique}
    found = cache.get_many(list(keys.values()))
    results = {r: TokenScores(*found[keys[r]], scorer.display_tokens) for r in unique if keys[r] in found}
    todo = [r for r in unique if r not in results]
    total, base = len(unique), len(results)
    stats.cached += base
    if progress:
        progress(base, total)
    for start in range(0, len(todo), chunk):
        part = todo[start:start + chunk]
        scored = require_finite(part, scorer.score(part, _offset(progress, base + start, total)))
        stats.scored += len(part)
        cache.put_many((keys[r], s.token_ids, s.logprobs) for r, s in zip(part, scored))
        results.update(zip(part, scored))
    return [results[r] for r in requests]


def require_finite(requests: Sequence[Request], scores: list[TokenScores]) -> list[TokenScores]:
    """The scores, unless one is NaN or infinite: then InputError (and nothing of them is cached),
    since a model that gives such scores is damaged and every number from it would be wrong."""
    if bad := [r for r, s in zip(requests, scores) if not np.isfinite(s.logprobs).all()]:
        raise InputError(f"the model gave non-finite scores (NaN or infinity) for {len(bad)} of "
                         f"{len(requests)} texts, e.g. {bad[0].text[:60]!r}; its weights may be damaged. "
                         "Nothing of this was cached or counted.")
    return scores


def _offset(progress: Progress | None, offset: int, total: int) -> Progress | None:
    """A chunk's progress reported as progress of the whole request list."""
    return None if progress is None else lambda done, _todo: progress(offset + done, total)


def through_cache(cache: ScoreCache | None, progress: Progress | None = None) -> ScoreFn:
    """A `ScoreFn` (what the word and region scorers take) that scores through the cache (or none)."""
    return lambda scorer, requests: score_cached(scorer, requests, cache, progress)


def score_persistent(scorer: RequestScorer, requests: Sequence[Request],
                     progress: Progress | None = None) -> list[TokenScores]:
    """Score through the persistent cache, opened for this call and closed after (the app's way)."""
    with ScoreCache() as cache:
        return score_cached(scorer, requests, cache, progress)
