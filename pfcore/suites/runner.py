"""Run a suite end to end: items -> requests -> (cache) -> scores -> decisions -> summary -> record,
and a plan of several runs that can be stopped between chunks and resumed (the CLI and the app
both drive runs through here)."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pfcore.errors import EnvironmentProblem, InputError
from pfcore.models.identity import weights_identity
from pfcore.models.loading import resolve_source
from pfcore.models.spec import ModelSpec
from pfcore.names import SuiteName, published_name
from pfcore.paths import cache_subdir, check_writable
from pfcore.scoring.factory import LazyScorer, ScorerSource, cache_identity, scorer_for
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import Progress
from pfcore.store.cache import ScoreCache, namespace, request_key
from pfcore.store.manifest import (
    ItemsRecord,
    Manifest,
    ModelRecord,
    Timings,
    git_commit,
    item_set_hash,
    new_run_id,
    now_iso,
    versions,
)
from pfcore.store.result_rows import step_from_revision
from pfcore.store.results import add_run_rows
from pfcore.store.runs import RunRecord, save_run
from pfcore.suites.base import ModelHandle, RunConfig, ScoreContext, Suite
from pfcore.suites.registry import get_suite

__all__ = ["ResultsLabel", "RunConfig", "run_plan", "run_suite"]


@dataclass(frozen=True)
class ResultsLabel:
    """How a run is named in the results table (a trajectory names its checkpoints itself)."""

    model: str
    revision: str
    step: int | None


def score_cache(config: RunConfig) -> ScoreCache | None:
    """The persistent score cache, or None when the run asked for none."""
    return ScoreCache() if config.use_cache else None


def run_suite(spec: ModelSpec, config: RunConfig, progress: Progress | None = None,
              label: ResultsLabel | None = None, scorers: ScorerSource = scorer_for) -> RunRecord:
    """Run one suite on one model, save its record and add its summary to the results table.
    The model loads only if some request is not in the score cache. The record's folder is
    proven writable before anything is scored, so a read-only or full place costs no work."""
    started = time.monotonic()
    suite = get_suite(config.suite)
    out = Path(config.out) if config.out else None
    check_writable(out or cache_subdir("runs"), "the run record's folder (--out)" if out else "the cache's runs folder")
    method = suite.method(spec, config.scoring)
    items = suite.load(config)
    items_at = time.monotonic()
    lazy, handle = LazyScorer(spec, method, config.bos, scorers), ModelHandle(spec)
    ctx = ScoreContext(lazy, score_cache(config), progress, suite.reduction(config, method), config.chunk, handle)
    tables = score_and_decide(suite, items, ctx)
    done = time.monotonic()
    load_s = lazy.load_s + handle.load_s
    timings = Timings(round(items_at - started, 3), round(load_s, 3),
                      round(done - items_at - load_s, 3), round(done - started, 3), ctx.stats.scored)
    manifest = _manifest(suite, spec, config, method, suite.item_ids(items), timings)
    rows = results_rows(manifest, tables["summary"], suite.metric, label)
    record = save_run(manifest, tables, out, suite.published(tables["summary"], spec.revision or "NONE"), rows=rows)
    try:
        add_run_rows(record.path, rows)
    except EnvironmentProblem as exc:
        raise EnvironmentProblem(f"{exc}; the run's record {record.path} is whole, but its rows are not in the "
                                 "results table") from exc
    return record


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
        "suite": m.suite, "construction": long["construction"].map(published_name),
        "filter": long["filter"], "metric": long["metric"].replace({"accuracy": metric}),
        "value": long["value"].astype(float), "source": f"pfcore run {m.run_id}",
        "weights_sha256": m.model.weights_sha256,
    }).dropna(subset=["value"])


def _manifest(suite: Suite, spec: ModelSpec, config: RunConfig, method: ScoringMethod,
              item_ids: Sequence[str], timings: Timings) -> Manifest:
    """Everything needed to know what produced a run's numbers (never the EWoK password)."""
    settings = {k: v for k, v in asdict(config).items() if k != "password"}
    settings["reduction"] = suite.reduction(config, method)
    settings["corrected"] = config.corrected and method is ScoringMethod.CAUSAL  # the BOW correction is causal
    settings["first_token"] = ("BOS prepended, first word scored" if config.bos
                               else "no BOS: first token of a whole sentence unscored (minicons default)")
    model = ModelRecord(spec.name, spec.revision, spec.dtype, spec.device, spec.kind, spec.trust_remote_code,
                        resolve_source(spec)[0], weights_identity(spec))
    return Manifest(
        run_id=new_run_id(config.suite, spec.label), created=now_iso(), suite=config.suite, model=model,
        scoring=method.value, settings=settings,
        items=ItemsRecord(len(item_ids), item_set_hash(item_ids),
                          config.items_path or suite.default_source(config)),
        versions=versions(), git_commit=git_commit(), timings_s=timings)


ProgressFor = Callable[[RunConfig, int, int], Progress | None]
"""progress_for(config, number, total): a progress callback for the number-th of total runs."""


class Stopped(Exception):
    """Raised from a progress callback to stop a plan between chunks (what is scored is kept)."""


@dataclass
class PlanState:
    """A plan of runs in progress: what is left to run and what has finished."""

    queue: list[RunConfig]
    finished: list[RunRecord]


def run_plan(spec: ModelSpec, state: PlanState, progress_for: ProgressFor | None = None,
             should_stop: Callable[[], bool] = lambda: False, scorers: ScorerSource = scorer_for) -> PlanState:
    """Run the queued configs one after another; `should_stop` is asked at every progress update,
    and a stop leaves the unfinished run at the head of the queue (its scores are in the cache, so
    running the plan again resumes it)."""
    total = len(state.queue) + len(state.finished)
    while state.queue:
        config = state.queue[0]
        number = len(state.finished) + 1
        bar = progress_for(config, number, total) if progress_for else None

        def progress(done: int, todo: int, bar: Progress | None = bar) -> None:
            if bar:
                bar(done, todo)
            if should_stop():
                raise Stopped

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
class PlanEstimate:
    """What a plan will score before it runs: its items, its distinct requests, how many of them
    the score cache holds, and the rate an earlier run of the model measured."""

    items: int
    requests: int
    cached: int
    rate: float | None  # requests scored per second on this model's latest run (None: unknown)
    rate_run: str = ""  # the run the rate was measured on

    @property
    def seconds(self) -> float | None:
        """Estimated scoring time of what the cache lacks (None when no rate is known)."""
        return None if self.rate is None else (self.requests - self.cached) / self.rate


def estimate_plan(spec: ModelSpec, configs: Sequence[RunConfig], runs: Sequence[RunRecord]) -> PlanEstimate:
    """Count the plan's items and distinct requests, look them up in the score cache (without
    loading the model), and take the scoring rate of the model's latest run that measured one."""
    items, keys = 0, set()
    for config in configs:
        suite = get_suite(config.suite)
        method = suite.method(spec, config.scoring)
        loaded = suite.load(config)
        items += len(suite.item_ids(loaded))
        ns = namespace(cache_identity(spec, method, bos=config.bos))
        keys |= {request_key(ns, r.prefix, r.text) for r in suite.requests(loaded, method) or []}
    cache = ScoreCache()
    try:
        cached = len(cache.present(sorted(keys)))
    finally:
        cache.close()
    measured = next((r for r in runs if r.manifest.model.label == spec.label and r.manifest.timings_s.rate), None)
    rate = measured.manifest.timings_s.rate if measured else None
    return PlanEstimate(items, len(keys), cached, rate, measured.manifest.run_id if measured else "")
