"""One progress model for the CLI, the app and sweeps: a rate over fresh work only, an ETA that is
never NaN, the same rate and ETA on every surface, the whole run's time across a resume, and plan
estimates that take their rate from a run of the same suite and model only."""
from __future__ import annotations

import re
import sqlite3
import time
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from pfcore.cli import main
from pfcore.cli.common import progress_bar, progress_view
from pfcore.models import ModelSpec
from pfcore.progress import Earlier, Progress, ProgressMeter
from pfcore.runs.runner import estimate_plan, plan_configs, run_suite
from pfcore.scoring.factory import scorer_for
from pfcore.store.cache import NO_PARTS, ScoreCache
from pfcore.store.manifest import ItemsRecord, Manifest, ModelRecord, Timings
from pfcore.store.runs import RunRecord
from pfcore.suites.base import RunConfig
from pfcore.sweep.jobs import _reporter
from pfcore.sweep.progress import Board, JobProgress, SweepProgress
from pfcore.ui import progress as ui_progress
from pfcore.ui.progress import plan_caption
from tests.app_helpers import no_errors, page, texts

NOT_NUMBERS = re.compile(r"\b(nan|inf)\b", re.IGNORECASE)


class Clock:
    """A clock the test sets."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        """The time now."""
        return self.now


class Bars:
    """Stands in for st.progress: records the text of every draw."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, value: float, text: str = "") -> Bars:
        """A new bar."""
        self.texts.append(text)
        return self

    def progress(self, value: float, text: str = "") -> None:
        """The bar drawn again."""
        self.texts.append(text)


def rate_and_eta(line: str) -> tuple[str, str]:
    """The rate and the ETA a status line shows."""
    rate = re.search(r"[\d.]+ requests/s", line)
    eta = re.search(r"ETA ([^·]+?)\s*(·|$)", line)
    assert rate and eta, line
    return rate.group(0), eta.group(1)


def last_line(err: str) -> str:
    """The last state of a bar redrawn in place with carriage returns."""
    return err.replace("\n", "\r").strip("\r").split("\r")[-1].strip()


# ----- one model: rate over fresh work, ETA never NaN -----

@pytest.mark.parametrize("done,fresh,total,elapsed", list(product((0, 3, 10), (0, 3), (0, 10), (0.0, 1e-12, 4.0))))
def test_no_state_of_any_bar_says_nan(done: int, fresh: int, total: int, elapsed: float) -> None:
    progress = Progress(done, min(fresh, done), total, elapsed)
    sweep = SweepProgress({"a": "job a", "b": "job b"}, clock=lambda: elapsed, started=0.0,
                          running={"a": JobProgress("semantic", progress)})
    for text in [progress.text(), *sweep.lines(), sweep.headline(), *(t for _, _, t in sweep.job_rows())]:
        assert not NOT_NUMBERS.search(text), text


def test_a_run_on_the_command_line_never_prints_nan(tiny_gpt2: Path, cache_dir: Path, capsys) -> None:
    assert main(["run", "--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1",
                 "--model", str(tiny_gpt2)]) == 0
    err = capsys.readouterr().err
    assert "requests" in err and not NOT_NUMBERS.search(err), err


def test_a_run_in_the_app_never_shows_nan(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/3_Run.py", tiny_gpt2).run()
    at.multiselect(key="run_constructions").set_value(["let_alone"])
    at.number_input(key="run_blocks").set_value(1).run()
    at.button(key="run_start").click().run()
    no_errors(at)
    shown = [p.proto.text for p in at.get("progress")] + texts(at.success) + texts(at.caption)
    assert any("requests" in t for t in shown) and not any(NOT_NUMBERS.search(t) for t in shown), shown


class Remote:
    """Stands in for a Ray actor's method: `.remote(...)` calls it here."""

    def __init__(self, method: Any) -> None:
        self.remote = method


def test_a_sweeps_job_rows_show_its_runs_progress_without_nan(tiny_gpt2: Path, cache_dir: Path) -> None:
    board = Board()
    handle = type("Handle", (), {"report": Remote(board.report)})()
    run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(suite="semantic", constructions=("let_alone",), limit_blocks=1),
              _reporter(handle, "job-1", "semantic (1/1)"))
    sweep = SweepProgress({"job-1": "tiny step0"}, running=board.snapshot())
    [(label, fraction, text)] = sweep.job_rows()
    assert label == "tiny step0" and fraction == 1.0 and "16 of 16 requests" in text and "ETA 0.0 s" in text
    assert not any(NOT_NUMBERS.search(line) for line in sweep.lines()), sweep.lines()


def test_an_interruption_after_a_bar_starts_its_own_line(tiny_gpt2: Path, cache_dir: Path, capsys,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(self: ScoreCache, rows: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ScoreCache, "put_many", interrupted)
    assert main(["run", "--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1",
                 "--chunk", "4", "--model", str(tiny_gpt2)]) == 130
    err = capsys.readouterr().err
    assert re.search(r"requests · ETA [^\n]*\ninterrupted: ", err), err


# ----- the CLI and the app show the same -----

def test_the_cli_and_the_app_show_the_same_rate_and_eta_for_a_resumed_run(
        monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    bars = Bars()
    monkeypatch.setattr(ui_progress.st, "progress", bars)
    clock = Clock()
    # a scoring job resumed from the score cache: 40 of 100 there already, then 2 requests a second
    cli, app = progress_bar("semantic", clock=clock), ui_progress.progress_callback("semantic", clock=clock)
    for now, done in [(0.0, 40), (10.0, 60), (15.0, 70)]:
        clock.now = now
        cli(done, 100)
        app(done, 100)
    assert rate_and_eta(last_line(capsys.readouterr().err)) == rate_and_eta(bars.texts[-1]) == ("2.0 requests/s",
                                                                                                "15 s")
    # a run resumed after a stop: its earlier part scored 40 in 30 s, this part 20 more in 10 s
    clock.now = 100.0
    cli_run, app_run = progress_view("semantic", clock=clock), ui_progress.progress_view("semantic", clock=clock)
    meter = ProgressMeter(lambda p: (cli_run(p), app_run(p)), clock=clock, cached=lambda: 40,
                          earlier=Earlier(fresh=40, seconds=30.0))
    for now, done in [(100.0, 40), (110.0, 60)]:
        clock.now = now
        meter(done, 100)
    cli_line = last_line(capsys.readouterr().err)
    assert rate_and_eta(cli_line) == rate_and_eta(bars.texts[-1]) == ("1.5 requests/s", "27 s")
    assert "40 scored before the resume" in cli_line and "40 scored before the resume" in bars.texts[-1]


# ----- the whole run's time across a resume -----

class Slow:
    """A scorer that takes `delay` seconds per call and is interrupted (KeyboardInterrupt) once it
    has scored `stop_after` requests; everything else is the real scorer's."""

    def __init__(self, inner: Any, delay: float, stop_after: int | None) -> None:
        self.inner, self.delay, self.stop_after, self.seen = inner, delay, stop_after, 0

    def score(self, requests, progress=None):
        """The real scores, slowly; KeyboardInterrupt once enough are scored."""
        if self.stop_after is not None and self.seen >= self.stop_after:
            raise KeyboardInterrupt
        time.sleep(self.delay)
        self.seen += len(requests)
        return self.inner.score(requests, progress)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_resumed_runs_manifest_gives_the_whole_time(tiny_gpt2: Path, cache_dir: Path) -> None:
    spec = ModelSpec(str(tiny_gpt2))
    config = RunConfig(suite="semantic", constructions=("let_alone",), limit_blocks=2, chunk=4)
    slow = []

    def interrupted(spec: ModelSpec, method: Any, *, bos: bool) -> Slow:
        slow.append(Slow(scorer_for(spec, method, bos=bos), delay=0.4, stop_after=8))
        return slow[-1]

    with pytest.raises(KeyboardInterrupt):
        run_suite(spec, config, scorers=interrupted)
    assert slow[0].seen == 8  # two chunks of 4 scored and committed, 0.8 s of scoring
    record = run_suite(spec, config)
    whole = record.manifest.timings_s
    again = run_suite(spec, config).manifest.timings_s  # everything from the cache: one part, nothing scored
    assert whole.score_s >= 0.8 and whole.total_s >= whole.score_s
    assert whole.scored == again.scored + len(set(_requests(config))) and again.scored == 0
    assert whole.parts == 2 and again.parts == 1
    with sqlite3.connect(cache_dir / "scores.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM run_parts").fetchone()[0] == 0  # the finished run's are gone


def _requests(config: RunConfig) -> list:
    """The scoring requests of a semantic run of `config`."""
    from pfcore.scoring.methods import ScoringMethod
    from pfcore.suites.registry import get_suite
    suite = get_suite(config.suite)
    return list(suite.requests(suite.load(config), ScoringMethod.CAUSAL) or [])


def test_older_manifests_read_their_timings_as_one_part_and_a_damaged_part_is_dropped(cache_dir: Path) -> None:
    old = Timings.from_json({"items_s": 0.1, "load_s": 1.0, "score_s": 2.0, "total_s": 3.1, "scored": 64})
    assert old.parts == 1 and old.rate == pytest.approx(32.0)
    assert old.plus(old) == Timings(0.2, 2.0, 4.0, 6.2, 128, 2)
    with ScoreCache() as cache:
        cache.keep_parts("run", old)
        assert cache.earlier_parts("run") == old
        cache.conn.execute("UPDATE run_parts SET timings = '{not json'")
        with pytest.warns(UserWarning, match="damaged"):
            assert cache.earlier_parts("run") == NO_PARTS
        cache.forget_parts("run")
        assert cache.earlier_parts("run") == NO_PARTS


# ----- estimates: the same suite and model only -----

def _measured(spec: ModelSpec, suite: str, run_id: str, rate: float) -> RunRecord:
    """A finished run of `suite` on the model that measured `rate` requests per second."""
    manifest = Manifest(run_id=run_id, created="2025-01-01T00:00:00+00:00", suite=suite,
                        model=ModelRecord(spec.name), scoring="causal", items=ItemsRecord(8, "x", "test"),
                        timings_s=Timings(score_s=100.0, total_s=100.0, scored=int(100 * rate)))
    return RunRecord(Path(run_id), manifest, {})


def test_an_estimate_never_uses_another_suites_rate(tiny_gpt2: Path, cache_dir: Path) -> None:
    spec = ModelSpec(str(tiny_gpt2))
    configs = plan_configs(["semantic"], ["let_alone"], 1, 32)
    gym = _measured(spec, "syntaxgym", "run-gym", 100.0)
    alone = estimate_plan(spec, configs, [gym])
    assert alone.requests > 0 and alone.seconds is None
    caption = plan_caption(alone)
    assert "no estimate" in caption and "run-gym" not in caption and "semantic" in caption
    semantic = _measured(spec, "semantic", "run-semantic", 25.0)
    both = estimate_plan(spec, configs, [gym, semantic])  # newest first: the SyntaxGym run is the latest
    assert both.seconds == pytest.approx(both.requests / 25.0)
    assert "25.0 requests/s for semantic (measured on run run-semantic)" in plan_caption(both)
