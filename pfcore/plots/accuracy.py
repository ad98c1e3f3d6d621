"""Accuracy figures: across models (the paper's Figure 1) and one run's bars with 95% intervals."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from pfcore.names import construction_title
from pfcore.plots.common import require_columns, set_title, shown
from pfcore.plots.kit import LABEL_ROOM, finish, human, spread_labels

SYMBOLS = {"CausalLM": "circle", "MLM": "diamond"}
COLORBAR = {"title": {"text": "log10 tokens"}, "x": 1.0, "xanchor": "left", "len": 0.6, "y": 0, "yanchor": "bottom"}


def accuracy_vs_parameters_figure(models: pd.DataFrame, chance: float | None = 50.0) -> go.Figure:
    """Average accuracy against parameter count (log x), coloured by log10 pretraining tokens.

    `models` has columns model, parameters, pretraining_tokens, accuracy and optionally
    model_type (one trace per type, marked by symbol), as analysis.models.per_model_average gives.
    """
    require_columns(models, ("model", "parameters", "pretraining_tokens", "accuracy"), "accuracy_vs_parameters_figure")
    types = models["model_type"] if "model_type" in models.columns else pd.Series("model", index=models.index)
    log_tokens = np.log10(models["pretraining_tokens"].astype(float))
    labelled = spread_labels(np.log10(models["parameters"].astype(float)), models["accuracy"].astype(float))
    scale = {"colorscale": "Viridis", "cmin": float(log_tokens.min()), "cmax": float(log_tokens.max())}
    fig = go.Figure()
    for index, kind in enumerate(dict.fromkeys(types)):
        part, mine = models[types == kind], (types == kind).to_numpy()
        fig.add_trace(go.Scatter(
            x=part["parameters"], y=part["accuracy"], mode="markers+text", name=str(kind), cliponaxis=False,
            text=[shown(str(m).rsplit("/", 1)[-1]) if shown_label else "" for m, shown_label
                  in zip(part["model"], labelled[mine])], textposition="top center", textfont_size=10,
            customdata=[[shown(m), human(p)] for m, p in zip(part["model"], part["parameters"])],
            hovertemplate="%{customdata[0]}<br>%{customdata[1]} parameters<br>accuracy %{y:.1f}%<extra></extra>",
            marker=scale | {"symbol": SYMBOLS.get(str(kind), "circle"), "size": 10, "color": log_tokens[mine],
                            "showscale": index == 0, "colorbar": COLORBAR}))  # a scale per trace: plotly colours
    if chance is not None:  # the legend's symbols from it (a shared colour axis left them to warn and go black)
        fig.add_hline(y=chance, line_dash="dash", line_color="grey", annotation_text="chance")
    fig.update_xaxes(type="log", title_text="Parameters (log scale)")
    fig.update_yaxes(title_text="Accuracy (%), mean of the four constructions")
    return room_for_names(finish(fig, legend_title="Model type"), models["parameters"][labelled])


def room_for_names(fig: go.Figure, named_x: pd.Series) -> go.Figure:
    """The log x axis widened to a label's room right of the rightmost named point, so that its name
    ends inside the plot instead of running into the colour scale beside it."""
    if named_x.empty:
        return fig
    low, high = fig.layout.xaxis.range
    return fig.update_xaxes(range=[low, max(high, float(np.log10(named_x.max())) + LABEL_ROOM[0])])


def accuracy_bars_figure(accuracy: pd.DataFrame, chance: float | None = 0.5, title: str | None = None) -> go.Figure:
    """Accuracy per construction, one bar group per filter, with 95% interval error bars.

    `accuracy` has columns construction, filter, accuracy, ci_low, ci_high (0-1 scale).
    """
    require_columns(accuracy, ("construction", "filter", "accuracy", "ci_low", "ci_high"), "accuracy_bars_figure")
    fig = go.Figure()
    for filt, group in accuracy.groupby("filter", sort=False):
        fig.add_trace(go.Bar(
            x=[construction_title(c) for c in group["construction"]],
            y=group["accuracy"], name=str(filt), hovertemplate="%{x}, %{fullData.name}: %{y:.3f}<extra></extra>",
            error_y={"type": "data", "symmetric": False,
                     "array": group["ci_high"] - group["accuracy"],
                     "arrayminus": group["accuracy"] - group["ci_low"]}))
    if chance is not None:  # labelled right of the plot, where no bar covers it
        fig.add_hline(y=chance, line_dash="dash", line_color="grey", annotation_text="chance",
                      annotation_position="right")
    fig.update_layout(barmode="group", hoverlabel={"namelength": -1},
                      yaxis={"title": {"text": "Accuracy (95% interval)"}, "range": [0, 1]})
    set_title(fig, title)
    return finish(fig, legend_title="Filter")


def mark_own_runs(fig: go.Figure, own_suffix: str) -> go.Figure:
    """Draw the own-run traces of Figure 1 as large stars."""
    return fig.for_each_trace(lambda t: t.update(marker_symbol="star", marker_size=18)
                              if t.name and t.name.endswith(own_suffix) else None)
