"""Pieces every figure builder shares: input checks, display names, and titles that fit."""
from __future__ import annotations

import html
import textwrap

import pandas as pd
import plotly.graph_objects as go


def require_columns(df: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    """ValueError naming the missing columns: the builders take fixed shapes."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} needs columns {', '.join(missing)}")


def shown(text: object) -> str:
    """A label from data (a sentence, a region or condition of an uploaded suite) as plotly shows it
    as text: plotly reads <a href>, <b>, <br> in any label as markup and shows entities as their
    characters, so the label is HTML-escaped."""
    return html.escape(str(text), quote=False)


TITLE_WIDTH = 56  # characters per title line: what a chart in an 800-pixel window shows uncut
TITLE_LINE_PX = 22
TITLE_PAD_PX = 20  # above the title: its text box (taller than its letters) stays inside the chart
SUBTITLE_PX = 28  # room for a row of one-line subplot titles under the title


def set_title(fig: go.Figure, title: str | None, *, subtitles: int = 0) -> None:
    """Give a figure its title (plain text: it may quote a visitor's sentence), wrapped into lines that
    a narrow window shows whole, at the top with room under it for its lines and for a row of subplot
    titles of `subtitles` lines (True: one), so nothing is cut or overprinted."""
    if not title:
        return
    lines = textwrap.wrap(title, TITLE_WIDTH, break_long_words=False, break_on_hyphens=False) or [title]
    under = SUBTITLE_PX + TITLE_LINE_PX * (subtitles - 1) if subtitles else 0
    fig.update_layout(title={"text": "<br>".join(map(shown, lines)), "yref": "container", "y": 1.0, "yanchor": "top",
                             "pad": {"t": TITLE_PAD_PX}},
                      margin={"t": 12 + TITLE_PAD_PX + TITLE_LINE_PX * len(lines) + under})
