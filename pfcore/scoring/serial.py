"""One model, many sessions: the app's sessions share one loaded model, and its forward passes run
one at a time, in the order they were asked for (one first-come, first-served lock per model). So
sessions never meet inside the model (the masked scorer's output-layer hook would read another
session's rows), never fight over the cores with a forward pass each, and none is overtaken by
later arrivals: each waits only for the passes asked for before its own."""
from __future__ import annotations

import threading
import weakref
from types import TracebackType


class FairLock:
    """A re-entrant lock granted in the order it was asked for (a ticket queue)."""

    def __init__(self) -> None:
        self._changed = threading.Condition(threading.Lock())
        self._issued = 0  # tickets handed out
        self._serving = 0  # the ticket that may hold the lock now
        self._owner: int | None = None
        self._depth = 0

    def acquire(self) -> None:
        """Wait for every earlier caller to be done, then hold the lock."""
        me = threading.get_ident()
        with self._changed:
            if self._owner == me:
                self._depth += 1
                return
            ticket, self._issued = self._issued, self._issued + 1
            while self._serving != ticket:
                self._changed.wait()
            self._owner, self._depth = me, 1

    def release(self) -> None:
        """Let the next caller in line have the lock (once the holder's last `acquire` is undone)."""
        with self._changed:
            if self._owner != threading.get_ident():
                raise RuntimeError("release of a FairLock this thread does not hold")
            self._depth -= 1
            if not self._depth:
                self._owner, self._serving = None, self._serving + 1
                self._changed.notify_all()

    def __enter__(self) -> FairLock:
        self.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()


_LOCKS: weakref.WeakKeyDictionary[object, FairLock] = weakref.WeakKeyDictionary()
_LOCKS_LOCK = threading.Lock()


def model_lock(model: object) -> FairLock:
    """The lock of one loaded model (made on first use, let go with the model): every scorer of
    that model holds it for each forward pass."""
    with _LOCKS_LOCK:
        lock = _LOCKS.get(model)
        if lock is None:
            lock = _LOCKS[model] = FairLock()
        return lock
