"""One model, many sessions: the app's sessions share one loaded model, and its forward passes run
one at a time, in the order they were asked for (one first-come, first-served lock per model). So
sessions never meet inside the model (the masked scorer's output-layer hook would read another
session's rows), never fight over the cores with a forward pass each, and none is overtaken by
later arrivals. Score calls that wait for the model meanwhile are served together, in one call
(`Together`): on a CPU, a forward pass reads every weight whether it scores one sentence or twenty."""
from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType

from pfcore.scoring.requests import Request, TokenScores

ScoreNow = Callable[[list[Request]], list[TokenScores]]  # a scorer's own call, scoring now


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

    def __exit__(self, exc_type: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()


_LOCKS: weakref.WeakKeyDictionary[object, FairLock] = weakref.WeakKeyDictionary()
_LOCKS_LOCK = threading.Lock()


def model_lock(model: object) -> FairLock:
    """The lock of one loaded model (made on first use, let go with the model): every scorer of
    that model holds it for each forward pass."""
    with _LOCKS_LOCK:
        return _LOCKS.setdefault(model, FairLock())


@dataclass(eq=False)
class _Call:
    """One caller's requests, and what scoring them gave (results, or the error)."""

    requests: list[Request]
    results: list[TokenScores] | None = None
    error: BaseException | None = None
    done: bool = field(default=False)


class Together:
    """Score calls from many threads, served together: a call joins those waiting for the model's
    lock, and the first of them to get it scores all their requests in one call; each caller gets
    back its own results, in its own order. If that call fails, each waiting call is scored alone,
    so one session's bad request fails that session only."""

    def __init__(self, lock: FairLock) -> None:
        self._lock = lock
        self._waiting: list[_Call] = []
        self._waiting_lock = threading.Lock()

    def score(self, requests: Sequence[Request], score_now: ScoreNow) -> list[TokenScores]:
        """Scores of these requests (scored with whatever other calls are waiting now) by `score_now`,
        the scorer's own call: handed in, not kept, so that a scorer and its Together make no reference
        cycle (which kept a dropped model in memory until a garbage collection)."""
        call = _Call(list(requests))
        with self._waiting_lock:
            self._waiting.append(call)
        with self._lock:
            if not call.done:  # nobody took this call along: serve it, and everyone waiting
                with self._waiting_lock:
                    calls, self._waiting = self._waiting, []
                self._serve([call, *(c for c in calls if c is not call)], score_now)
        if call.error is not None:
            raise call.error
        assert call.results is not None
        return call.results

    def _serve(self, calls: list[_Call], score_now: ScoreNow) -> None:
        """Score the calls in one go (alone, one by one, if that fails); mark each done."""
        try:
            found = score_now([r for c in calls for r in c.requests])
        except Exception as exc:  # noqa: BLE001 - the error belongs to one caller: find whose
            if len(calls) == 1:
                calls[0].error, calls[0].done = exc, True
                return
            for call in calls:
                self._serve([call], score_now)
            return
        start = 0
        for call in calls:
            call.results, call.done = found[start:start + len(call.requests)], True
            start += len(call.requests)
