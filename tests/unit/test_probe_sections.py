"""One Probe request in one scorer call (issue 21): every section's requests (words, decisions with
the swapped sentence, the chosen decision's detail, manipulations) go through one `score_cached`
call, and each section comes out as the function that scores it alone gives it."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pfcore.models import ModelSpec
from pfcore.probe import analyze_sentence, probe_sentence, score_manipulations, score_probe
from pfcore.probe.sections import ALL_SECTIONS, Section, probe_sections
from pfcore.probe.swap import swap_foci
from pfcore.probe.words import sentence_words
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import load_model
from pfcore.scoring.pll import PllRequestScorer
from pfcore.scoring.requests import Progress, Request, RequestScorer, TokenScores
from pfcore.store.cache import ScoreCache
from tests.cli.test_probe_verdict import suite_decisions

ROCK = "You couldn't lift a tiny rock, let alone a huge one."
SHRIMP = "He doesn't like shrimp, let alone squid."
PAIR = ("He doesn't like squid either.", "He likes squid.")
TOL = 1e-6  # one prefix tree for all sections packs the requests differently: float noise only


class Counting:
    """A scorer that records the size of each `score` call (its BOW variant records into the same list)."""

    def __init__(self, inner: RequestScorer, calls: list[int] | None = None) -> None:
        self.inner, self.calls = inner, calls if calls is not None else []

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """Score with the wrapped scorer, recording how many requests were asked for."""
        self.calls.append(len(requests))
        return self.inner.score(requests, progress)

    def bow_scorer(self) -> Counting | None:
        """The wrapped scorer's BOW variant, counted into the same list."""
        bow = self.inner.bow_scorer()
        return None if bow is None else Counting(bow, self.calls)


@pytest.fixture(scope="module")
def scorer(tiny_gpt2: Path) -> CausalScorer:
    """A causal scorer on the tiny GPT-2."""
    return CausalScorer(load_model(ModelSpec(str(tiny_gpt2))))


def test_every_section_of_a_frame_sentence_is_one_scorer_call(scorer: CausalScorer) -> None:
    counting = Counting(scorer)
    result = probe_sections(counting, analyze_sentence(ROCK))
    assert len(counting.calls) == 1
    assert counting.calls[0] == 2 + 16 + 6 + len(result.probe.syntax_items)  # words, block, detail, manipulations
    assert result.words is not None and result.verdict is not None and result.detail is not None
    assert result.manipulations is not None


def test_sections_are_what_each_function_gives_alone(scorer: CausalScorer) -> None:
    probe = analyze_sentence(ROCK)
    result = probe_sections(scorer, probe, detail=2)
    alone = probe_sentence(scorer, probe)
    assert result.verdict is not None and result.words is not None and result.detail is not None
    assert [(d.condition, d.context, d.entailed, d.correct) for d in result.verdict.decisions] == \
        [(d.condition, d.context, d.entailed, d.correct) for d in alone.decisions]
    assert [d.effect for d in result.verdict.decisions] == pytest.approx([d.effect for d in alone.decisions], abs=TOL)
    words = sentence_words(scorer, probe, None)
    pd.testing.assert_frame_equal(result.words, words, atol=TOL, rtol=0)
    picked = alone.decisions[2]
    detail = score_probe(scorer, analyze_sentence(picked.context), picked.entailed, picked.contradicted)
    assert (result.detail.entailed, result.detail.probe.text) == (picked.entailed, picked.context)
    assert result.detail.effect == pytest.approx(detail.effect, abs=TOL)
    assert np.allclose(result.detail.tokens["surprisal_bits"], detail.tokens["surprisal_bits"], atol=TOL,
                       equal_nan=True)
    assert result.manipulations is not None
    rises = score_manipulations(scorer, probe)
    assert list(result.manipulations["correct"]) == list(rises["correct"])
    assert np.allclose(result.manipulations["rise_construction"], rises["rise_construction"], atol=TOL)


def test_a_frame_sentence_keeps_the_suites_four_decisions(tiny_gpt2: Path, scorer: CausalScorer,
                                                          cache_dir: Path, tmp_path: Path) -> None:
    """Held to the paper: the same four decisions as `run --suite semantic` on the block, none added."""
    verdict = probe_sections(scorer, analyze_sentence(ROCK), sections={Section.DECISIONS}).verdict
    assert verdict is not None and verdict.swap_note == ""
    assert [d.condition for d in verdict.decisions] == ["aligned1", "aligned2", "misaligned1", "misaligned2"]
    assert verdict.swapped == "You couldn't lift a huge rock, let alone a tiny one."
    suite = suite_decisions(tiny_gpt2, ROCK, tmp_path)
    signs = {"aligned1": 1, "aligned2": -1, "misaligned1": -1, "misaligned2": 1}
    for d in verdict.decisions:
        assert d.correct == suite[d.condition]["correct"] and d.origin == "suite"
        assert d.effect == pytest.approx(signs[d.condition] * suite[d.condition]["effect"], abs=TOL)


def test_a_free_sentence_shows_the_swapped_decision_in_detail(scorer: CausalScorer) -> None:
    probe = analyze_sentence(SHRIMP)
    counting = Counting(scorer)
    result = probe_sections(counting, probe, pairs=[PAIR], detail=1)
    assert len(counting.calls) == 1 and result.manipulations is None
    assert result.verdict is not None and result.detail is not None
    swapped = swap_foci(probe).probe
    assert swapped is not None and result.detail.probe.text == swapped.text
    alone = score_probe(scorer, swapped, PAIR[1], PAIR[0])
    assert result.detail.effect == pytest.approx(alone.effect, abs=TOL)
    assert result.verdict.decisions[1].effect == pytest.approx(alone.effect, abs=TOL)


def test_words_first_then_the_rest_reads_the_words_from_the_cache(scorer: CausalScorer, cache_dir: Path) -> None:
    """What the page does: the word chart first, then every section; the second call scores only
    what the first did not."""
    probe = analyze_sentence(ROCK)
    with ScoreCache(cache_dir / "scores.sqlite") as cache:
        first = probe_sections(scorer, probe, sections={Section.WORDS}, cache=cache)
        assert (first.stats.cached, first.stats.scored) == (0, 2) and first.verdict is None
        rest = probe_sections(scorer, probe, sections=ALL_SECTIONS, cache=cache)
        assert rest.stats.cached == 2 and rest.stats.scored > 0  # the two sentences, scored whole
        assert rest.words is not None and first.words is not None
        pd.testing.assert_frame_equal(rest.words, first.words)
        again = probe_sections(scorer, probe, cache=cache)
        assert again.stats.scored == 0


def test_without_decisions_the_verdict_is_absent(scorer: CausalScorer) -> None:
    result = probe_sections(scorer, analyze_sentence(SHRIMP))
    assert result.verdict is None and result.detail is None and result.manipulations is None
    assert result.words is not None and list(result.words["word"])[-1] == "squid."


def test_a_masked_model_goes_through_its_plain_scorer(tiny_bert: Path) -> None:
    pll = PllRequestScorer(load_model(ModelSpec(str(tiny_bert), kind="masked")), ScoringMethod.PLL_L2R)
    probe = analyze_sentence(ROCK)
    result = probe_sections(pll, probe, reduction="sum")
    alone = probe_sentence(pll, probe, reduction="sum")
    assert result.verdict is not None
    assert [d.effect for d in result.verdict.decisions] == pytest.approx([d.effect for d in alone.decisions],
                                                                         abs=TOL)
