"""The figure kit (issue 37): every figure's points inside its axes with a margin, log axes labelled
at decades only, legends outside the plotting area, one colour per model, readable units; asked of
each figure builder from the figure's own data."""
from __future__ import annotations

import html
import math
from collections.abc import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from pfcore.analysis.fdcorr import fd_correlation
from pfcore.items.schema import PF_CONSTRUCTIONS
from pfcore.plots.accuracy import accuracy_bars_figure, accuracy_vs_parameters_figure
from pfcore.plots.kit import decade_ticks, fit_axes, human, kind_dashes, model_colors
from pfcore.plots.lesson import models_figure, training_figure
from pfcore.plots.regions import region_bars_figure
from pfcore.plots.trajectories import construction_figure, curves_figure, fd_figure, trajectory_figure
from pfcore.plots.words import checkpoint_figure, word_curves_figure
from pfcore.store.result_rows import RESULT_COLUMNS

STEPS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 143000]


def outside(fig: go.Figure) -> list[tuple[str, float]]:
    """Every (axis, value) of a line or marker point (or a line drawn on an axis) outside its axis's range."""
    bad = []
    for trace in fig.data:
        if trace.type != "scatter":
            continue
        for letter in "xy":
            name = f"{letter}axis{(getattr(trace, f'{letter}axis') or letter)[1:]}"
            axis = fig.layout[name]
            values = [v for v in getattr(trace, letter) if isinstance(v, int | float) and math.isfinite(v)]
            if axis.type == "category" or not values or isinstance(getattr(trace, letter)[0], str):
                continue
            assert axis.range is not None, f"{name} has no range"
            low, high = axis.range
            for v in values:
                shown = math.log10(v) if axis.type == "log" else v
                if not low < shown < high:  # strictly: a margin each side
                    bad.append((name, v))
    return bad


def log_labels(fig: go.Figure) -> list[str]:
    """The tick labels of every log axis."""
    return [t for name in fig.layout if name.startswith(("xaxis", "yaxis")) and fig.layout[name].type == "log"
            for t in fig.layout[name].ticktext or ()]


def is_decade(label: str) -> bool:
    """"1", "10", "100", "1k" ... "1T": a power of ten."""
    scale = {"k": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
    value = float(label[:-1]) * scale[label[-1]] if label[-1] in scale else float(label)
    return math.log10(value) == round(math.log10(value))


def pythia_curves(names: list[str], model: str = "EleutherAI/pythia-12b") -> pd.DataFrame:
    """Figure 2's data for one model over Pythia's 19 logarithmic checkpoints (the last at 143000)."""
    rows = [{"model": model, "origin": "published @ a6b6990", "series": name, "label": f"{name} ({model})",
             "construction": name.split(":")[0], "filter": name.split(":")[1], "step": s,
             "value": 0.5 + 0.4 * i / len(STEPS) + 0.01 * j}
            for j, name in enumerate(names) for i, s in enumerate(STEPS)]
    return pd.DataFrame(rows)


def figure3() -> go.Figure:
    rows = [{"construction": c, "filter": f, "step": s, "value": 0.45 + 0.5 * (i / len(STEPS)) ** 3}
            for c in PF_CONSTRUCTIONS for f in ("plausible", "implausible") for i, s in enumerate(STEPS)]
    return construction_figure(pd.DataFrame(rows), "each construction")


def fd(panels: int = 1, title: str | None = None) -> go.Figure:
    rng = np.random.default_rng(0)
    levels = np.cumsum(rng.random((4, 8)), axis=1)
    rows = pd.concat([pd.DataFrame({
        "model": "m", "revision": "r", "step": 2 ** np.arange(8), "suite": suite, "construction": suite,
        "filter": "all", "metric": "accuracy", "value": levels[i], "source": "s"}, columns=list(RESULT_COLUMNS))
        for i, suite in enumerate(["semantic", "blimp", "ewok", "comps"])])
    ys = ("blimp", "ewok", "comps")[:panels]
    return fd_figure([fd_correlation(rows, "m", "semantic:all", f"{y}:all") for y in ys], title)


def models() -> pd.DataFrame:
    return pd.DataFrame({"model": ["a/small", "b/mid", "c/big"], "parameters": [1.4e7, 4.1e8, 2.8e9],
                         "pretraining_tokens": [3e11, 3e11, 2e12], "accuracy": [50.0, 71.0, 96.0],
                         "model_type": ["MLM", "CausalLM", "CausalLM"]})


def words() -> pd.DataFrame:
    rows = [{"model": m, "position": p, "word": w, "word_or": w, "focus2": p > 4,
             "surprisal_construction_bits": 3.0 + p + k, "surprisal_or_bits": 2.0 + p, "difference_bits": 1.0 + k}
            for k, m in enumerate(["tiny", "small"]) for p, w in enumerate("we can't sing, much less dance".split())]
    return pd.DataFrame(rows)


def checkpoints() -> pd.DataFrame:
    return pd.DataFrame({"step": STEPS, "checkpoint": [f"step{s}" for s in STEPS],
                         "focus2_construction_bits": np.linspace(12, 4, len(STEPS)),
                         "focus2_or_bits": np.linspace(12, 6, len(STEPS)),
                         "effect": np.linspace(-0.1, 2.5, len(STEPS))})


FIGURES = {
    "Figure 2": lambda: curves_figure(pythia_curves(["pf_avg:aligned", "ewok:all"]), "curves"),
    "Figure 3": figure3,
    "Figure 4": fd,
    "trajectory": lambda: trajectory_figure(pythia_curves(["blimp:all"]).assign(series="blimp:all")),
    "Models Figure 1": lambda: accuracy_vs_parameters_figure(models()),
    "Lesson Figure 1": lambda: models_figure(models().assign(model_type="CausalLM"), threshold=4e8,
                                             names={"CausalLM": "causal"}),
    "Lesson Figure 2": lambda: training_figure(pythia_curves(["pf_avg:aligned"]), {"pf_avg:aligned": "meaning"}),
    "Probe checkpoints": lambda: checkpoint_figure(checkpoints(), "bits", effect="effect"),
    "Probe words": lambda: word_curves_figure(words(), "much less"),
}


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_point_lies_inside_its_axes_with_a_margin(name: str) -> None:
    assert outside(FIGURES[name]()) == []


def test_figure3_holds_the_last_checkpoint_and_its_100k_tick() -> None:
    """Issue 37: Figure 3's panels ended at the last checkpoint (step 143000), on the plot's edge,
    where a narrow window dropped it and the 100k tick."""
    layout = figure3().layout
    for name in ("xaxis", "xaxis2", "xaxis3", "xaxis4"):
        low, high = layout[name].range
        assert high > math.log10(143000) + 0.05 and low < 0
        assert "100k" in layout[name].ticktext


@pytest.mark.parametrize("name", ["Figure 2", "Figure 3", "Models Figure 1", "Lesson Figure 1",
                                  "Lesson Figure 2", "Probe checkpoints"])
def test_log_axes_label_decades_only(name: str) -> None:
    """Issue 37: log axes showed minor-tick labels ("5 6 7 8 9 100M 2 3") and a stray "5" left of step 1."""
    fig = FIGURES[name]()
    labels = log_labels(fig)
    if name == "Probe checkpoints":  # ticks at the steps scored when there are few: none here (19 > 12)
        assert labels and all(map(is_decade, labels))
    assert labels and all(map(is_decade, labels)), labels


def test_decade_ticks_fall_back_to_2s_and_5s_on_a_narrow_axis() -> None:
    assert decade_ticks(-0.1, 3.2) == ([1.0, 10.0, 100.0, 1000.0], ["1", "10", "100", "1k"])
    values, labels = decade_ticks(8.2, 8.9)
    assert labels == ["200M", "500M"] and values == pytest.approx([2e8, 5e8])


def test_legends_stand_right_of_the_plotting_area() -> None:
    """Issue 37: "Side by side"'s legend took 60% of the chart and overlapped the x-axis title."""
    for name in ("Figure 2", "Figure 3", "Models Figure 1", "Probe words"):
        legend = FIGURES[name]().layout.legend
        assert legend.x >= 1 and legend.xanchor == "left", name
    bars = accuracy_bars_figure(pd.DataFrame({"construction": ["letalone"], "filter": ["aligned"], "accuracy": [0.9],
                                              "ci_low": [0.8], "ci_high": [0.95]}))
    assert bars.layout.legend.x >= 1
    assert [a.xanchor for a in bars.layout.annotations if a.text == "chance"] == ["left"]  # right of the last bar
    notes = [(a.text, a.x, a.xanchor) for a in FIGURES["Figure 2"]().layout.annotations if "chance" in a.text]
    assert notes and all(x == 1 and anchor == "left" for _, x, anchor in notes), notes  # right of the last points


def test_side_by_side_names_are_short_with_the_whole_label_on_hover() -> None:
    data = pd.concat([pythia_curves(["pf_avg:aligned", "syntax:Avg_Test"]),
                      pythia_curves(["syntax:Avg_Test"], "EleutherAI/pythia-14m-deduped")], ignore_index=True)
    data["label"] = data["label"].str.replace(" (", " · ", regex=False)
    fig = curves_figure(data, "side by side")
    lines = [t for t in fig.data if t.fill != "toself"]
    assert [t.name for t in lines] == ["PF meaning, plausible · pythia-12b", "PF form (syntax) · pythia-12b",
                                       "PF form (syntax) · pythia-14m-deduped"]
    assert lines[2].meta == "syntax:Avg_Test · EleutherAI/pythia-14m-deduped)"
    assert lines[1].line.color == lines[0].line.color != lines[2].line.color  # a colour per model
    assert lines[1].line.dash == lines[2].line.dash != lines[0].line.dash  # a dash per series
    assert fig.layout.hovermode == "x unified"


def test_a_model_keeps_its_colour_on_every_chart() -> None:
    alone = model_colors(["EleutherAI/pythia-12b"])
    together = model_colors(["allenai/OLMo-2-1124-7B", "EleutherAI/pythia-12b"])
    assert alone["EleutherAI/pythia-12b"] == model_colors(["EleutherAI/pythia-12b", "x"])["EleutherAI/pythia-12b"]
    assert len(set(together.values())) == 2
    many = model_colors(f"model-{i}" for i in range(10))
    assert len(set(many.values())) == 10  # two models of one chart never share a colour (up to 10)
    assert kind_dashes(["a", "b", "a"]) == {"a": "solid", "b": "dash"}


def test_counts_read_as_people_write_them() -> None:
    """Issue 37: Models' hover said "2.80G parameters"."""
    assert [human(v) for v in (2.8e9, 4.1e8, 1.4e7, 1e5, 12, 1.2e12)] == ["2.8B", "410M", "14M", "100k", "12", "1.2T"]
    hover = accuracy_vs_parameters_figure(models())
    assert [list(t.customdata[:, 1]) if hasattr(t.customdata, "shape") else [c[1] for c in t.customdata]
            for t in hover.data] == [["14M"], ["410M", "2.8B"]]
    assert [list(t.text) for t in hover.data] == [["small"], ["mid", "big"]]  # each point labelled


def test_lesson_figure1_labels_its_size_line() -> None:
    """Issue 37: the live Figure 1's dashed line at 400M had no label the reader could see."""
    fig = FIGURES["Lesson Figure 1"]()
    assert [a.text for a in fig.layout.annotations if "parameters" in a.text] == ["400M parameters"]


def test_a_set_range_is_kept() -> None:
    fig = go.Figure(go.Scatter(x=[1, 2], y=[5, 6])).update_yaxes(range=[0, 10])
    assert list(fit_axes(fig).layout.yaxis.range) == [0, 10] and fig.layout.xaxis.range is not None



def test_names_on_points_never_print_over_each_other() -> None:
    """Issue 37: Models' points carried no names; written on all 36, they would overprint."""
    from pfcore.plots.kit import spread_labels

    x, y = [8.0, 8.05, 9.0, 10.0, 10.1], [50.0, 51.0, 50.5, 90.0, 70.0]
    assert spread_labels(x, y).tolist() == [False, True, True, True, True]  # the higher of two crowded points
    fig = accuracy_vs_parameters_figure(models().assign(parameters=[1e8, 1.05e8, 2.8e9], accuracy=[50.0, 51.0, 96.0]))
    assert [list(t.text) for t in fig.data] == [[""], ["mid", "big"]]


def test_a_name_is_not_written_over_another_points_marker() -> None:
    """On the Models page the name of a point in the 100M cluster printed over the markers just above
    it ('multiberta' across 'roberta-base's diamond, a circle inside 'pythia-410m'): a point whose name
    would cover another marker is named on hover only, however far its name is from the other names."""
    from pfcore.plots.kit import spread_labels

    x, y = [8.0, 8.1, 9.0, 9.05], [50.0, 54.0, 60.0, 40.0]
    assert spread_labels(x, y).tolist() == [False, True, True, True]  # 54 sits where 50's name would go


def test_the_rightmost_name_has_room_inside_the_plot() -> None:
    """On the Models page at 1280x720 'OLMo-2-1124-13B', the name of the rightmost point, ran past the
    plot into the colour scale's title: the x axis now reaches a label's room beyond the rightmost named
    point (tests/browser/charts_fit.js checks the drawn boxes); a point named on hover only needs none."""
    from pfcore.plots.kit import LABEL_ROOM

    named = accuracy_vs_parameters_figure(models().assign(parameters=[1e8, 1e9, 1.3e10], accuracy=[50.0, 60.0, 64.0]))
    assert named.data[-1].text[-1] == "big"
    assert named.layout.xaxis.range[1] == pytest.approx(math.log10(1.3e10) + LABEL_ROOM[0])
    hover = accuracy_vs_parameters_figure(models().assign(parameters=[1e8, 1.25e10, 1.3e10],
                                                          accuracy=[90.0, 60.0, 58.0]))
    assert list(hover.data[-1].text) == ["mid", ""]  # 'big' sits just under 'mid', named on hover
    assert hover.layout.xaxis.range[1] == pytest.approx(math.log10(1.25e10) + LABEL_ROOM[0])


def test_figure4s_title_stands_above_its_panels_titles() -> None:
    """At 1280x720 Figure 4's title printed over its panels' titles (wrapped to three lines): plotly
    set it in the middle of the room above the panels. It is now at the chart's top, escaped like every
    title, with room under it for its lines and the panels' (tests/browser/charts_fit.js measures it)."""
    from pfcore.plots.common import TITLE_LINE_PX, TITLE_PAD_PX

    fig = fd(3, "<b>org/model</b>: changes between checkpoints, z-scaled")
    title, panels = fig.layout.title, max(a.text.count("<br>") + 1 for a in fig.layout.annotations)
    assert (title.yref, title.yanchor) == ("container", "top") and title.text.startswith("&lt;b&gt;org/model")
    assert panels == 3 and fig.layout.margin.t >= TITLE_PAD_PX + TITLE_LINE_PX * (title.text.count("<br>") + 1 + panels)


def test_figure4_panel_titles_wrap_to_their_panel() -> None:
    """Issue 37: a long series name in a Figure 4 panel title ran off the chart."""
    titles = [a.text for a in fd(3).layout.annotations if "ρ" in a.text]
    assert len(titles) == 3 and all(max(len(line) for line in t.split("<br>")[:-1]) <= 24 for t in titles)


VISITOR_TITLE = "<b>my/model</b> <a href='https://example.org'>x</a>: " + "a long title " * 6


@pytest.mark.parametrize("build", [
    lambda t: accuracy_bars_figure(pd.DataFrame({"construction": ["letalone"], "filter": ["aligned"],
                                                 "accuracy": [0.9], "ci_low": [0.8], "ci_high": [0.95]}), title=t),
    lambda t: region_bars_figure(pd.DataFrame({"condition_name": ["a"], "region_number": [2], "region_name": ["verb"],
                                               "surprisal_bits": [3.0], "ci_low": [2.0], "ci_high": [4.0]}), t),
    lambda t: curves_figure(pythia_curves(["pf_avg:aligned"]), t),
    lambda t: trajectory_figure(pythia_curves(["blimp:all"]), t),
    lambda t: construction_figure(pd.DataFrame([{"construction": c, "filter": "plausible", "step": s, "value": 0.5}
                                                for c in PF_CONSTRUCTIONS for s in STEPS]), t),
], ids=["Run's accuracy bars", "Stimuli's regions", "Figure 2", "a trajectory", "Figure 3"])
def test_every_title_is_plain_text_in_lines_a_narrow_window_shows(build: Callable[[str], go.Figure]) -> None:
    """The Run page's accuracy bars, the Stimuli regions and Figures 2 and 3 set their titles apart from
    the kit: one line that ran past the chart in an 800-pixel window ("...smollm2-135m-instruct-q4_1, 96
    items"), and, but for the accuracy bars, a model's name as markup (a link in a title). Now every title
    goes through the kit's `set_title`: escaped, wrapped, at the top with room under it."""
    from pfcore.plots.common import TITLE_WIDTH

    title = build(VISITOR_TITLE).layout.title
    lines = title.text.split("<br>")
    assert title.text.startswith("&lt;b&gt;my/model&lt;/b&gt; &lt;a href=") and "<a" not in title.text
    assert len(lines) > 1 and all(len(html.unescape(line)) <= TITLE_WIDTH for line in lines), lines
    assert (title.yref, title.yanchor) == ("container", "top")
