"""Helpers shared by the AppTests: open a page with the sidebar model set, read and check it."""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120


def page(script: Path | str, model: Path | str | None = None, kind: str = "causal") -> AppTest:
    """An AppTest of one page with the sidebar model set (before the first run)."""
    at = AppTest.from_file(str(ROOT / script), default_timeout=TIMEOUT)
    if model is not None:
        at.session_state["model_name"] = str(model)
        at.session_state["model_kind"] = kind
    return at


def texts(elements) -> list[str]:
    """The text of each element of a list (errors, infos, captions...)."""
    return [str(e.value) for e in elements]


def no_errors(at: AppTest) -> None:
    """Nothing went wrong on the page: no exception element, no error message."""
    assert not at.exception, texts(at.exception)
    assert not at.error, texts(at.error)


def frame_with(at: AppTest, column: str, index: int = 0):
    """The `index`-th table on the page that has a column (tables are found by what they hold, not
    by their place on the page)."""
    frames = [f.value for f in at.dataframe if column in f.value.columns]
    assert len(frames) > index, f"no table with a {column!r} column: {[list(f.value.columns) for f in at.dataframe]}"
    return frames[index]
