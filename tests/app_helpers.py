"""Helpers shared by the AppTests: open a page with the sidebar model set, read and check it."""
from __future__ import annotations

import functools
import re
from pathlib import Path

from streamlit.components.v2 import manifest_scanner
from streamlit.testing.v1 import AppTest

from pfcore.scoring.kinds.fake import FAKE_MODEL

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 600  # an AppTest run that takes longer is hung; a busy machine runs them 5-10 times slower
ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # a markdown backslash escape of ASCII punctuation
# Every new AppTest reads the metadata of every installed package for Streamlit components (0.3 s here,
# none found): once per test process, as the server does once per process.
manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


def page(script: Path | str, model: Path | str | None = None, kind: str | None = None) -> AppTest:
    """An AppTest of one page with the sidebar model set (before the first run); its kind is causal,
    or the fake kind for the test stand-in's name, unless given."""
    at = AppTest.from_file(str(ROOT / script), default_timeout=TIMEOUT)
    if model is not None:
        at.session_state["model_name"] = str(model)
        at.session_state["model_kind"] = kind or ("fake" if str(model) == FAKE_MODEL else "causal")
    return at


def read(markdown: str) -> str:
    """What a reader sees of markdown where `pfcore.ui.text.plain` escaped a visitor's text: the
    escapes read, the invisible word joiners that break autolinks left out."""
    return ESCAPE.sub(r"\1", markdown).replace("\u2060", "")


def texts(elements) -> list[str]:
    """The text of each element of a list (errors, infos, captions...), as a reader sees it."""
    return [read(str(e.value)) for e in elements]


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


def use_app_navigation(monkeypatch) -> None:
    """Run pages through app.py's st.navigation, and so inside its page boundary, as the server does
    (`pfcore.ui.serve.use_app_navigation`), not as streamlit's pages/ folder would run them alone."""
    from streamlit.runtime.pages_manager import PagesManager

    from pfcore.ui.serve import use_app_navigation as as_served

    original = PagesManager.__init__

    def init(self, *args, **kwargs) -> None:
        original(self, *args, **kwargs)
        as_served()

    monkeypatch.setattr(PagesManager, "__init__", init)


def served(script: str, model: Path | str | None = None, query: dict[str, object] | None = None) -> AppTest:
    """An AppTest of one page as the server runs it (call `use_app_navigation` first): app.py's Home
    first, then the page opened with a link's query; not yet run."""
    at = page("app.py", model).run()
    at.switch_page(script)
    for name, value in (query or {}).items():
        at.query_params[name] = value
    return at
