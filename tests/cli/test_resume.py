"""A run killed with SIGKILL midway resumes from the score cache without rescoring finished work."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pfcore.store.cache import TABLE


def cached_rows(db: Path) -> dict[str, float]:
    """key -> created time of every committed row (empty when the cache does not exist yet)."""
    if not db.exists():
        return {}
    try:
        with sqlite3.connect(db, timeout=30) as conn:
            return dict(conn.execute(f"SELECT key, created FROM {TABLE}"))
    except sqlite3.OperationalError:
        return {}


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_kill_9_then_resume(tiny_gpt2: Path, cache_dir: Path) -> None:
    env = {**os.environ, "PFCORE_CACHE": str(cache_dir)}
    argv = [sys.executable, "-m", "pfcore", "run", "--model", str(tiny_gpt2), "--construction",
            "let_alone", "--limit-blocks", "200", "--chunk", "64", "--json"]
    db = cache_dir / "scores.sqlite"
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 180
    while len(cached_rows(db)) < 128 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = cached_rows(db)
    assert before, "the run was killed before any chunk was committed"
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    after = cached_rows(db)
    assert all(after[k] == t for k, t in before.items())  # nothing finished was scored again
    assert len(after) > len(before)
    assert not list((cache_dir / "runs").glob("*")) or all(
        (p / "manifest.json").exists() for p in (cache_dir / "runs").iterdir())
