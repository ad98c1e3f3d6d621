"""Charts as files: light SVG and PNG images (for e-mail and slides), drawn by kaleido in a headless
Chrome or Chromium (kaleido finds it on PATH, or at BROWSER_PATH), and the size of the interactive
HTML page, which carries plotly.js so that it opens offline."""
from __future__ import annotations

from functools import cache

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

IMAGE_FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
WIDTH = 1000  # pixels of an exported chart: a slide's width; its height is the chart's own
HEIGHT = 500  # for a chart that sets none
PNG_SCALE = 2  # sharp on a projector
# new browsers for an image whose tab drew before kaleido's page script was there (seen on a busy machine)
RETRIES = 2


def light(fig: go.Figure) -> go.Figure:
    """A copy of a figure on a white background with plotly's own colours (a page's theme leaves
    colours for the browser to fill in)."""
    return go.Figure(fig).update_layout(template="plotly_white")


def browser_path() -> str | None:
    """The Chrome or Chromium that kaleido will draw with, or None (no image downloads then)."""
    from choreographer.browsers.chromium import Chromium  # how kaleido finds its browser

    return Chromium.find_browser(skip_local=False)


def figure_image(fig: go.Figure, fmt: str) -> bytes:
    """A chart as an SVG or PNG file, at WIDTH pixels wide and its own height."""
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"an image is one of {', '.join(IMAGE_FORMATS)}, not {fmt!r}")
    for _ in range(RETRIES):
        try:
            return _drawn(fig, fmt)
        except RuntimeError as error:  # kaleido's JavascriptError
            if "kaleido_scopes is not defined" not in str(error):
                raise
    return _drawn(fig, fmt)


def _drawn(fig: go.Figure, fmt: str) -> bytes:
    """One drawing of a chart by kaleido, in a browser of its own."""
    return light(fig).to_image(format=fmt, width=WIDTH, height=fig.layout.height or HEIGHT,
                               scale=PNG_SCALE if fmt == "png" else 1)


@cache
def _plotlyjs_bytes() -> int:
    """The size of plotly.js, which every interactive HTML file carries."""
    return len(get_plotlyjs().encode("utf-8"))


def html_megabytes(fig: go.Figure) -> float:
    """About how large the interactive HTML file of a chart is, in MB (plotly.js and the chart's data)."""
    return (_plotlyjs_bytes() + len(fig.to_json().encode("utf-8"))) / 1e6
