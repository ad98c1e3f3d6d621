"""Downloads for what a page shows: tables as CSV, records as JSON, charts as SVG, PNG and HTML."""
from __future__ import annotations

import json
import re
from pathlib import PurePath
from typing import TYPE_CHECKING

import plotly.graph_objects as go
import streamlit as st

from pfcore.plots.export import IMAGE_FORMATS, browser_path, figure_image, html_megabytes

if TYPE_CHECKING:  # every page's sidebar reads this module: pandas only where a table is downloaded
    from collections.abc import Callable

    import pandas as pd


def slug(name: str) -> str:
    """A name usable in a file name."""
    return "".join(ch if ch.isalnum() or ch in "-." else "_" for ch in name)


DATA_SUFFIXES = (".csv", ".tsv", ".json", ".jsonl", ".txt", ".yaml", ".yml")


def file_stem(name: str) -> str:
    """A file's name without its folder and data suffix, usable in a file name: "my_stimuli.csv" ->
    "my_stimuli" (so a download is "my_stimuli_words.csv", not "my_stimuli.csv_words.csv")."""
    path = PurePath(name.replace("\\", "/"))
    return slug(path.stem if path.suffix.lower() in DATA_SUFFIXES else path.name)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as the start of a formula
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def safe_cell(value: object) -> object:
    """A cell that a spreadsheet opens as it is: text beginning like a formula gets a leading single
    quote (OWASP's rule for CSV injection); numbers, and text that is a plain number such as -1.5, stay."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_bytes(df: pd.DataFrame) -> bytes:
    """A table as UTF-8 CSV (RFC 4180 line ends) without the index, every text cell and column name through `safe_cell`
    (columns of numbers, booleans and times are left alone), so that no cell a visitor or a file gave
    runs as a formula."""
    safe = df.copy()
    safe.columns = [safe_cell(c) for c in df.columns]
    for index in range(df.shape[1]):
        column = df.iloc[:, index]
        if column.dtype.kind not in "biufcmM":
            safe.isetitem(index, column.map(safe_cell).astype(object))
    return safe.to_csv(index=False, lineterminator="\r\n").encode("utf-8")  # RFC 4180; a cell with a CR is quoted


def figure_html(fig: go.Figure) -> str:
    """A self-contained interactive HTML page of a figure (plotly.js inlined: works offline).
    Streamlit's own template leaves colours for the browser to fill in, so the file gets plotly's."""
    return go.Figure(fig).update_layout(template="plotly").to_html(include_plotlyjs=True, full_html=True)


def download_csv(df: pd.DataFrame, file_name: str, label: str = "Download CSV", key: str | None = None) -> None:
    """A download button for a table, written when clicked (the Items page spent 0.9 s of its 1.4 s
    reruns writing its CSVs); a copy (lazy, pandas copies on write) keeps the table as it is now."""
    table = df.copy(deep=False)
    st.download_button(label, lambda: csv_bytes(table), file_name=file_name, mime="text/csv",
                       key=key or f"csv-{file_name}", on_click="ignore")


def download_json(obj: object, file_name: str, label: str = "Download JSON", key: str | None = None) -> None:
    """A download button for a JSON-serialisable object."""
    st.download_button(label, json.dumps(obj, indent=2, default=str), file_name=file_name,
                       mime="application/json", key=key or f"json-{file_name}", on_click="ignore")


EXPORT_FORMATS = {"svg": "SVG (vector, for papers)", "png": "PNG (image, for slides)"}


def export_config(file_name: str, *, toolbar: bool = True) -> dict[str, object]:
    """The chart toolbar's camera button: the format chosen in the sidebar and a file name that
    says what the chart shows (so an exported file stands alone); no toolbar when `toolbar` is off."""
    fmt = st.session_state.get("chart_format", "svg")
    return {"displaylogo": False, "displayModeBar": "hover" if toolbar else False, "toImageButtonOptions": {
        "format": fmt if fmt in EXPORT_FORMATS else "svg", "filename": file_name.rsplit(".", 1)[0],
        "scale": 2 if fmt == "png" else 1}}


def chart(fig: go.Figure, file_name: str, key: str, *, toolbar: bool = True) -> None:
    """Draw a plotly figure, its toolbar exporting SVG or PNG (the sidebar's choice), with download
    buttons for it as a light SVG and PNG (drawn when pressed; where a browser is there to draw them)
    and as interactive HTML, which says how large it is. Without `toolbar`, plotly's toolbar does not
    appear on hover (on a projector it covered the end of a long title under the presenter's pointer)."""
    st.plotly_chart(fig, key=key, config=export_config(file_name, toolbar=toolbar))
    stem = file_name.rsplit(".", 1)[0]
    row = st.container(horizontal=True)
    for fmt in IMAGE_FORMATS if browser_path() else ():
        row.download_button(f"Download chart ({fmt.upper()})", _image(fig, fmt), file_name=f"{stem}.{fmt}",
                            mime=IMAGE_FORMATS[fmt], key=f"{fmt}-{key}", on_click="ignore")
    row.download_button("Download chart (HTML)", lambda: figure_html(fig), file_name=f"{stem}.html",
                        mime="text/html", key=f"html-{key}", on_click="ignore",
                        help=f"interactive, opens offline: about {html_megabytes(fig):.1f} MB, most of it plotly.js")


def _image(fig: go.Figure, fmt: str) -> Callable[[], bytes]:
    """The image of a chart, drawn only when its button is pressed."""
    return lambda: figure_image(fig, fmt)
