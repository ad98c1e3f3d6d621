"""The score cache: reruns are served from it, chunks survive interruption, corruption is healed."""
from __future__ import annotations

import gc
import sqlite3
import threading
from pathlib import Path

import numpy as np
import pytest

from pfcore.models import ModelSpec
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.models import load_model
from pfcore.scoring.requests import Request
from pfcore.store.cache import TABLE, ScoreCache, score_cached
from tests.writers import start

REQS = [Request("You couldn't lift a tiny rock, let alone a huge one.", f"Lifting rock {i} is easier.")
        for i in range(12)]


@pytest.fixture()
def scorer(tiny_gpt2: Path) -> CausalScorer:
    return CausalScorer(load_model(ModelSpec(str(tiny_gpt2))))


class Counting:
    """Wraps a scorer and counts how many requests reach the model."""

    def __init__(self, inner: CausalScorer, fail_after: int | None = None) -> None:
        self.inner, self.loaded, self.seen, self.fail_after = inner, inner.loaded, 0, fail_after

    def score(self, requests, progress=None):
        """The inner scorer's scores, counted; interrupted after `fail_after` calls."""
        if self.fail_after is not None and self.seen >= self.fail_after:
            raise KeyboardInterrupt
        self.seen += len(requests)
        return self.inner.score(requests, progress)

    def display_tokens(self, ids):
        """The inner scorer's token strings."""
        return self.inner.display_tokens(ids)

    def cache_identity(self):
        """The inner scorer's cache identity."""
        return self.inner.cache_identity()


def test_rerun_is_served_from_cache(scorer: CausalScorer, cache_dir: Path) -> None:
    with ScoreCache() as cache:
        counting = Counting(scorer)
        first = score_cached(counting, REQS, cache)
        assert counting.seen == len(REQS)
        second = score_cached(counting, REQS, cache)
        assert counting.seen == len(REQS)
        for a, b in zip(first, second):
            np.testing.assert_array_equal(a.logprobs, b.logprobs)
            assert a.tokens == b.tokens


def test_interrupted_run_resumes_without_rescoring(scorer: CausalScorer, cache_dir: Path) -> None:
    with ScoreCache() as cache:
        with pytest.raises(KeyboardInterrupt):
            score_cached(Counting(scorer, fail_after=4), REQS, cache, chunk=4)
        assert cache.count() == 4
        resumed = Counting(scorer)
        score_cached(resumed, REQS, cache, chunk=4)
        assert resumed.seen == len(REQS) - 4


def test_settings_change_the_key(tiny_gpt2: Path, cache_dir: Path) -> None:
    from pfcore.scoring.causal import ScorerSettings
    loaded = load_model(ModelSpec(str(tiny_gpt2)))
    with ScoreCache() as cache:
        score_cached(CausalScorer(loaded), REQS[:2], cache)
        bos = Counting(CausalScorer(loaded, ScorerSettings(bos=True)))
        score_cached(bos, REQS[:2], cache)
        assert bos.seen == 2


def test_corrupt_file_is_moved_aside_and_rebuilt(cache_dir: Path) -> None:
    path = cache_dir / "scores.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"this is not a database" * 100)
    with pytest.warns(UserWarning, match="corrupt"), ScoreCache() as cache:
        assert cache.count() == 0
    assert list(cache_dir.glob("scores.sqlite.corrupt-*"))


def test_two_processes_write_at_once(tmp_path: Path) -> None:
    path = tmp_path / "scores.sqlite"
    procs = [start("put_scores", str(path), s) for s in (0, 1000)]
    assert [p.wait(600) for p in procs] == [0, 0], "a writer failed"
    with ScoreCache(path) as cache:
        assert cache.count() == 400


def test_connections_that_open_a_new_cache_together_all_open_it(tmp_path: Path) -> None:
    """Four connections open a new cache file at the same moment, 100 times: before, about one round in
    ten lost a connection to "database is locked" (SQLite answers so at once, without its busy timeout,
    while another connection sets the file's WAL mode): two commands started together on one cache."""
    failed: list[str] = []

    def open_it(path: Path, ready: threading.Barrier) -> None:
        ready.wait()
        try:
            with ScoreCache(path) as cache:
                cache.count()
        except sqlite3.OperationalError as exc:
            failed.append(str(exc))

    for round_ in range(100):
        ready = threading.Barrier(4)
        threads = [threading.Thread(target=open_it, args=(tmp_path / f"{round_}" / "scores.sqlite", ready))
                   for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failed == []


@pytest.mark.parametrize("command", ["run", "score"])
def test_a_command_closes_the_score_cache_so_its_file_holds_every_score(tiny_gpt2: Path, cache_dir: Path,
                                                                         command: str) -> None:
    """Python's sqlite3 keeps each connection in a reference cycle (its statement cache), so one left
    open lives until a garbage collection and its scores stay in the write-ahead log beside the file.
    A run and a score close theirs: when they return, the file itself holds the scores (a copy of it,
    or a damaged log, loses nothing), with no collection needed."""
    from pfcore.cli import main

    args = (["run", "--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1"] if command == "run"
            else ["score", "--sentence", "The cat sat on the mat."])
    gc.disable()
    try:
        assert main([*args, "--model", str(tiny_gpt2), "--json"]) == 0
        log = cache_dir / "scores.sqlite-wal"
        assert not log.exists() or log.stat().st_size == 0
        with sqlite3.connect(f"file:{cache_dir / 'scores.sqlite'}?mode=ro&immutable=1", uri=True) as alone:
            assert alone.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0] > 0  # the file alone, no log read
    finally:
        gc.enable()
