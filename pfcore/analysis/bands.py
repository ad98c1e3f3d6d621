"""95% intervals for the checkpoint curves, from the number of decisions behind each value where
the results table can tell it: an own run records its n (and its interval); a published semantic
value gets n from the paper's item set, as pfcore regenerates it; anything else gets no band.

The published item set's counts are data/reference/published_item_counts.csv, made by
`pfcore results bundle` from the paper-compatible semantic items (which equal the published TSVs
row for row). A count is used only where the published accuracy is a whole number of those
decisions, so a file scored on other items never gets a band from the wrong n.
"""
from __future__ import annotations

import io
import math
from functools import lru_cache
from pathlib import Path

import pandas as pd

from pfcore.analysis.models import RUN_SOURCE_PREFIX
from pfcore.analysis.series import AVERAGES, named_rows
from pfcore.errors import InputError
from pfcore.files import MIB, FileKind, read_bounded, write_atomic
from pfcore.intervals import proportion
from pfcore.items import generate_semantic, load_lexicon
from pfcore.items.schema import CONSTRUCTIONS, PF_CONSTRUCTIONS
from pfcore.names import SuiteName, published_name
from pfcore.paths import DATA_DIR
from pfcore.suites.semantic import decision_counts

ITEM_COUNTS = FileKind("published item counts", MIB)

ITEM_COUNTS_PATH = DATA_DIR / "reference" / "published_item_counts.csv"
WHOLE = 1e-6  # a published accuracy times n this close to a whole number is k of n decisions
KEY = ["construction", "filter", "step"]
RUN_BAND = "your run's own 95% interval"
RUN_N_BAND = "95% Wilson interval from your runs' n"
ITEMS_BAND = "95% Wilson interval, n from the published item set"
POOLED = ", the four constructions' decisions pooled"  # added to the band of an average
BAND_COLUMNS = ("ci_low", "ci_high", "n", "band")


def paper_item_counts() -> pd.DataFrame:
    """Decisions per construction and filter in the paper's semantic item set (pfcore's
    paper-compatible items), in the paper's layout as the bundled published rows: construction
    ("letalone"), filter, n."""
    lexicon = load_lexicon()
    counts = pd.concat([decision_counts(generate_semantic(lexicon, name, paper_compatible=True))
                        for name in CONSTRUCTIONS], ignore_index=True)
    return counts.assign(construction=counts["construction"].map(published_name))


def write_item_counts(path: Path = ITEM_COUNTS_PATH) -> pd.DataFrame:
    """Write the paper's item-set counts beside the bundled table; returns them."""
    counts = paper_item_counts()
    write_atomic(path, counts.to_csv(index=False, lineterminator="\n"), "the published item counts")
    return counts


@lru_cache(maxsize=2)
def item_counts(path: Path = ITEM_COUNTS_PATH) -> pd.DataFrame:
    """The stored item-set counts (construction in the paper's layout, filter, n); empty when the
    file is missing."""
    if not path.is_file():
        return pd.DataFrame({"construction": [], "filter": [], "n": []})
    try:
        counts = pd.read_csv(io.BytesIO(read_bounded(path, ITEM_COUNTS)),
                             dtype={"construction": str, "filter": str, "n": int}, keep_default_na=False)
    except (ValueError, KeyError) as exc:
        raise InputError(f"{path}: the published item counts are not readable ({type(exc).__name__}); remake "
                         "them with `pfcore results bundle --from FOLDER`") from exc
    return counts[["construction", "filter", "n"]]


def _accuracy(rows: pd.DataFrame) -> pd.DataFrame:
    """Accuracy rows, one per construction, filter and step (repeating files collapsed)."""
    rows = rows[rows["metric"] == "accuracy"]
    return rows.drop_duplicates(KEY)[[*KEY, "suite", "source", "value"]]


def decision_ns(rows: pd.DataFrame) -> pd.DataFrame:
    """n behind each (construction, filter, step) of one scope's checkpoint rows, with where it came
    from: an own run's recorded n, or the published item set's count where the published accuracy
    is a whole number of those decisions."""
    own = rows[rows["source"].str.startswith(RUN_SOURCE_PREFIX)]
    recorded = own[own["metric"] == "n"].drop_duplicates(KEY).assign(n=lambda d: d["value"], kind=RUN_N_BAND)
    published = _accuracy(rows[~rows["source"].str.startswith(RUN_SOURCE_PREFIX)])
    counts = named_rows(item_counts())
    published = published[published["suite"] == SuiteName.SEMANTIC].merge(counts, on=["construction", "filter"])
    whole = (published["value"] * published["n"] - (published["value"] * published["n"]).round()).abs() < WHOLE
    found = pd.concat([recorded[[*KEY, "n", "kind"]], published.loc[whole, [*KEY, "n"]].assign(kind=ITEMS_BAND)])
    return found.drop_duplicates(KEY).reset_index(drop=True)


def with_bands(rows: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """Curves (as `series.trajectories` gives them, from one scope's rows) with columns ci_low,
    ci_high, n and band (how the interval was found); NaN and "" where n is not known."""
    rows = named_rows(rows)
    ns = decision_ns(rows).set_index(KEY)
    values = _accuracy(rows).set_index(KEY)["value"]
    bounds = rows[rows["metric"].isin(["ci_low", "ci_high"]) & rows["source"].str.startswith(RUN_SOURCE_PREFIX)]
    stored = bounds.pivot_table(index=KEY, columns="metric", values="value", aggfunc="first")
    found = [_band(str(c), str(f), int(s), str(m), ns, values, stored)
             for c, f, s, m in curves[["construction", "filter", "step", "metric"]].itertuples(index=False)]
    return curves.assign(**{col: [f[i] for f in found] for i, col in enumerate(BAND_COLUMNS)})


def _band(construction: str, filt: str, step: int, metric: str, ns: pd.DataFrame, values: pd.Series,
          stored: pd.DataFrame) -> tuple[float, float, float, str]:
    """One curve point's (ci_low, ci_high, n, band)."""
    averaged = construction in AVERAGES
    parts = [(c, filt, step) for c in PF_CONSTRUCTIONS] if averaged else [(construction, filt, step)]
    if metric != "accuracy" or not all(key in ns.index and key in values.index for key in parts):
        return math.nan, math.nan, math.nan, ""
    counts = [int(ns.loc[key, "n"]) for key in parts]
    if not averaged and parts[0] in stored.index and {"ci_low", "ci_high"} <= set(stored.columns):
        low, high = stored.loc[parts[0], ["ci_low", "ci_high"]]
        return float(low), float(high), float(counts[0]), RUN_BAND
    if len(set(counts)) > 1:  # a mean of proportions over different n is not one binomial proportion
        return math.nan, math.nan, math.nan, ""
    k = round(sum(float(values.loc[key]) * n for key, n in zip(parts, counts)))
    interval = proportion(k, sum(counts))
    return interval.low, interval.high, float(sum(counts)), str(ns.loc[parts[0], "kind"]) + (POOLED if averaged else "")


NOTES = {
    ITEMS_BAND: "for the published semantic values, n is the number of decisions in the paper's item set "
                "(as pfcore regenerates it: data/reference/published_item_counts.csv), counted as independent, "
                "so these bands are narrower than the Run page's, which count a block's four decisions as linked",
    RUN_BAND: "for your runs, each run's own interval, as on the Run page",
    RUN_N_BAND: "for averages of your runs, a Wilson interval from the runs' n, decisions counted as independent",
    POOLED: "an average of the four constructions pools their decisions",
}


def band_note(curves: pd.DataFrame) -> str:
    """What a chart's shaded bands are, and which of its series have none, in one line."""
    bands = set(curves["band"]) - {""}
    kinds = [kind for kind in NOTES if any(band.startswith(kind) or band.endswith(kind) for band in bands)]
    bare = sorted(set(curves["series"]) - set(curves.loc[curves["band"] != "", "series"]))
    parts = [NOTES[kind] for kind in kinds]
    parts += [f"no band where n is not known: {', '.join(bare)}"] if bare else []
    if not kinds:
        return f"No intervals: the results table gives no number of decisions for {', '.join(bare)}." if bare else ""
    return "Shaded: 95% intervals; " + "; ".join(parts) + "."
