"""Run a suite end to end: items -> requests -> (cache) -> scores -> decisions -> summary -> record,
and a plan of several runs that can be stopped between chunks and resumed (the CLI and the app
both drive runs through here)."""
from __future__ import annotations

import hashlib
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from pfcore.errors import EnvironmentProblem, InputError
from pfcore.files import check_writable, file_slug, locked
from pfcore.models.precision import precision_note
from pfcore.models.spec import ModelSpec
from pfcore.names import SuiteName
from pfcore.paths import cache_subdir
from pfcore.progress import Earlier, ProgressMeter, ProgressView
from pfcore.runs.settings import run_settings
from pfcore.scoring.factory import LazyScorer, ScorerSource, cache_identity, scorer_for
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS
from pfcore.store.cache import NO_PARTS, ScoreCache, ScoreStats, namespace, request_key
from pfcore.store.manifest import (
    ItemsRecord,
    Manifest,
    ModelRecord,
    Timings,
    git_commit,
    item_set_hash,
    new_run_id,
    now_iso,
    read_manifest,
    versions,
)
from pfcore.store.result_rows import step_from_revision
from pfcore.store.results import add_run_rows, withdraw_sources
from pfcore.store.runs import MANIFEST, RunRecord, save_run
from pfcore.suites.base import RunConfig, ScoreContext, Suite
from pfcore.suites.registry import get_suite

__all__ = ["ResultsLabel", "RunConfig", "run_plan", "run_suite"]


@dataclass(frozen=True)
class ResultsLabel:
    """How a run is named in the results table (a trajectory names its checkpoints itself)."""

    model: str
    revision: str
    step: int | None


@dataclass(frozen=True)
class GivenItems:
    """Items a caller made itself (the Run page's trial of a visitor's definition, which lives in their
    session alone), run instead of the suite's own, and where they came from in words (the manifest's)."""

    items: object
    source: str


def run_suite(spec: ModelSpec, config: RunConfig, progress: ProgressView | None = None,
              label: ResultsLabel | None = None, scorers: ScorerSource = scorer_for,
              given: GivenItems | None = None) -> RunRecord:
    """Run one suite on one model, save its record and add its summary to the results table.
    The model loads only if some request is not in the score cache. The record's folder is
    proven writable and held for this run before anything is scored, so a read-only or full place,
    or a folder another command is writing, costs no work. A run stopped or interrupted keeps its
    time in the score cache, and the run that resumes it adds it. `given` items are run in place of
    the suite's own."""
    started = time.monotonic()
    suite = get_suite(config.suite)
    out = Path(config.out) if config.out else None
    check_writable(out or cache_subdir("runs"), "the run record's folder (--out)" if out else "the cache's runs folder")
    with record_writer(out, suite.name, spec) as replaced:
        record, rows = _score_and_save(suite, spec, config, progress, label, scorers, started, given)
        if config.shared:
            _add_rows(record, rows, replaced)
    return record


def _score_and_save(suite: Suite, spec: ModelSpec, config: RunConfig, progress: ProgressView | None,
                    label: ResultsLabel | None, scorers: ScorerSource,
                    started: float, given: GivenItems | None = None) -> tuple[RunRecord, pd.DataFrame]:
    """Score and decide the suite's items (or the `given` ones) through the score cache, and save the
    run's record; its rows of the results table ride along."""
    method = suite.method(spec, config.scoring)
    items = given.items if given else suite.load(config)
    lazy = LazyScorer(spec, method, bos=config.bos, source=scorers)
    part = RunPart(started, time.monotonic(), lazy)
    item_ids = suite.item_ids(items)
    with ScoreCache.when(config.use_cache) as cache:
        key = run_key(spec, config, lazy.identity, item_ids) if cache else ""
        earlier = cache.earlier_parts(key) if cache else NO_PARTS
        ctx = ScoreContext(lazy, cache, part.meter(progress, earlier), suite.reduction(config, method), config.chunk,
                           lazy, part.stats)
        try:
            tables = score_and_decide(suite, items, ctx)
        except BaseException:
            if cache is not None and part.stats.scored:
                with suppress(EnvironmentProblem):  # the interruption is what the user sees; only its time is lost
                    cache.keep_parts(key, earlier.plus(part.timings()))
            raise
        manifest = _manifest(suite, spec, config, method, item_ids, earlier.plus(part.timings()),
                             given.source if given else None)
        rows = results_rows(manifest, tables["summary"], suite.metric, label)
        record = save_run(manifest, tables, Path(config.out) if config.out else None,
                          suite.published(tables["summary"], spec.revision or "NONE"), rows=rows)
        if cache is not None and earlier.parts:
            _forget_parts(cache, key)
    return record, rows


def _add_rows(record: RunRecord, rows: pd.DataFrame, replaced: str | None) -> None:
    """The run's rows into the results table, and out of it those of the record it replaced."""
    try:
        add_run_rows(record.path, rows)
        if replaced:
            withdraw_sources({replaced})
    except EnvironmentProblem as exc:
        raise EnvironmentProblem(f"{exc}; the run's record {record.path} is whole, but its rows are not in the "
                                 "results table") from exc


def record_lock(out: Path) -> Path:
    """The lock file of a record folder, beside it (a record folder holds its record's files alone),
    keyed by what the folder is (its real path: links, `.` and `..` resolved), not by how it was named,
    so a second writer reaching it through a symbolic link or `D/../D` meets the same lock."""
    real = Path(out).resolve()
    digest = hashlib.sha256(str(real).encode()).hexdigest()[:12]
    return real.parent / f".{file_slug(real.name)}-{digest}.pfcore-writer.lock"


@contextmanager
def record_writer(out: Path | None, suite: SuiteName, spec: ModelSpec) -> Iterator[str | None]:
    """Hold the --out folder for one run: a second command writing it is refused at once, naming this
    one. Yields the results-table source of the record the run will replace (a rerun of the same
    suite and model), or None; a folder holding another suite's or model's record is refused."""
    if out is None:
        yield None
        return
    busy = f"{out} is being written by another pfcore command: wait for it to end, or give another --out"
    with locked(record_lock(out), wait=False, busy=busy, holder=f"pfcore run --suite {suite} --model {spec.label}"):
        yield _replaced(out, suite, spec)


def _replaced(out: Path, suite: SuiteName, spec: ModelSpec) -> str | None:
    """The source of the whole record in `out` that a run of this suite and model replaces; InputError
    when it is another suite's or model's (a damaged or unfinished one is no record: None)."""
    try:
        earlier = read_manifest(out / MANIFEST)  # a missing one too is refused as an InputError
    except InputError:
        return None
    if (earlier.suite, earlier.model.label) != (suite, spec.label):
        raise InputError(f"{out} holds the record of another run ({earlier.run_id}: the {earlier.suite} suite on "
                         f"{earlier.model.label}), which this run would replace: give another --out")
    return f"pfcore run {earlier.run_id}"


@dataclass
class RunPart:
    """One part of a run (the whole run, unless it was stopped and resumed): when it started, when
    its items were read, the model's load and what it scored."""

    started: float
    items_at: float
    lazy: LazyScorer
    stats: ScoreStats = field(default_factory=ScoreStats)

    @property
    def load_s(self) -> float:
        """Seconds spent loading the model so far (0 while every score comes from the cache)."""
        return self.lazy.load_s

    def meter(self, view: ProgressView | None, earlier: Timings) -> ProgressMeter | None:
        """The progress callback that shows this part in `view`: fresh work is what the cache did not
        give, the model's load is left out of the time, and the earlier parts' work and time count."""
        if view is None:
            return None
        return ProgressMeter(view, cached=lambda: self.stats.cached, paused=lambda: self.load_s,
                             earlier=Earlier(earlier.scored, earlier.score_s))

    def timings(self) -> Timings:
        """The timings of this part, up to now."""
        now, load_s = time.monotonic(), self.load_s
        return Timings(round(self.items_at - self.started, 3), round(load_s, 3),
                       round(now - self.items_at - load_s, 3), round(now - self.started, 3), self.stats.scored)


def run_key(spec: ModelSpec, config: RunConfig, identity: dict[str, object], item_ids: Sequence[str]) -> str:
    """What identifies a run across a stop and its resume: the settings that change its numbers, the
    scorer's identity (the weights) and its item set."""
    return namespace({"settings": run_settings(spec, config), "scorer": identity, "items": item_set_hash(item_ids)})


def _forget_parts(cache: ScoreCache, key: str) -> None:
    """Drop a finished run's earlier parts from the score cache; a refusal of the machine only warns,
    since the run is finished and recorded."""
    try:
        cache.forget_parts(key)
    except EnvironmentProblem as exc:
        warnings.warn(f"the run is recorded, but the time of its earlier parts stayed in the score cache ({exc}); "
                      "a later run with the same settings would add it to its own time", stacklevel=2)


def score_and_decide(suite: Suite, items: object, ctx: ScoreContext) -> dict[str, pd.DataFrame]:
    """The run's tables: per-item rows, decisions (where the suite has them) and the summary."""
    rows = suite.score(items, ctx)
    decided = suite.decide(rows)
    tables = {"rows": rows} if decided is None else {"rows": rows, "decisions": decided}
    tables["summary"] = suite.summarize(rows if decided is None else decided)
    return tables


def results_rows(m: Manifest, summary: pd.DataFrame, metric: str = "accuracy",
                 label: ResultsLabel | None = None) -> pd.DataFrame:
    """A run's summary as rows of the long results table (source "pfcore run <run id>")."""
    if label is None:
        revision = m.model.revision or "main"
        step = step_from_revision(revision)
        label = ResultsLabel(m.model.name, revision, None if np.isnan(step) else int(step))
    long = summary.melt(id_vars=["construction", "filter"],
                        value_vars=[c for c in ("accuracy", "ci_low", "ci_high", "n") if c in summary.columns],
                        var_name="metric", value_name="value")
    return pd.DataFrame({
        "model": label.model, "revision": label.revision,
        "step": pd.array([label.step] * len(long), dtype="Int64"),
        "suite": m.suite, "construction": long["construction"],
        "filter": long["filter"], "metric": long["metric"].replace({"accuracy": metric}),
        "value": long["value"].astype(float), "source": f"pfcore run {m.run_id}",
        "weights_sha256": m.model.weights_sha256,
    }).dropna(subset=["value"])


def _manifest(suite: Suite, spec: ModelSpec, config: RunConfig, method: ScoringMethod,
              item_ids: Sequence[str], timings: Timings, source: str | None = None) -> Manifest:
    """Everything needed to know what produced a run's numbers (never the EWoK password); `source`
    says where given items came from."""
    settings = {k: v for k, v in asdict(config).items() if k != "password"}
    settings["reduction"] = suite.reduction(config, method)
    settings["corrected"] = config.corrected and method.bow  # the BOW correction needs a method with BOW masses
    settings["first_token"] = ("BOS prepended, first word scored" if config.bos
                               else "no BOS: first token of a whole sentence unscored (minicons default)")
    settings["precision"] = precision_note(spec.dtype) or f"{spec.dtype} (the paper's precision)"
    model = ModelRecord.of(spec, source=MODELS.source(spec), weights_sha256=MODELS.weights(spec))
    return Manifest(
        run_id=new_run_id(config.suite, spec.label), created=now_iso(), suite=config.suite, model=model,
        scoring=method.value, settings=settings,
        items=ItemsRecord(len(item_ids), item_set_hash(item_ids),
                          source or config.items_path or suite.default_source(config)),
        versions=versions(), git_commit=git_commit(), timings_s=timings)


ProgressFor = Callable[[RunConfig, int, int], ProgressView | None]
"""progress_for(config, number, total): the progress view of the number-th of total runs."""


class Stopped(Exception):
    """Raised from a progress callback to stop a plan between chunks (what is scored is kept)."""


@dataclass
class PlanState:
    """A plan of runs in progress: what is left to run and what has finished."""

    queue: list[RunConfig]
    finished: list[RunRecord]


def run_plan(spec: ModelSpec, state: PlanState, progress_for: ProgressFor | None = None,
             scorers: ScorerSource = scorer_for) -> PlanState:
    """Run the queued configs one after another; a progress view that raises Stopped leaves the
    unfinished run at the head of the queue (its scores and its time so far are in the cache, so
    running the plan again resumes it)."""
    total = len(state.queue) + len(state.finished)
    while state.queue:
        config = state.queue[0]
        view = progress_for(config, len(state.finished) + 1, total) if progress_for else None
        progress = view or (lambda _now: None)  # a view even when none shows: a run's scorer reports progress
        try:
            record = run_suite(spec, config, progress, scorers=scorers)
        except Stopped:
            return state
        state.finished.append(record)
        state.queue.pop(0)
    return state


def plan_configs(suites: Sequence[SuiteName], constructions: Sequence[str], blocks: int,
                 chunk: int) -> list[RunConfig]:
    """One RunConfig per suite for the chosen constructions; blocks 0 means every block."""
    if not suites:
        raise InputError("choose at least one suite")
    if not constructions:
        raise InputError("choose at least one construction")
    if blocks < 0:
        raise InputError("the number of blocks cannot be negative")
    return [RunConfig(suite=s, constructions=tuple(constructions), limit_blocks=blocks or None,
                      chunk=chunk) for s in suites]


@dataclass(frozen=True)
class SuiteRate:
    """One suite of a plan: the requests it still has to score, and the rate of the latest earlier run
    of the same suite, model and scoring method that measured one (None: no such run)."""

    suite: SuiteName
    missing: int
    rate: float | None = None  # requests scored per second of scoring
    run: str = ""  # the run the rate was measured on

    @property
    def seconds(self) -> float | None:
        """Estimated scoring time of the suite's missing requests (None when it has some and no rate)."""
        if not self.missing:
            return 0.0
        return None if self.rate is None else self.missing / self.rate


@dataclass(frozen=True)
class PlanEstimate:
    """What a plan will score before it runs: its items, its distinct requests, how many of them
    the score cache holds, and per suite what is missing and the rate to expect for it."""

    items: int
    requests: int
    cached: int
    suites: tuple[SuiteRate, ...] = ()

    @property
    def seconds(self) -> float | None:
        """Estimated scoring time of what the cache lacks (None when a suite that lacks some has no rate)."""
        times = [s.seconds for s in self.suites]
        return None if None in times else sum(t for t in times if t is not None)

    @property
    def unmeasured(self) -> list[str]:
        """The suites with requests to score and no earlier run to take a rate from."""
        return [s.suite for s in self.suites if s.seconds is None]


def estimate_plan(spec: ModelSpec, configs: Sequence[RunConfig], runs: Sequence[RunRecord]) -> PlanEstimate:
    """Count the plan's items and distinct requests, look them up in the score cache (without
    loading the model), and take each suite's rate from the latest run (`runs` is newest first) of
    the same suite on the same model, dtype, device and scoring method; never another suite's."""
    items, keys, per_suite = 0, set[str](), []
    for config in configs:
        suite = get_suite(config.suite)
        method = suite.method(spec, config.scoring)
        loaded = suite.load(config)
        items += len(suite.item_ids(loaded))
        ns = namespace(cache_identity(spec, method, bos=config.bos))
        own = {request_key(ns, r.prefix, r.text) for r in suite.requests(loaded, method) or []} - keys
        keys |= own
        per_suite.append((config.suite, method, own))
    with ScoreCache() as cache:
        present = cache.present(sorted(keys))
    rates = [_suite_rate(suite, len(own - present), spec, method, runs) for suite, method, own in per_suite]
    return PlanEstimate(items, len(keys), len(present), tuple(rates))


def _suite_rate(suite: SuiteName, missing: int, spec: ModelSpec, method: ScoringMethod,
                runs: Sequence[RunRecord]) -> SuiteRate:
    """A suite's missing requests with the rate of its latest measured run on this model and method."""
    for record in runs:
        m = record.manifest
        same = (m.suite == suite and m.scoring == method.value and m.model.label == spec.label
                and (m.model.dtype, m.model.device) == (spec.dtype, spec.device))
        if same and m.timings_s.rate:
            return SuiteRate(suite, missing, m.timings_s.rate, m.run_id)
    return SuiteRate(suite, missing)
