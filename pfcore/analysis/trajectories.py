"""Checkpoint results shaped for reading: which models have trajectories (published imports and
own runs), their curves (the paper's Figures 2 and 3) and first-difference correlations (Figure 4),
each with where its numbers come from."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pfcore.analysis.bands import BAND_COLUMNS, with_bands
from pfcore.analysis.fdcorr import MIN_CHECKPOINTS, FDCorrelation, fd_correlation, paper_comparison
from pfcore.analysis.models import RUN_SOURCE_PREFIX
from pfcore.analysis.series import (
    USER_MARK,
    available_series,
    parse_series,
    series_sources,
    trajectories,
    user_constructions,
)
from pfcore.errors import InputError
from pfcore.items.schema import PF_CONSTRUCTIONS
from pfcore.names import construction_words
from pfcore.runs.checkpoints import DuplicateCheckpoint, duplicate_checkpoints
from pfcore.store.published import (
    BUNDLED_PREFIX,
    EARLIER,
    IMPORT_PREFIX,
    bundled_label,
    collection_of,
    file_of,
    is_label,
)
from pfcore.store.published_tsv import PUBLISHED_REPO
from pfcore.store.results import imported_folders

OWN = "own"  # the origin of own runs' rows; every other origin is a collection's label (pfcore.store.published)
# the paper's Figure 2 curves, with the names its legend uses
FIGURE2 = {"pf_avg:aligned": "PF meaning, plausible", "pf_avg:misaligned": "PF meaning, implausible",
           "syntax:Avg_Test": "PF form (syntax)", "blimp:all": "BLiMP", "comps:all": "COMPS",
           "ewok:all": "EWoK"}
# the filters in words: one vocabulary for the pickers (`filter_label`) and the axis titles (`readable_series`)
FILTER_NAMES = {"aligned": "plausible", "misaligned": "implausible", "all": "all items",
                "Avg_Test": "mean of the tests", "Avg_Control": "mean of the controls"}
FIGURE3_FILTERS = ("aligned", "misaligned")
# Figure 4: (a) form, (b) implausible, (c) EWoK physical relations, each against plausible meaning
FD_X = "pf_avg:aligned"
FD_YS = ("syntax:Avg_Test", "pf_avg:misaligned", "ewok:domain_physical-relations")


def origin_of(sources: pd.Series) -> pd.Series:
    """Each row's origin: "own" for `pfcore run ...` sources, else the collection its source names
    (the bundled published results, one imported folder, or an earlier import)."""
    return sources.map({s: OWN if s.startswith(RUN_SOURCE_PREFIX) else collection_of(s) for s in sources.unique()})


def _rank(origin: str) -> tuple[int, str]:
    """Order of origins in a picker: published first (the paper's figures), your runs, imports, earlier."""
    kinds = (BUNDLED_PREFIX, OWN, IMPORT_PREFIX, EARLIER)
    return next(i for i, kind in enumerate(kinds) if origin.startswith(kind)), origin


def origin_name(origin: str) -> str:
    """An origin in a few words: "published @ a6b6990", "your runs", "imported outputs_summary/ (3f9a1c2)"."""
    if origin == OWN:
        return "your runs"
    if origin.startswith(BUNDLED_PREFIX):
        return f"published @ {origin.removeprefix(BUNDLED_PREFIX)}"
    if origin.startswith(IMPORT_PREFIX):
        folders = imported_folders().get(origin, [])
        where = f"{Path(folders[0]).name}/ " if folders else ""
        return f"imported {where}({origin.removeprefix(IMPORT_PREFIX)[:7]})"
    return "earlier import"


def origin_text(origin: str) -> str:
    """Where an origin's numbers come from, in a phrase."""
    if origin.startswith(BUNDLED_PREFIX):
        return (f"the paper's published results ({PUBLISHED_REPO} @ {origin.removeprefix(BUNDLED_PREFIX)}, "
                f"bundled with pfcore; source {origin})")
    if origin.startswith(IMPORT_PREFIX):
        return f"a folder you imported ({origin_name(origin)}; source {origin})"
    return "your own runs" if origin == OWN else "an import made before pfcore kept sources apart"


def checkpoint_models(table: pd.DataFrame) -> dict[str, str]:
    """Models with checkpoint results, each with a label: origins and number of checkpoints."""
    models = table[table["step"].notna()].groupby("model").agg(sources=("source", "unique"), steps=("step", "nunique"))
    labels = {}
    for model, sources, steps in models.itertuples():
        origins = " + ".join(map(origin_name, sorted(set(origin_of(pd.Series(sources))), key=_rank)))
        labels[model] = f"{model} · {origins} · {steps} checkpoint{'s' if steps > 1 else ''}"
    return labels


def default_model(models: Sequence[str]) -> int:
    """Index of the model to show first: Pythia-12b (the paper's Figures 2-4) when present."""
    return models.index("EleutherAI/pythia-12b") if "EleutherAI/pythia-12b" in models else 0


def source_choices(table: pd.DataFrame, model: str) -> list[str]:
    """What a model's numbers can be limited to: each origin present (published first), then each
    published file when there are several."""
    rows = table[(table["model"] == model) & table["step"].notna()]
    origins = origin_of(rows["source"])
    files = sorted(rows.loc[origins != OWN, "source"].unique(), key=lambda s: (_rank(collection_of(s)), s))
    return sorted(set(origins), key=_rank) + (files if len(files) > 1 else [])


def _is_origin(source: str) -> bool:
    """Whether a source choice is a whole origin (else it is one published file)."""
    return source in (OWN, EARLIER) or is_label(source)


def source_label(source: str) -> str:
    """A source choice in words."""
    if source == OWN:
        return "your runs (pfcore trajectory)"
    if _is_origin(source):
        return f"{origin_name(source)} (all its files)"
    return f"only {file_of(source)} ({origin_name(collection_of(source))})"


def scoped(table: pd.DataFrame, model: str, source: str) -> pd.DataFrame:
    """One model's checkpoint rows from one origin or one published file."""
    rows = table[(table["model"] == model) & table["step"].notna()]
    rows = rows[origin_of(rows["source"]) == source] if _is_origin(source) else rows[rows["source"] == source]
    if rows.empty:
        raise InputError(f"{model} has no checkpoint results from {source_label(source)}")
    return rows


def provenance(rows: pd.DataFrame, source: str) -> str:
    """Where the shown numbers come from, in one line of plain text (its file names may be an
    upload's)."""
    sources = sorted(rows["source"].unique())
    steps = rows["step"].nunique()
    if source == OWN:
        return (f"From your own runs: {len(sources)} run record(s) over {steps} checkpoints, made by "
                f"'python -m pfcore trajectory' (sources {sources[0]} ...).")
    origin = source if _is_origin(source) else collection_of(source)
    return f"From {origin_text(origin)}, {steps} checkpoints: " + ", ".join(file_of(s) for s in sources)


def scope_key(model: str, source: str) -> str:
    """A (model, origin) pair as one widget option."""
    return f"{source}|{model}"


def bundled_scope(model: str) -> str:
    """The scope of a model's published numbers as they ship with pfcore (what the paper's figures draw)."""
    return scope_key(model, bundled_label())


def scope_label(key: str) -> str:
    """A scope option in words: the model and its origin."""
    source, _, model = key.partition("|")
    return f"{model} ({origin_name(source)})"


def compare_choices(table: pd.DataFrame, model: str, source: str) -> list[str]:
    """Every (model, origin) with checkpoints except the one shown, to draw beside it."""
    rows = table[table["step"].notna()]
    pairs = rows.assign(origin=origin_of(rows["source"]))[["model", "origin"]].drop_duplicates()
    keys = [scope_key(m, o) for m, o in sorted(pairs.itertuples(index=False), key=lambda p: (p[0], _rank(p[1])))]
    shown = scope_key(model, source if _is_origin(source) else collection_of(source))
    return [k for k in keys if k != shown]


def series_label(name: str, user: frozenset[str] = frozenset()) -> str:
    """A series with the paper's name for it when it has one: "PF meaning, plausible (pf_avg:aligned)";
    one of a construction in `user` (see `series.user_constructions`) marked user-defined."""
    label = f"{FIGURE2[name]} ({name})" if name in FIGURE2 else name
    return f"{label} {USER_MARK}" if name.partition(":")[0] in user else label


AVERAGE_NAMES = {"pf_avg": "semantic accuracy", "syntax": "syntactic accuracy", "blimp": "BLiMP accuracy",
                 "comps": "COMPS accuracy", "ewok": "EWoK accuracy"}


def readable_series(name: str) -> str:
    """A series name in words for axis titles: "syntax:Avg_Test" -> "syntactic accuracy (mean of the tests)",
    "let_alone:aligned" -> "let alone (plausible)"."""
    base, _, metric = name.partition("@")
    construction, _, filt = base.partition(":")
    what = AVERAGE_NAMES.get(construction) or construction_words(construction)
    detail = FILTER_NAMES.get(filt) or filt.removeprefix("domain_").removeprefix("paradigm_").replace("_", " ")
    return f"{what} ({detail})" + (f", {metric}" if metric else "")


def present(wanted: Sequence[str], available: Sequence[str]) -> list[str]:
    """The wanted names that exist, in the wanted order."""
    have = set(available)
    return [n for n in wanted if n in have]


def defaults(wanted: Sequence[str], available: Sequence[str], besides: str | None = None) -> list[str]:
    """What a multiselect starts with: the wanted names that exist, else the first available one
    (other than `besides`), so that every model opens on a chart."""
    return present(wanted, available) or [n for n in available if n != besides][:1]


def log_axis(steps: pd.Series) -> bool:
    """A log step axis unless a checkpoint is step 0 (which a log axis cannot show)."""
    return bool((steps > 0).all())


PYTHIA = "EleutherAI/pythia-"
PYTHIA_TOKENS_PER_STEP = 2_097_152  # 1,024 sequences of 2,048 tokens per step, every Pythia model (2M)
TOKENS_IN_REVISION = re.compile(r"-tokens(\d+)B$")  # an OLMo checkpoint's name states its tokens: "...-tokens4B"
TOKENS = "tokens_seen"
SMOOTHED = "value_smoothed"
X_AXES = {"step": "training step", TOKENS: "tokens seen"}


def tokens_seen(rows: pd.DataFrame, model: str) -> dict[float, float]:
    """Tokens seen at each of a model's checkpoints, where they are known: step x 2,097,152 for Pythia,
    what every revision's name states for OLMo ("stage1-step900-tokens4B": 4B, rounded as named);
    empty for other models (tokens seen unknown)."""
    mine = rows.loc[(rows["model"] == model) & rows["step"].notna(), ["step", "revision"]].drop_duplicates("step")
    if model.startswith(PYTHIA):
        return {float(s): float(s) * PYTHIA_TOKENS_PER_STEP for s in mine["step"]}
    stated = mine["revision"].astype(str).str.extract(TOKENS_IN_REVISION)[0]
    if mine.empty or stated.isna().any():
        return {}
    return {float(s): float(t) * 1e9 for s, t in zip(mine["step"], stated)}


def by_tokens(data: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The curves whose tokens seen are known (column tokens_seen), and a note for each model left out."""
    known = data[TOKENS].notna()
    notes = [f"{model}: tokens seen unknown (its tokens per step are not recorded), so it is left out of "
             "the chart by tokens seen; choose the x-axis by step to see it"
             for model in dict.fromkeys(data.loc[~known, "model"])]
    return data[known], notes


def smoothed(data: pd.DataFrame, window: int) -> pd.DataFrame:
    """The curves with a column value_smoothed: each line's centred moving mean over `window`
    checkpoints in step order (fewer at the ends); the raw value column stays as it is."""
    if window < 1:
        raise InputError(f"the smoothing window is {window} checkpoints; it must be at least 1")
    ordered = data.sort_values(["label", "step"], kind="stable")
    rolled = ordered.groupby("label", sort=False)["value"].transform(
        lambda v: v.rolling(window, center=True, min_periods=1).mean())
    return data.assign(**{SMOOTHED: rolled.reindex(data.index)})


def _with_sources(rows: pd.DataFrame, model: str, curves: pd.DataFrame) -> pd.DataFrame:
    """Curves with the sources each series was read from (published files or run ids)."""
    sources = {n: "; ".join(series_sources(rows, model, n)) for n in curves["series"].unique()}
    return curves.assign(source=curves["series"].map(sources))


def curves(table: pd.DataFrame, scopes: Sequence[str], names: Sequence[str]) -> pd.DataFrame:
    """The chosen series for each (model, origin) that has them, in long form with a legend label,
    origin and source columns (Figure 2's data)."""
    if not names:
        raise InputError("choose at least one series to draw")
    frames = []
    for key in scopes:
        source, _, model = key.partition("|")
        rows = scoped(table, model, source)
        picked = present(names, available_series(rows, model))
        if picked:
            part = with_bands(rows, _with_sources(rows, model, trajectories(rows, model, picked)))
            part = part.assign(**{TOKENS: part["step"].astype(float).map(tokens_seen(rows, model))})
            origin = source if _is_origin(source) else collection_of(source)
            frames.append(part.assign(model=model, origin=origin_name(origin)))
    if not frames:
        raise InputError("none of the chosen series has values for these models")
    data = pd.concat(frames, ignore_index=True)
    user = user_constructions(table)
    label = data["series"].map(lambda name: series_label(name, user))
    if len(scopes) > 1:
        label = label + " · " + data["model"] + " (" + data["origin"] + ")"
    return data.assign(label=label)[["model", "origin", "series", "label", "construction", "filter",
                                     "metric", "step", TOKENS, "value", *BAND_COLUMNS, "source"]]


def construction_filters(rows: pd.DataFrame, model: str) -> list[str]:
    """Filters (semantic) and test types (syntax) the four constructions have, Figure 3's first."""
    available = set(available_series(rows, model))
    found = {name.partition(":")[2] for name in available if name.partition(":")[0] in PF_CONSTRUCTIONS}
    first = [f for f in (*FIGURE3_FILTERS, "all", "Avg_Test") if f in found]
    return first + sorted(found - set(first))


def filter_label(filt: str) -> str:
    """A filter with its meaning when it has a short one: "plausible (aligned)"."""
    return f"{FILTER_NAMES[filt]} ({filt})" if filt in FILTER_NAMES else filt


def construction_curves(rows: pd.DataFrame, model: str, filters: Sequence[str]) -> pd.DataFrame:
    """Each construction's curve per chosen filter (Figure 3's data), with sources."""
    if not filters:
        raise InputError("choose at least one filter")
    names = present([f"{c}:{f}" for c in PF_CONSTRUCTIONS for f in filters], available_series(rows, model))
    if not names:
        raise InputError(f"{model} has no per-construction values for {', '.join(filters)}")
    data = with_bands(rows, _with_sources(rows, model, trajectories(rows, model, names)))
    return data.assign(filter=data["filter"].map(filter_label))


@dataclass(frozen=True)
class FDChoices:
    """What Figure 4's section offers for one model's rows: how many checkpoints they have, the
    series to set the others against (the semantic averages, else every series) and the one it
    opens on, and the checkpoints whose weights repeat an earlier step's."""

    checkpoints: int
    against: tuple[str, ...]
    first: int
    duplicates: tuple[DuplicateCheckpoint, ...]

    @property
    def enough(self) -> bool:
        """Whether the rows have checkpoints enough for a first-difference correlation."""
        return self.checkpoints >= MIN_CHECKPOINTS


def fd_choices(rows: pd.DataFrame, model: str, available: Sequence[str]) -> FDChoices:
    """Figure 4's choices for one model's rows (`available`: their series)."""
    average = parse_series(FD_X).construction
    against = [n for n in available if parse_series(n).construction == average] or list(available)
    first = against.index(FD_X) if FD_X in against else 0
    return FDChoices(int(rows["step"].nunique()), tuple(against), first,
                     tuple(duplicate_checkpoints(rows, model)))


@dataclass(frozen=True)
class FDPanels:
    """Figure 4's correlations, and the pairs that could not be computed (with the reason)."""

    results: tuple[FDCorrelation, ...]
    problems: tuple[str, ...]


def fd_panels(rows: pd.DataFrame, model: str, x: str, ys: Sequence[str], *, zscale: bool,
              drop_duplicates: bool = False) -> FDPanels:
    """First-difference correlations of x with each y; a pair that cannot be computed is reported."""
    if not ys:
        raise InputError("choose at least one series to set against " + x)
    results, problems = [], []
    for y in ys:
        try:
            results.append(fd_correlation(rows, model, x, y, zscale=zscale, drop_duplicates=drop_duplicates))
        except InputError as exc:  # one pair lacking data leaves the other panels standing
            problems.append(f"{x} vs {y}: {exc}")
    return FDPanels(tuple(results), tuple(problems))


def fd_stats(results: Sequence[FDCorrelation]) -> pd.DataFrame:
    """One row per pair: Spearman and Pearson with p-values, n changes, z-scaled or not."""
    return pd.DataFrame([{"x": r.x, "y": r.y, "spearman": r.spearman, "spearman_p": r.spearman_p,
                          "pearson": r.pearson, "pearson_p": r.pearson_p, "n": r.n,
                          "zscale": r.zscale} for r in results])


def paper_notes(rows: pd.DataFrame, results: Sequence[FDCorrelation], *, drop_duplicates: bool = False) -> list[str]:
    """For each pair the paper prints a value for, that value beside pfcore's and why they differ."""
    found = (paper_comparison(rows, r, drop_duplicates=drop_duplicates) for r in results)
    return [comparison.note() for comparison in found if comparison]


def fd_points(results: Sequence[FDCorrelation]) -> pd.DataFrame:
    """The plotted changes of every pair with its statistics (what the CSV download holds)."""
    stats = fd_stats(results).drop(columns=["spearman"])
    return pd.concat([r.points() for r in results], ignore_index=True).merge(stats, on=["x", "y"])


def pair_defaults(available: Sequence[str]) -> tuple[int, int]:
    """Indices of the first pair offered: plausible meaning against EWoK physical relations (the
    paper's rho = .48), else against the next Figure 4 series present."""
    x = available.index(FD_X) if FD_X in available else 0
    ys = [available.index(y) for y in FD_YS[::-1] if y in available and y != available[x]]
    return x, ys[0] if ys else (x + 1) % len(available)
