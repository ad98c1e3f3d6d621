"""Per-token surprisal bars and the surprisal rises of the syntactic manipulations (the Probe and
Items pages' figures)."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from pfcore.plots.common import set_title, shown
from pfcore.plots.kit import finish

BAR = "#4c78a8"
CONTROL = "#9ecae9"
HIGHLIGHT = "#d62728"
ROW_HEIGHT = 230


def token_bars_figure(tokens: pd.DataFrame, series: str, title: str | None = None,
                      highlight: str | None = None, facet: str | None = None) -> go.Figure:
    """Surprisal (bits) per token, one panel per value of `series` (a sentence or a fill) and, with
    `facet`, one column per value of that column (a model), all on one y-axis; rows whose boolean
    column `highlight` is true are drawn in red. Unscored tokens have no bar."""
    names = list(dict.fromkeys(tokens[series]))
    columns = list(dict.fromkeys(tokens[facet])) if facet else [None]
    titles = [shown(f"{n}" + (f" · {c}" if c is not None else "")) for n in names for c in columns]
    fig = make_subplots(rows=len(names), cols=len(columns), subplot_titles=titles, shared_yaxes="all",
                        vertical_spacing=min(0.3, 0.5 / max(1, len(names))), horizontal_spacing=0.04)
    for row, name in enumerate(names, start=1):
        for col, column in enumerate(columns, start=1):
            part = tokens[(tokens[series] == name) & ((tokens[facet] == column) if facet else True)]
            marked = part[highlight].fillna(False).tolist() if highlight else [False] * len(part)
            fig.add_trace(go.Bar(
                x=[f"{int(p)}:{t.replace(' ', '␣')}" for p, t in zip(part["position"], part["token"])],
                y=part["surprisal_bits"], name=shown(name), showlegend=False,
                marker_color=[HIGHLIGHT if m else BAR for m in marked],
                hovertemplate="%{x}<br>%{y:.2f} bits<extra></extra>"), row=row, col=col)
        fig.update_yaxes(title_text="surprisal (bits)", row=row, col=1)
    fig.update_layout(height=ROW_HEIGHT * len(names) + 80, margin={"t": 70, "b": 30})
    set_title(fig, title, subtitles=True)
    return finish(fig)


def rises_figure(rises: pd.DataFrame, connective: str, control: str, *, title: str | None = None) -> go.Figure:
    """Surprisal rise (bits per token) of each manipulation over its base, with the construction
    and with the control; one panel per model when a `model` column names several, on one y-axis,
    each panel's name under the title."""
    models = list(dict.fromkeys(rises["model"])) if "model" in rises.columns else [None]
    fig = make_subplots(rows=1, cols=len(models), shared_yaxes="all", horizontal_spacing=0.04,
                        subplot_titles=[str(m) for m in models] if models != [None] else None)
    for col, model in enumerate(models, start=1):
        part = rises if model is None else rises[rises["model"] == model]
        for column, name, color in (("rise_construction_bits", connective, BAR), ("rise_and_bits", control, CONTROL)):
            fig.add_trace(go.Bar(x=part["manipulation"], y=part[column], name=f"with '{name}'", marker_color=color,
                                 showlegend=col == 1, legendgroup=name,
                                 hovertemplate="%{x}<br>%{y:+.3f} bits per token<extra></extra>"), row=1, col=col)
    fig.add_hline(y=0, line_color="grey")
    fig.update_layout(barmode="group", yaxis={"title": {"text": "surprisal rise over the base (bits per token)"}},
                      margin={"t": 30})
    set_title(fig, title, subtitles=models != [None])
    return finish(fig, legend_title="Surprisal rise")
