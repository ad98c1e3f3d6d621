"""Figures that fit (issue 37), asked of a real browser at 1280x720 (a common projector), 1366x768 and
1920x1080: for every plotly chart of every page, from the chart's own data and layout, every point lies
inside its axis ranges, the legend stays off the plotting areas, the title off the notes (panel titles),
points' names off the colour scales, no text runs outside the chart, log axes label decades only; no
text of a page is cut (tests/browser/cut_text.js: a word wider than its box, an ellipsis, an option chosen
in a multiselect out of its box); no plotly warning in the console. (The Lesson's presenter view at
1280x720 is walked in test_browser.py.) Screenshots go to test-artifacts/ (git-ignored); docs/screenshots
are chosen from them."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.live_app import LiveApp, serve
from tests.browser.test_browser import (  # noqa: F401 - fixtures shared with the other browser tests
    BROWSER_MARKS,
    CHECK_CHARTS,
    CUT_TEXT,
    WAIT_MS,
    _fresh_cache,
    artifacts,
    assert_no_exception,
    assert_server_quiet,
    browser,
    plotly_warnings,
    settle,
    whole_page,
)

try:
    from playwright.sync_api import Browser, Page, expect
except ImportError:  # pragma: no cover - depends on the machine; BROWSER_MARKS skip the tests then
    pass

pytestmark = [*BROWSER_MARKS, pytest.mark.xdist_group("browser-fit")]  # its own app, its own worker

SIZES = [(1280, 720), (1366, 768), (1920, 1080)]  # a projector, a common laptop, a desktop
PAGES = {  # page (with a link's query) -> how many charts it draws at least
    "": 0, "Probe?sentence=We+can%27t+sing+an+ugly+song%2C+much+less+a+beautiful+one.": 3, "Models": 1,
    "Trajectories": 4, "Lesson?step=7": 1, "Run": 0,
    "Items?construction=let_alone&construction=much_less&construction=not_to_mention": 0, "Stimuli": 0}


@pytest.fixture(scope="module")
def fit_app(artifacts: Path, tmp_path_factory: pytest.TempPathFactory,  # noqa: F811
            converted_models: Path) -> Iterator[LiveApp]:
    """The app on a fresh cache that starts with the bundled published results, as a new user's does."""
    cache = _fresh_cache(tmp_path_factory, converted_models, "fit-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PFCORE_BUNDLED", "1")
        with serve(cache, artifacts / "streamlit-fit.log") as live:
            yield live


@pytest.fixture(scope="module")
def fit_page(browser: Browser) -> Page:  # noqa: F811
    """One tab for the three sizes: the app's scripts are compiled once, as in a user's browser (a new
    context per size compiled them again, 3 CPU-s of chromium's each time)."""
    return browser.new_context().new_page()


@pytest.mark.parametrize("width, height", SIZES)
def test_every_chart_of_every_page_fits(fit_app: LiveApp, fit_page: Page, artifacts: Path,  # noqa: F811
                                        width: int, height: int) -> None:
    """Each page opened at the size (a chart in an expander keeps the width it was first drawn at when
    the window changes, so no page is resized from one size to the next)."""
    page = fit_page
    warnings = plotly_warnings(page)
    for path, least in PAGES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{fit_app.url}/{path}")
        settle(page)
        if least:
            expect(page.locator(".js-plotly-plot .main-svg").first).to_be_visible(timeout=WAIT_MS)
            settle(page)
        assert_no_exception(page)
        whole_page(page, width, least)
        charts = page.evaluate(CHECK_CHARTS)
        name = f"{path.split('?')[0] or 'Home'} at {width}x{height}"
        assert len(charts) >= least, (name, charts)
        problems = [(name, chart["title"], p) for chart in charts for p in chart["problems"]]
        assert problems == []
        assert page.evaluate(CUT_TEXT) == [], name
        page.screenshot(path=str(artifacts / f"fit-{(path.split('?')[0] or 'home').lower()}-{width}.png"),
                        full_page=True)
    assert warnings == []
    assert_server_quiet(fit_app)
