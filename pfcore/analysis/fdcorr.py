"""First-difference correlations between two series over checkpoints (the paper's section 5.4).

Both series are aligned on their common checkpoints, sorted by step; each checkpoint's change from
the previous one is correlated (Spearman and Pearson). With `zscale`, the changes follow the
authors' corr.py / add_delta_columns.py: they are z-scored with the mean and SD pooled over every
series of the same source (one published file) for that model and metric, and the first
checkpoint is kept as a change of 0 *after* scaling. Z-scoring alone cannot move a correlation;
that kept first point is what makes the two variants differ.

Ties are decided exactly, before ranking: changes closer than PRECISION are one value (see
`tied`). Float noise (about 1e-17) would otherwise break ties in an order that depends on the
arithmetic, and move Spearman's rho; rounding to a grid would still split the rare pair that falls
on both sides of a grid point. The paper's one printed value (section 5.4) is set beside ours, with
why the two differ (`paper_comparison`).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy.stats import pearsonr, spearmanr

from pfcore.analysis.series import parse_series, series_sources, series_values
from pfcore.errors import InputError
from pfcore.runs.checkpoints import duplicate_checkpoints

PRECISION = 1e-9  # changes closer than this tie: far above float noise, far below a change of one
# decision (published accuracies are whole numbers of decisions out of at most about 15,000)
PRECISION_TEXT = f"{PRECISION:g}".replace("e-0", "e-")  # "1e-9"
MIN_CHECKPOINTS = 4  # shared checkpoints a correlation needs (3 changes)


@dataclass(frozen=True)
class FDCorrelation:
    """Correlation of two series' checkpoint-to-checkpoint changes, with the points used."""

    model: str
    x: str
    y: str
    zscale: bool
    spearman: float
    spearman_p: float
    pearson: float
    pearson_p: float
    n: int
    steps: tuple[int, ...]
    dx: tuple[float, ...]
    dy: tuple[float, ...]

    def summary(self) -> dict[str, object]:
        """The numbers without the points (what `analyze fdcorr --json` prints, plus steps)."""
        out = asdict(self)
        del out["dx"], out["dy"]
        out["steps"] = list(self.steps)
        return out

    def points(self) -> pd.DataFrame:
        """One row per checkpoint change: pair label, step, dx, dy and the pair's Spearman rho."""
        return pd.DataFrame({"x": self.x, "y": self.y, "step": list(self.steps), "dx": list(self.dx),
                             "dy": list(self.dy), "spearman": self.spearman})


def pooled_change_scale(table: pd.DataFrame, model: str, sources: list[str], metric: str) -> tuple[float, float]:
    """Mean and SD (ddof 0) of all checkpoint changes in these sources, first changes counted as 0.

    This is the pool the authors' StandardScaler saw: every construction x filter of one file.
    """
    rows = table[(table["model"] == model) & table["step"].notna()
                 & table["source"].isin(sources) & (table["metric"] == metric)]
    keys = ["suite", "construction", "filter"]
    rows = rows.groupby([*keys, "step"], as_index=False)["value"].first()
    changes = rows.sort_values("step").groupby(keys)["value"].diff().fillna(0.0)
    sd = float(changes.std(ddof=0))
    if not sd > 0:
        raise InputError(f"{model}: no variation across checkpoints in {', '.join(sources)}")
    return float(changes.mean()), sd


def tied(values: pd.Series) -> pd.Series:
    """The values with each run of sorted neighbours closer than PRECISION set to the run's smallest
    value, so that a ranking ties them exactly on every machine."""
    order = np.argsort(values.to_numpy(), kind="stable")
    ordered = values.to_numpy()[order]
    starts = np.concatenate([[True], np.diff(ordered) > PRECISION])
    snapped = np.empty_like(ordered)
    snapped[order] = ordered[starts][np.cumsum(starts) - 1]
    return pd.Series(snapped, index=values.index, name=values.name)


def _diff(values: pd.Series, scale: tuple[float, float] | None) -> pd.Series:
    """Changes between consecutive checkpoints, ties decided (`tied`); z-scaled with a 0 first
    change when scaled."""
    changes = values.diff()
    if scale is None:
        return tied(changes.iloc[1:])
    mean, sd = scale
    scaled = (changes - mean) / sd
    scaled.iloc[0] = 0.0
    return tied(scaled)


def _scale(table: pd.DataFrame, model: str, name: str, source: str | None, zscale: bool) -> tuple[float, float] | None:
    """The pooled z-scale of a series' own sources, or None when not z-scaling."""
    if not zscale:
        return None
    return pooled_change_scale(table, model, series_sources(table, model, name, source), parse_series(name).metric)


def checkpoint_changes(table: pd.DataFrame, model: str, name: str, *, zscale: bool = False,
                       source: str | None = None) -> pd.Series:
    """One series' checkpoint-to-checkpoint changes, indexed by the step they end at."""
    return _diff(series_values(table, model, name, source), _scale(table, model, name, source, zscale))


def fd_correlation(table: pd.DataFrame, model: str, x: str, y: str, *, zscale: bool = False,
                   source: str | None = None, drop_duplicates: bool = False) -> FDCorrelation:
    """First-difference Spearman and Pearson correlations of series x and y for one model; with
    `drop_duplicates`, checkpoints whose weights repeat an earlier step's are left out."""
    xs = series_values(table, model, x, source)
    ys = series_values(table, model, y, source)
    steps = xs.index.intersection(ys.index).sort_values()
    if drop_duplicates:
        steps = steps.difference([d.step for d in duplicate_checkpoints(table, model)])
    if len(steps) < MIN_CHECKPOINTS:
        raise InputError(f"{model}: {x} and {y} share {len(steps)} checkpoints; a first-difference "
                         f"correlation needs at least {MIN_CHECKPOINTS}")
    dx = _diff(xs.loc[steps], _scale(table, model, x, source, zscale))
    dy = _diff(ys.loc[steps], _scale(table, model, y, source, zscale))
    for name, values in ((x, dx), (y, dy)):
        if np.ptp(values.to_numpy()) == 0:
            raise InputError(f"{model}: {name} does not change between checkpoints")
    rho, rho_p = spearmanr(dx, dy)
    r, r_p = pearsonr(dx, dy)
    return FDCorrelation(model, parse_series(x).name, parse_series(y).name, zscale,
                         float(rho), float(rho_p), float(r), float(r_p), len(dx),
                         tuple(int(s) for s in dx.index), tuple(map(float, dx)), tuple(map(float, dy)))


@dataclass(frozen=True)
class PaperValue:
    """A first-difference correlation the paper prints: the model, the two series, the value as
    printed and where it is printed."""

    model: str
    x: str
    y: str
    printed: str
    where: str

    @property
    def rho(self) -> float:
        """The printed value as a number."""
        return float(self.printed)


PAPER_VALUES = (PaperValue("EleutherAI/pythia-12b", "pf_avg:aligned", "ewok:domain_physical-relations", ".48",
                           "section 5.4"),)
AUTHORS_METRIC = "delta_accuracy_zscale"  # the authors' own z-scored changes, in their published files


@dataclass(frozen=True)
class PaperComparison:
    """pfcore's rho beside the paper's: pfcore's value as computed, pfcore's value with the paper's
    procedure (z-scaled, the first checkpoint kept), and what the authors' own z-scored floats give
    where the table holds them (None otherwise), with how many of pfcore's ties their noise splits."""

    paper: PaperValue
    ours: FDCorrelation
    procedure: FDCorrelation
    authors_floats: float | None
    split_ties: int

    def note(self) -> str:
        """The two values and the reason they differ, in two or three sentences."""
        ours = self.ours.spearman
        same = f"{ours:.2f}" == f"{self.paper.rho:.2f}"
        text = (f"The paper ({self.paper.where}) prints ρ = {self.paper.printed}; pfcore's ρ = {ours:.3f} "
                + ("rounds to the same." if same else f"is a difference of {ours - self.paper.rho:+.3f}."))
        if not self.ours.zscale:
            text += (f" It is the plain first difference (n = {self.ours.n}); the paper z-scales the changes and "
                     f"keeps the first checkpoint as a change of 0, which gives ρ = {self.procedure.spearman:.3f} "
                     f"(n = {self.procedure.n}).")
        if self.authors_floats is None:
            return text + (" The paper's value comes from the authors' own z-scored float changes, whose float noise "
                           f"splits ties that pfcore keeps exact (changes within {PRECISION_TEXT} tie).")
        ties = "tie" if self.split_ties == 1 else "ties"
        rounds = f", which rounds to {self.paper.printed}," if f"{self.authors_floats:.2f}" == f"{self.paper.rho:.2f}" \
            else ""
        return text + (f" The paper's value comes from the authors' own z-scored changes (their {AUTHORS_METRIC} "
                       f"columns): from those floats ρ = {self.authors_floats:.3f}{rounds} because their float "
                       f"noise splits {self.split_ties} {ties} that pfcore keeps exact (changes within "
                       f"{PRECISION_TEXT} tie).")


def paper_value(result: FDCorrelation) -> PaperValue | None:
    """The paper's printed value for this model and pair of series (either order), if it prints one."""
    pair = {result.x, result.y}
    return next((p for p in PAPER_VALUES if p.model == result.model and {p.x, p.y} == pair), None)


def paper_comparison(table: pd.DataFrame, result: FDCorrelation, *, source: str | None = None,
                     drop_duplicates: bool = False) -> PaperComparison | None:
    """pfcore's correlation beside the paper's printed one (None when the paper prints none for it)."""
    paper = paper_value(result)
    if paper is None:
        return None
    procedure = result if result.zscale else fd_correlation(table, result.model, result.x, result.y, zscale=True,
                                                             source=source, drop_duplicates=drop_duplicates)
    try:
        authors = [series_values(table, result.model, f"{name}@{AUTHORS_METRIC}", source)
                   for name in (procedure.x, procedure.y)]
    except InputError:  # the table holds accuracies only (own runs, a partial import)
        return PaperComparison(paper, result, procedure, None, 0)
    steps = pd.Index(procedure.steps)
    if not all(steps.isin(a.index).all() for a in authors):
        return PaperComparison(paper, result, procedure, None, 0)
    xs, ys = (a.loc[steps].to_numpy() for a in authors)
    split = _split_ties(np.array(procedure.dx), xs) + _split_ties(np.array(procedure.dy), ys)
    return PaperComparison(paper, result, procedure, float(spearmanr(xs, ys)[0]), split)


def _split_ties(ours: np.ndarray, theirs: np.ndarray) -> int:
    """How many groups of equal values in `ours` hold unequal values in `theirs`."""
    return int((pd.Series(theirs).groupby(ours).nunique() > 1).sum())
