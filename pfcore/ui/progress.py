"""The app's views of pfcore.progress.Progress (one st.progress bar with the status line), and a
plan's estimate in words."""
from __future__ import annotations

import time
from collections.abc import Callable

import streamlit as st

from pfcore.progress import Progress, ProgressMeter, ProgressView, format_seconds, rate_text, throttled
from pfcore.runs.runner import PlanEstimate, SuiteRate

# Requests the app scores between two commits to the score cache: what Stop can lose, and how often
# the progress bar moves (32 requests take about 1-1.5 s with the default model on 2 CPU cores).
UI_CHUNK = 32


def progress_view(label: str, *, min_interval: float = 0.25, clock: Callable[[], float] = time.monotonic
                  ) -> ProgressView:
    """A view drawing a run's Progress as one st.progress bar: done of total, from the cache, rate, ETA."""
    bar = st.progress(0.0, text=f"{label}: starting")

    def draw(progress: Progress) -> None:
        bar.progress(progress.fraction, text=f"{label}: {progress.text()}")

    return throttled(draw, min_interval=min_interval, clock=clock)


def progress_callback(label: str, *, clock: Callable[[], float] = time.monotonic) -> Callable[[int, int], None]:
    """A progress(done, total) callback for a scoring job that is not a run (the Stimuli page), drawn
    by `progress_view`."""
    return ProgressMeter(progress_view(label, clock=clock), clock=clock)


def plan_caption(estimate: PlanEstimate) -> str:
    """A plan's size and expected time in words, before it runs, naming the runs its rates come from."""
    text = (f"{estimate.items:,} items, {estimate.requests:,} distinct scoring requests, "
            f"{estimate.cached:,} of them already in the score cache.")
    seconds = estimate.seconds
    if estimate.cached == estimate.requests:
        return text + " Everything comes from the cache: a run takes seconds."
    if seconds is None:
        return text + (f" No earlier run of this model measured its speed on the {' and '.join(estimate.unmeasured)} "
                       "suite, so there is no estimate yet (an estimate takes its rate from a run of the same "
                       "suite and model only): the progress bar shows the rate and the time left once the run starts.")
    rates = [s for s in estimate.suites if s.missing]
    return text + f" At {' and '.join(_rate(s) for s in rates)} the rest takes about {format_seconds(seconds)}."


def _rate(suite: SuiteRate) -> str:
    """One suite's rate and the run it was measured on."""
    return f"{rate_text(suite.rate or 0.0)} for {suite.suite} (measured on run {suite.run})"
