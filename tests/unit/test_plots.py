"""Figure builders: the traces, axes and annotations each one promises."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pfcore.analysis.fdcorr import fd_correlation
from pfcore.items.schema import PF_CONSTRUCTIONS
from pfcore.plots.accuracy import accuracy_bars_figure, accuracy_vs_parameters_figure
from pfcore.plots.trajectories import construction_panels_figure, fd_scatter_figure, trajectory_figure
from pfcore.store.result_rows import RESULT_COLUMNS

STEPS = [1, 2, 4, 8, 16, 32]


def curves(names: list[str]) -> pd.DataFrame:
    """Long-form curves (series, construction, filter, step, value), steps in reverse order."""
    rows = [{"series": f"{c}:{f}", "construction": c, "filter": f, "step": s,
             "value": 0.5 + 0.01 * i * s}
            for i, name in enumerate(names) for c, f in [name.split(":")]
            for s in reversed(STEPS)]
    return pd.DataFrame(rows)


def chance_lines(fig) -> list[float]:
    """y of every horizontal line shape."""
    return [shape.y0 for shape in fig.layout.shapes if shape.y0 == shape.y1]


def test_trajectory_figure_one_line_per_series_on_a_log_axis() -> None:
    fig = trajectory_figure(curves(["pf_avg:aligned", "syntax:Avg_Test", "blimp:all"]),
                            title="Pythia-12b")
    assert [t.name for t in fig.data] == ["pf_avg:aligned", "syntax:Avg_Test", "blimp:all"]
    assert list(fig.data[0].x) == STEPS  # sorted by step
    assert fig.layout.xaxis.type == "log" and chance_lines(fig) == [0.5]
    assert trajectory_figure(curves(["a:b"]), log_x=False, chance=None).layout.shapes == ()
    with pytest.raises(ValueError, match="series"):
        trajectory_figure(pd.DataFrame({"step": [1], "value": [0.5]}))


def test_construction_panels_one_panel_each_and_a_line_per_filter() -> None:
    names = [f"{c}:{f}" for c in PF_CONSTRUCTIONS for f in ("aligned", "misaligned")]
    fig = construction_panels_figure(curves(names))
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["Let alone", "Much less", "Not to mention", "Never mind"]
    assert len(fig.data) == 8
    assert [t.name for t in fig.data if t.showlegend] == ["aligned", "misaligned"]
    assert {t.xaxis for t in fig.data} == {"x", "x2", "x3", "x4"}
    assert fig.layout.xaxis4.type == "log" and chance_lines(fig) == [0.5] * 4


def test_fd_scatter_panels_carry_rho_in_their_titles() -> None:
    rng = np.random.default_rng(0)
    levels = np.cumsum(rng.random((3, 8)), axis=1)
    rows = pd.concat([pd.DataFrame({
        "model": "m", "revision": "r", "step": 2 ** np.arange(8), "suite": suite,
        "construction": suite, "filter": "all", "metric": "accuracy", "value": levels[i],
        "source": "s"}, columns=list(RESULT_COLUMNS))
        for i, suite in enumerate(["semantic", "blimp", "ewok"])])
    results = [fd_correlation(rows, "m", "semantic:all", y) for y in ("blimp:all", "ewok:all")]
    fig = fd_scatter_figure(pd.concat([r.points() for r in results]))
    assert len(fig.data) == 2 and all(len(t.x) == 7 for t in fig.data)
    titles = [a.text for a in fig.layout.annotations if a.text and "ρ" in a.text]
    assert titles == [f"semantic:all vs {r.y} (ρ = {r.spearman:.2f})" for r in results]


def test_accuracy_vs_parameters_log_axis_coloured_by_tokens() -> None:
    models = pd.DataFrame({"model": ["a", "b", "c"], "parameters": [1e8, 1e9, 1.2e10],
                           "pretraining_tokens": [3e9, 2e12, 2.6e11], "accuracy": [50, 70, 96],
                           "model_type": ["MLM", "CausalLM", "CausalLM"]})
    fig = accuracy_vs_parameters_figure(models)
    assert [t.name for t in fig.data] == ["MLM", "CausalLM"]
    assert fig.layout.xaxis.type == "log"
    assert list(fig.data[1].marker.color) == pytest.approx(np.log10([2e12, 2.6e11]))
    assert fig.data[0].marker.symbol == "diamond" and chance_lines(fig) == [50.0]
    assert len(accuracy_vs_parameters_figure(models.drop(columns="model_type")).data) == 1


def test_accuracy_bars_with_interval_error_bars() -> None:
    acc = pd.DataFrame({"construction": ["letalone", "muchless"] * 2,
                        "filter": ["aligned", "aligned", "misaligned", "misaligned"],
                        "accuracy": [0.9, 0.8, 0.6, 0.5], "ci_low": [0.85, 0.7, 0.55, 0.4],
                        "ci_high": [0.93, 0.85, 0.7, 0.6]})
    fig = accuracy_bars_figure(acc)
    assert [t.type for t in fig.data] == ["bar", "bar"]
    assert [t.name for t in fig.data] == ["aligned", "misaligned"]
    assert list(fig.data[0].x) == ["Let alone", "Much less"]
    assert list(fig.data[0].error_y.array) == pytest.approx([0.03, 0.05])
    assert list(fig.data[1].error_y.arrayminus) == pytest.approx([0.05, 0.1])
    assert fig.layout.barmode == "group"


def test_construction_panels_label_the_ticks_of_every_panel() -> None:
    """Issue 20: the shared y axis left the right-hand panels without tick labels."""
    names = [f"{c}:aligned" for c in PF_CONSTRUCTIONS]
    layout = construction_panels_figure(curves(names)).layout
    axes = [layout[k] for k in layout if k.startswith(("xaxis", "yaxis"))]
    assert len(axes) == 8 and all(axis.showticklabels is True for axis in axes)


def test_a_band_is_drawn_where_the_curves_have_an_interval() -> None:
    data = curves(["pf_avg:aligned", "blimp:all"])
    known = (data["series"] == "pf_avg:aligned") & (data["step"] != 4)  # step 4 has no interval
    data = data.assign(ci_low=(data["value"] - 0.05).where(known), ci_high=(data["value"] + 0.05).where(known),
                       n=pd.Series(100.0, index=data.index).where(known))
    fig = trajectory_figure(data)
    bands = [t for t in fig.data if t.fill == "toself"]
    assert [t.name for t in bands] == ["pf_avg:aligned: 95% interval"] * 2  # steps 1-2 and 8-32: split at the gap
    assert [len(t.x) for t in bands] == [4, 6] and all(t.legendgroup == "pf_avg:aligned" for t in bands)
    lines = {t.name: t for t in fig.data if t.fill != "toself"}
    assert list(lines) == ["pf_avg:aligned", "blimp:all"]
    notes = lines["pf_avg:aligned"].customdata
    assert notes[0].startswith("<br>95% interval") and notes[2] == ""
    assert set(lines["blimp:all"].customdata) == {""}
