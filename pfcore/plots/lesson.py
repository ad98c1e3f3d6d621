"""The Lesson page's figures, made for a class: each short enough for a 1280x720 projector window
(FIT_HEIGHT, in the presenter view too), its two series told apart by colour-blind-safe colours
(Okabe & Ito) and by marker, line dash or bar pattern as well, words on the axes as they are written,
and, where a step quotes numbers, the bars labelled with the same digits as its sentence."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from pfcore.plots.common import require_columns, shown
from pfcore.plots.kit import fit_axes, human

PROJECTOR_FONT = 22  # points: readable from the back of a classroom
PROJECTOR_HEIGHT = 1.4  # charts grow by this factor in the presenter view ...
FIT_HEIGHT = 520  # ... up to this many pixels: under the presenter view's 200 pixels of buttons, within 720
HEIGHT = 380  # pixels of a chart on the page
# Okabe & Ito's colour-blind-safe palette; each series also has its own marker, dash and bar pattern
BLUE, ORANGE, GREEN, VERMILLION, GREY = "#0072B2", "#E69F00", "#009E73", "#D55E00", "#666666"
STYLES = ({"color": BLUE, "symbol": "circle", "dash": "solid", "pattern": ""},
          {"color": ORANGE, "symbol": "square", "dash": "dash", "pattern": "/"},
          {"color": GREEN, "symbol": "diamond", "dash": "dot", "pattern": "x"})
FOCUS_FILL = "rgba(213, 94, 0, 0.12)"  # vermillion, light: the focus-2 words
LEGEND = {"orientation": "h", "yref": "container", "yanchor": "top", "x": 0, "title": {"text": ""}}
TITLE_FONT = 17  # points: a title on the page at most (plotly's default; Streamlit's theme draws it smaller)
TITLE_TOP = 0.98  # of the figure's height: where the title's top is


def _layout(fig: go.Figure, title: str | None, *, height: int = HEIGHT, top: int = 90) -> go.Figure:
    """The lesson's common layout: a short title, the legend above the plot, a fixed height."""
    fig.update_layout(title={"text": shown(title), "y": TITLE_TOP, "yanchor": "top"} if title else None,
                      height=height, legend=LEGEND, margin={"t": top, "l": 70, "r": 20, "b": 70},
                      template="plotly_white")
    return _hang_legend(fit_axes(fig), TITLE_FONT)


def _hang_legend(fig: go.Figure, title_font: int) -> go.Figure:
    """Hang the legend just below the title (one line of `title_font` points): plotly then pushes the plot
    down by the legend's rows, where a legend standing on the plot rose into the title as it wrapped."""
    height = fig.layout.height or HEIGHT
    below = (1 - TITLE_TOP) * height + (1.4 * title_font if fig.layout.title.text else 0)  # pixels
    return fig.update_layout(legend_y=1 - below / height)


def next_words_figure(table: pd.DataFrame, title: str | None = None, digits: int = 1) -> go.Figure:
    """The most likely next words as horizontal bars (best at the top), probability in percent,
    each labelled to `digits` decimals (those of the step's sentence).

    `table` has columns word and probability_percent, best first (NextTokens.table())."""
    require_columns(table, ("word", "probability_percent"), "next_words_figure")
    fig = go.Figure(go.Bar(x=table["probability_percent"], y=[shown(w) for w in table["word"]], orientation="h",
                           marker_color=BLUE,
                           text=[f"{p:.{digits}f}%" for p in table["probability_percent"]], textposition="outside",
                           cliponaxis=False, hovertemplate="%{y}: %{x:.2f}%<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title_text="next word", type="category")
    top = max(5.0, float(table["probability_percent"].max()) * 1.25)  # room for the labels
    fig.update_xaxes(title_text="probability (%)", range=[0, top])
    return _layout(fig, title, height=min(HEIGHT, 90 + 28 * len(table)), top=60)


def word_bars_figure(words: pd.DataFrame, title: str | None = None) -> go.Figure:
    """Two sentences word by word: each word's surprisal (bits), the first sentence's bars plain,
    the second's hatched, side by side at each position; where the words differ the axis names both.

    `words` has columns sentence, position, word, surprisal_bits (two sentences, or one)."""
    require_columns(words, ("sentence", "position", "word", "surprisal_bits"), "word_bars_figure")
    sentences = list(dict.fromkeys(words["sentence"]))
    fig = go.Figure()
    for style, sentence in zip(STYLES, sentences):
        part = words[words["sentence"] == sentence]
        fig.add_trace(go.Bar(x=part["position"], y=part["surprisal_bits"], name=shown(sentence),
                             text=[shown(w) for w in part["word"]],
                             marker={"color": style["color"], "pattern": {"shape": style["pattern"]}},
                             hovertemplate="%{text}: %{y:.2f} bits<extra></extra>"))
    by_position = words.groupby("position", sort=True)["word"].agg(lambda w: shown(" / ".join(dict.fromkeys(w))))
    _word_axis(fig, list(by_position.index), list(by_position))
    fig.update_yaxes(title_text="surprisal (bits)")
    fig.update_layout(barmode="group")
    return _layout(fig, title)


def word_lines_figure(words: pd.DataFrame, connective: str, title: str | None = None) -> go.Figure:
    """One sentence word by word with the construction and with "or": each word's surprisal (bits)
    above, two lines told apart by colour, marker and dash; the difference per word below; the
    focus-2 words shaded.

    `words` has the columns of pfcore.probe.words.sentence_words."""
    require_columns(words, ("position", "word", "word_or", "focus2", "surprisal_construction_bits",
                            "surprisal_or_bits", "difference_bits"), "word_lines_figure")
    fig = go.Figure()
    x = list(words["position"])
    for style, column, name in ((STYLES[0], "surprisal_construction_bits", f"with '{connective}'"),
                                (STYLES[1], "surprisal_or_bits", "with 'or'")):
        fig.add_trace(go.Scatter(x=x, y=words[column], name=name, mode="lines+markers", yaxis="y2",
                                 line={"color": style["color"], "dash": style["dash"], "width": 3},
                                 marker={"symbol": style["symbol"], "size": 11, "color": style["color"]},
                                 hovertemplate=f"{name}: %{{y:.2f}} bits<extra></extra>"))
    fig.add_trace(go.Bar(x=x, y=words["difference_bits"], name=f"'{connective}' − 'or'", marker_color=GREY,
                         hovertemplate="difference: %{y:+.2f} bits<extra></extra>"))
    labels = [shown(w if w == o else f"{w} / {o}") for w, o in zip(words["word"], words["word_or"])]
    _word_axis(fig, x, labels)
    marked = [p for p, f in zip(x, words["focus2"]) if f]
    if marked:  # both panels: the whole height of the plot
        fig.add_shape(type="rect", xref="x", yref="paper", x0=min(marked) - 0.5, x1=max(marked) + 0.5, y0=0, y1=1,
                      fillcolor=FOCUS_FILL, line_width=0, layer="below")
        fig.add_annotation(xref="x", yref="paper", x=min(marked) - 0.5, y=1, text="focus 2", showarrow=False,
                           xanchor="left", yanchor="top")
    fig.add_hline(y=0, line_color=GREY, line_width=1)
    fig.update_layout(yaxis={"domain": [0, 0.3], "title": {"text": "difference"},  # in bits, as above
                             "nticks": 3},  # a short panel: its labels stay apart at the presenter view's type
                      yaxis2={"domain": [0.4, 1], "title": {"text": "surprisal (bits)"}, "anchor": "x"})
    return _layout(fig, title)


def _word_axis(fig: go.Figure, positions: Sequence[int], labels: Sequence[str]) -> None:
    """Words on the x axis as they are written (at their positions: a word may repeat)."""
    fig.update_xaxes(tickmode="array", tickvals=list(positions), ticktext=list(labels), title_text="")


def difference_figure(bars: Sequence[tuple[str, float]], digits: int, y_title: str,
                      title: str | None = None) -> go.Figure:
    """The two values a decision compares and their difference, as three bars in three styles,
    each labelled with its value to `digits` decimals (those of the step's sentence)."""
    styles = STYLES[:len(bars)]
    fig = go.Figure(go.Bar(x=[label for label, _ in bars], y=[value for _, value in bars], textposition="outside",
                           text=[f"{value:+.{digits}f}" for _, value in bars], cliponaxis=False,
                           marker={"color": [s["color"] for s in styles],  # hatching in each bar's colour; without
                                   "pattern": {"shape": [s["pattern"] for s in styles], "fgcolor": "white",
                                               "fillmode": "replace"}},  # fgcolor, plotly drew it black, warning
                           hovertemplate=f"%{{x}}: %{{y:+.{digits + 2}f}}<extra></extra>"))
    top = max([abs(v) for _, v in bars] + [1e-9]) * 1.35
    fig.add_hline(y=0, line_color=GREY, line_width=1)
    fig.update_yaxes(title_text=y_title, range=[-top if min(v for _, v in bars) < 0 else 0,
                                                top if max(v for _, v in bars) > 0 else 0])
    fig.update_layout(showlegend=False)
    return _layout(fig, title, top=60)


def models_figure(models: pd.DataFrame, *, threshold: float, names: dict[str, str],
                  title: str | None = None) -> go.Figure:
    """Figure 1 for a class: each model's accuracy (%) against its size (log axis), one style per
    kind of model (`names`: model_type -> legend name, which gets the kind's n), the size threshold
    and chance marked; no colour scale.

    `models` has columns model, parameters, accuracy (%), model_type."""
    require_columns(models, ("model", "parameters", "accuracy", "model_type"), "models_figure")
    fig = go.Figure()
    for style, (kind, part) in zip(STYLES, models.groupby("model_type", sort=False)):
        own = str(kind) not in names
        fig.add_trace(go.Scatter(
            x=part["parameters"], y=part["accuracy"], mode="markers", text=part["model"],
            customdata=[human(p) for p in part["parameters"]],
            name=f"{names.get(str(kind), str(kind))} (n = {len(part)})",
            marker={"symbol": "star" if own else style["symbol"], "size": 18 if own else 11,
                    "color": VERMILLION if own else style["color"], "line": {"width": 1, "color": "white"}},
            hovertemplate="%{text}<br>%{customdata} parameters<br>%{y:.1f}%<extra></extra>"))
    fig.add_hline(y=50, line_dash="dot", line_color=GREY, annotation_text="chance (50%)",
                  annotation_position="bottom right")
    fig.add_vline(x=threshold, line_dash="dash", line_color=GREY,  # labelled at the foot, right of the line: the
                  annotation_text=f"{human(threshold)} parameters",  # legend is above, small models to the left
                  annotation_position="bottom right",
                  annotation_x=np.log10(threshold))  # a note on a log axis is placed by its log10 (plotly's rule)
    fig.update_xaxes(type="log", title_text="parameters (log scale)")
    fig.update_yaxes(title_text="accuracy (%)")
    return _layout(fig, title)


def training_figure(curves: pd.DataFrame, names: dict[str, str], title: str | None = None) -> go.Figure:
    """Figure 2 for a class: accuracy (%) over training steps (log axis), one style per series,
    each named in words (`names`: series -> name) with its n where the curves have one.

    `curves` has columns series, step, value (0-1) and optionally n."""
    require_columns(curves, ("series", "step", "value"), "training_figure")
    fig = go.Figure()
    for style, (series, part) in zip(STYLES, curves.groupby("series", sort=False)):
        part = part.sort_values("step")
        n = part["n"].max() if "n" in part.columns else np.nan
        count = f" (n = {n:,.0f} per step)" if pd.notna(n) else ""
        fig.add_trace(go.Scatter(
            x=part["step"].astype(float).clip(lower=1), y=100 * part["value"].astype(float),
            name=f"{names.get(str(series), str(series))}{count}", mode="lines+markers",
            line={"color": style["color"], "dash": style["dash"], "width": 3},
            marker={"symbol": style["symbol"], "size": 8, "color": style["color"]},
            hovertemplate="step %{x:,.0f}: %{y:.1f}%<extra></extra>"))
    fig.add_hline(y=50, line_dash="dot", line_color=GREY, annotation_text="chance (50%)",
                  annotation_position="bottom right")
    fig.update_xaxes(type="log", title_text="training step (log scale)")
    fig.update_yaxes(title_text="accuracy (%)", range=[0, 100])
    return _layout(fig, title)


def projector(fig: go.Figure) -> go.Figure:
    """A copy of a figure for a projector: larger type throughout and a taller plot, still within
    FIT_HEIGHT."""
    big = go.Figure(fig)
    height = big.layout.height or HEIGHT
    big.update_layout(font={"size": PROJECTOR_FONT}, title_font={"size": PROJECTOR_FONT + 4},
                      legend_font={"size": PROJECTOR_FONT}, legend_title_font={"size": PROJECTOR_FONT},
                      height=min(FIT_HEIGHT, int(height * PROJECTOR_HEIGHT)))
    _hang_legend(big, PROJECTOR_FONT + 4)
    axis = {"tickfont": {"size": PROJECTOR_FONT}, "title_font": {"size": PROJECTOR_FONT}}
    big.update_xaxes(**axis)  # set on every axis: a theme's axis fonts would win over the layout's
    big.update_yaxes(**axis)
    big.update_annotations(font_size=PROJECTOR_FONT)
    big.update_traces(textfont_size=PROJECTOR_FONT, selector={"type": "bar"})
    return big
