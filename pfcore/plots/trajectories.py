"""Checkpoint figures (the paper's Figures 2-4): DataFrames in, plotly Figures out."""
from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from pfcore.plots.common import CONSTRUCTION_TITLES, require_columns

CHANCE = 0.5


def _step_axis(fig: go.Figure, log_x: bool) -> None:
    """Training step on x (log scale by default), accuracy on y."""
    fig.update_xaxes(title_text="Training step" + (" (log scale)" if log_x else ""),
                     type="log" if log_x else "linear")
    fig.update_yaxes(title_text="Accuracy")


def trajectory_figure(curves: pd.DataFrame, title: str | None = None, log_x: bool = True,
                      chance: float | None = CHANCE) -> go.Figure:
    """One line per series over checkpoints, with a dashed chance line (Figure 2).

    `curves` has columns series, step, value (as analysis.series.trajectories returns).
    """
    require_columns(curves, ("series", "step", "value"), "trajectory_figure")
    fig = go.Figure()
    for name, group in curves.groupby("series", sort=False):
        group = group.sort_values("step")
        fig.add_trace(go.Scatter(x=group["step"], y=group["value"], mode="lines+markers",
                                 name=str(name)))
    if chance is not None:
        fig.add_hline(y=chance, line_dash="dash", line_color="grey",
                      annotation_text="chance", annotation_position="bottom right")
    _step_axis(fig, log_x)
    fig.update_layout(title=title, legend_title_text="Series")
    return fig


def construction_panels_figure(curves: pd.DataFrame, log_x: bool = True,
                               chance: float | None = CHANCE) -> go.Figure:
    """One panel per construction, one line per filter in each (Figure 3).

    `curves` has columns construction, filter, step, value.
    """
    require_columns(curves, ("construction", "filter", "step", "value"),
                    "construction_panels_figure")
    constructions = list(dict.fromkeys(curves["construction"]))
    cols = min(2, len(constructions))
    rows = math.ceil(len(constructions) / cols)
    fig = make_subplots(rows=rows, cols=cols, shared_yaxes=True,
                        subplot_titles=[CONSTRUCTION_TITLES.get(c, c) for c in constructions])
    filters = list(dict.fromkeys(curves["filter"]))
    for i, construction in enumerate(constructions):
        row, col = divmod(i, cols)
        for j, filt in enumerate(filters):
            group = curves[(curves["construction"] == construction) & (curves["filter"] == filt)]
            if group.empty:
                continue
            group = group.sort_values("step")
            fig.add_trace(go.Scatter(x=group["step"], y=group["value"], mode="lines",
                                     name=str(filt), legendgroup=str(filt), showlegend=i == 0,
                                     line_color=_palette(j)),
                          row=row + 1, col=col + 1)
        if chance is not None:
            fig.add_hline(y=chance, line_dash="dash", line_color="grey", row=row + 1,
                          col=col + 1)
    _step_axis(fig, log_x)
    fig.update_layout(legend_title_text="Filter")
    return fig


def _palette(i: int) -> str:
    """The i-th colour of plotly's default qualitative palette (same filter, same colour)."""
    return qualitative.Plotly[i % len(qualitative.Plotly)]


def fd_scatter_figure(points: pd.DataFrame) -> go.Figure:
    """First-difference scatter panels, one per (x, y) pair, rho in each title (Figure 4).

    `points` has columns x, y, step, dx, dy, spearman (FDCorrelation.points(), concatenated).
    """
    require_columns(points, ("x", "y", "step", "dx", "dy", "spearman"), "fd_scatter_figure")
    pairs = list(points.groupby(["x", "y"], sort=False))
    titles = [f"{x} vs {y} (ρ = {group['spearman'].iloc[0]:.2f})" for (x, y), group in pairs]
    fig = make_subplots(rows=1, cols=len(pairs), subplot_titles=titles)
    for i, ((x, y), group) in enumerate(pairs, start=1):
        fig.add_trace(go.Scatter(x=group["dx"], y=group["dy"], mode="markers",
                                 text=[f"step {s}" for s in group["step"]], name=f"{x} vs {y}",
                                 showlegend=False, marker_color="black", opacity=0.7),
                      row=1, col=i)
        fig.add_hline(y=0, line_dash="dash", line_color="grey", row=1, col=i)
        fig.add_vline(x=0, line_dash="dash", line_color="grey", row=1, col=i)
        fig.update_xaxes(title_text=f"Δ {x}", row=1, col=i)
        fig.update_yaxes(title_text=f"Δ {y}", row=1, col=i)
    return fig
