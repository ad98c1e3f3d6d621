"""Checkpoint figures (the paper's Figures 2-4): DataFrames in, plotly Figures out."""
from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.colors import hex_to_rgb
from plotly.subplots import make_subplots

from pfcore.analysis.fdcorr import FDCorrelation
from pfcore.analysis.trajectories import FIGURE2, SMOOTHED, TOKENS, log_axis, readable_series
from pfcore.errors import InputError
from pfcore.names import construction_title
from pfcore.plots.common import require_columns, set_title
from pfcore.plots.kit import PALETTE, finish, kind_dashes, model_colors

CHANCE = 0.5
STEP_HOVER = "%{meta}<br>step %{x:,}<br>%{y:.3f}%{customdata}<extra></extra>"  # rounded; whole names
TOKENS_HOVER = "%{meta}<br>%{x:.3s} tokens seen<br>%{y:.3f}%{customdata}<extra></extra>"
RAW_OPACITY = 0.3  # the raw values beside a smoothed line: faint
PANEL_TITLE_WIDTH = 72  # characters of panel titles across a chart: each of n panels' titles wraps at 72 / n
EWOK_CHANCE = 0.25  # EWoK's chance level (the paper's Figure 2 caption); 0.5 for the rest


def _step_axis(fig: go.Figure, log_x: bool, grid_rows: int | None = None, title: str = "Training step") -> None:
    """Training step (or `title`) on x (log scale by default), accuracy on y; in a grid of `grid_rows`
    rows of panels the titles go only on the bottom row and the left column, so they never overlap."""
    fig.update_xaxes(type="log" if log_x else "linear")
    x_at = {} if grid_rows is None else {"row": grid_rows}
    fig.update_xaxes(title_text=title + (" (log scale)" if log_x else ""), **x_at)
    fig.update_yaxes(title_text="Accuracy", **({} if grid_rows is None else {"col": 1}))


def _segments(group: pd.DataFrame) -> list[pd.DataFrame]:
    """The runs of consecutive checkpoints (in step order) that have an interval."""
    known = group["ci_low"].notna() & group["ci_high"].notna()
    runs = (known != known.shift()).cumsum()
    return [part for _, part in group[known].groupby(runs[known], sort=False)]


def _add_band(fig: go.Figure, group: pd.DataFrame, color: str, name: str, x: str = "step", **at: int) -> None:
    """A shaded 95% interval behind a line, over each run of checkpoints that has one (columns
    ci_low, ci_high; a group without them, or with NaN, gets no band there); x from column `x`."""
    if not {"ci_low", "ci_high"} <= set(group.columns):
        return
    r, g, b = hex_to_rgb(color)
    for part in _segments(group):
        fig.add_trace(go.Scatter(x=[*part[x], *part[x][::-1]], y=[*part["ci_high"], *part["ci_low"][::-1]],
                                 fill="toself", fillcolor=f"rgba({r},{g},{b},0.18)", line_width=0, mode="lines",
                                 name=f"{name}: 95% interval", legendgroup=name, showlegend=False,
                                 hoverinfo="skip"), **at)


def _interval_notes(group: pd.DataFrame) -> list[str]:
    """Each point's interval for its hover text ("" where it has none)."""
    if not {"ci_low", "ci_high", "n"} <= set(group.columns):
        return [""] * len(group)
    return [f"<br>95% interval {lo:.3f} to {hi:.3f} (n = {n:,.0f})" if pd.notna(lo) and pd.notna(hi) else ""
            for lo, hi, n in zip(group["ci_low"], group["ci_high"], group["n"])]


def trajectory_figure(curves: pd.DataFrame, title: str | None = None, *, log_x: bool = True,
                      chance: float | None = CHANCE) -> go.Figure:
    """Figure 2's lines (see `_trajectory`), by the kit's rules."""
    return finish(_trajectory(curves, title, log_x=log_x, chance=chance), legend_title="Series")


def _trajectory(curves: pd.DataFrame, title: str | None = None, *, log_x: bool = True,
                chance: float | None = CHANCE, x: str = "step") -> go.Figure:
    """One line per series over checkpoints, with a dashed chance line (Figure 2), and a shaded
    95% interval where the curves have one (columns ci_low, ci_high, n).

    `curves` has columns series, step, value (as analysis.series.trajectories returns), and may
    have color and dash (each series' style; else one palette colour each), hover (each series'
    whole name, shown on hover; else the series), tokens_seen (the x when `x` names it) and
    value_smoothed (then drawn as the line, the raw values faint beside it)."""
    require_columns(curves, ("series", "step", "value", x), "trajectory_figure")
    fig = go.Figure()
    hover = TOKENS_HOVER if x == TOKENS else STEP_HOVER
    for i, (name, group) in enumerate(curves.groupby("series", sort=False)):
        group = group.sort_values("step")
        color = str(group["color"].iloc[0]) if "color" in group else _palette(i)
        dash = str(group["dash"].iloc[0]) if "dash" in group else "solid"
        meta = str(group["hover"].iloc[0]) if "hover" in group else str(name)
        _add_band(fig, group, color, str(name), x)
        line = {"x": group[x], "line": {"color": color, "dash": dash}, "legendgroup": str(name),
                "customdata": _interval_notes(group), "hovertemplate": hover}
        if SMOOTHED in group:
            fig.add_trace(go.Scatter(y=group["value"], mode="lines+markers", name=f"{name} (raw)", marker_size=4,
                                     opacity=RAW_OPACITY, showlegend=False, meta=f"{meta} (raw)", **line))
        fig.add_trace(go.Scatter(y=group[SMOOTHED] if SMOOTHED in group else group["value"],
                                 mode="lines" if SMOOTHED in group else "lines+markers", name=str(name),
                                 marker_size=5, meta=f"{meta} (smoothed)" if SMOOTHED in group else meta, **line))
    if chance is not None:  # labelled right of the plot: inside it, the curves' last points covered it
        fig.add_hline(y=chance, line_dash="dash", line_color="grey", annotation_text="chance",
                      annotation_position="right")
    _step_axis(fig, log_x, title="Tokens seen" if x == TOKENS else "Training step")
    set_title(fig, title)
    return fig.update_layout(hoverlabel={"namelength": -1})


def construction_panels_figure(curves: pd.DataFrame, *, log_x: bool = True,
                               chance: float | None = CHANCE) -> go.Figure:
    """One panel per construction, one line per filter in each (Figure 3), every panel with its own
    tick labels, and a shaded 95% interval where the curves have one.

    `curves` has columns construction, filter, step, value.
    """
    require_columns(curves, ("construction", "filter", "step", "value"), "construction_panels_figure")
    constructions = list(dict.fromkeys(curves["construction"]))
    cols = min(2, len(constructions))
    rows = math.ceil(len(constructions) / cols)
    fig = make_subplots(rows=rows, cols=cols, shared_yaxes=True,
                        subplot_titles=[construction_title(c) for c in constructions])
    filters = list(dict.fromkeys(curves["filter"]))
    dashes = kind_dashes(map(str, filters))
    for i, construction in enumerate(constructions):
        row, col = divmod(i, cols)
        for j, filt in enumerate(filters):
            group = curves[(curves["construction"] == construction) & (curves["filter"] == filt)]
            if group.empty:
                continue
            group = group.sort_values("step")
            _add_band(fig, group, _palette(j), str(filt), row=row + 1, col=col + 1)
            fig.add_trace(go.Scatter(x=group["step"], y=group["value"], mode="lines",
                                     name=str(filt), legendgroup=str(filt), showlegend=i == 0,
                                     line={"color": _palette(j), "dash": dashes[str(filt)]},
                                     customdata=_interval_notes(group), hovertemplate=STEP_HOVER,
                                     meta=f"{construction_title(construction)}, {filt}"),
                          row=row + 1, col=col + 1)
        if chance is not None:
            fig.add_hline(y=chance, line_dash="dash", line_color="grey", row=row + 1, col=col + 1)
    _step_axis(fig, log_x, rows)
    fig.update_xaxes(showticklabels=True)
    fig.update_yaxes(showticklabels=True)  # shared axes would hide the right-hand panels' tick labels
    fig.update_layout(hoverlabel={"namelength": -1})
    return finish(fig, legend_title="Filter")


def _palette(i: int) -> str:
    """The i-th colour of the kit's palette (same filter, same colour)."""
    return PALETTE[i % len(PALETTE)]


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
        fig.update_xaxes(title_text=f"Δ {readable_series(x)}", row=1, col=i)
        fig.update_yaxes(title_text=f"Δ {readable_series(y)}", row=1, col=i)
    return finish(fig)


def curves_figure(data: pd.DataFrame, title: str, x: str = "step") -> go.Figure:
    """Figure 2: one line per label over checkpoints (x: "step" or "tokens_seen"), with chance at 0.5
    (and 0.25 for EWoK), smoothed where the data has value_smoothed (the raw values faint beside it).
    With several models side by side, each model has its colour and each series its dash, under a
    short name (the whole label on hover)."""
    styled = data.assign(series=data["label"], hover=data["label"])
    if data["label"].nunique() > data["series"].nunique():  # several models
        scope = data["model"] + " (" + data["origin"] + ")"
        owner = scope if scope.nunique() > data["model"].nunique() else data["model"]
        colors, dashes = model_colors(owner), kind_dashes(data["series"])
        short = data["series"].map(lambda s: FIGURE2.get(s, s)) + " · " + owner.str.rsplit("/", n=1).str[-1]
        styled = styled.assign(series=short, color=owner.map(colors), dash=data["series"].map(dashes))
    fig = _trajectory(styled, title=title, log_x=log_axis(data[x]), x=x)
    if data["series"].str.startswith("ewok:").any():
        fig.add_hline(y=EWOK_CHANCE, line_dash="dot", line_color="grey", annotation_text="EWoK chance",
                      annotation_position="right")
    return finish(fig, legend_title="Series", unified=True)


def construction_figure(data: pd.DataFrame, title: str | None = None) -> go.Figure:
    """Figure 3: a panel per construction, a line per filter."""
    fig = construction_panels_figure(data, log_x=log_axis(data["step"])).update_layout(
        height=660, margin={"t": 90}, hovermode="x unified")  # room for the panels' titles without a title
    set_title(fig, title, subtitles=True)
    return fig


def fd_figure(results: Sequence[FDCorrelation], title: str | None = None) -> go.Figure:
    """Figure 4: a scatter of changes per pair; each panel's title names its y series (the axes
    name both) with Spearman's rho, its p and n."""
    if not results:
        raise InputError("no pair could be computed")
    fig = fd_scatter_figure(pd.concat([r.points() for r in results], ignore_index=True))
    for annotation, r in zip(fig.layout.annotations, results):
        name = "<br>".join(textwrap.wrap(readable_series(r.y), PANEL_TITLE_WIDTH // len(results)))
        annotation.text = f"{name}<br>ρ = {r.spearman:.2f}, p = {r.spearman_p:.3f}, n = {r.n}"
    fig.update_layout(height=460, margin={"t": 110})
    set_title(fig, title, subtitles=max(a.text.count("<br>") + 1 for a in fig.layout.annotations))
    return fig
