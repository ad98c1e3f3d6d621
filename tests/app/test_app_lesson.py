"""AppTests of the Lesson page: every step walked with Next and Back on the fake scorer (and on the
default model: slow), the class's sentence edited, a link reopening a step in the presenter view, the
glossary, a masked model on step 1, and the handout button."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pfcore.glossary import TERMS
from pfcore.lesson import LESSON
from pfcore.plots.lesson import FIT_HEIGHT, PROJECTOR_FONT
from pfcore.ui.lesson_view import PRESENTER_CSS, READING, READING_RESULTS, STEP_KEY, field_key
from pfcore.ui.links import COPIED
from tests.app_helpers import ROOT, no_errors, page, texts

PAGE = "pages/7_Lesson.py"


def page_html(at: AppTest) -> list[str]:
    """The page's own HTML elements, less the Copy link button (which every linked page has)."""
    return [h.proto.body for h in at.get("html") if COPIED not in h.proto.body]


def notices(at: AppTest) -> list[str]:
    """The "what to notice" lines on the page."""
    return [t for t in texts(at.info) if t.startswith("**What to notice:**")]


def check_step(at: AppTest, number: int) -> None:
    """The page shows this step, computed: its title, a chart, the line of what to notice, the question."""
    no_errors(at)
    step = LESSON[number - 1]
    assert [h.value for h in at.header] == [f"{number}. {step.title}"]
    assert at.session_state[STEP_KEY] == str(number) and f"Step {number} of 8" in texts(at.caption)
    assert at.get("plotly_chart") and len(notices(at)) == 1
    assert not any(READING in i or READING_RESULTS in i for i in texts(at.info))  # the reading line went away
    assert any(step.question in m for m in texts(at.markdown))


def walk(at: AppTest) -> None:
    """Every step with Next, then back to the first with Back."""
    check_step(at, 1)
    for number in range(2, 9):
        at.button(key="lesson_next").click().run()
        check_step(at, number)
    at.button(key="lesson_next").click().run()
    assert [h.value for h in at.header] == ["Glossary"]
    for number in range(8, 0, -1):
        at.button(key="lesson_back").click().run()
        check_step(at, number)
    assert at.button(key="lesson_back").disabled


def test_every_step_with_next_and_back(fake_model: str, cache_dir: Path) -> None:
    at = page(PAGE, fake_model).run()
    assert page_html(at) == []  # the usual type outside the presenter view
    walk(at)
    assert "Download the handout (HTML)" in [b.proto.label for b in at.get("download_button")]
    assert json.loads(at.get("plotly_chart")[0].proto.config)["displayModeBar"] == "hover"  # plotly's as usual


def test_the_class_edits_the_sentence(fake_model: str, cache_dir: Path) -> None:
    at = page(PAGE, fake_model)
    at.session_state[STEP_KEY] = "3"
    at.run()
    before = notices(at)[0]
    at.text_input(key=field_key(LESSON[2], "sentence")).input("We barely had time for lunch, let alone dinner.").run()
    no_errors(at)
    assert notices(at)[0] != before and "'dinner.' is" in notices(at)[0]
    at.text_input(key=field_key(LESSON[2], "sentence")).input("The weather is nice today.").run()
    assert not at.exception and any("No Paired-Focus construction found" in e for e in texts(at.error))


def test_a_link_reopens_a_step_in_the_presenter_view(fake_model: str, cache_dir: Path) -> None:
    at = page(PAGE, fake_model)
    at.query_params["step"] = "5"
    at.query_params["presenter"] = "1"
    at.query_params["sentence"] = "We can't sing an ugly song, much less a beautiful one."
    at.query_params["colour"] = "blue"
    at.run()
    check_step(at, 5)
    assert at.toggle(key="lesson_presenter").value is True
    assert page_html(at) == [PRESENTER_CSS]  # large type
    layout = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    assert layout["font"]["size"] == PROJECTOR_FONT and layout["height"] <= FIT_HEIGHT  # fits 1280x720
    config = json.loads(at.get("plotly_chart")[0].proto.config)  # no toolbar over a long title on a projector
    assert config["displayModeBar"] is False and "Download chart (HTML)" in [
        b.proto.label for b in at.get("download_button")]
    assert "much less" in notices(at)[0]
    assert any("colour (not a setting of this page)" in c for c in texts(at.caption))
    assert at.query_params["step"] in ("5", ["5"]) and at.query_params["presenter"] in ("1", ["1"])


def test_the_glossary_opens_at_a_word(fake_model: str, cache_dir: Path) -> None:
    at = page(PAGE, fake_model)
    at.query_params["step"] = "glossary"
    at.query_params["term"] = "surprisal"
    at.run()
    no_errors(at)
    assert texts(at.info) == [f"**surprisal**: {TERMS['surprisal'].definition}"]
    assert {s.value for s in at.subheader} >= {t.word for t in TERMS.values()}


def test_step_8_hands_the_sentence_to_the_probe(fake_model: str, cache_dir: Path) -> None:
    at = page(PAGE, fake_model)
    at.session_state[STEP_KEY] = "8"
    at.run()
    no_errors(at)
    assert any("(/Probe?sentence=She+can%27t+afford+a+bike%2C+much+less+a+car.)" in m for m in texts(at.markdown))


def test_a_masked_model_is_told_step_1_does_not_apply(tiny_bert: Path, cache_dir: Path) -> None:
    at = page(PAGE, tiny_bert, kind="masked").run()
    assert not at.exception
    assert any("does not apply to a masked model" in e for e in texts(at.error))
    at.button(key="lesson_next").click().run()
    no_errors(at)  # the other steps work with a masked model (PLL scores)


@pytest.mark.slow
def test_every_step_with_the_default_model(default_model_cache: Path) -> None:
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=600).run()
    assert "smollm2-135m-instruct-q4_1" in texts(at.sidebar.success)[0]
    walk(at)


def test_the_presenter_view_asks_before_it_shows(fake_model: str, cache_dir: Path) -> None:
    """Issue 37: "Before you look..." stood under the chart that answers it. In the presenter view the
    question comes first and the chart waits until the teacher reveals it; Back and Next answer the
    arrow keys."""
    at = page(PAGE, fake_model)
    at.query_params["presenter"] = "1"
    at.run()
    no_errors(at)
    assert LESSON[0].question.startswith("Before you look")
    assert not at.get("plotly_chart") and not notices(at)
    assert any(LESSON[0].question in m for m in texts(at.markdown))
    at.toggle(key="lesson_reveal_1").set_value(True).run()
    check_step(at, 1)
    assert [m for m in texts(at.markdown) if LESSON[0].question in m] != []
    assert (at.button(key="lesson_back").proto.shortcut, at.button(key="lesson_next").proto.shortcut) == (
        "left", "right")
