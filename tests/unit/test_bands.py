"""Intervals for the checkpoint curves: from an own run's recorded n and interval, from the
published item set's counts for published semantic values, and none where n is not known."""
from __future__ import annotations

import pandas as pd
import pytest

from pfcore.analysis.bands import (
    ITEMS_BAND,
    POOLED,
    RUN_BAND,
    band_note,
    item_counts,
    paper_item_counts,
    with_bands,
)
from pfcore.analysis.series import trajectories
from pfcore.intervals import proportion
from pfcore.items.schema import PF_CONSTRUCTIONS
from pfcore.store.published import read_bundle
from pfcore.store.result_rows import RESULT_COLUMNS

PUBLISHED = "published@a6b6990/EleutherAI/pythia-12b/accuracy_summary_la.tsv"
OWN = "pfcore run r1"


def row(construction: str, filt: str, step: int, value: float, *, metric: str = "accuracy",
        suite: str = "semantic", source: str = PUBLISHED) -> dict[str, object]:
    """One results-table row of model m."""
    return {"model": "m", "revision": f"step{step}", "step": step, "suite": suite, "construction": construction,
            "filter": filt, "metric": metric, "value": value, "source": source}


def table(rows: list[dict[str, object]]) -> pd.DataFrame:
    """Rows as a results table."""
    return pd.DataFrame(rows, columns=list(RESULT_COLUMNS)).astype({"step": "Int64"})


def banded(rows: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """The named curves of model m with their bands, indexed by (series, step)."""
    return with_bands(rows, trajectories(rows, "m", names)).set_index(["series", "step"])


def test_published_semantic_values_get_a_wilson_band_from_the_item_set() -> None:
    n = int(item_counts().set_index(["construction", "filter"]).loc[("letalone", "aligned"), "n"])
    assert n == 3546
    rows = table([row("letalone", "aligned", 1, 1773 / n), row("letalone", "aligned", 2, 0.123456789),
                  row("blimp", "all", 1, 0.7, suite="blimp"), row("letalone", "NPI", 1, 0.9, suite="syntax")])
    got = banded(rows, ["letalone:aligned", "blimp:all", "letalone:NPI"])
    want = proportion(1773, n)
    first = got.loc[("let_alone:aligned", 1)]
    assert (first["ci_low"], first["ci_high"]) == (pytest.approx(want.low, abs=1e-12),
                                                   pytest.approx(want.high, abs=1e-12))
    assert (first["n"], first["band"]) == (n, ITEMS_BAND)
    assert got.loc[("let_alone:aligned", 2), "band"] == ""  # not a whole number of those decisions: n unknown
    assert set(got.loc[["blimp:all", "let_alone:NPI"], "band"]) == {""}
    assert got.loc[["blimp:all", "let_alone:NPI"], "ci_low"].isna().all()


def test_an_average_pools_the_four_constructions_decisions() -> None:
    n = 3546
    hits = {"let_alone": 3000, "much_less": 2900, "not_to_mention": 2800, "never_mind": 2700}
    rows = table([row(c, "aligned", 1, hits[c] / n) for c in PF_CONSTRUCTIONS])
    point = banded(rows, ["pf_avg:aligned"]).loc[("pf_avg:aligned", 1)]
    want = proportion(sum(hits.values()), 4 * n)
    assert point["value"] == pytest.approx(want.value, abs=1e-12)
    assert (point["ci_low"], point["ci_high"]) == (pytest.approx(want.low, abs=1e-12),
                                                   pytest.approx(want.high, abs=1e-12))
    assert (point["n"], point["band"]) == (4 * n, ITEMS_BAND + POOLED)
    note = band_note(banded(rows, ["pf_avg:aligned"]).reset_index())
    assert "n is the number of decisions in the paper's item set" in note and "pools their decisions" in note


def test_own_runs_keep_their_own_interval_and_unequal_ns_get_none() -> None:
    own = []
    for i, c in enumerate(PF_CONSTRUCTIONS):
        n = 40 if c == "never_mind" else 32
        own += [row(c, "all", 8, 0.5 + i / 32, source=OWN), row(c, "all", 8, n, metric="n", source=OWN),
                row(c, "all", 8, 0.3, metric="ci_low", source=OWN), row(c, "all", 8, 0.8, metric="ci_high", source=OWN)]
    got = banded(table(own), ["letalone:all", "pf_avg:all"])
    single = got.loc[("let_alone:all", 8)]
    assert (single["ci_low"], single["ci_high"], single["n"], single["band"]) == (0.3, 0.8, 32, RUN_BAND)
    assert got.loc[("pf_avg:all", 8), "band"] == ""  # 32, 32, 32 and 40 decisions: no one binomial n
    note = band_note(got.reset_index())
    assert note.startswith("Shaded: 95% intervals; for your runs")
    assert note.endswith("no band where n is not known: pf_avg:all.")


def test_the_shipped_item_counts_are_the_papers_item_set() -> None:
    """data/reference/published_item_counts.csv is what pfcore's paper-compatible items give."""
    pd.testing.assert_frame_equal(item_counts(), paper_item_counts())


def test_every_published_semantic_accuracy_is_a_whole_number_of_those_decisions() -> None:
    """The counts fit all 12 models' published semantic files: each accuracy is k of n decisions."""
    rows = read_bundle().rows
    semantic = rows[(rows["suite"] == "semantic") & (rows["metric"] == "accuracy")]
    joined = semantic.merge(item_counts(), on=["construction", "filter"], how="left")
    assert joined["n"].notna().all()  # every published filter of the four constructions has a count
    k = joined["value"] * joined["n"]
    assert (k - k.round()).abs().max() < 1e-6
    assert joined["source"].nunique() == 12
