"""First-difference correlations between two series over checkpoints (the paper's section 5.4).

Both series are aligned on their common checkpoints, sorted by step; each checkpoint's change from
the previous one is correlated (Spearman and Pearson). With `zscale`, the changes follow the
authors' corr.py / add_delta_columns.py: they are z-scored with the mean and SD pooled over every
series of the same source (one published file) for that model and metric, and the first
checkpoint is kept as a change of 0 *after* scaling. Z-scoring alone cannot move a correlation;
that kept first point is what makes the two variants differ.

Changes are rounded to 1e-10 so that equal changes tie exactly: float noise would otherwise break
ties arbitrarily and move Spearman's rho (the README's "First-difference correlations" shows a case).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy.stats import pearsonr, spearmanr

from pfcore.analysis.series import parse_series, series_sources, series_values
from pfcore.errors import InputError
from pfcore.runs.checkpoints import duplicate_checkpoints

ROUND_DIGITS = 10
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
        return pd.DataFrame({"x": self.x, "y": self.y, "step": list(self.steps),
                             "dx": list(self.dx), "dy": list(self.dy),
                             "spearman": self.spearman})


def pooled_change_scale(table: pd.DataFrame, model: str, sources: list[str],
                        metric: str) -> tuple[float, float]:
    """Mean and SD (ddof 0) of all checkpoint changes in these sources, first changes counted as 0.

    This is the pool the authors' StandardScaler saw: every construction x filter of one file.
    """
    rows = table[(table["model"] == model) & table["step"].notna()
                 & table["source"].isin(sources) & (table["metric"] == metric)]
    keys = ["suite", "construction", "filter"]
    rows = rows.groupby([*keys, "step"], as_index=False)["value"].first()
    changes = (rows.sort_values("step")
               .groupby(keys)["value"].diff().fillna(0.0))
    sd = float(changes.std(ddof=0))
    if not sd > 0:
        raise InputError(f"{model}: no variation across checkpoints in {', '.join(sources)}")
    return float(changes.mean()), sd


def _diff(values: pd.Series, scale: tuple[float, float] | None) -> pd.Series:
    """Changes between consecutive checkpoints; z-scaled with a 0 first change when scaled."""
    changes = values.diff()
    if scale is None:
        return changes.iloc[1:].round(ROUND_DIGITS)
    mean, sd = scale
    scaled = (changes - mean) / sd
    scaled.iloc[0] = 0.0
    return scaled.round(ROUND_DIGITS)


def _scale(table: pd.DataFrame, model: str, name: str, source: str | None,
           zscale: bool) -> tuple[float, float] | None:
    """The pooled z-scale of a series' own sources, or None when not z-scaling."""
    if not zscale:
        return None
    return pooled_change_scale(table, model, series_sources(table, model, name, source),
                               parse_series(name).metric)


def checkpoint_changes(table: pd.DataFrame, model: str, name: str, *, zscale: bool = False,
                       source: str | None = None) -> pd.Series:
    """One series' checkpoint-to-checkpoint changes, indexed by the step they end at."""
    return _diff(series_values(table, model, name, source),
                 _scale(table, model, name, source, zscale))


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
                         tuple(int(s) for s in dx.index), tuple(map(float, dx)),
                         tuple(map(float, dy)))
