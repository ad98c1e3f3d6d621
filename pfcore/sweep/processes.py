"""The processes of a local Ray instance, ended with it, and the signals that end a sweep.

`ray.shutdown()` stops what `ray.init()` started (GCS, raylet, monitors), but the raylet's own
children (`ray::DashboardAgent`, `ray::RuntimeEnvAgent`, workers) can outlive it, and the agents
ignore SIGTERM. So the driver notes the processes Ray started for it, and after the shutdown it
waits a little for all of them and their descendants, then kills what is left. SIGTERM is read as
Ctrl-C, so that clean-up runs when a sweep is terminated too."""
from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import psutil

GRACE_S = 5.0  # seconds Ray's processes get to end by themselves before they are killed
logger = logging.getLogger(__name__)


def child_pids() -> set[int]:
    """The ids of the children of this process now (taken before `ray.init`, to tell Ray's apart)."""
    return {child.pid for child in psutil.Process().children()}


def ray_children(before: set[int]) -> list[Any]:
    """The children of this process that `ray.init` started: not in `before`, and running Ray's own
    programs. (psutil.Process objects remember their start time: a reused id is never taken for one.)"""
    homes = _ray_homes()
    found = []
    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error):
            if child.pid not in before and any(h in part for part in child.cmdline() for h in homes):
                found.append(child)
    return found


def family(roots: Sequence[Any]) -> list[Any]:
    """The processes and all their descendants that are alive now."""
    found = []
    for root in roots:
        with contextlib.suppress(psutil.Error):
            found += [root, *root.children(recursive=True)]
    return found


def end(processes: Sequence[Any], grace_s: float = GRACE_S) -> list[Any]:
    """Wait up to `grace_s` for the processes to end, kill those still running and return them."""
    _, alive = psutil.wait_procs(processes, timeout=grace_s)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(alive, timeout=grace_s)
    if alive:
        logger.info("killed %d Ray processes that outlived ray.shutdown(): %s", len(alive),
                    ", ".join(str(p.pid) for p in alive))
    return alive


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Inside the block, SIGTERM raises KeyboardInterrupt as Ctrl-C does, so `finally` clauses run
    (in the main thread; elsewhere signals cannot be handled and the block runs as it is)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


@contextmanager
def signals_held() -> Iterator[None]:
    """A block that Ctrl-C or SIGTERM must not cut short (a clean-up): a signal that arrives in it
    is held until it ends, then raises KeyboardInterrupt (main thread only, as above)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {s: signal.signal(s, lambda signum, _frame: caught.append(signum))
                for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
    if caught:
        raise KeyboardInterrupt


def _interrupt(signum: int, _frame: FrameType | None) -> None:
    """A signal handler that interrupts as Ctrl-C does."""
    raise KeyboardInterrupt(signal.Signals(signum).name)


def _ray_homes() -> set[str]:
    """Ray's package folder, as written and with links resolved (its programs run from there)."""
    import ray

    home = Path(ray.__file__).parent
    return {str(home), str(home.resolve())}
