"""Progress with rate and ETA for long scoring jobs, as a pfcore progress callback."""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import streamlit as st

from pfcore.suites.runner import PlanEstimate

# Requests the app scores between two commits to the score cache: what Stop can lose, and how often
# the progress bar moves (32 requests take about 1-1.5 s with the default model on 2 CPU cores).
UI_CHUNK = 32


@dataclass
class Eta:
    """Rate and time left from (done, total) updates; requests served from the cache at the
    first update count as done but not toward the rate."""

    clock: Callable[[], float] = time.monotonic
    start: float = field(default=math.nan)
    first_done: int = 0

    def update(self, done: int, total: int) -> str:
        """One status line: done/total, what was resumed from the cache, rate and ETA."""
        now = self.clock()
        if math.isnan(self.start):
            self.start, self.first_done = now, done
        elapsed = now - self.start
        fresh = done - self.first_done
        rate = fresh / elapsed if elapsed > 0 and fresh > 0 else math.nan
        parts = [f"{done:,} of {total:,} requests"]
        if self.first_done:
            parts.append(f"{self.first_done:,} from the score cache")
        if not math.isnan(rate):
            parts.append(f"{rate:.1f}/s")
            parts.append(f"ETA {format_seconds((total - done) / rate)}")
        return " · ".join(parts)


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


def progress_callback(label: str, min_interval: float = 0.25) -> Callable[[int, int], None]:
    """A progress(done, total) callback drawing one st.progress bar with rate and ETA."""
    bar = st.progress(0.0, text=f"{label}: starting")
    eta = Eta()
    last = [-math.inf]

    def update(done: int, total: int) -> None:
        text = eta.update(done, total)
        now = time.monotonic()
        if now - last[0] < min_interval and done < total:
            return
        last[0] = now
        bar.progress(min(1.0, done / total) if total else 1.0, text=f"{label}: {text}")

    return update


def plan_caption(estimate: PlanEstimate) -> str:
    """A plan's size and expected time in words, before it runs."""
    text = (f"{estimate.items:,} items, {estimate.requests:,} distinct scoring requests, "
            f"{estimate.cached:,} of them already in the score cache.")
    seconds = estimate.seconds
    if estimate.cached == estimate.requests:
        return text + " Everything comes from the cache: a run takes seconds."
    if seconds is None:
        return text + (" No earlier run of this model measured its speed, so there is no estimate yet: the "
                       "progress bar shows the rate and the time left once the run starts.")
    return text + (f" At {estimate.rate:.0f} requests/s (measured on run {estimate.rate_run}) the rest takes about "
                   f"{format_seconds(seconds)}.")
