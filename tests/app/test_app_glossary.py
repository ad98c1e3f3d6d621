"""The words the pages use link to the lesson's glossary, and the Home page's examples open in the
Probe (issue "Teaching": the help was a plain-text pointer to a manual, the examples could not be
clicked)."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from pfcore.glossary import TERMS, glossary_line, glossary_link
from tests.app_helpers import no_errors, page, texts

LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
PAGES = ("app.py", "pages/1_Probe.py", "pages/2_Items.py", "pages/3_Run.py", "pages/4_Models.py",
         "pages/5_Trajectories.py", "pages/6_Stimuli.py")


def glossary_links(at) -> dict[str, str]:
    """The glossary entries the line under the page's intro links to: word -> link."""
    line = next((m.value for m in at.markdown if "Words used here" in m.value), "")
    assert not line or line.startswith(":small[") and line.endswith("]")  # small type, under the intro
    return dict(LINK.findall(line.removeprefix(":small[").removesuffix("]")))


@pytest.mark.parametrize("script", PAGES)
def test_every_page_links_its_words_to_the_glossary(script: str, fake_model: str, cache_dir: Path) -> None:
    at = page(script, fake_model)
    at.run()
    assert not at.exception, texts(at.exception)
    links = glossary_links(at)
    assert links, "no line of glossary links under the intro"
    by_word = {term.word: term.key for term in TERMS.values()}
    for word, link in links.items():
        assert link == glossary_link(by_word[word])  # each opens the glossary at its own entry


def test_the_probe_links_the_jargon_it_uses(fake_model: str, cache_dir: Path) -> None:
    at = page("pages/1_Probe.py", fake_model)
    at.run()
    words = set(glossary_links(at))
    assert {"surprisal", "bit", "ΔP (also called the shift)", "ΔP difference (also called the effect)", "decision",
            "base rate", "interval (95% interval)", "beginning-of-word correction"} <= words
    assert not {"shift", "effect"} & words  # one name, ΔP, with the Probe's old names only as "also called"


def test_an_old_link_to_shift_opens_delta_p(fake_model: str, cache_dir: Path) -> None:
    at = page("pages/7_Lesson.py", fake_model)
    at.query_params["step"] = "glossary"
    at.query_params["term"] = "shift"
    at.run()
    no_errors(at)
    assert texts(at.info) == [f"**{TERMS['delta-p'].word}**: {TERMS['delta-p'].definition}"]


def test_a_line_of_links_for_the_given_words_only() -> None:
    line = glossary_line(["bos", "pll"])
    assert LINK.findall(line) == [(TERMS["bos"].word, glossary_link("bos")), (TERMS["pll"].word, glossary_link("pll"))]
    assert glossary_line([]) == ""


def test_home_examples_open_in_the_probe(fake_model: str, cache_dir: Path) -> None:
    at = page("app.py", fake_model)  # Home, through the app's navigation (its page links need it)
    at.run()
    no_errors(at)
    intro = next(m.value for m in at.markdown if "Paired-Focus constructions" in m.value)
    examples = [(text.strip("*"), link) for text, link in LINK.findall(intro)]
    assert len(examples) == 4
    for sentence, link in examples:
        assert urlsplit(link).path == "/Probe"
        assert parse_qs(urlsplit(link).query)["sentence"] == [sentence]


def test_a_home_example_opened_in_the_probe_is_scored(fake_model: str, cache_dir: Path) -> None:
    at = page("pages/1_Probe.py", fake_model)
    at.query_params["sentence"] = "I can't afford a bike, much less a car."
    at.run()
    no_errors(at)
    assert at.text_input(key="probe_text").value == "I can't afford a bike, much less a car."
    assert at.get("segmented_control")[0].value == "much_less"  # the construction found in it
