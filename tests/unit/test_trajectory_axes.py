"""Issue 37: Figure 2 by training step or by tokens seen (step x tokens per step where they are known,
'tokens seen unknown' elsewhere), and an optional moving mean drawn with the raw values faint beside it;
the raw values stay in the data (the download) under their own column."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pfcore.analysis.trajectories import (
    PYTHIA_TOKENS_PER_STEP,
    SMOOTHED,
    TOKENS,
    by_tokens,
    curves,
    filter_label,
    readable_series,
    smoothed,
    tokens_seen,
)
from pfcore.errors import InputError
from pfcore.plots.trajectories import RAW_OPACITY, curves_figure
from pfcore.store.results import load_results
from tests.unit.test_plots_kit import STEPS, is_decade, log_labels, outside, pythia_curves

PYTHIA = "EleutherAI/pythia-12b"


def rows(model: str, revisions: list[str], steps: list[int]) -> pd.DataFrame:
    return pd.DataFrame({"model": model, "revision": revisions, "step": [float(s) for s in steps]})


def test_pythias_tokens_seen_are_steps_times_2097152() -> None:
    assert PYTHIA_TOKENS_PER_STEP == 2 ** 21 == 1024 * 2048
    seen = tokens_seen(rows("EleutherAI/pythia-70m-deduped", ["step1", "step143000"], [1, 143000]),
                       "EleutherAI/pythia-70m-deduped")
    assert seen == {1.0: 2_097_152.0, 143000.0: 143000 * 2_097_152.0}


def test_an_olmo_revision_states_its_tokens_and_others_are_unknown() -> None:
    olmo = "allenai/OLMo-2-1124-7B"
    seen = tokens_seen(rows(olmo, ["stage1-step900-tokens4B", "stage1-step477000-tokens2001B"], [900, 477000]), olmo)
    assert seen == {900.0: 4e9, 477000.0: 2001e9}
    ettin = "jhu-clsp/ettin-decoder-1b"
    assert tokens_seen(rows(ettin, ["step2999", "step5996"], [2999, 5996]), ettin) == {}
    half = rows(olmo, ["stage1-step900-tokens4B", "step1000"], [900, 1000])
    assert tokens_seen(half, olmo) == {}  # one checkpoint unknown: none guessed


def test_the_bundled_curves_carry_tokens_seen_and_unknown_models_are_named(bundled_cache: object) -> None:
    table = load_results()
    data = curves(table, [f"published@a6b6990|{PYTHIA}", "published@a6b6990|jhu-clsp/ettin-decoder-1b"],
                  ["pf_avg:aligned"])
    pythia = data[data["model"] == PYTHIA]
    assert len(pythia) == 19 and np.array_equal(pythia[TOKENS], pythia["step"].astype(float) * 2_097_152)
    assert data.loc[data["model"] != PYTHIA, TOKENS].isna().all()
    known, notes = by_tokens(data)
    assert set(known["model"]) == {PYTHIA}
    assert len(notes) == 1 and notes[0].startswith("jhu-clsp/ettin-decoder-1b: tokens seen unknown")


def test_smoothing_is_a_centred_moving_mean_and_keeps_the_raw_values() -> None:
    data = pd.DataFrame({"label": ["a"] * 5 + ["b"] * 2, "step": [4, 1, 2, 3, 5, 1, 2],
                         "value": [0.4, 0.1, 0.2, 0.3, 0.9, 0.5, 0.7]})
    out = smoothed(data, 3)
    assert out["value"].tolist() == data["value"].tolist()
    expected = {1: (0.1 + 0.2) / 2, 2: 0.2, 3: 0.3, 4: (0.3 + 0.4 + 0.9) / 3, 5: (0.4 + 0.9) / 2}
    a = out[out["label"] == "a"]
    assert np.allclose(a[SMOOTHED], a["step"].map(expected), atol=1e-12)
    assert np.allclose(out.loc[out["label"] == "b", SMOOTHED], [0.6, 0.6], atol=1e-12)  # its own line alone
    assert np.allclose(smoothed(data, 1)[SMOOTHED], data["value"], atol=1e-12)
    with pytest.raises(InputError):
        smoothed(data, 0)


def test_the_figure_by_tokens_seen_smoothed_holds_every_point_with_the_raw_values_faint() -> None:
    data = pythia_curves(["pf_avg:aligned", "ewok:all"])
    data = smoothed(data.assign(**{TOKENS: data["step"] * float(PYTHIA_TOKENS_PER_STEP)}), 5)
    fig = curves_figure(data, "curves", x=TOKENS)
    assert outside(fig) == []
    assert fig.layout.xaxis.title.text == "Tokens seen (log scale)"
    assert all(is_decade(t) for t in log_labels(fig))
    assert "100B" in fig.layout.xaxis.ticktext  # 300B tokens at step 143000
    lines = [t for t in fig.data if t.fill is None]
    raw = [t for t in lines if t.opacity == RAW_OPACITY]
    drawn = [t for t in lines if t.opacity is None and t.showlegend is not False]
    assert len(raw) == len(drawn) == 2
    first = data[data["series"] == "pf_avg:aligned"].sort_values("step")
    assert np.allclose(raw[0].y, first["value"]) and np.allclose(drawn[0].y, first[SMOOTHED])
    assert np.allclose(drawn[0].x, np.array(STEPS) * 2_097_152.0)
    assert "tokens seen" in drawn[0].hovertemplate


def test_by_step_and_unsmoothed_the_figure_is_as_before() -> None:
    fig = curves_figure(pythia_curves(["pf_avg:aligned"]), "curves")
    assert fig.layout.xaxis.title.text == "Training step (log scale)"
    assert [t.opacity for t in fig.data] == [None] and list(fig.data[0].x) == STEPS


def test_a_filter_reads_the_same_in_the_pickers_and_the_axis_titles() -> None:
    """One vocabulary of filters: Figure 3's picker and Figure 4's axis titles name a filter alike
    (they used two tables that disagreed: "syntax, mean of the tests" against "tests")."""
    for filt, words in (("Avg_Test", "mean of the tests"), ("Avg_Control", "mean of the controls"),
                        ("aligned", "plausible"), ("misaligned", "implausible")):
        assert filter_label(filt) == f"{words} ({filt})"
        assert readable_series(f"syntax:{filt}").endswith(f"({words})")
