"""The lesson's charts as static SVG, for the handout: a few kilobytes each where the interactive
chart library is 4.8 MB, and a page that opens anywhere, offline, and prints. It draws what the
lesson's figure builders (pfcore.plots.lesson) use: bars (grouped, horizontal, labelled, hatched),
lines and markers, a log or category axis, two stacked y axes, lines and bands, notes, the legend
and the title; each chart keeps the figure's own height."""
from __future__ import annotations

import html
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from pfcore.plots.kit import human

WIDTH = 900  # pixels: the handout's column
FONT = 13
DEFAULT_COLOUR = "#0072B2"
Box = tuple[float, float, float, float]  # the plot's left, top, right and bottom, in pixels
PATTERNS = {"/": "M0,8 L8,0", "x": "M0,0 L8,8 M0,8 L8,0", ".": "M3,4 L5,4"}


def _esc(text: object) -> str:
    """Text for SVG, escaped."""
    return html.escape(str(text), quote=True)


@dataclass
class Axis:
    """One axis mapped onto pixels: linear, log or category, over [low, high] of its values, onto
    [start, end] pixels (y axes run upwards: start is the bottom)."""

    kind: str
    low: float
    high: float
    start: float
    end: float
    categories: tuple[str, ...] = ()
    reversed: bool = False

    def value(self, v: Any) -> float:
        """A data value on the axis's own scale (a category's index; log10 on a log axis)."""
        if self.kind == "category":
            return float(self.categories.index(str(v)))
        return math.log10(max(float(v), 1e-300)) if self.kind == "log" else float(v)

    def px(self, v: Any) -> float:
        """A data value in pixels."""
        return self.px_of(self.value(v))

    def px_of(self, scaled: float) -> float:
        """A value on the axis's own scale in pixels."""
        span = (self.high - self.low) or 1.0
        share = (scaled - self.low) / span
        return self.end - share * (self.end - self.start) if self.reversed else self.start + share * (
            self.end - self.start)

    def ticks(self, layout_axis: Any) -> list[tuple[float, str]]:
        """Tick positions (on the axis's scale) and labels: the figure's own, else round numbers."""
        if layout_axis.tickvals is not None:
            return [(self.value(v), str(t)) for v, t in zip(layout_axis.tickvals, layout_axis.ticktext)]
        if self.kind == "category":
            return [(float(i), c) for i, c in enumerate(self.categories)]
        if self.kind == "log":
            return [(float(e), human(10.0 ** e)) for e in range(math.ceil(self.low), math.floor(self.high) + 1)]
        step = _nice((self.high - self.low) / 5)
        first = math.ceil(self.low / step) * step
        values = np.arange(first, self.high + step / 2, step)
        return [(float(v), _number(float(v), step)) for v in values]


def _nice(raw: float) -> float:
    """A round step near `raw` (1, 2 or 5 times a power of ten)."""
    if raw <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _number(value: float, step: float) -> str:
    """A tick label with the decimals its step needs."""
    decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
    return f"{value:,.{decimals}f}" if abs(value) > step / 1e6 else "0"


def _traces(fig: go.Figure, axis: str) -> Iterator[Any]:
    """The traces drawn against one y axis ("y" or "y2")."""
    return (t for t in fig.data if (t.yaxis or "y") == axis)


def _span(values: Sequence[float], *, bars: bool, log: bool) -> tuple[float, float]:
    """The data's range on an axis with a little room (from 0 for bars), on the axis's scale."""
    array = np.asarray([float(v) for v in values if v is not None and math.isfinite(float(v))], dtype=float)
    if log:
        array = np.log10(array[array > 0])
    if bars:
        array = np.append(array, 0.0)
    if not array.size:
        return 0.0, 1.0
    low, high = float(array.min()), float(array.max())
    pad = (high - low) * 0.08 or 1.0
    return (low if bars and low == 0 else low - pad), (high if bars and high == 0 else high + pad)


def _x_axis(fig: go.Figure, left: float, right: float) -> Axis:
    """The figure's x axis over its data (or its set range)."""
    layout = fig.layout.xaxis
    horizontal = any(getattr(t, "orientation", None) == "h" for t in fig.data)
    values = [v for t in fig.data for v in (t.x if t.x is not None else ())]
    if values and all(isinstance(v, str) for v in values):
        categories = tuple(dict.fromkeys(str(v) for v in values))
        return Axis("category", -0.5, len(categories) - 0.5, left, right, categories)
    kind = "log" if layout.type == "log" else "linear"
    low, high = (list(layout.range) if layout.range is not None else
                 _span(values, bars=horizontal, log=kind == "log"))
    if values and kind == "linear" and layout.range is None and not horizontal:
        low, high = min(low, min(map(float, values)) - 0.5), max(high, max(map(float, values)) + 0.5)
    return Axis(kind, float(low), float(high), left, right)


def _y_axis(fig: go.Figure, name: str, top: float, bottom: float) -> Axis:
    """One of the figure's y axes over its domain and data (or its set range)."""
    layout = fig.layout[name.replace("y", "yaxis")]
    domain = list(layout.domain) if layout.domain is not None else [0.0, 1.0]
    start = bottom - domain[0] * (bottom - top)
    end = bottom - domain[1] * (bottom - top)
    traces = list(_traces(fig, name))
    values = [v for t in traces for v in (t.y if t.y is not None else ())]
    if values and all(isinstance(v, str) for v in values):
        categories = tuple(dict.fromkeys(str(v) for v in values))
        return Axis("category", -0.5, len(categories) - 0.5, start, end, categories,
                    reversed=layout.autorange == "reversed")
    bars = any(t.type == "bar" for t in traces)
    low, high = list(layout.range) if layout.range is not None else _span(values, bars=bars, log=False)
    for shape in fig.layout.shapes:  # lines drawn at a value (chance) stay inside the plot
        if shape.yref == name and shape.y0 is not None:
            low, high = min(low, float(shape.y0)), max(high, float(shape.y0))
    return Axis("linear", float(low), float(high), start, end)


class Canvas:
    """The SVG's elements, in drawing order."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.patterns: dict[tuple[str, str], str] = {}

    def add(self, element: str) -> None:
        """Add one element."""
        self.parts.append(element)

    def text(self, x: float, y: float, text: str, *, anchor: str = "middle", size: int = FONT,
             rotate: float = 0, weight: str = "normal", colour: str = "#222") -> None:
        """A line of text."""
        turn = f' transform="rotate({rotate:.0f} {x:.1f} {y:.1f})"' if rotate else ""
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{colour}" '
                 f'font-weight="{weight}"{turn}>{_esc(text)}</text>')

    def fill(self, colour: str, pattern: str) -> str:
        """A fill: the colour, or a hatched pattern of it."""
        if not pattern or pattern not in PATTERNS:
            return colour
        name = self.patterns.setdefault((colour, pattern), f"hatch{len(self.patterns)}")
        return f"url(#{name})"

    def defs(self) -> str:
        """The hatch patterns used."""
        items = [f'<pattern id="{name}" width="8" height="8" patternUnits="userSpaceOnUse">'
                 f'<rect width="8" height="8" fill="{colour}" opacity="0.35"/>'
                 f'<path d="{PATTERNS[pattern]}" stroke="{colour}" stroke-width="2"/></pattern>'
                 for (colour, pattern), name in self.patterns.items()]
        return f"<defs>{''.join(items)}</defs>" if items else ""


def _each(value: Any, n: int) -> list[Any]:
    """A per-point property as a list of n (a single value repeated)."""
    return list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value] * n


def _bars(canvas: Canvas, fig: go.Figure, x: Axis, ys: dict[str, Axis]) -> None:
    """Every bar trace, grouped side by side where several share an axis."""
    bars = [t for t in fig.data if t.type == "bar"]
    for trace in bars:
        horizontal = trace.orientation == "h"
        value_axis, place_axis = (x, ys[trace.yaxis or "y"]) if horizontal else (ys[trace.yaxis or "y"], x)
        group = [t for t in bars if (t.yaxis or "y") == (trace.yaxis or "y") and t.orientation == trace.orientation]
        width = 0.8 / (len(group) if fig.layout.barmode == "group" else 1)
        offset = (group.index(trace) - (len(group) - 1) / 2) * width if fig.layout.barmode == "group" else 0.0
        places, values = (trace.y, trace.x) if horizontal else (trace.x, trace.y)
        n = len(values)
        colours = _each(trace.marker.color or DEFAULT_COLOUR, n)
        patterns = _each(trace.marker.pattern.shape or "", n)
        texts = _each(trace.text, n) if trace.text is not None else [None] * n
        for place, value, colour, pattern, label in zip(places, values, colours, patterns, texts):
            if value is None or not math.isfinite(float(value)):
                continue
            centre = place_axis.value(place) + offset
            a, b = place_axis.px_of(centre - width / 2), place_axis.px_of(centre + width / 2)
            zero, end = value_axis.px(0.0), value_axis.px(value)
            fill = canvas.fill(str(colour), str(pattern or ""))
            if horizontal:
                canvas.add(f'<rect x="{min(zero, end):.1f}" y="{min(a, b):.1f}" width="{abs(end - zero):.1f}" '
                           f'height="{abs(b - a):.1f}" fill="{fill}" stroke="{colour}"/>')
                if label is not None and trace.textposition:
                    canvas.text(end + 4, (a + b) / 2 + 4, str(label), anchor="start")
            else:
                canvas.add(f'<rect x="{min(a, b):.1f}" y="{min(zero, end):.1f}" width="{abs(b - a):.1f}" '
                           f'height="{abs(end - zero):.1f}" fill="{fill}" stroke="{colour}"/>')
                if label is not None and trace.textposition:
                    canvas.text((a + b) / 2, end - 5 if float(value) >= 0 else end + 15, str(label))


MARKERS = {"square": "M-5,-5 L5,-5 L5,5 L-5,5 Z", "diamond": "M0,-7 L6,0 L0,7 L-6,0 Z",
           "star": "M0,-9 L2.6,-3 L9,-3 L4,1 L6,8 L0,4 L-6,8 L-4,1 L-9,-3 L-2.6,-3 Z"}
DASHES = {"dash": "9,5", "dot": "2,4"}


def _marker(symbol: str, x: float, y: float, colour: str) -> str:
    """One marker."""
    if symbol in MARKERS:
        return f'<path d="{MARKERS[symbol]}" transform="translate({x:.1f} {y:.1f})" fill="{colour}" stroke="white"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{colour}" stroke="white"/>'


def _lines(canvas: Canvas, fig: go.Figure, x: Axis, ys: dict[str, Axis]) -> None:
    """Every scatter trace: its line, then its markers."""
    for trace in (t for t in fig.data if t.type == "scatter"):
        y = ys[trace.yaxis or "y"]
        points = [(x.px(a), y.px(b)) for a, b in zip(trace.x, trace.y)
                  if b is not None and math.isfinite(float(b))]
        colour = trace.line.color or trace.marker.color or DEFAULT_COLOUR
        mode = trace.mode or "lines+markers"
        if "lines" in mode and len(points) > 1:
            dash = f' stroke-dasharray="{DASHES[trace.line.dash]}"' if trace.line.dash in DASHES else ""
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            canvas.add(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.5"{dash}/>')
        if "markers" in mode:
            for px, py in points:
                canvas.add(_marker(str(trace.marker.symbol or "circle"), px, py, str(trace.marker.color or colour)))


def _ref(ref: str | None, value: Any, x: Axis, ys: dict[str, Axis], box: Box, horizontal: bool,
         *, note: bool = False) -> float:
    """A shape's or note's coordinate in pixels, by its reference (data, domain or paper); a note on a
    log axis gives the log10 of its value, as plotly reads it."""
    left, top, right, bottom = box
    ref = ref or ("x" if horizontal else "y")
    if ref == "paper" or ref.endswith(" domain"):
        axis = x if horizontal else ys.get(ref.split()[0], ys["y"])
        a, b = (axis.start, axis.end) if ref != "paper" else ((left, right) if horizontal else (bottom, top))
        return a + float(value) * (b - a)
    axis = x if horizontal else ys.get(ref, ys["y"])
    return axis.px_of(float(value)) if note and axis.kind == "log" else axis.px(value)


def _shapes(canvas: Canvas, fig: go.Figure, x: Axis, ys: dict[str, Axis], box: Box, *, below: bool) -> None:
    """The figure's bands (below the data) or lines (above it)."""
    for shape in fig.layout.shapes:
        if (shape.type == "rect") != below:
            continue
        x0, x1 = (_ref(shape.xref, v, x, ys, box, True) for v in (shape.x0, shape.x1))
        y0, y1 = (_ref(shape.yref, v, x, ys, box, False) for v in (shape.y0, shape.y1))
        if shape.type == "rect":
            canvas.add(f'<rect x="{min(x0, x1):.1f}" y="{min(y0, y1):.1f}" width="{abs(x1 - x0):.1f}" '
                       f'height="{abs(y1 - y0):.1f}" fill="{shape.fillcolor or "#eee"}"/>')
        else:
            dash = f' stroke-dasharray="{DASHES[shape.line.dash]}"' if shape.line.dash in DASHES else ""
            canvas.add(f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" '
                       f'stroke="{shape.line.color or "#666"}" stroke-width="1.5"{dash}/>')


def _notes(canvas: Canvas, fig: go.Figure, x: Axis, ys: dict[str, Axis], box: Box) -> None:
    """The figure's annotations (chance, a threshold, the focus-2 band)."""
    anchors = {"left": "start", "right": "end"}
    for note in fig.layout.annotations:
        px = _ref(note.xref, note.x, x, ys, box, True, note=True)
        py = _ref(note.yref, note.y, x, ys, box, False, note=True)
        canvas.text(px + (4 if note.xanchor == "left" else -4 if note.xanchor == "right" else 0),
                    py + (14 if note.yanchor == "top" else -4), str(note.text),
                    anchor=anchors.get(str(note.xanchor), "middle"), colour="#444")


def _axes(canvas: Canvas, fig: go.Figure, x: Axis, ys: dict[str, Axis], box: Box) -> None:
    """Both kinds of axis: grid lines, ticks, tick labels and titles."""
    left, top, right, bottom = box
    ticks = x.ticks(fig.layout.xaxis)
    turn = -30 if len(ticks) > 8 or max((len(t) for _, t in ticks), default=0) * len(ticks) > 90 else 0
    lowest = max(y.start for y in ys.values())
    for value, label in ticks:
        px = x.px_of(value)
        if left - 1 <= px <= right + 1:
            canvas.add(f'<line x1="{px:.1f}" y1="{lowest:.1f}" x2="{px:.1f}" y2="{lowest + 5:.1f}" stroke="#888"/>')
            canvas.text(px, lowest + 19, label, anchor="end" if turn else "middle", rotate=turn)
    if fig.layout.xaxis.title.text:
        canvas.text((left + right) / 2, bottom + (60 if turn else 42), fig.layout.xaxis.title.text)
    for name, y in ys.items():
        layout = fig.layout[name.replace("y", "yaxis")]
        for value, label in y.ticks(layout):
            py = y.px_of(value)
            if min(y.start, y.end) - 1 <= py <= max(y.start, y.end) + 1:
                canvas.add(f'<line x1="{left:.1f}" y1="{py:.1f}" x2="{right:.1f}" y2="{py:.1f}" stroke="#e5e5e5"/>')
                canvas.text(left - 6, py + 4, label, anchor="end")
        if layout.title.text:
            canvas.text(18, (y.start + y.end) / 2, layout.title.text, rotate=-90)


def _legend(canvas: Canvas, fig: go.Figure) -> None:
    """The legend in a row (or rows) above the plot: each shown trace's mark and name."""
    if fig.layout.showlegend is False:
        return
    x, y = 70.0, 50.0  # under the title, above the plot (which starts at `top`)
    for trace in fig.data:
        if trace.showlegend is False or not trace.name:
            continue
        width = 34 + 7 * len(trace.name)
        if x + width > WIDTH - 10:
            x, y = 70.0, y + 18
        colour = str((trace.line.color if trace.type == "scatter" else None) or _each(trace.marker.color, 1)[0]
                     or DEFAULT_COLOUR)
        if trace.type == "bar":
            pattern = str(_each(trace.marker.pattern.shape or "", 1)[0] or "")
            fill = canvas.fill(colour, pattern)
            canvas.add(f'<rect x="{x:.1f}" y="{y - 9:.1f}" width="16" height="11" fill="{fill}" stroke="{colour}"/>')
        else:
            dash = f' stroke-dasharray="{DASHES[trace.line.dash]}"' if trace.line.dash in DASHES else ""
            if "lines" in (trace.mode or ""):
                canvas.add(f'<line x1="{x - 4:.1f}" y1="{y - 4:.1f}" x2="{x + 20:.1f}" y2="{y - 4:.1f}" '
                           f'stroke="{colour}" stroke-width="2.5"{dash}/>')
            canvas.add(_marker(str(trace.marker.symbol or "circle"), x + 8, y - 4, str(trace.marker.color or colour)))
        canvas.text(x + 26, y, trace.name, anchor="start")
        x += width


def figure_svg(fig: go.Figure) -> str:
    """One lesson figure as an SVG element (the figure's height, WIDTH wide)."""
    height = float(fig.layout.height or 400)
    margin = fig.layout.margin
    left, right = float(margin.l or 70), WIDTH - float(margin.r or 20)
    top, bottom = float(margin.t or 80), height - float(margin.b or 70)
    box = (left, top, right, bottom)
    x = _x_axis(fig, left, right)
    ys = {name: _y_axis(fig, name, top, bottom) for name in dict.fromkeys(["y", *(t.yaxis or "y" for t in fig.data)])}
    canvas = Canvas()
    title = fig.layout.title.text
    if title:
        canvas.text(left, 24, title.replace("<br>", " "), anchor="start", size=FONT + 3, weight="bold")
    _legend(canvas, fig)
    _shapes(canvas, fig, x, ys, box, below=True)
    _axes(canvas, fig, x, ys, box)
    _bars(canvas, fig, x, ys)
    _lines(canvas, fig, x, ys)
    _shapes(canvas, fig, x, ys, box, below=False)
    _notes(canvas, fig, x, ys, box)
    label = _esc(title or "chart")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{label}" viewBox="0 0 {WIDTH} '
            f'{height:.0f}" width="100%" style="max-width:{WIDTH}px" font-family="system-ui, sans-serif">'
            f'<title>{label}</title>{canvas.defs()}{"".join(canvas.parts)}</svg>')
