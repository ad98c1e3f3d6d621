"""What a suite is: it loads its items, scores them through a request scorer (and the score cache),
decides each pair, and summarises, and it knows the model kinds, scoring methods and reduction it
needs and which filters are its headline. `registry.SUITES` lists them all; the runner drives any."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from pfcore.errors import InputError
from pfcore.items.schema import AffinityItem, Item, SemanticItem, SyntaxItem
from pfcore.models.loading import LoadedModel
from pfcore.models.spec import ModelSpec
from pfcore.names import SuiteName, named
from pfcore.scoring.factory import LazyScorer
from pfcore.scoring.kinds import KINDS, all_methods, kind_of, method_named
from pfcore.scoring.kinds.base import Kind
from pfcore.scoring.methods import TEXTS, ScoringMethod, check_fits
from pfcore.scoring.requests import Progress, Reduction, Request, RequestScorer, TokenScores
from pfcore.store.cache import CHUNK, ScoreCache, ScoreStats, score_cached

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class RunConfig:
    """What to run and how; every field but the password is recorded in the run's manifest."""

    suite: SuiteName = SuiteName.SEMANTIC
    constructions: tuple[str, ...] = ()  # empty: all
    items_path: str | None = None
    limit_blocks: int | None = None
    scoring: str | None = None  # None: the suite's default for the model's kind
    reduction: Reduction = Reduction.MEAN  # the paper's code: minicons' default mean log-prob per token
    bos: bool = False
    corrected: bool = True  # SyntaxGym, causal models: regions from BOW-corrected words, not token sums
    use_cache: bool = True
    password: str | None = None  # for a password-protected EWoK zip; never recorded
    chunk: int = CHUNK  # requests scored between two commits to the score cache
    out: str | None = None
    shared: bool = True  # False: the run's rows stay out of the shared results table (public mode)

    def __post_init__(self) -> None:
        """A suite named as text becomes its SuiteName (an unknown one is refused)."""
        object.__setattr__(self, "suite", named(SuiteName, self.suite, "suite"))


@dataclass
class ScoreContext:
    """What a suite's scoring step gets: the scorer (model loaded lazily), the cache, progress,
    the reduction and the commit chunk."""

    scorer: RequestScorer
    cache: ScoreCache | None
    progress: Progress | None
    reduction: Reduction
    chunk: int = CHUNK
    model: LazyScorer | None = None  # the handle that loads the model, for suites that read it directly
    stats: ScoreStats = field(default_factory=ScoreStats)

    def scores(self, requests: Sequence[Request], *, report: bool = True) -> list[TokenScores]:
        """Per-token scores of the requests, through the score cache (reporting progress unless
        the suite reports its own)."""
        return score_cached(self.scorer, requests, self.cache, self.progress if report else None, self.chunk,
                            self.stats)

    def loaded(self) -> LoadedModel:
        """The model itself, for suites that read it directly (Global Affinity)."""
        if self.model is None:
            raise InputError("this suite needs the model itself, and none was given")
        return self.model.model()


Items = TypeVar("Items")  # what a suite runs: a list of item records, a table, SyntaxGym suites
Record = TypeVar("Record", SemanticItem, SyntaxItem, AffinityItem)  # one of pfcore's item records


class Suite(ABC, Generic[Items]):
    """One test suite: items -> requests -> scores -> rows -> decisions -> summary."""

    name: SuiteName
    label: str = ""
    reads: tuple[str, ...] = (TEXTS,)  # what it needs of a scoring method (ScoringMethod.reads), preferred first
    headline: tuple[str, ...] = ("all",)  # the filters shown first
    metric: str = "accuracy"  # the main number's name in the results table
    chance: float | None = 0.5
    paired_focus: bool = False  # one of the paper's own suites (what the Run page offers)
    pivoted: bool = False  # its summary prints as construction x headline filter, in percent
    percent: bool = True  # its main number is a share, read in percent (False: a probability, read as it is)
    paper_filter: str = "all"  # the filter the paper's tables of models report for it
    block: str | None = None  # the item field grouping its items into the blocks the Items page browses

    @abstractmethod
    def load(self, config: RunConfig) -> Items:
        """The items to run (a list of item records or a table)."""

    @abstractmethod
    def item_ids(self, items: Items) -> list[str]:
        """The stable id of each item, for the manifest's item-set hash."""

    @property
    def methods(self) -> tuple[ScoringMethod, ...]:
        """The scoring methods of any kind it can use."""
        return tuple(m for m in all_methods() if m.reads in self.reads)

    def fits(self, kind: Kind) -> bool:
        """Whether a model of this kind can run the suite."""
        return any(m.reads in self.reads for m in kind.methods)

    def default_method(self, kind: Kind) -> ScoringMethod:
        """The scoring method a model of this kind gets when none is asked for: its first method of
        what the suite prefers to read."""
        return next(m for reads in self.reads for m in kind.methods if m.reads == reads)

    def method(self, spec: ModelSpec, requested: str | None) -> ScoringMethod:
        """The scoring method to use: as asked, or the kind's default; a mismatch is refused."""
        kind = kind_of(spec.kind)
        if not self.fits(kind):
            fitting = [name for name, other in KINDS.items() if self.fits(other)]
            raise InputError(f"the {self.name} suite needs a {' or '.join(fitting)} model "
                             f"(choose kind '{fitting[0]}')")
        chosen = method_named(requested) if requested else self.default_method(kind)
        if chosen not in self.methods:
            raise InputError(f"the {self.name} suite cannot use scoring {chosen.value!r}; choose one of "
                             f"{', '.join(m.value for m in self.methods)}")
        return check_fits(chosen, spec.kind, spec.label)

    def reduction(self, config: RunConfig, method: ScoringMethod) -> Reduction:
        """How per-token log-probs become one score (the configured one unless the suite fixes it)."""
        return config.reduction

    def requests(self, items: Items, method: ScoringMethod) -> list[Request] | None:
        """The requests scoring the items takes (for estimates before a run); None when the suite
        cannot say in advance."""
        return None

    @abstractmethod
    def score(self, items: Items, ctx: ScoreContext) -> pd.DataFrame:
        """One row of scores per item (or per item and word)."""

    @abstractmethod
    def decide(self, rows: pd.DataFrame) -> pd.DataFrame | None:
        """The pairwise decisions (None for suites whose rows are decided already)."""

    @abstractmethod
    def summarize(self, decided: pd.DataFrame) -> pd.DataFrame:
        """The summary: construction, filter, accuracy (or the suite's metric), ci_low, ci_high, n."""

    def default_source(self, config: RunConfig) -> str:
        """Where the items come from when no --items is given, in words."""
        return "shipped defaults (data/items)"

    def published(self, summary: pd.DataFrame, revision: str) -> pd.DataFrame | None:
        """The summary in the paper's outputs_summary layout, for suites that have one."""
        return None


def limit_positive(limit: int | None, what: str = "--limit-blocks") -> None:
    """InputError unless `limit` is None or at least 1 (0 would silently mean "all")."""
    if limit is not None and limit < 1:
        raise InputError(f"{what} must be a positive number, got {limit}")


class ItemSuite(Suite[list[Record]]):
    """A Paired-Focus suite over pfcore's own item records (shipped defaults or an item file)."""

    def load(self, config: RunConfig) -> list[Record]:
        """The suite's items for the chosen constructions, limited to the first blocks."""
        from pfcore.items.schema import SYNTAX_CONTROL

        limit_positive(config.limit_blocks)
        if config.items_path:
            from pfcore.items.check import checked_items  # a given file must pass `items check`

            items = checked_items(config.items_path)
            wrong = {i.SUITE for i in items} - {self.name}
            if wrong:
                raise InputError(f"{config.items_path} holds {', '.join(sorted(wrong))} items, "
                                 f"not {self.name} items")
            if config.constructions:
                keep = set(config.constructions) | {SYNTAX_CONTROL}
                items = [i for i in items if i.construction in keep]
        else:
            items = self.generated(list(config.constructions))
        mine = cast(list[Record], items)  # a file holding another suite's records was refused above
        mine = self.limit(mine, config.limit_blocks) if config.limit_blocks else mine
        if not mine:
            raise InputError(f"no {self.name} items to run (check --construction and --items)")
        return mine

    def generated(self, names: list[str]) -> list[Item]:
        """The shipped items of the paper's constructions among `names` (all four when none), and the
        items of the user's constructions generated from their definitions (`items.constructions`)."""
        from pfcore.items import default_items, load_lexicon
        from pfcore.items.constructions import definition_of
        from pfcore.items.generate import GENERATORS

        own = [n for n in names if not definition_of(n).built_in]
        paper = [n for n in names if n not in own]
        if not own:
            return default_items(self.name, paper or None)
        shipped: list[Item] = default_items(self.name, paper)  # none of the four named: the "and" rows alone
        made: list[Item] = list(GENERATORS[self.name](load_lexicon(), own))
        return list({i.item_id: i for i in [*shipped, *made]}.values())  # the syntactic "and" rows once

    def default_source(self, config: RunConfig) -> str:
        """The shipped items, and the definitions a user's constructions were generated from."""
        from pfcore.items.constructions import definition_of

        own = [definition_of(n) for n in config.constructions if not definition_of(n).built_in]
        made = "; ".join(f"{d.name} generated from {d.path.name} (sha256 {d.sha256})" for d in own)
        return f"shipped defaults (data/items){'; ' + made if made else ''}"

    def item_ids(self, items: list[Record]) -> list[str]:
        """Each item's content-hash id."""
        return [i.item_id for i in items]

    @abstractmethod
    def limit(self, items: list[Record], blocks: int) -> list[Record]:
        """The first `blocks` blocks (or base sentences, or sentences) of the items."""
