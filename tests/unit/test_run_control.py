"""The Run page's Run, Stop and Resume as a pfcore state machine (pfcore.runs.run_control): every
transition, what each phase says, and runs that finish, fail, stop or are interrupted by the page."""
from __future__ import annotations

from pathlib import Path

import pytest

from pfcore.models import ModelSpec
from pfcore.progress import Progress, ProgressView
from pfcore.runs.run_control import NO_MODEL, Notice, NoticeLevel, Press, RunControl, RunPhase
from pfcore.runs.runner import PlanState, ProgressFor, Stopped
from pfcore.suites.base import RunConfig
from tests.cli.test_resume import cached_rows

SEMANTIC = RunConfig(suite="semantic", constructions=("let_alone",), limit_blocks=1, chunk=8)
SYNTAX = RunConfig(suite="syntax", constructions=("let_alone",), limit_blocks=1, chunk=8)


def seconds(value: float) -> str:
    """A stand-in for the page's way of writing seconds."""
    return f"<{value:.0f}>"


def control(*queue: RunConfig) -> RunControl:
    """A control whose plan has `queue` left and nothing finished."""
    return RunControl(PlanState(list(queue), []))


@pytest.mark.parametrize("pressed, queued, has_model, phase, left", [
    (Press.NONE, False, True, RunPhase.IDLE, 0),
    (Press.NONE, True, True, RunPhase.WAITING, 1),
    (Press.RUN, False, True, RunPhase.RUNNING, 2),  # Run queues the plan afresh
    (Press.RUN, True, True, RunPhase.RUNNING, 2),  # ... replacing a waiting one
    (Press.RUN, True, False, RunPhase.WAITING, 1),  # no model: nothing runs, the queue stays
    (Press.RUN, False, False, RunPhase.IDLE, 0),
    (Press.RESUME, True, True, RunPhase.RUNNING, 1),  # Resume keeps the queue
    (Press.RESUME, False, True, RunPhase.IDLE, 0),
    (Press.RESUME, True, False, RunPhase.WAITING, 1),
    (Press.STOP, True, True, RunPhase.STOPPED, 1),  # Stop keeps the queue for Resume
    (Press.STOP, False, True, RunPhase.NOT_RUNNING, 0),
    (Press.STOP, True, False, RunPhase.STOPPED, 1),
])
def test_each_press_in_each_state(pressed: Press, queued: bool, has_model: bool, phase: RunPhase, left: int) -> None:
    ctl = control(SEMANTIC) if queued else control()
    ctl.plan.finished.append("earlier")  # type: ignore[arg-type]  # a record of an earlier press
    assert ctl.press(pressed, configs=[SEMANTIC, SYNTAX], has_model=has_model) is phase
    assert len(ctl.plan.queue) == left
    assert ctl.plan.finished == ([] if pressed is Press.RUN and has_model else ["earlier"])


def test_the_buttons_offered() -> None:
    assert control().can_run(has_model=True) and not control().can_run(has_model=False)
    assert control(SEMANTIC).can_resume(has_model=True)
    assert not control().can_resume(has_model=True) and not control(SEMANTIC).can_resume(has_model=False)


def test_the_press_of_the_three_buttons() -> None:
    assert Press.of(run=False, stop=False, resume=False) is Press.NONE
    assert Press.of(run=True, stop=False, resume=False) is Press.RUN
    assert Press.of(run=False, stop=True, resume=False) is Press.STOP
    assert Press.of(run=False, stop=False, resume=True) is Press.RESUME


def test_what_each_phase_says() -> None:
    ctl = control(SEMANTIC, SYNTAX)
    assert ctl.notices(RunPhase.STOPPED, has_model=True, duration=seconds) == (Notice(
        NoticeLevel.WARNING, "Stopped. 2 suite run(s) left; everything scored so far is in the score cache. "
                             "Press **Resume** to continue where it stopped."),)
    assert ctl.notices(RunPhase.WAITING, has_model=True, duration=seconds) == (Notice(
        NoticeLevel.INFO, "An unfinished run is waiting (semantic, syntax): press **Resume** to continue it "
                          "from the score cache."),)
    assert ctl.notices(RunPhase.NOT_RUNNING, has_model=True, duration=seconds) == (
        Notice(NoticeLevel.INFO, "Nothing is running."),)
    assert ctl.notices(RunPhase.IDLE, has_model=True, duration=seconds) == ()
    assert ctl.notices(RunPhase.IDLE, has_model=False, duration=seconds) == (NO_MODEL,)
    assert ctl.notices(RunPhase.WAITING, has_model=False, duration=seconds)[0] == NO_MODEL


def test_run_finishes_the_queue_and_says_so(tiny_gpt2: Path, cache_dir: Path) -> None:
    ctl = control()
    step = ctl.step(Press.RUN, configs=[SEMANTIC, SYNTAX], spec=ModelSpec(str(tiny_gpt2)), duration=seconds)
    assert step.phase is RunPhase.FINISHED and ctl.plan.queue == []
    assert [r.manifest.suite for r in ctl.plan.finished] == ["semantic", "syntax"]
    assert step.newest is ctl.plan.finished[1]
    assert [n.level for n in step.notices] == [NoticeLevel.SUCCESS] * 2
    total = ctl.plan.finished[0].manifest.timings_s.total_s
    assert step.notices[0].text == f"semantic: 8 items scored in {seconds(total)}."
    again = ctl.step(Press.NONE, configs=[SEMANTIC], spec=ModelSpec(str(tiny_gpt2)), duration=seconds)
    assert (again.phase, again.notices, again.newest) == (RunPhase.IDLE, (), None)  # a rerun picks no run


def test_without_a_model_nothing_runs(cache_dir: Path) -> None:
    ctl = control()
    step = ctl.step(Press.RUN, configs=[SEMANTIC], spec=None, duration=seconds)
    assert (step.phase, step.notices, step.newest, ctl.plan.queue) == (RunPhase.IDLE, (NO_MODEL,), None, [])


class Interrupted(BaseException):
    """What streamlit raises in a running script when a button is pressed (a rerun)."""


def interrupt_past(done_at: int) -> ProgressFor:
    """A progress_for whose callbacks raise Interrupted once more than `done_at` requests are done
    (in the next chunk, so the chunks before it are in the score cache)."""
    def progress_for(config: RunConfig, number: int, total: int) -> ProgressView:
        def update(now: Progress) -> None:
            if now.done > done_at:
                raise Interrupted
        return update

    return progress_for


def test_an_interrupted_run_stays_queued_and_resumes_from_the_cache(tiny_gpt2: Path, cache_dir: Path) -> None:
    spec = ModelSpec(str(tiny_gpt2))
    ctl = control()
    with pytest.raises(Interrupted):
        ctl.step(Press.RUN, configs=[SEMANTIC], spec=spec, duration=seconds,
                 progress_for=interrupt_past(SEMANTIC.chunk))
    assert ctl.plan.queue == [SEMANTIC] and ctl.plan.finished == []
    kept = cached_rows(cache_dir / "scores.sqlite")
    assert len(kept) >= SEMANTIC.chunk  # what was scored before the interruption is kept
    stopped = ctl.step(Press.STOP, configs=[SEMANTIC], spec=spec, duration=seconds)  # the rerun Stop makes
    assert stopped.phase is RunPhase.STOPPED and stopped.notices[0].level is NoticeLevel.WARNING
    resumed = ctl.step(Press.RESUME, configs=[SEMANTIC], spec=spec, duration=seconds)
    assert resumed.phase is RunPhase.FINISHED and resumed.newest is not None and ctl.plan.queue == []
    after = cached_rows(cache_dir / "scores.sqlite")
    assert len(after) > len(kept) and {k: after[k] for k in kept} == kept  # the kept scores were not scored again


def test_a_stop_between_chunks_leaves_the_run_queued(tiny_gpt2: Path, cache_dir: Path) -> None:
    def progress_for(config: RunConfig, number: int, total: int) -> ProgressView:
        def update(now: Progress) -> None:
            raise Stopped
        return update

    ctl = control(SEMANTIC)
    step = ctl.step(Press.RESUME, configs=[], spec=ModelSpec(str(tiny_gpt2)), duration=seconds,
                    progress_for=progress_for)
    assert step.phase is RunPhase.STOPPED and ctl.plan.queue == [SEMANTIC] and step.newest is None


def test_a_failed_run_cannot_be_resumed(tiny_gpt2: Path, cache_dir: Path) -> None:
    def broken(*_args: object, **_options: object) -> object:
        raise RuntimeError("the scorer broke")

    ctl = control()
    with pytest.raises(RuntimeError, match="the scorer broke"):
        ctl.step(Press.RUN, configs=[SEMANTIC, SYNTAX], spec=ModelSpec(str(tiny_gpt2)), duration=seconds,
                 scorers=broken)  # type: ignore[arg-type]
    assert ctl.plan.queue == [] and not ctl.can_resume(has_model=True)
