"""Loads hidden behind scoring: while a trajectory scores one checkpoint, a thread loads the next one
it will run (within a memory budget it checks), so the scoring does not wait for the load; and how
much of the load time it hid."""
from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType

from pfcore.models.memory import HEADROOM, room_beside
from pfcore.models.spec import ModelSpec, resolve_device
from pfcore.scoring.models import MODELS

log = logging.getLogger(__name__)
POLL_S = 0.05  # how often the loading thread looks whether the checkpoint being scored has loaded


class Prefetch:
    """The next checkpoint's load, started once the current one's model is in memory (so a checkpoint
    whose scores all come from the cache loads nothing, and the next one's size is known: a trajectory's
    checkpoints share one shape) and only when as much again, with HEADROOM, is free on its device;
    else the next checkpoint loads when it is needed, as without prefetching."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.loads, self.load_s, self.waited_s = 0, 0.0, 0.0
        self.refused: list[str] = []
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pfcore-prefetch") if enabled else None
        self._future: Future[float | None] | None = None
        self._spec: ModelSpec | None = None
        self._finished = threading.Event()

    def __enter__(self) -> Prefetch:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        """Stop waiting for a checkpoint to load; a load under way finishes in its thread."""
        self._finished.set()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def start(self, current: ModelSpec, following: ModelSpec) -> None:
        """Load `following` beside `current` once `current` is loaded and there is room for it."""
        if self._pool is None:
            return
        self._finished = threading.Event()
        self._spec = following
        self._future = self._pool.submit(self._load, current, following, self._finished)

    def scored(self) -> None:
        """The current checkpoint is done: a load still waiting for it to load gives up."""
        self._finished.set()

    def wait(self, spec: ModelSpec) -> None:
        """Before scoring `spec`: wait for the load ahead to end, counting the wait when it was this
        spec's (so two threads never load one model)."""
        if self._future is None:
            return
        started = time.monotonic()
        took = self._future.result()
        waited = time.monotonic() - started
        if took is not None and spec == self._spec:
            self.loads += 1
            self.load_s += took
            self.waited_s += min(waited, took)
        self._future = None

    @property
    def hidden_share(self) -> float | None:
        """The share of the loads ahead's time that the scoring did not wait for (None: none)."""
        return (self.load_s - self.waited_s) / self.load_s if self.load_s > 0 else None

    def summary(self) -> str:
        """One line on the loads done ahead and the share of their time hidden; '' when none was."""
        share = self.hidden_share
        lines = [] if share is None else [
            f"loaded ahead: {self.loads} checkpoint(s), {self.load_s - self.waited_s:.1f} s of {self.load_s:.1f} s "
            f"of loading hidden behind scoring ({share:.0%})"]
        return "\n".join([*lines, *self.refused])

    def _load(self, current: ModelSpec, following: ModelSpec, finished: threading.Event) -> float | None:
        """The seconds `following` took to load, once `current` has loaded; None when it was not
        loaded ahead (`current` never loaded, no room, or the load failed: it is then loaded, and its
        failure reported, when it is needed)."""
        while (loaded := MODELS.loaded_now(current)) is None:
            if finished.wait(POLL_S):
                return None
        if not room_beside(loaded.model, resolve_device(following.device)):
            self.refused.append(f"{following.label}: not loaded ahead (less than {HEADROOM}x its weights free)")
            return None
        started = time.monotonic()
        try:
            MODELS.load_beside(following)
        except Exception as exc:  # noqa: BLE001 - loaded again, and its failure reported, when it is needed
            log.info("loading %s ahead failed (%s); it loads when it is needed", following.label, exc)
            return None
        return time.monotonic() - started

