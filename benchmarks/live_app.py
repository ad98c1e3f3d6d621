"""A live explorer for benchmarks and browser tests: a fresh server started as `make app` starts it
(`python -m pfcore.ui.serve`) on a free port and a private cache, Debian's chromium for Playwright,
and the memory of the server's process tree."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
START_TIMEOUT_S = 120


@dataclass
class LiveApp:
    """A running server: its address, process, when it was started, and its output file."""

    url: str
    process: subprocess.Popen[str]
    started: float  # time.monotonic() just before the process was started
    server_up_s: float  # process start to a healthy server
    log: Path


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fresh_cache(folder: Path, models: Path) -> Path:
    """A cache folder that shares only the converted models: nothing is scored or checked before."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "models").symlink_to(models.resolve())
    return folder


def wait_healthy(url: str, process: subprocess.Popen[str], log: Path) -> None:
    """Block until the server answers its health check (or fail with the end of its output)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited early:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"the server did not start within {START_TIMEOUT_S} s")


@contextmanager
def serve(cache: Path, log: Path, env: dict[str, str] | None = None) -> Iterator[LiveApp]:
    """Start the explorer as `make app` does on a free port with PFCORE_CACHE=cache (offline); stop it
    afterwards."""
    port = free_port()
    environment = {**os.environ, "PFCORE_CACHE": str(cache), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                   **(env or {})}
    started = time.monotonic()
    with open(log, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "pfcore.ui.serve", "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process, log)
        yield LiveApp(url, process, started, time.monotonic() - started, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _tree_sum(pid: int, measure: str) -> float:
    """A per-process figure of psutil (memory_info().rss, cpu_times() user + system) summed over a
    process and all its children."""
    import psutil

    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0.0
    for process in processes:
        try:
            if measure == "rss":
                total += process.memory_info().rss
            else:
                times = process.cpu_times()
                total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


def tree_rss(pid: int) -> int:
    """Resident memory (bytes) of a process and all its children."""
    return int(_tree_sum(pid, "rss"))


def tree_cpu(pid: int) -> float:
    """CPU seconds (user and system) a process and all its children have used so far: on a machine
    shared with other work, a steadier figure than the wall clock."""
    return _tree_sum(pid, "cpu")
