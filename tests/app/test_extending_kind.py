"""docs/extending.md's example kind, built from the manual's code and registered by the test alone (its
module and one line of KINDS), selected in the sidebar: every page of the app renders with it."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pfcore.scoring.kinds import KINDS
from pfcore.scoring.models import MODELS
from pfcore.ui.page import PAGES
from tests import doc_kind
from tests.app_helpers import page, texts


@pytest.fixture
def unigram_model(tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A unigram model (a text file), its kind in the table for one test."""
    monkeypatch.setitem(KINDS, "unigram", doc_kind.build(tmp_path).KIND)
    MODELS.clear()
    yield doc_kind.corpus(tmp_path)
    MODELS.clear()


@pytest.mark.parametrize("script", ["app.py", *(p.path for p in PAGES[1:])])  # app.py opens on Home
def test_every_page_renders_with_the_manuals_example_kind(script: str, unigram_model: Path) -> None:
    at = page(script, unigram_model, kind="unigram").run()
    assert not at.exception, texts(at.exception)
    assert at.sidebar.radio(key="model_kind").value == "unigram"
    ready = texts(at.sidebar.success)
    assert ready and "(unigram) ready: parameters unknown" in ready[0]
    for error in texts(at.error):  # only the Lesson's next-word step: a unigram model gives no next token
        assert error.startswith("the next word does not apply to a unigram model"), error
