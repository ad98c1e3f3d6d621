"""The sentence word by word (the Probe's figures): each word's surprisal with the construction and
with "or", one colour per model on one axis, the focus-2 words shaded; below, the difference per
word; and the sentence's effect and focus-2 surprisal over training checkpoints."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from pfcore.plots.common import require_columns, set_title
from pfcore.plots.kit import finish, model_colors

WORD_COLUMNS = ("model", "position", "word", "word_or", "focus2", "surprisal_construction_bits",
                "surprisal_or_bits", "difference_bits")
CHECKPOINT_COLUMNS = ("step", "checkpoint", "focus2_construction_bits", "focus2_or_bits")
FOCUS_FILL = "rgba(214, 39, 40, 0.10)"


def word_label(word: str, word_or: str) -> str:
    """An x-axis label: the word, or both connectives where the sentences differ."""
    return word if word == word_or else f"{word} / {word_or}"


def word_curves_figure(words: pd.DataFrame, connective: str, title: str | None = None) -> go.Figure:
    """Surprisal (bits) of each word with the construction (solid) and with "or" (dotted), one
    colour per model; below, construction minus "or" per word; focus-2 words shaded."""
    require_columns(words, WORD_COLUMNS, "word_curves_figure")
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.65, 0.35], vertical_spacing=0.06)
    first = words[words["model"] == words["model"].iloc[0]]
    labels = [f"{p}:{word_label(w, o)}" for p, w, o in zip(first["position"], first["word"], first["word_or"])]
    colors = model_colors(map(str, words["model"]))
    for model, part in words.groupby("model", sort=False):
        color = colors[str(model)]
        x = labels[:len(part)]
        for column, dash, name in (("surprisal_construction_bits", "solid", f"'{connective}'"),
                                   ("surprisal_or_bits", "dot", "'or'")):
            fig.add_trace(go.Scatter(x=x, y=part[column], mode="lines+markers", line={"color": color, "dash": dash},
                                     name=f"{model}, {name}", legendgroup=str(model),
                                     hovertemplate=f"{model}, {name}<br>%{{x}}: %{{y:.2f}} bits<extra></extra>"),
                          row=1, col=1)
        fig.add_trace(go.Bar(x=x, y=part["difference_bits"], marker_color=color, name=f"{model}: difference",
                             legendgroup=str(model), showlegend=False,
                             hovertemplate=f"{model}<br>%{{x}}: %{{y:+.2f}} bits<extra></extra>"), row=2, col=1)
    _shade_focus(fig, labels, list(first["focus2"]))
    fig.add_hline(y=0, line_color="grey", row=2, col=1)
    fig.update_yaxes(title_text="surprisal (bits)", row=1, col=1)
    fig.update_yaxes(title_text=f"'{connective}' − 'or' (bits)", row=2, col=1)
    fig.update_layout(barmode="group", height=560, margin={"t": 70})
    set_title(fig, title)
    return finish(fig)


def _shade_focus(fig: go.Figure, labels: list[str], focus: list[bool]) -> None:
    """Shade the run of focus-2 words in both panels, labelled once."""
    marked = [i for i, f in enumerate(focus) if f]
    if marked:
        fig.add_vrect(x0=marked[0] - 0.5, x1=marked[-1] + 0.5, fillcolor=FOCUS_FILL, line_width=0,
                      annotation_text="focus 2", annotation_position="top left", row="all", col=1)


def checkpoint_figure(series: pd.DataFrame, effect_unit: str, *, effect: str, title: str | None = None) -> go.Figure:
    """Over training steps (log axis): the sentence's mean effect (top; the column `effect`, in
    `effect_unit`) and the focus-2 words' surprisal with the construction and with "or" (bottom)."""
    require_columns(series, (*CHECKPOINT_COLUMNS, effect), "checkpoint_figure")
    steps = series["step"].astype(float).clip(lower=1)  # step 0 drawn at 1 on the log axis
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("mean effect over the decisions", "surprisal of the focus-2 words"))
    fig.add_trace(go.Scatter(x=steps, y=series[effect], mode="lines+markers", name="effect",
                             text=series["checkpoint"],
                             hovertemplate=f"%{{text}}<br>%{{y:+.3f}} {effect_unit}<extra></extra>"), row=1, col=1)
    for column, dash, name in (("focus2_construction_bits", "solid", "with the construction"),
                               ("focus2_or_bits", "dot", "with 'or'")):
        fig.add_trace(go.Scatter(x=steps, y=series[column], mode="lines+markers", line={"dash": dash},
                                 name=f"focus 2 {name}", text=series["checkpoint"],
                                 hovertemplate="%{text}<br>%{y:.2f} bits<extra></extra>"), row=2, col=1)
    fig.add_hline(y=0, line_color="grey", row=1, col=1)
    ticks = {"tickvals": list(steps), "ticktext": [f"{int(s):,}" for s in series["step"]]} if len(steps) <= 12 else {}
    fig.update_xaxes(type="log", **ticks)  # both rows: one log axis, ticks at the steps scored
    fig.update_xaxes(title_text="training step (log scale; step 0 drawn at 1)", row=2, col=1)
    fig.update_yaxes(exponentformat="power")  # 2x10^-5, not the SI "20µ"
    fig.update_yaxes(title_text=f"effect ({effect_unit})", row=1, col=1)
    fig.update_yaxes(title_text="surprisal (bits)", row=2, col=1)
    fig.update_layout(height=560, margin={"t": 80})
    set_title(fig, title, subtitles=True)
    return finish(fig)
