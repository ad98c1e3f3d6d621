"""The figure kit: the rules every chart follows, so that each one is whole at the size it is seen.

- Axes hold every data point with a margin (`fit_axes`): plotly's own autorange puts the last
  point of a line on the plot's edge, where a narrow window drops it and its tick.
- Log axes label decades only ("1, 10, 100, 1k ... 1B"), never minor ticks ("5 6 7 8 9 100M 2 3").
- Legends compact and outside the plotting area (`legend_outside`).
- One colour per model, keyed by its name (`model_colors`), and one line style per series kind
  (`kind_dashes`).
- Readable units for counts ("2.8B", not plotly's SI "2.8G"): `human`."""
from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Sequence

import numpy as np
import plotly.graph_objects as go

# Okabe & Ito's colour-blind-safe palette, then plotly's default for more models
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#8C564B", "#7F7F7F",
           "#BCBD22", "#17BECF")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
MARGIN = 0.05  # of an axis's span, each side
LOG_MARGIN = 0.06  # decades at least, each side of a log axis
SCALES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))
LEGEND = {"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1.0, "yanchor": "top",
          "font": {"size": 11}, "tracegroupgap": 2}
NUMERIC_TRACES = ("scatter", "scattergl")


def human(value: float) -> str:
    """A count in a few characters with the usual English letters: 2.8B, 410M, 100k, 1T, 0.1."""
    for scale, letter in SCALES:
        if abs(value) >= scale:
            return f"{value / scale:.3g}{letter}"
    return f"{value:.3g}"


def model_colors(models: Iterable[str]) -> dict[str, str]:
    """Each model's colour: the palette slot its name hashes to (the same on every chart and every
    page), the next free one where two models of one chart would share it."""
    taken: dict[str, str] = {}
    for model in dict.fromkeys(models):
        slot = zlib.crc32(model.encode("utf-8")) % len(PALETTE)
        free = [PALETTE[(slot + i) % len(PALETTE)] for i in range(len(PALETTE))
                if PALETTE[(slot + i) % len(PALETTE)] not in taken.values()]
        taken[model] = free[0] if free else PALETTE[slot]
    return taken


def kind_dashes(kinds: Iterable[str]) -> dict[str, str]:
    """One line style per series kind, in order of first appearance."""
    return {kind: DASHES[i % len(DASHES)] for i, kind in enumerate(dict.fromkeys(kinds))}


def decade_ticks(low: float, high: float) -> tuple[list[float], list[str]]:
    """Tick values and labels of a log axis spanning 10**low to 10**high: every decade inside, and
    where fewer than two decades fall inside, the 2s and 5s as well (so an axis always has labels)."""
    decades = range(math.ceil(low - 1e-9), math.floor(high + 1e-9) + 1)
    values = [10.0 ** k for k in decades]
    if len(values) < 2:
        values = [m * 10.0 ** k for k in range(math.floor(low), math.ceil(high) + 1) for m in (1, 2, 5)
                  if low - 1e-9 <= math.log10(m * 10.0 ** k) <= high + 1e-9]
    return values, [human(v) for v in values]


def _numbers(values: object) -> list[float] | None:
    """The finite numbers of a trace's coordinates; None when they are not numbers (categories)."""
    if values is None:
        return []
    out = []
    for v in values:  # type: ignore[attr-defined]
        if v is None or isinstance(v, str | bytes):
            if isinstance(v, str | bytes):
                return None
            continue
        f = float(v)
        if math.isfinite(f):
            out.append(f)
    return out


def _axis_name(ref: str | None, letter: str) -> str:
    """A trace's or shape's axis reference ("x2") as the layout's key ("xaxis2")."""
    return f"{letter}axis{(ref or letter)[1:]}"


def _extents(fig: go.Figure) -> tuple[dict[str, list[float]], set[str]]:
    """The numbers each axis must show (lines and markers, and the lines drawn on it), and the axes
    that cannot be fitted: categories, bars (plotly pads bars itself) and others' traces."""
    found: dict[str, list[float]] = {}
    skip: set[str] = set()
    for trace in fig.data:
        for letter in "xy":
            name = _axis_name(getattr(trace, f"{letter}axis", None), letter)
            values = _numbers(getattr(trace, letter, None)) if trace.type in NUMERIC_TRACES else None
            if values is None:
                skip.add(name)
            else:
                found.setdefault(name, []).extend(values)
    for shape in fig.layout.shapes:
        for letter in "xy":
            ref = getattr(shape, f"{letter}ref", None) or letter
            if ref.startswith(letter) and "domain" not in ref and ref != "paper":
                values = _numbers([getattr(shape, f"{letter}0"), getattr(shape, f"{letter}1")])
                found.setdefault(_axis_name(ref, letter), []).extend(values or [])
    return found, skip


def _matched(fig: go.Figure, found: dict[str, list[float]]) -> dict[str, list[float]]:
    """Each axis's numbers joined with those of the axes it is matched to (shared axes show one range)."""
    groups: dict[str, str] = {}
    for name in found:
        target = fig.layout[name].matches
        groups[name] = _axis_name(target, name[0]) if target else name
    joined: dict[str, list[float]] = {}
    for name, values in found.items():
        joined.setdefault(groups[name], []).extend(values)
    return {name: joined[groups[name]] for name in found}


def fit_axes(fig: go.Figure) -> go.Figure:
    """Every axis of lines and markers that has no range of its own gets one that holds every point
    (and every line drawn on it) with a margin; a log axis gets decade ticks as well."""
    found, skip = _extents(fig)
    for name, values in _matched(fig, found).items():
        axis = fig.layout[name]
        if name in skip or axis.range is not None or axis.type in ("category", "date", "multicategory"):
            continue
        if axis.type == "log":
            logs = [math.log10(v) for v in values if v > 0]
            if not logs:
                continue
            pad = max(LOG_MARGIN, MARGIN * (max(logs) - min(logs)))
            low, high = min(logs) - pad, max(logs) + pad
            axis.update(range=[low, high])
            if axis.tickvals is None:
                ticks, labels = decade_ticks(low, high)
                axis.update(tickmode="array", tickvals=ticks, ticktext=labels)
        elif values:
            span = max(values) - min(values)
            pad = MARGIN * span if span else max(abs(values[0]) * 0.1, 1.0)
            axis.update(range=[min(values) - pad, max(values) + pad])
    return fig


LABEL_ROOM = (0.22, 3.5)  # a point label's room on a chart: decades across, accuracy points up and down
LABEL_HEIGHT = 5.5  # how far above its point a name written over it reaches, in accuracy points


def spread_labels(x: Sequence[float], y: Sequence[float], room: tuple[float, float] = LABEL_ROOM) -> np.ndarray:
    """Which points get a name written over them: the highest first, then each point that no named
    point crowds (within `room` in x and y, in axis units) and whose name would cover no other point's
    marker, so names never print over each other or over a point; the rest are named on hover."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.zeros(len(xs), dtype=bool)
    for i in np.argsort(-ys, kind="stable"):
        near = np.abs(xs - xs[i]) < room[0]
        crowded = keep & near & (np.abs(ys - ys[i]) < room[1])
        covered = near & (ys > ys[i]) & (ys - ys[i] < LABEL_HEIGHT)
        keep[i] = not (crowded.any() or covered.any())
    return keep


def legend_outside(fig: go.Figure, title: str | None = None) -> go.Figure:
    """A compact legend right of the plotting area (plotly widens the margin for it), never over it."""
    return fig.update_layout(legend=LEGEND | {"title": {"text": title or ""}})


def finish(fig: go.Figure, *, legend_title: str | None = None, unified: bool = False) -> go.Figure:
    """The kit's rules on a built figure: axes fitted, the legend outside, hover unified across the
    series at one x when `unified`."""
    fit_axes(fig)
    if fig.layout.showlegend is not False:
        legend_outside(fig, legend_title)
    if unified:
        fig.update_layout(hovermode="x unified")
    return fig
