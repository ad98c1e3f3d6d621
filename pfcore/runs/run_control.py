"""The Run page's Run, Stop and Resume, without streamlit: what each button does to a plan of runs,
the phase that leaves the plan in, and what the page says in each phase; the page only draws.

A press arrives as a rerun of the page. A Stop pressed while a plan runs interrupts that rerun at
its next progress update (streamlit stops the script there), so the interrupted run stays at the
head of the queue, its scores in the score cache, and the next rerun, with Stop pressed, finds it
there: Resume then runs the queue again, and what was scored comes back from the cache."""
from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from pfcore.models.spec import ModelSpec
from pfcore.runs.runner import PlanState, ProgressFor, run_plan
from pfcore.scoring.factory import ScorerSource, scorer_for
from pfcore.store.runs import RunRecord
from pfcore.suites.base import RunConfig


class Press(StrEnum):
    """The button a rerun of the page comes from (NONE: a rerun for any other reason)."""

    NONE = "none"
    RUN = "run"
    STOP = "stop"
    RESUME = "resume"

    @classmethod
    def of(cls, *, run: bool, stop: bool, resume: bool) -> Press:
        """The press that the page's three buttons report (streamlit reports one at a time)."""
        return cls.RUN if run else cls.STOP if stop else cls.RESUME if resume else cls.NONE


class RunPhase(StrEnum):
    """Where a plan of runs stands after a press."""

    IDLE = "idle"  # nothing queued
    WAITING = "waiting"  # an unfinished plan is queued: Resume continues it
    RUNNING = "running"  # Run or Resume with a model: the queue runs now
    STOPPED = "stopped"  # Stop (or a stop between runs) with runs left in the queue
    NOT_RUNNING = "not running"  # Stop with nothing queued
    FINISHED = "finished"  # the queue ran to its end


class NoticeLevel(StrEnum):
    """How the page shows a notice: st.info, st.warning or st.success."""

    INFO = "info"
    WARNING = "warning"
    SUCCESS = "success"


@dataclass(frozen=True)
class Notice:
    """One line the page shows, at its level (markdown)."""

    level: NoticeLevel
    text: str


NO_MODEL = Notice(NoticeLevel.INFO, "Load a model in the sidebar to run the suites.")


@dataclass(frozen=True)
class RunStep:
    """What one rerun of the page did: the phase it left, what to say, and the run to show in the
    results (the newest finished now; None when nothing ran)."""

    phase: RunPhase
    notices: tuple[Notice, ...]
    newest: RunRecord | None = None


@dataclass
class RunControl:
    """A plan of runs (kept by the page between reruns) and what its buttons do to it."""

    plan: PlanState

    def can_run(self, *, has_model: bool) -> bool:
        """Whether Run is offered: a model is loaded."""
        return has_model

    def can_resume(self, *, has_model: bool) -> bool:
        """Whether Resume is offered: a model is loaded and runs are left in the queue."""
        return has_model and bool(self.plan.queue)

    def press(self, pressed: Press, *, configs: Sequence[RunConfig], has_model: bool) -> RunPhase:
        """Apply a press: Run queues `configs` afresh, Resume keeps the queue, Stop leaves it for
        Resume; without a model neither Run nor Resume runs anything."""
        if pressed is Press.RUN and has_model:
            self.plan.queue[:] = configs
            self.plan.finished.clear()
            return RunPhase.RUNNING if self.plan.queue else RunPhase.IDLE
        if pressed is Press.RESUME and has_model and self.plan.queue:
            return RunPhase.RUNNING
        if pressed is Press.STOP:
            return RunPhase.STOPPED if self.plan.queue else RunPhase.NOT_RUNNING
        return RunPhase.WAITING if self.plan.queue else RunPhase.IDLE

    def run(self, spec: ModelSpec, *, progress_for: ProgressFor | None = None,
            scorers: ScorerSource = scorer_for) -> RunPhase:
        """Run the queue; a run that fails empties it (it cannot be resumed) and raises. An
        interruption of the page (a BaseException, not an Exception) leaves the queue as it is."""
        try:
            run_plan(spec, self.plan, progress_for, scorers=scorers)
        except Exception:
            self.plan.queue.clear()
            raise
        return RunPhase.STOPPED if self.plan.queue else RunPhase.FINISHED

    def notices(self, phase: RunPhase, *, has_model: bool, duration: Callable[[float], str]) -> tuple[Notice, ...]:
        """What the page says in a phase (`duration` writes a number of seconds as the page does)."""
        said = () if has_model else (NO_MODEL,)
        queue = self.plan.queue
        if phase is RunPhase.STOPPED:
            return (*said, Notice(NoticeLevel.WARNING, f"Stopped. {len(queue)} suite run(s) left; everything "
                                  "scored so far is in the score cache. Press **Resume** to continue where it "
                                  "stopped."))
        if phase is RunPhase.NOT_RUNNING:
            return (*said, Notice(NoticeLevel.INFO, "Nothing is running."))
        if phase is RunPhase.WAITING:
            return (*said, Notice(NoticeLevel.INFO, f"An unfinished run is waiting ({', '.join(c.suite for c in queue)}"
                                  "): press **Resume** to continue it from the score cache."))
        if phase is RunPhase.FINISHED:
            return (*said, *(Notice(NoticeLevel.SUCCESS, f"{r.manifest.suite}: {r.manifest.items.count:,} items "
                                    f"scored in {duration(r.manifest.timings_s.total_s)}.")
                             for r in self.plan.finished))
        return said

    def step(self, pressed: Press, *, configs: Sequence[RunConfig], spec: ModelSpec | None,
             duration: Callable[[float], str], progress_for: ProgressFor | None = None,
             scorers: ScorerSource = scorer_for) -> RunStep:
        """One rerun of the page: apply the press, run the queue when it says so, and say what
        happened (`spec` is the sidebar's model, None when none is loaded)."""
        phase = self.press(pressed, configs=configs, has_model=spec is not None)
        newest = None
        if phase is RunPhase.RUNNING and spec is not None:
            phase = self.run(spec, progress_for=progress_for, scorers=scorers)
            newest = self.plan.finished[-1] if self.plan.finished else None
        return RunStep(phase, self.notices(phase, has_model=spec is not None, duration=duration), newest)


def private_runs(configs: Sequence[RunConfig], folder: Path) -> list[RunConfig]:
    """The configs with their records under a visitor's own folder and their rows kept out of the
    shared results table (public mode: one visitor's runs never change what another sees)."""
    return [replace(c, out=str(folder / f"{uuid.uuid4().hex[:12]}-{c.suite}"), shared=False) for c in configs]
