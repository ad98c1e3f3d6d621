"""Charts and tables as files (issue 37): light SVG and PNG images, the Trajectories SVG under 300 KB,
an HTML download that says its size, file names without a doubled extension; an image whose kaleido
tab drew too early drawn again in a new browser."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import pytest

from pfcore.analysis.trajectories import FIGURE2, construction_curves, construction_filters, curves, scope_key, scoped
from pfcore.plots import export
from pfcore.plots.export import browser_path, figure_image, html_megabytes
from pfcore.plots.trajectories import construction_figure, curves_figure
from pfcore.store.published import labelled, read_bundle
from pfcore.ui.downloads import figure_html, file_stem

BUNDLED = "published@a6b6990"
needs_browser = pytest.mark.skipif(browser_path() is None, reason="no Chrome or Chromium for kaleido to draw with")


@pytest.fixture(scope="module")
def published() -> pd.DataFrame:
    """The published per-checkpoint results that ship with pfcore."""
    bundle = read_bundle()
    assert bundle.label == BUNDLED
    return labelled(bundle.rows, bundle.label)


def trajectories_figures(table: pd.DataFrame) -> list[go.Figure]:
    """Figure 2 of Pythia-12b beside the 152-checkpoint Pythia-14m-deduped, and Figure 3 of the latter."""
    small = "EleutherAI/pythia-14m-deduped"
    both = curves(table, [scope_key("EleutherAI/pythia-12b", BUNDLED), scope_key(small, BUNDLED)], list(FIGURE2))
    rows = scoped(table, small, BUNDLED)  # syntax only: its construction panels are the syntactic tests
    return [curves_figure(both, "side by side"),
            construction_figure(construction_curves(rows, small, construction_filters(rows, small)[:3]))]


@needs_browser
def test_a_trajectories_svg_is_under_300_kb(published: pd.DataFrame) -> None:
    for fig in trajectories_figures(published):
        svg = figure_image(fig, "svg")
        assert svg.lstrip().startswith(b"<svg") and 20_000 < len(svg) < 300_000


@needs_browser
def test_a_png_is_an_image_of_the_charts_size() -> None:
    png = figure_image(go.Figure(go.Bar(x=["a", "b"], y=[1, 2])).update_layout(height=300), "png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (2000, 600)  # 1000 x 300 pixels at scale 2
    with pytest.raises(ValueError, match="svg, png"):
        figure_image(go.Figure(), "pdf")


def test_the_html_size_stated_is_the_files(published: pd.DataFrame) -> None:
    """Issue 37: every "Download chart (HTML)" was about 4.8 MB (plotly.js inside) and said nothing."""
    for fig in [go.Figure(go.Bar(x=["a", "b"], y=[1, 2])), *trajectories_figures(published)]:
        assert html_megabytes(fig) == pytest.approx(len(figure_html(fig).encode("utf-8")) / 1e6, rel=0.05)


def test_file_names_lose_a_data_suffix_only() -> None:
    """Issue 37: the Stimuli download was named my_stimuli.csv_words.csv."""
    assert file_stem("my_stimuli.csv") == "my_stimuli" and file_stem("uploads/a b.JSONL") == "a_b"
    assert file_stem("Qwen2.5-0.5B") == "Qwen2.5-0.5B" and file_stem("suite.v2") == "suite.v2"


@needs_browser
def test_an_image_whose_tab_ran_before_kaleidos_page_script_is_drawn_in_a_new_browser(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Seen once beside four busy processes: kaleido's tab drew before its page script had defined
    kaleido_scopes (ReferenceError). Made to happen here by leaving the first browser's tab on an empty
    page; the image then comes from a new browser, whole."""
    from kaleido._kaleido_tab._tab import _KaleidoTab

    navigate, urls = _KaleidoTab.navigate, []

    async def early(tab: _KaleidoTab, url: str = "") -> None:
        urls.append(url)
        await navigate(tab, "about:blank" if len(urls) == 1 else url)

    monkeypatch.setattr(_KaleidoTab, "navigate", early)
    svg = figure_image(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])), "svg")
    assert svg.lstrip().startswith(b"<svg") and len(urls) == 2


@pytest.mark.parametrize(("message", "tries"), [("ReferenceError: kaleido_scopes is not defined", 3),
                                                 ("TypeError: a real error in the chart", 1)])
def test_only_kaleidos_early_tab_is_drawn_again_and_at_most_twice(monkeypatch: pytest.MonkeyPatch,
                                                                  message: str, tries: int) -> None:
    calls = []

    def failing(fig: go.Figure, fmt: str) -> bytes:
        calls.append(fmt)
        raise RuntimeError(message)

    monkeypatch.setattr(export, "_drawn", failing)
    with pytest.raises(RuntimeError, match=message.split(":")[0]):
        figure_image(go.Figure(), "png")
    assert len(calls) == tries
