"""The Lesson page's figures: the model's most likely next words, and grouped bars of surprisals (a
sentence against its manipulation, a follow-up against the other); and the projector's larger type."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from pfcore.plots.common import require_columns, shown

PROJECTOR_FONT = 22  # points: readable from the back of a classroom
PROJECTOR_HEIGHT = 1.25  # charts grow by this factor in the presenter view


def next_words_figure(table: pd.DataFrame, title: str | None = None) -> go.Figure:
    """The most likely next words as horizontal bars (best at the top), probability in percent.

    `table` has columns word and probability_percent, best first (NextTokens.table())."""
    require_columns(table, ("word", "probability_percent"), "next_words_figure")
    fig = go.Figure(go.Bar(x=table["probability_percent"], y=table["word"], orientation="h",
                           marker_color=qualitative.Plotly[0],
                           text=[f"{p:.1f}%" for p in table["probability_percent"]], textposition="outside",
                           hovertemplate="%{y}: %{x:.2f}%<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title_text="next word", type="category")
    fig.update_xaxes(title_text="probability (%)", range=[0, max(5.0, float(table["probability_percent"].max()) * 1.2)])
    fig.update_layout(title=shown(title) if title else None, height=120 + 34 * len(table), margin={"t": 60, "l": 10})
    return fig


def grouped_bars_figure(data: pd.DataFrame, *, x: str, group: str, y: str, y_title: str,
                        title: str | None = None, fmt: str = ".2f") -> go.Figure:
    """Bars of `y` for each value of `x`, one colour per value of `group`, side by side, each bar
    labelled with its value (the surprisals a lesson step builds its comparison from)."""
    require_columns(data, (x, group, y), "grouped_bars_figure")
    fig = go.Figure()
    for index, (name, part) in enumerate(data.groupby(group, sort=False)):
        fig.add_trace(go.Bar(x=part[x], y=part[y], name=str(name), marker_color=qualitative.Plotly[index],
                             text=[f"{v:{fmt}}" for v in part[y]], textposition="outside",
                             hovertemplate=f"%{{x}}, {name}: %{{y:{fmt}}}<extra></extra>"))
    fig.update_yaxes(title_text=y_title)
    fig.update_layout(barmode="group", title=shown(title) if title else None, height=440,
                      legend={"orientation": "h", "y": -0.2},
                      margin={"t": 60})
    return fig


def projector(fig: go.Figure) -> go.Figure:
    """A copy of a figure for a projector: larger type throughout and a taller plot."""
    big = go.Figure(fig)
    height = big.layout.height or 450
    big.update_layout(font={"size": PROJECTOR_FONT}, title_font={"size": PROJECTOR_FONT + 4},
                      legend_font={"size": PROJECTOR_FONT}, legend_title_font={"size": PROJECTOR_FONT},
                      height=int(height * PROJECTOR_HEIGHT))
    axis = {"tickfont": {"size": PROJECTOR_FONT}, "title_font": {"size": PROJECTOR_FONT}}
    big.update_xaxes(**axis)  # set on every axis: a theme's axis fonts would win over the layout's
    big.update_yaxes(**axis)
    big.update_annotations(font_size=PROJECTOR_FONT)
    big.update_coloraxes(colorbar_tickfont_size=PROJECTOR_FONT, colorbar_title_font_size=PROJECTOR_FONT)
    big.update_traces(textfont_size=PROJECTOR_FONT, selector={"type": "bar"})
    return big
