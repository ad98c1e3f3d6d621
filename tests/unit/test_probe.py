"""The Probe engine: finding the construction and its foci, the paper's frame, and the scores."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pfcore.errors import InputError
from pfcore.items import generate_semantic, generate_syntax, load_lexicon
from pfcore.models import ModelSpec
from pfcore.probe import EXAMPLES, MAX_CHARS, analyze_sentence, score_manipulations, score_probe
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import load_model
from pfcore.scoring.pll import PllRequestScorer
from pfcore.scoring.requests import Request
from pfcore.store.cache import ScoreCache
from pfcore.suites.semantic import filled

ROCK = "You couldn't lift a tiny rock, let alone a huge one."
EASIER = "Lifting a tiny rock is easier than lifting a huge rock."
HARDER = "Lifting a tiny rock is harder than lifting a huge rock."


@pytest.fixture(scope="module")
def scorer(tiny_gpt2: Path) -> CausalScorer:
    """A causal scorer on the tiny GPT-2."""
    return CausalScorer(load_model(ModelSpec(str(tiny_gpt2))))


@pytest.mark.parametrize("text, name, focus1, focus2, control", [
    ("He doesn't like shrimp, let alone squid.", "let_alone", "shrimp", "squid",
     "He doesn't like shrimp, or squid."),
    ("She can't afford a bike, much less a car.", "much_less", "a bike", "a car",
     "She can't afford a bike, or a car."),
    ("The hotel was noisy, not to mention dirty.", "not_to_mention", "noisy", "dirty",
     "The hotel was noisy, or dirty."),
    ("I can't even boil water, never mind cook a meal.", "never_mind", "boil water", "cook a meal",
     "I can't even boil water, or cook a meal."),
    ("  he doesn't like   shrimp LET  ALONE squid, or so he says", "let_alone", "shrimp", "squid",
     "he doesn't like shrimp or squid, or so he says"),
    (ROCK, "let_alone", "a tiny rock", "a huge one", "You couldn't lift a tiny rock, or a huge one."),
    ("He can\u2019t swim, let alone dive into cold water.", "let_alone", "swim", "dive into cold water",
     "He can\u2019t swim, or dive into cold water."),
])
def test_finds_the_construction_its_foci_and_the_or_control(text: str, name: str, focus1: str,
                                                             focus2: str, control: str) -> None:
    probe = analyze_sentence(text)
    assert (probe.construction, probe.focus1, probe.focus2, probe.control) == (name, focus1, focus2, control)
    assert probe.text[slice(*probe.span)].lower() == probe.connective == name.replace("_", " ")
    assert focus1 in probe.message and focus2 in probe.message


def test_each_example_shows_its_own_construction() -> None:
    assert {name: analyze_sentence(text).construction for name, text in EXAMPLES.items()} == \
        {name: name for name in EXAMPLES}


def test_a_sentence_without_construction_gets_the_four_connectives() -> None:
    probe = analyze_sentence("The cat sat on the mat.")
    assert probe.construction is None and not probe.fits_frame and probe.proposed is None
    for name, example in EXAMPLES.items():
        assert f"{name.replace('_', ' ')}: {example}" in probe.message


def test_a_connective_without_both_sides_is_not_a_construction() -> None:
    probe = analyze_sentence("Never mind.")
    assert probe.construction is None
    assert "'never mind' needs a clause before it and a focus after it" in probe.message


@pytest.mark.parametrize("text, message", [(" \n\t ", "type a sentence"),
                                           ("x" * (MAX_CHARS + 1), f"at most {MAX_CHARS}")])
def test_empty_and_huge_input_are_refused(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        analyze_sentence(text)


def test_the_papers_frame_gets_the_generators_follow_ups() -> None:
    probe = analyze_sentence(ROCK)
    assert probe.fits_frame and probe.frame is not None
    assert (probe.frame.frame, probe.frame.pronoun, probe.frame.modal, probe.frame.first_adj,
            probe.frame.second_adj, probe.frame.aligned) == (
        "lift rock (small-large)", "You", "couldn't", "tiny", "huge", True)
    assert probe.proposed == (EASIER, HARDER)
    item = next(i for i in generate_semantic(load_lexicon(), "let_alone")
                if i.context == ROCK and i.followup_order == "same")
    assert probe.proposed == (filled(item, "easier"), filled(item, "harder"))


def test_any_pronoun_and_the_misaligned_order_fit_the_frame() -> None:
    probe = analyze_sentence("I can\u2019t pick up a huge rock much less a small one")
    assert probe.fits_frame and probe.frame is not None and not probe.frame.aligned
    assert (probe.frame.pronoun, probe.frame.verb) == ("I", "pick up")
    assert probe.proposed == ("Picking up a huge rock is easier than picking up a small rock.",
                              "Picking up a huge rock is harder than picking up a small rock.")
    assert "misaligned" in probe.message
    assert probe.manipulations[0].sentence == "I can pick up a huge rock, much less a small one."


@pytest.mark.parametrize("text", ["You couldn't lift a tiny rock, let alone a small one.",
                                  "You couldn't lift a tiny song, let alone a huge one.",
                                  "He doesn't like shrimp, let alone squid."])
def test_sentences_outside_the_frame_get_no_proposals(text: str) -> None:
    probe = analyze_sentence(text)
    assert probe.construction == "let_alone"
    assert not probe.fits_frame and probe.proposed is None and probe.manipulations == ()


def test_manipulations_are_the_generators_for_the_same_base() -> None:
    probe = analyze_sentence(ROCK)
    base = {"frame": "lift rock (small-large)", "weak_adj": "tiny", "strong_adj": "huge",
            "pronoun": "You", "modal": "couldn't", "repeat": 0}
    made = {(i.construction, i.manipulation): i.sentence for i in generate_syntax(load_lexicon(), "let_alone")
            if all(getattr(i, k) == v for k, v in base.items())}
    assert [m.name for m in probe.manipulations] == ["NPI", "Pseudocleft", "CP Conjunction",
                                                     "VP Conjunction", "VP Gap Conjunction"]
    for m in probe.manipulations:
        assert (m.sentence, m.control, m.base, m.control_base) == (
            made[("let_alone", m.name)], made[("and", m.name)], made[("let_alone", "base")],
            made[("and", "base")])
    assert made[("let_alone", "base")] == ROCK


def test_switching_constructions_keeps_the_sentence_and_its_control() -> None:
    probe = analyze_sentence(ROCK)
    assert set(probe.choices) == {"let_alone", "much_less", "not_to_mention", "never_mind"}
    for name, words in probe.choices.items():
        other = probe.with_construction(name)
        assert other.text == ROCK.replace("let alone", words)
        assert (other.construction, other.control, other.frame) == (name, probe.control, probe.frame)
        assert other.manipulations[0].sentence == f"You could lift a tiny rock, {words} a huge one."
    with pytest.raises(InputError, match="choose one of"):
        probe.with_construction("even")
    with pytest.raises(InputError, match="no construction to switch"):
        analyze_sentence("The cat sat.").with_construction("let_alone")


def test_score_probe_equals_direct_scores(scorer: CausalScorer) -> None:
    probe = analyze_sentence(ROCK)
    result = score_probe(scorer, probe, *probe.proposed, reduction="sum", top_k=3)
    control = probe.control
    e_c, c_c, e_o, c_o = scorer.conditional_logprobs([ROCK, ROCK, control, control],
                                                     [EASIER, HARDER, EASIER, HARDER])
    assert list(result.logprobs["logprob"]) == pytest.approx([e_c, c_c, e_o, c_o], abs=1e-6)
    assert result.shift_construction == pytest.approx(e_c - c_c, abs=1e-6)
    assert result.shift_control == pytest.approx(e_o - c_o, abs=1e-6)
    assert result.effect == pytest.approx((e_c - c_c) - (e_o - c_o), abs=1e-6)
    assert result.correct == (result.effect > 0)
    assert ("does not" in result.verdict) != result.correct
    mean = score_probe(scorer, probe, EASIER, HARDER, reduction="mean")
    direct = scorer.conditional_logprobs([ROCK, ROCK], [EASIER, HARDER], "mean")
    assert mean.shift_construction == pytest.approx(direct[0] - direct[1], abs=1e-6)
    assert "bits per token" in mean.verdict


def test_token_tables_mark_the_unscored_first_token(scorer: CausalScorer) -> None:
    result = score_probe(scorer, analyze_sentence(ROCK), EASIER, HARDER)
    tokens = result.tokens
    assert set(tokens["sentence"]) == {"construction", "control", "entailed | construction",
                                       "contradicted | construction", "entailed | control",
                                       "contradicted | control"}
    whole = tokens[tokens["sentence"] == "construction"]
    direct = scorer.score([Request("", ROCK)])[0]
    first = scorer.display_tokens(scorer.encode(Request("", ROCK)).ids[:1])
    assert list(whole["token"]) == list(first + direct.tokens)
    assert not whole["scored"].iloc[0] and np.isnan(whole["logprob"].iloc[0])
    assert whole["scored"].iloc[1:].all()
    assert np.allclose(whole["logprob"].iloc[1:], direct.logprobs, atol=1e-6)
    assert np.allclose(whole["surprisal_bits"].iloc[1:], direct.surprisals_bits, atol=1e-6)
    followup = tokens[tokens["sentence"] == "entailed | control"]
    assert followup["scored"].all() and list(followup["position"]) == list(range(len(followup)))


def test_moved_most_are_the_largest_surprisal_changes(scorer: CausalScorer) -> None:
    result = score_probe(scorer, analyze_sentence(ROCK), EASIER, HARDER, top_k=4)
    tokens = result.tokens.set_index(["sentence", "position"])["surprisal_bits"]
    changes = {(f, p): tokens[(f"{f} | construction", p)] - tokens[(f"{f} | control", p)]
               for f in ("entailed", "contradicted")
               for p in result.tokens.loc[result.tokens["sentence"] == f"{f} | control", "position"]}
    largest = sorted(changes.values(), key=abs, reverse=True)[:4]
    assert list(result.moved_most["change_bits"]) == pytest.approx(largest, abs=1e-9)
    moved = result.tokens[result.tokens["moved"]]
    assert set(zip(moved["part"], moved["position"])) == set(
        zip(result.moved_most["followup"], result.moved_most["position"]))


@pytest.mark.parametrize("follow_ups, message", [(("", HARDER), "type an entailed follow-up"),
                                                 ((EASIER, "  "), "type a contradicted follow-up"),
                                                 ((EASIER, f" {EASIER} "), "are the same")])
def test_score_probe_refuses_bad_follow_ups(scorer: CausalScorer, follow_ups: tuple[str, str],
                                            message: str) -> None:
    with pytest.raises(InputError, match=message):
        score_probe(scorer, analyze_sentence(ROCK), *follow_ups)


def test_score_probe_refuses_a_sentence_without_construction(scorer: CausalScorer) -> None:
    with pytest.raises(InputError, match="No Paired-Focus construction found"):
        score_probe(scorer, analyze_sentence("The cat sat."), EASIER, HARDER)


def test_cached_scores_are_the_same(scorer: CausalScorer, cache_dir: Path) -> None:
    probe = analyze_sentence("He doesn't like shrimp, let alone squid.")
    follow_ups = ("He doesn't like squid either.", "He likes squid.")
    plain = score_probe(scorer, probe, *follow_ups)
    with ScoreCache(cache_dir / "scores.sqlite") as cache:
        first, again = (score_probe(scorer, probe, *follow_ups, cache=cache) for _ in range(2))
        assert first.effect == again.effect == pytest.approx(plain.effect, abs=1e-6)
        assert again.tokens["token"].tolist() == plain.tokens["token"].tolist()


def test_score_manipulations_follow_the_syntactic_suite(scorer: CausalScorer) -> None:
    probe = analyze_sentence(ROCK)
    table = score_manipulations(scorer, probe).set_index("manipulation")
    for m in probe.manipulations:
        cxn, cxn_base, ctl, ctl_base = scorer.sequence_logprobs(
            [m.sentence, m.base, m.control, m.control_base], "mean")
        row = table.loc[m.name]
        assert row["rise_construction"] == pytest.approx(cxn_base - cxn, abs=1e-6)
        assert row["rise_and"] == pytest.approx(ctl_base - ctl, abs=1e-6)
        assert row["correct"] == (row["rise_construction"] > row["rise_and"])
        assert (row["sentence"], row["sentence_and"], row["kind"]) == (m.sentence, m.control, m.kind)
    with pytest.raises(InputError, match="paper's frame"):
        score_manipulations(scorer, analyze_sentence("He doesn't like shrimp, let alone squid."))


def test_masked_models_score_through_pll(tiny_bert: Path) -> None:
    pll = PllRequestScorer(load_model(ModelSpec(str(tiny_bert), kind="masked")), ScoringMethod.PLL_L2R)
    probe = analyze_sentence(ROCK)
    result = score_probe(pll, probe, EASIER, HARDER, reduction="sum")
    direct = [s.reduce("sum") for s in pll.score([Request(ROCK, EASIER), Request(ROCK, HARDER)])]
    assert result.shift_construction == pytest.approx(direct[0] - direct[1], abs=1e-6)
    assert result.tokens.loc[result.tokens["sentence"] == "construction", "scored"].all()
    assert len(score_manipulations(pll, probe)) == len(probe.manipulations)
