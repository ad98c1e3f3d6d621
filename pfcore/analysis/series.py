"""Named series over checkpoints, read from the results table.

A series name is CONSTRUCTION:FILTER[@METRIC]:
- `let_alone:aligned`, `ewok:domain_physical-relations`, `blimp:all`, `let_alone:NPI`: one
  construction (by its name; any spelling of a built-in is read as it, `letalone:aligned` too) or
  benchmark at one filter / test type;
- `pf_avg:FILTER`: the mean of the four Paired-Focus constructions' semantic values (the paper's
  "PF Function"; `pf_avg:aligned` is its plausible, `pf_avg:misaligned` its implausible curve);
- `syntax:TEST_TYPE`: the mean of the four constructions' syntactic values (`syntax:Avg_Test` is
  the paper's "PF Form").
METRIC defaults to accuracy (others: delta_surps, delta_surps_and, ...).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from pfcore.errors import InputError
from pfcore.items.schema import PF_CONSTRUCTIONS, SYNTAX_CONTROL
from pfcore.names import SuiteName, construction_name
from pfcore.store.result_rows import named_constructions

AVERAGES = {"pf_avg": SuiteName.SEMANTIC, "syntax": SuiteName.SYNTAX}  # average series -> its suite
PF_SUITES = (SuiteName.SEMANTIC, SuiteName.SYNTAX, SuiteName.AFFINITY)
USER_MARK = "(user-defined)"  # beside a construction of a user's own definition (docs/constructions.md)
TOLERANCE = 1e-9
SHOWN = 12  # series names quoted in an error message


@dataclass(frozen=True)
class SeriesSpec:
    """A parsed series name."""

    construction: str
    filter: str
    metric: str = "accuracy"

    @property
    def name(self) -> str:
        """The canonical name (metric suffix only when it is not accuracy)."""
        base = f"{self.construction}:{self.filter}"
        return base if self.metric == "accuracy" else f"{base}@{self.metric}"


def parse_series(name: str) -> SeriesSpec:
    """Split CONSTRUCTION:FILTER[@METRIC], a built-in construction in any spelling read as its name;
    InputError on a malformed name."""
    base, _, metric = name.strip().partition("@")
    construction, sep, filt = base.partition(":")
    if not sep or not construction or not filt:
        raise InputError(f"series {name!r}: write it as CONSTRUCTION:FILTER, e.g. let_alone:aligned, pf_avg:all, "
                         "ewok:domain_physical-relations, syntax:Avg_Test")
    return SeriesSpec(construction_name(construction.strip()), filt.strip(), metric.strip() or "accuracy")


def named_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Result rows with their constructions by name (`result_rows.named_constructions`), so rows not
    read through the results table (a published file read as it is) give the same series."""
    labels = table["construction"]
    named = named_constructions(labels)
    return table if named is labels else table.assign(construction=named)


def model_rows(table: pd.DataFrame, model: str) -> pd.DataFrame:
    """The rows of one model that belong to a checkpoint (a parsed step)."""
    if table.empty:
        raise InputError("the results table is empty: run `python -m pfcore results import PATH` "
                         "(or `python -m pfcore results fetch DEST` first, with network)")
    rows = table[(table["model"] == model) & table["step"].notna()]
    if rows.empty:
        models = sorted(table.loc[table["step"].notna(), "model"].unique())
        raise InputError(f"no checkpoint results for model {model!r}; models with checkpoints: "
                         f"{', '.join(models)}")
    return rows


def _spec_rows(table: pd.DataFrame, model: str, spec: SeriesSpec, source: str | None) -> pd.DataFrame:
    """The checkpoint rows a series draws on (one construction, or the four averaged ones)."""
    table = named_rows(table)
    mask = ((table["model"] == model) & table["step"].notna() & (table["filter"] == spec.filter)
            & (table["metric"] == spec.metric))
    if spec.construction in AVERAGES:
        mask &= (table["suite"] == AVERAGES[spec.construction]) & table["construction"].isin(PF_CONSTRUCTIONS)
    else:
        mask &= table["construction"] == spec.construction
    if source:
        mask &= table["source"].str.startswith(source)
    rows = table[mask]
    if rows.empty:
        names = available_series(table, model)
        raise InputError(f"series {spec.name!r} has no values for {model}; available include "
                         f"{', '.join(names[:SHOWN])} ({len(names)} in all: `python -m pfcore "
                         f"analyze series --model {model}` lists them)")
    return rows


def _one_value_per_step(rows: pd.DataFrame, label: str) -> pd.DataFrame:
    """Collapse copies of the same value from several sources; InputError when they disagree."""
    keys = ["suite", "construction", "step"]
    bounds = rows.groupby(keys)["value"].agg(["min", "max"])
    clashes = bounds.index[bounds["max"] - bounds["min"] > TOLERANCE]
    if len(clashes):
        clash = rows.set_index(keys).loc[clashes[0], "source"]
        raise InputError(f"series {label}: sources disagree ({', '.join(sorted(set(clash)))}); "
                         "choose one with --source")
    return rows.groupby(keys, as_index=False)["value"].first()


def series_values(table: pd.DataFrame, model: str, name: str, source: str | None = None) -> pd.Series:
    """A series' values indexed by training step, in step order (not file order).

    `source` keeps only rows whose source starts with it. Averages keep the checkpoints at which
    all four constructions are present.
    """
    spec = parse_series(name)
    picked = _spec_rows(table, model, spec, source)
    if picked["suite"].nunique() > 1:
        raise InputError(f"series {name!r} mixes suites {sorted(picked['suite'].unique())}")
    values = _one_value_per_step(picked, name)
    wide = values.pivot(index="step", columns="construction", values="value")
    if spec.construction in AVERAGES:
        wide = wide.reindex(columns=list(PF_CONSTRUCTIONS)).dropna()
    series = wide.mean(axis=1).sort_index()
    series.index = series.index.astype(int)
    return series.rename(spec.name)


def series_sources(table: pd.DataFrame, model: str, name: str, source: str | None = None) -> list[str]:
    """The sources a series' values come from (several when files repeat the same numbers)."""
    return sorted(_spec_rows(table, model, parse_series(name), source)["source"].unique())


def available_series(table: pd.DataFrame, model: str) -> list[str]:
    """Every accuracy series name one model's checkpoints support, averages first."""
    rows = named_rows(model_rows(table, model))
    rows = rows[rows["metric"] == "accuracy"]
    names = [f"{avg}:{filt}" for avg, suite in AVERAGES.items()
             for filt in sorted(rows.loc[(rows["suite"] == suite)
                                         & rows["construction"].isin(PF_CONSTRUCTIONS),
                                         "filter"].unique())]
    pairs = rows[["construction", "filter"]].drop_duplicates().sort_values(["construction", "filter"])
    return names + [f"{c}:{f}" for c, f in pairs.itertuples(index=False)]


def user_constructions(table: pd.DataFrame) -> frozenset[str]:
    """The constructions of a user's own definitions in a results table: those of the Paired-Focus
    suites that are none of the paper's four (nor the syntactic control "and")."""
    found = named_rows(table).loc[table["suite"].isin(PF_SUITES), "construction"].unique()
    return frozenset(str(c) for c in found if c not in PF_CONSTRUCTIONS and c != SYNTAX_CONTROL)


def trajectories(table: pd.DataFrame, model: str, names: Sequence[str], source: str | None = None) -> pd.DataFrame:
    """Several series in long form (series, construction, filter, metric, step, value) for plots."""
    frames = []
    for name in names:
        spec = parse_series(name)
        values = series_values(table, model, name, source)
        frames.append(pd.DataFrame({"series": spec.name, "construction": spec.construction,
                                    "filter": spec.filter, "metric": spec.metric,
                                    "step": values.index, "value": values.to_numpy()}))
    return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True)
class Milestones:
    """When a trajectory peaks, and the first checkpoint within a fraction of that peak."""

    series: str
    peak_step: int
    peak_value: float
    near_peak_step: int
    fraction: float


def milestones(series: pd.Series, fraction: float = 0.95) -> Milestones:
    """Peak checkpoint and the first checkpoint reaching `fraction` of the peak value."""
    if series.empty:
        raise InputError(f"series {series.name}: no checkpoints")
    peak_step = int(series.idxmax())
    near = series[series >= fraction * series.max()]
    return Milestones(str(series.name), peak_step, float(series.max()), int(near.index.min()), fraction)
