"""The Probe's chart titles show the sentence as typed (issue 38): a sentence holding both quote marks
was shown as Python's repr, with a backslash before the apostrophe of `doesn't`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pfcore.scoring.kinds.fake import ENABLE_VAR, FAKE_MODEL
from pfcore.ui.text import quoted
from tests.app.test_probe_page import PAGE, typed
from tests.app_helpers import page

BOTH_QUOTES = 'He doesn\'t like "shrimp", let alone squid.'


def test_quoted_keeps_the_text_as_typed() -> None:
    assert quoted(BOTH_QUOTES) == f"\u201c{BOTH_QUOTES}\u201d"


def test_the_charts_titles_hold_the_sentence_as_typed(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    monkeypatch.setenv(ENABLE_VAR, "1")
    at = typed(page(PAGE, FAKE_MODEL).run(), BOTH_QUOTES)
    titles = [" ".join(json.loads(chart.proto.spec)["layout"]["title"]["text"].split("<br>"))
              for chart in at.get("plotly_chart")]
    with_sentence = [t for t in titles if "doesn" in t]
    assert with_sentence, titles
    for title in with_sentence:
        assert "\\'" not in title and "doesn't" in title and '"shrimp"' in title, title
