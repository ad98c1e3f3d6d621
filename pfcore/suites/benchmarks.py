"""BLiMP, COMPS and EWoK as suites: the model's scorer (through the score cache) feeds each
benchmark's own scoring rule, with the reduction the paper used for it."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from pfcore.names import SuiteName
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import Reduction, Request, reduce_all
from pfcore.suites.base import RunConfig, ScoreContext, Suite, limit_positive

BATCH = 4096  # requests handed to the scorer at once, so it can share prefixes across them


@dataclass(frozen=True)
class BenchmarkRule:
    """How one benchmark is read, scored and summarised, and whether it scores whole sentences
    or targets given contexts."""

    load: Callable[..., pd.DataFrame]
    score: Callable[..., pd.DataFrame]
    summarize: Callable[[pd.DataFrame], pd.DataFrame]
    conditional: bool
    needs_password: bool = False


class BenchmarkSuite(Suite["pd.DataFrame"]):
    """A comparison benchmark of Experiment 2 (its construction column is the benchmark's name)."""

    def __init__(self, name: SuiteName, label: str, hub_id: str, reduction: Reduction, rule: BenchmarkRule,
                 chance: float = 0.5) -> None:
        self.name, self.label, self.hub_id = name, label, hub_id
        self._reduction, self.rule, self.chance = reduction, rule, chance

    def load(self, config: RunConfig) -> pd.DataFrame:
        """The items from a local path or the hub id; `limit_blocks` items (per BLiMP paradigm)."""
        limit_positive(config.limit_blocks)
        kwargs: dict[str, object] = {"limit": config.limit_blocks}
        if self.rule.needs_password:
            kwargs["password"] = config.password
        return self.rule.load(config.items_path or self.hub_id, **kwargs)

    def item_ids(self, items: pd.DataFrame) -> list[str]:
        """The benchmark's content-hash ids."""
        return list(items["item_id"])

    def reduction(self, config: RunConfig, method: ScoringMethod) -> Reduction:
        """The reduction the paper used for this benchmark."""
        return self._reduction

    def default_source(self, config: RunConfig) -> str:
        """The hub dataset the items come from by default."""
        return self.hub_id

    def score(self, items: pd.DataFrame, ctx: ScoreContext) -> pd.DataFrame:
        """The items with their log-probs and whether each is correct, by the benchmark's rule."""
        def sequences(texts: list[str]) -> list[float]:
            return reduce_all(ctx.scores([Request("", t) for t in texts], report=False), ctx.reduction)

        def conditionals(prefixes: list[str], texts: list[str]) -> list[float]:
            return reduce_all(ctx.scores([Request(p, t) for p, t in zip(prefixes, texts)], report=False), ctx.reduction)

        fn = conditionals if self.rule.conditional else sequences
        return self.rule.score(items, fn, batch_size=BATCH, progress=ctx.progress)

    def decide(self, rows: pd.DataFrame) -> None:
        """Each item is decided by the benchmark's rule when scored."""
        return None

    def summarize(self, decided: pd.DataFrame) -> pd.DataFrame:
        """Accuracy overall and per group, the benchmark as the construction."""
        return self.rule.summarize(decided).rename(columns={"benchmark": "construction"})
