"""Run a suite end to end: items -> requests -> (cache) -> scores -> decisions -> summary -> record."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd

from pfcore.errors import InputError
from pfcore.items import default_items, read_items
from pfcore.items.schema import SYNTAX_CONTROL, AffinityItem, SemanticItem, SyntaxItem
from pfcore.models.loading import LoadedModel, load_model, resolve_source
from pfcore.models.spec import ModelSpec
from pfcore.scoring.cached import CHUNK, RequestScorer, model_identity, score_cached
from pfcore.scoring.methods import PLL_METRICS, SCORINGS, scoring_identity
from pfcore.scoring.requests import Reduction, Request, TokenScores
from pfcore.store.cache import ScoreCache
from pfcore.store.results import append_results, step_from_revision
from pfcore.store.runs import (PUBLISHED_SEMANTIC, RunRecord, git_commit, item_set_hash, new_run_id,
                               save_run, versions)
from pfcore.suites import masked_runs, semantic, syntax
from pfcore.suites.benchmarks import BENCHMARKS, load_benchmark, run_benchmark

Progress = Callable[[int, int], None]
T = TypeVar("T")
ITEM_SUITES = ("semantic", "syntax", "affinity")


class _Affinity:
    """The affinity suite's analysis steps, shaped like the semantic and syntax modules."""

    @staticmethod
    def decisions(rows: pd.DataFrame) -> pd.DataFrame:
        """Affinity has no pairwise decisions: its rows are its data."""
        return rows

    summarize = staticmethod(masked_runs.affinity_summary)


SUITE_MODULES = {"semantic": semantic, "syntax": syntax, "affinity": _Affinity}
ALL_SUITES = ITEM_SUITES + tuple(BENCHMARKS)


@dataclass(frozen=True)
class RunConfig:
    """What to run and how; every field is recorded in the run's manifest."""

    suite: str = "semantic"
    constructions: tuple[str, ...] = ()  # empty: all
    items_path: str | None = None
    limit_blocks: int | None = None
    scoring: str | None = None  # None: causal for causal models, masked-token for masked ones
    reduction: Reduction = "mean"  # the paper's code: minicons' default mean log-prob per token
    bos: bool = False
    use_cache: bool = True
    password: str | None = None  # for a password-protected EWoK zip; never recorded
    chunk: int = CHUNK  # requests scored between two commits to the score cache
    out: str | None = None


ITEM_TYPES = {"semantic": SemanticItem, "syntax": SyntaxItem, "affinity": AffinityItem}


def load_suite_items(config: RunConfig) -> list:
    """The suite's items (shipped defaults or a file), for the chosen constructions and blocks."""
    kind = config.suite
    if config.items_path:
        items = read_items(config.items_path)
        wrong = {type(i).__name__ for i in items} - {ITEM_TYPES[kind].__name__}
        if wrong:
            raise InputError(f"{config.items_path} holds {', '.join(sorted(wrong))} rows, "
                             f"not {kind} items")
        if config.constructions:
            keep = set(config.constructions) | {SYNTAX_CONTROL}
            items = [i for i in items if i.construction in keep]
    else:
        items = default_items(kind, list(config.constructions) or None)
    items = _limit(items, config.limit_blocks)
    if not items:
        raise InputError(f"no {kind} items to run (check --construction and --items)")
    return items


def _limit(items: list, blocks: int | None) -> list:
    """The first `blocks` blocks (semantic), base sentences (syntax) or sentences (affinity)."""
    if not blocks:
        return items
    if blocks < 0:
        raise InputError("--limit-blocks must be positive")
    if items and isinstance(items[0], AffinityItem):
        counts: dict[str, int] = {}
        kept = []
        for i in items:
            counts[i.construction] = counts.get(i.construction, 0) + 1
            if counts[i.construction] <= blocks:
                kept.append(i)
        return kept
    if isinstance(items[0], SyntaxItem):
        keep_bases = list(dict.fromkeys(i.base_id for i in items))[:blocks]
        return [i for i in items if i.base_id in set(keep_bases)]
    seen: dict[str, list[str]] = {}
    for i in items:
        ids = seen.setdefault(i.construction, [])
        if i.block_id not in ids and len(ids) < blocks:
            ids.append(i.block_id)
    keep = {b for ids in seen.values() for b in ids}
    return [i for i in items if i.block_id in keep]


def resolve_scoring(spec: ModelSpec, config: RunConfig) -> str:
    """The scoring method: as asked, or the model kind's default; refuse mismatches clearly.
    Whole sentences have no blank to read, so masked-token means PLL (original) for syntax,
    as in the paper's code; Global Affinity is its own masked readout."""
    if config.suite in BENCHMARKS:
        return "causal" if spec.kind == "causal" else (config.scoring if config.scoring in
                                                       PLL_METRICS else "pll-original")
    if config.suite == "affinity":
        if spec.kind != "masked":
            raise InputError("Global Affinity needs a masked model (choose kind 'masked')")
        return "global-affinity"
    scoring = config.scoring or ("causal" if spec.kind == "causal" else "masked-token")
    if scoring not in SCORINGS:
        raise InputError(f"unknown scoring {scoring!r}; choose one of {', '.join(SCORINGS)}")
    if (scoring == "causal") != (spec.kind == "causal"):
        raise InputError(f"scoring {scoring!r} does not fit the {spec.kind} model {spec.label}")
    if config.suite == "syntax" and scoring == "masked-token":
        return "pll-original"
    return scoring


def make_scorer(loaded: LoadedModel, scoring: str, config: RunConfig) -> RequestScorer:
    """A request scorer for the scoring method (causal, or masked PLL)."""
    if scoring == "causal":
        from pfcore.scoring.causal import CausalScorer, ScorerSettings  # torch: only when scoring

        return CausalScorer(loaded, ScorerSettings(bos=config.bos))
    return masked_runs.pll_scorer(loaded, scoring)


def timed(make: Callable[[], T]) -> tuple[T, float]:
    """What `make` returns and the seconds it took (the manifest's `load_s`)."""
    started = time.monotonic()
    made = make()
    return made, time.monotonic() - started


def score_cache(config: RunConfig) -> ScoreCache | None:
    """The persistent score cache, or None when the run asked for none."""
    return ScoreCache() if config.use_cache else None


class LazyScorer:
    """A request scorer whose model loads on first use, so a run served wholly from the score
    cache loads neither the model nor torch. Its cache keys equal the loaded scorer's."""

    def __init__(self, spec: ModelSpec, scoring: str, config: RunConfig) -> None:
        self.spec, self.scoring, self.config = spec, scoring, config
        self.load_s = 0.0  # seconds spent loading the model (0 when it never had to load)

    @cached_property
    def scorer(self) -> RequestScorer:
        """The real scorer, loading the model now."""
        scorer, self.load_s = timed(lambda: make_scorer(load_model(self.spec), self.scoring, self.config))
        return scorer

    @cached_property
    def identity(self) -> dict[str, object]:
        """Model identity and scoring settings, found once without loading the model."""
        source, _ = resolve_source(self.spec)
        return {**model_identity(self.spec, source), **scoring_identity(self.scoring, self.config.bos)}

    def cache_identity(self) -> dict[str, object]:
        """The score cache's key material (see `identity`)."""
        return self.identity

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """Score with the real scorer (loading the model the first time)."""
        return self.scorer.score(requests, progress)

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """Token strings, from the real scorer's tokenizer."""
        return self.scorer.display_tokens(ids)


def score_rows(items: Sequence, spec: ModelSpec, scoring: str, config: RunConfig,
               progress: Progress | None) -> tuple[pd.DataFrame, float]:
    """Per-item scores for a suite, and the seconds spent loading the model."""
    if scoring in ("global-affinity", "masked-token"):
        loaded, load_s = timed(lambda: load_model(spec))
        rows = masked_runs.affinity_rows if scoring == "global-affinity" else masked_runs.masked_token_rows
        return rows(items, loaded, progress), load_s
    module = SUITE_MODULES[config.suite]
    scorer = LazyScorer(spec, scoring, config)
    scores = score_cached(scorer, module.requests(items), score_cache(config), progress, config.chunk)
    return module.row_scores(items, scores, config.reduction), scorer.load_s


@dataclass(frozen=True)
class ResultsLabel:
    """How a run is named in the results table (a trajectory names its checkpoints itself)."""

    model: str
    revision: str
    step: int | None


def run_suite(spec: ModelSpec, config: RunConfig, progress: Progress | None = None,
              label: ResultsLabel | None = None) -> RunRecord:
    """Run one suite on one model, save its record and add its summary to the results table.
    The model loads only if some request is not in the score cache."""
    if config.suite not in ALL_SUITES:
        raise InputError(f"unknown suite {config.suite!r}; choose one of {', '.join(ALL_SUITES)}")
    started = time.monotonic()
    scoring = resolve_scoring(spec, config)
    if config.suite in BENCHMARKS:
        items = load_benchmark(config.suite, config.items_path, config.limit_blocks, config.password)
        ids = list(items["item_id"])
    else:
        items = load_suite_items(config)
        ids = [i.item_id for i in items]
    items_at = time.monotonic()
    tables, load_s = _score_and_decide(items, spec, scoring, config, progress)
    done = time.monotonic()
    timings = {"items_s": round(items_at - started, 3), "load_s": round(load_s, 3),
               "score_s": round(done - items_at - load_s, 3), "total_s": round(done - started, 3)}
    record = save_run(_manifest(spec, config, scoring, ids, timings),
                      tables, Path(config.out) if config.out else None)
    append_results(results_rows(record, label))
    return record


def _score_and_decide(items, spec: ModelSpec, scoring: str, config: RunConfig,
                      progress: Progress | None) -> tuple[dict[str, pd.DataFrame], float]:
    """Per-item scores, decisions and summary tables, and the seconds spent loading the model."""
    if config.suite in BENCHMARKS:
        scorer = LazyScorer(spec, scoring, config)
        scored, summary = run_benchmark(config.suite, items, scorer, score_cache(config), progress)
        return {"rows": scored, "summary": summary}, scorer.load_s
    rows, load_s = score_rows(items, spec, scoring, config, progress)
    module = SUITE_MODULES[config.suite]
    dec = module.decisions(rows)
    return {"rows": rows, "decisions": dec, "summary": module.summarize(dec)}, load_s


def results_rows(record: RunRecord, label: ResultsLabel | None = None) -> pd.DataFrame:
    """A run's summary as rows of the long results table (source "pfcore run <run id>")."""
    m = record.manifest
    if label is None:
        revision = m["model"]["revision"] or "main"
        step = step_from_revision(revision)
        label = ResultsLabel(m["model"]["name"], revision, None if np.isnan(step) else int(step))
    long = record.summary.melt(id_vars=["construction", "filter"],
                               value_vars=[c for c in ("accuracy", "ci_low", "ci_high", "n")
                                           if c in record.summary.columns],
                               var_name="metric", value_name="value")
    return pd.DataFrame({
        "model": label.model, "revision": label.revision,
        "step": pd.array([label.step] * len(long), dtype="Int64"),
        "suite": m["suite"], "construction": long["construction"].map(lambda c: PUBLISHED_SEMANTIC.get(c, c)),
        "filter": long["filter"], "metric": long["metric"].replace({"accuracy": _metric_name(m["suite"])}),
        "value": long["value"].astype(float), "source": f"pfcore run {m['run_id']}",
    }).dropna(subset=["value"])


def _metric_name(suite: str) -> str:
    """The name of a suite's main number in the results table."""
    return "global_affinity" if suite == "affinity" else "accuracy"


def _manifest(spec: ModelSpec, config: RunConfig, scoring: str, item_ids: Sequence[str],
              timings: dict[str, float]) -> dict[str, object]:
    """Everything needed to know what produced a run's numbers (never the EWoK password)."""
    settings = {k: v for k, v in asdict(config).items() if k != "password"}
    settings["reduction"] = BENCHMARKS[config.suite].reduction if config.suite in BENCHMARKS else config.reduction
    settings["first_token"] = ("BOS prepended, first word scored" if config.bos
                               else "no BOS: first token of a whole sentence unscored (minicons default)")
    return {
        "run_id": new_run_id(config.suite, spec.label),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "suite": config.suite,
        "model": {**spec.as_dict(), "source": resolve_source(spec)[0]},
        "scoring": scoring,
        "settings": settings,
        "items": {"count": len(item_ids), "hash": item_set_hash(item_ids),
                  "source": config.items_path or ("shipped defaults (data/items)" if config.suite in ITEM_SUITES
                                                  else BENCHMARKS[config.suite].default_source)},
        "versions": versions(),
        "git_commit": git_commit(),
        "timings_s": timings,
    }
