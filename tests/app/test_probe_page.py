"""The Probe page on the probe engine (issue "Probe any sentence the way the paper would"): Enter
scores, both orders in the verdict and its table, one decision in a neutral box, proposed
follow-ups that are shown before anything is scored, the base rate beside the verdict with its n,
the key columns first, no "None" or signed-zero cells, titles that fit, units in the downloads'
column names, and a Copy link that copies. The fake scorer serves the page's logic; the base rate
needs a real run (the tiny GPT-2)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pfcore.models import ModelSpec
from pfcore.plots.common import TITLE_WIDTH
from pfcore.probe import FRAME_EXAMPLE
from pfcore.probe.propose import WORKING_EXAMPLE
from pfcore.runs.runner import RunConfig, run_suite
from pfcore.scoring.kinds.fake import ENABLE_VAR, FAKE_MODEL
from tests.app_helpers import frame_with, no_errors, page, texts

LUNCH = "We barely had time for lunch, let alone dinner."
HOTEL = "The hotel was noisy, not to mention the cost."
COST = ("The cost was high too.", "The cost was low.")
PAGE = "pages/1_Probe.py"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> str:
    """The deterministic stand-in scorer, on a private cache."""
    monkeypatch.setenv(ENABLE_VAR, "1")
    return FAKE_MODEL


def typed(at: AppTest, sentence: str) -> AppTest:
    """Type a sentence into the one-line box and press Enter (AppTest commits it and reruns)."""
    at.text_input(key="probe_text").input(sentence).run()
    no_errors(at)
    return at


def type_pair(at: AppTest, sentence: str, entailed: str, contradicted: str) -> AppTest:
    """Type one follow-up pair for a sentence."""
    at.text_input(key=f"probe_ent_0_{sentence}").input(entailed)
    at.text_input(key=f"probe_con_0_{sentence}").input(contradicted).run()
    no_errors(at)
    return at


def banners(at: AppTest) -> str:
    """The coloured boxes' text (success, warning, info)."""
    return " ".join(texts(at.success) + texts(at.warning) + texts(at.info))


def test_the_sentence_is_a_one_line_box_that_enter_scores(fake: str) -> None:
    at = page(PAGE, fake).run()
    no_errors(at)
    assert not at.text_area and at.text_input(key="probe_text").value == FRAME_EXAMPLE
    assert [b.label for b in at.button if b.key == "probe_score"] == ["Score"]
    typed(at, LUNCH)
    assert any(LUNCH in m for m in texts(at.markdown))


def test_both_orders_are_in_the_verdict_and_its_table(fake: str) -> None:
    at = typed(page(PAGE, fake).run(), LUNCH)
    type_pair(at, LUNCH, "Having time for dinner is harder than having time for lunch.",
              "Having time for lunch is harder than having time for dinner.")
    verdict = banners(at)
    assert "as typed: " in verdict and "swapped: " in verdict and "of 2 decisions" in verdict
    decisions = frame_with(at, "base_rate")  # the key columns, first
    assert list(decisions.columns)[:4] == ["model", "condition", "context", "correct"]
    assert list(decisions["condition"]) == ["pair 1, as typed", "pair 1, swapped"]
    assert list(decisions["context"]) == [LUNCH, "We barely had time for dinner, let alone lunch."]
    assert any("**Swapped** (foci exchanged): We barely had time for dinner, let alone lunch." in m
               for m in texts(at.markdown))
    full = frame_with(at, "shift_construction_bits_per_token")  # the rest, folded away
    assert list(full["origin"]) == ["typed", "typed"]


def test_one_decision_is_shown_as_one_in_a_neutral_box_with_why(fake: str) -> None:
    at = typed(page(PAGE, fake).run(), HOTEL)
    type_pair(at, HOTEL, *COST)
    assert len(frame_with(at, "base_rate")) == 1
    assert "one decision:" not in " ".join(texts(at.success) + texts(at.warning))  # no green or yellow verdict
    line = next(m for m in texts(at.markdown) if f"**{fake}: one decision:" in m)
    assert "'not to mention' moved the model" in line
    assert any("not the same kind of phrase" in i and "only the sentence as typed" in i for i in texts(at.info))


def test_proposed_follow_ups_are_shown_then_scored_only_when_used(fake: str) -> None:
    at = typed(page(PAGE, fake).run(), LUNCH)
    proposal = next(m for m in texts(at.markdown) if m.startswith("**Proposed follow-ups**"))
    assert "Having time for lunch is easier than having time for dinner." in proposal
    assert not [f for f in at.dataframe if "base_rate" in f.value.columns]  # nothing scored before it is seen
    assert any("Type a follow-up pair" in i and "Having time for lunch" in i for i in texts(at.info))
    entailed = at.text_input(key=f"probe_ent_0_{LUNCH}")
    assert entailed.placeholder == "e.g. Having time for lunch is easier than having time for dinner."
    at.button(key=f"probe_use_{LUNCH}").click().run()
    no_errors(at)
    assert at.text_input(key=f"probe_ent_0_{LUNCH}").value.startswith("Having time for lunch")  # editable there
    full = frame_with(at, "shift_construction_bits_per_token")
    assert list(full["origin"]) == ["proposed", "proposed"] and len(full) == 2


def test_no_proposal_says_why_and_the_hints_follow_the_sentence(fake: str) -> None:
    sentence = HOTEL
    at = typed(page(PAGE, fake).run(), sentence)
    why = next(i for i in texts(at.info) if i.startswith("No follow-ups are proposed"))
    assert "not the same kind of phrase" in why and WORKING_EXAMPLE in why  # why, and an example that gets one
    placeholder = at.text_input(key=f"probe_ent_0_{sentence}").placeholder
    assert "'noisy'" in placeholder and "'the cost'" in placeholder
    everything = " ".join(texts(at.info) + texts(at.markdown) + texts(at.caption) + [placeholder])
    assert "Squid" not in everything and "shrimp" not in everything


def test_a_proposal_that_fails_its_check_is_shown_as_not_scored(fake: str) -> None:
    sentence = "The hike was hard for adults, not to mention for small children."
    at = typed(page(PAGE, fake).run(), sentence)
    shown = next(i for i in texts(at.info) if i.startswith("**Proposed follow-ups, not scored**"))
    assert "Being hard for adults" in shown and "so it is not scored" in shown
    assert not [b for b in at.button if b.key == f"probe_use_{sentence}"]  # nothing to put in a row
    assert "e.g." not in at.text_input(key=f"probe_ent_0_{sentence}").placeholder


def test_a_swapped_sentence_that_fails_its_check_is_named_and_left_out(fake: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pfcore.probe.swap.broken_parse", lambda probe, swapped: f"'{swapped.text}' is not scored: X")
    at = typed(page(PAGE, fake).run(), LUNCH)
    type_pair(at, LUNCH, "Having time for dinner is harder than having time for lunch.",
              "Having time for lunch is harder than having time for dinner.")
    assert list(frame_with(at, "base_rate")["condition"]) == ["pair 1, as typed"]
    assert any("'We barely had time for dinner, let alone lunch.' is not scored: X" in i for i in texts(at.info))


def test_the_decision_picker_names_the_current_sentence(fake: str) -> None:
    at = page(PAGE, fake).run()
    first = at.selectbox[0]
    assert "Lifting a tiny rock" in first.value
    typed(at, "You couldn't paint an ugly picture, let alone a beautiful one.")
    picker = next(s for s in at.selectbox if s.label == "Decision")
    assert picker.key != first.key and "Painting an ugly picture" in picker.value
    assert all("Painting" in option for option in picker.options)


def test_no_none_or_signed_zero_cells_and_titles_that_fit(fake: str) -> None:
    at = page(PAGE, fake).run()
    for frame in at.dataframe:
        assert frame.proto.placeholder == "–"  # a missing value never reads "None"
        for name, config in json.loads(frame.proto.columns).items():
            fmt = config.get("type_config", {}).get("format", "")
            assert not (fmt.startswith("%+.") and fmt.endswith("f")), (name, fmt)  # "%+.2f" prints -0.00
        values = frame.value.select_dtypes("float").to_numpy().ravel()
        assert not any(v == 0 and str(v).startswith("-") for v in values)
    words = frame_with(at, "difference_bits")
    assert words["surprisal_construction_bits"].isna().iloc[0]  # the first word: shown as "–"
    for chart in at.get("plotly_chart"):
        layout = json.loads(chart.proto.spec)["layout"]
        lines = layout["title"]["text"].split("<br>")
        assert all(len(line) <= TITLE_WIDTH for line in lines)
        subtitles = [a for a in layout.get("annotations", []) if a.get("yref") == "paper" and a.get("y", 0) >= 1]
        room = layout["margin"]["t"]
        assert room >= 24 + 22 * len(lines) + (28 if subtitles else 0)  # the title has its own room
    assert [t.label for t in at.toggle if t.key == "probe_corrected"] == ["Beginning-of-word correction"]


def test_copy_link_is_one_button_that_copies(fake: str) -> None:
    at = page(PAGE, fake).run()
    button = next(h.proto.body for h in at.get("html") if "Copy link" in h.proto.body)
    assert "navigator.clipboard.writeText" in button and "sentence=You+couldn%27t" in button
    assert not at.get("popover")
    assert "onclick" not in button and "<script>" in button  # the page's sanitizer drops inline handlers


def test_the_base_rate_is_beside_the_verdict_with_its_n(tiny_gpt2: Path, cache_dir: Path) -> None:
    record = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(suite="semantic", constructions=("let_alone",),
                                                            limit_blocks=1))
    at = page(PAGE, tiny_gpt2).run()
    no_errors(at)
    line = next(m for m in texts(at.markdown) if m.startswith(f"**Base rate** ({tiny_gpt2})"))
    assert "n = 4" in line and "95% interval" in line and record.manifest.run_id in line
    assert "too small to say much" in line
    rates = frame_with(at, "base_rate")["base_rate"]
    assert all("(n = 1, 95% " in r and "too small to say much" in r for r in rates)  # one block: n = 1 each
