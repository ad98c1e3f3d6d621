"""One model of a long job's progress, shared by the CLI's bar, the app's bar and sweeps' bars:
`Progress` (done, fresh, total, elapsed: a rate over fresh work only and an ETA that is never NaN)
and `ProgressMeter`, which turns progress(done, total) updates into Progress snapshots. Each view
draws a snapshot its own way, but every rate and ETA shown comes from here."""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

BAR_WIDTH = 30  # characters of a text bar
ESTIMATING = "estimating..."  # what an ETA says before any fresh work has been timed


@dataclass(frozen=True)
class Progress:
    """Where a job is: `done` of `total` units, `fresh` of them computed by this job (the rest came
    from the score cache), in `elapsed` seconds of work; `resumed` of the fresh ones were computed by
    earlier, interrupted parts of the job, whose seconds `elapsed` includes."""

    done: int
    fresh: int
    total: int
    elapsed: float
    resumed: int = 0
    unit: str = "requests"

    @property
    def cached(self) -> int:
        """Units done without being computed by this job (read from the score cache)."""
        return max(0, self.done - self.fresh)

    @property
    def fraction(self) -> float:
        """Done as a fraction of the total (1 when there is nothing to do)."""
        return min(1.0, self.done / self.total) if self.total > 0 else 1.0

    @property
    def rate(self) -> float | None:
        """Fresh units per second of work; None until some fresh work has been timed."""
        return self.fresh / self.elapsed if self.fresh > 0 and self.elapsed > 0 else None

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the rate so far: 0 when nothing is left, None while the rate is unknown."""
        if self.done >= self.total:
            return 0.0
        return None if self.rate is None else (self.total - self.done) / self.rate

    def rate_text(self) -> str:
        """The rate in words ("12.3 requests/s", "0.025 jobs/s"), or "" while it is unknown."""
        return "" if self.rate is None else rate_text(self.rate, self.unit)

    def eta_text(self) -> str:
        """The time left in words: "ETA 3 min 05 s", or "ETA estimating..." while the rate is unknown."""
        eta = self.eta_s
        return f"ETA {ESTIMATING}" if eta is None else f"ETA {format_seconds(eta)}"

    def parts(self) -> list[str]:
        """The status in pieces: done of total, from the cache, resumed, rate (once known), ETA."""
        pieces = [f"{self.done:,} of {self.total:,} {self.unit}"]
        if self.cached:
            pieces.append(f"{self.cached:,} from the score cache")
        if self.resumed:
            pieces.append(f"{self.resumed:,} scored before the resume")
        return [*pieces, *filter(None, [self.rate_text()]), self.eta_text()]

    def text(self) -> str:
        """The status in one line, its pieces joined by " · "."""
        return " · ".join(self.parts())


ProgressView = Callable[[Progress], None]
"""view(progress): shows a Progress (a bar on the terminal, in the app, on a sweep's board)."""


@dataclass(frozen=True)
class Earlier:
    """What earlier, interrupted parts of a job did: units computed and the seconds it took them."""

    fresh: int = 0
    seconds: float = 0.0


@dataclass
class ProgressMeter:
    """Turns progress(done, total) updates into Progress snapshots, each handed to `view`. The clock
    starts at the first update; `cached()` says how many of `done` the score cache gave (by default
    the first update's done: a cached scoring job reports what the cache held before it scores);
    `paused()` gives seconds to leave out (the model's load); `earlier` is added to the snapshot."""

    view: ProgressView
    clock: Callable[[], float] = time.monotonic
    cached: Callable[[], int] | None = None
    paused: Callable[[], float] = lambda: 0.0
    earlier: Earlier = field(default_factory=Earlier)
    _start: float | None = None
    _first: int = 0

    def __call__(self, done: int, total: int) -> None:
        """Take one update and show it."""
        self.view(self.snapshot(done, total))

    def snapshot(self, done: int, total: int) -> Progress:
        """The Progress after this update."""
        now = self.clock()
        if self._start is None:
            self._start, self._first = now, done
        cached = self.cached() if self.cached is not None else self._first
        fresh = min(done, self.earlier.fresh + max(0, done - cached))
        elapsed = self.earlier.seconds + max(0.0, now - self._start - self.paused())
        return Progress(done, fresh, total, elapsed, resumed=min(fresh, self.earlier.fresh))


def throttled(view: ProgressView, *, min_interval: float, clock: Callable[[], float] = time.monotonic
              ) -> ProgressView:
    """A view that passes a Progress on to `view` at most every `min_interval` seconds, and always
    the first and the one that finishes."""
    last = [-math.inf]

    def show(progress: Progress) -> None:
        now = clock()
        if now - last[0] < min_interval and progress.done < progress.total:
            return
        last[0] = now
        view(progress)

    return show


def format_seconds(seconds: float) -> str:
    """Seconds as 0.2 s, 42 s, 3 min 05 s or 1 h 02 min (a run from the cache is not "0 s")."""
    if seconds < 9.95:
        return f"{max(0.0, seconds):.1f} s"
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {(s % 3600) // 60:02d} min"


def rate_text(rate: float, unit: str = "requests") -> str:
    """A rate per second in words, one decimal from 1 a second up ("12.3 requests/s"), two significant
    digits below ("0.72 requests/s", "0.0083 jobs/s"), so a slow rate is never shown as 0."""
    return f"{rate:.1f} {unit}/s" if rate >= 1 else f"{rate:.2g} {unit}/s"


def text_bar(fraction: float, *, width: int = BAR_WIDTH) -> str:
    """A fraction as a bar of characters: [#########.....]."""
    filled = int(width * min(1.0, max(0.0, fraction)))
    return f"[{'#' * filled}{'.' * (width - filled)}]"
