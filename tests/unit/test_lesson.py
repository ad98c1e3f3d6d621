"""The lesson engine: every step computes on the fake scorer and the tiny GPT-2, each "what to notice"
line follows its step's numbers (changed numbers, changed line), bad sentences are one-line problems,
the glossary's links, and the self-contained handout."""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from pfcore.errors import InputError
from pfcore.glossary import TERMS
from pfcore.lesson import GLOSSARY, LESSON, LessonContext, StepResult, glossary_link, lesson_step, run_lesson, run_step
from pfcore.lesson.handout import handout_html, inline
from pfcore.lesson.notice import Numbers
from pfcore.models import ModelSpec
from pfcore.plots.lesson import PROJECTOR_FONT, projector
from pfcore.scoring.factory import LazyScorer
from pfcore.scoring.fake import FakeScorer
from pfcore.scoring.methods import ScoringMethod
from pfcore.store.cache import ScoreCache
from pfcore.store.published import bundled_label
from pfcore.store.result_rows import empty_results

PYTHIA = "EleutherAI/pythia-12b"
LUNCH = "We barely had time for lunch, let alone dinner."
FAKE = LessonContext(FakeScorer(), "pfcore-fake-scorer", parameters=134_515_008)


@pytest.fixture(scope="module")
def fake_results() -> list[StepResult]:
    """Every step on the fake scorer with the default sentences."""
    return run_lesson(FAKE)


def published_curves(form_step: int, meaning_step: int) -> pd.DataFrame:
    """A results table holding made-up published Pythia-12b curves: form (syntax) reaching its best
    at `form_step`, meaning (plausible and implausible) at `meaning_step`."""
    rows = []
    for step in (0, 1000, 8000, 64000, 143000):
        for construction in ("letalone", "muchless", "nottomention", "nevermind"):
            for suite, filt, best_at in (("syntax", "Avg_Test", form_step), ("semantic", "aligned", meaning_step),
                                         ("semantic", "misaligned", meaning_step)):
                rows.append({"model": PYTHIA, "revision": f"step{step}", "step": step, "suite": suite,
                             "construction": construction, "filter": filt, "metric": "accuracy",
                             "value": 0.9 if step >= best_at else 0.5,
                             "source": f"{bundled_label()}/{PYTHIA}/{suite}.tsv"})
    return pd.concat([empty_results(), pd.DataFrame(rows)], ignore_index=True)


def test_every_step_computes_its_numbers_figures_and_lines(fake_results: list[StepResult]) -> None:
    assert [r.step.number for r in fake_results] == list(range(1, 9))
    for result in fake_results:
        assert not result.problem, (result.step.title, result.problem)
        assert result.numbers and result.figures and result.notice
        assert result.notice == result.step.notice(result.numbers)  # the line is the numbers' line
        sentences = len(re.split(r"(?<=[.!?])['’]?\s+(?=[A-Z])", result.step.explanation))
        assert result.step.question.endswith("?") and 2 <= sentences <= 4, (result.step.title, sentences)
    asides = {r.step.number: r.aside for r in fake_results}
    for number in (3, 5, 6, 8):
        assert "anecdote" in asides[number] and "Table 6" in asides[number] and "chance is 50%" in asides[number]
    assert "anecdote" in asides[4] and "Table 7" in asides[4]
    assert "GPT2 (125M)" in asides[3]  # the paper's models nearest the default model's 135M parameters
    assert not asides[1] and not asides[2]


def _first(numbers: Numbers) -> tuple[Numbers, str]:
    table = numbers["next"].copy()
    table.loc[0, ["word", "probability"]] = ["zebra", 0.9]
    return {**numbers, "next": table}, "'zebra' (90.0%)"


def _second(numbers: Numbers) -> tuple[Numbers, str]:
    words = numbers["words"].copy()
    words.loc[words["differs"], "surprisal_bits"] = 30.0
    return {**numbers, "words": words}, "(30.0 against"


def _focus(numbers: Numbers) -> tuple[Numbers, str]:
    words = numbers["words"].copy()
    words.loc[words["focus2"], ["surprisal_construction_bits", "surprisal_or_bits"]] = [2.0, 9.5]
    return {**numbers, "words": words}, "7.50 bits less surprising after"


def _form(numbers: Numbers) -> tuple[Numbers, str]:
    form = numbers["form"].copy()
    form["rise_bits_per_token"] = [0.1, 0.6]
    return {**numbers, "form": form}, "is -0.50 bits per token: this decision is not correct"


def _followups(numbers: Numbers) -> tuple[Numbers, str]:
    followups = numbers["followups"].copy()
    followups["surprisal_bits_per_token"] = [3.0, 4.0, 3.5, 3.5]  # after the construction: ΔP +1; after or: 0
    return {**numbers, "followups": followups}, "is +1.00 bits per token: this decision is correct"


def _sizes(numbers: Numbers) -> tuple[Numbers, str]:
    models = numbers["models"].copy()
    models["accuracy"] = 100 - models["accuracy"]
    return {**numbers, "models": models, "curves": published_curves(1000, 64000).pipe(_as_curves)}, \
        "does not rise with size"


def _as_curves(results: pd.DataFrame) -> pd.DataFrame:
    from pfcore.lesson.steps import _pythia_curves
    return _pythia_curves(results)


def _reading(numbers: Numbers) -> tuple[Numbers, str]:
    words = numbers["words"].copy()
    words.loc[words["focus2"], ["surprisal_construction_bits", "surprisal_or_bits"]] = [4.0, 4.01]
    return {**numbers, "words": words}, "about as surprising after"


CHANGES: dict[int, Callable[[Numbers], tuple[Numbers, str]]] = {
    1: _first, 2: _second, 3: _focus, 4: _form, 5: _followups, 6: _followups, 7: _sizes, 8: _reading}


@pytest.mark.parametrize("number", sorted(CHANGES))
def test_the_notice_line_changes_with_the_numbers(fake_results: list[StepResult], number: int) -> None:
    result = fake_results[number - 1]
    changed, expected = CHANGES[number](result.numbers)
    line = result.step.notice(changed)
    assert line != result.notice and expected in line, line


def test_the_training_line_reads_the_curves() -> None:
    early = run_step(lesson_step(7), LessonContext(FakeScorer(), "fake", results=published_curves(1000, 64000)))
    assert "form (syntax) comes within 95% of its best accuracy at step 1,000" in early.notice
    assert "meaning on plausible items at step 64,000: form first" in early.notice
    assert len(early.figures) == 2 and "Figure 2" in early.figures[1].layout.title.text
    late = run_step(lesson_step(7), LessonContext(FakeScorer(), "fake", results=published_curves(64000, 8000)))
    assert "meaning first" in late.notice
    assert "90.0%" in run_step(lesson_step(6), LessonContext(FakeScorer(), "fake",
                                                             results=published_curves(1000, 8000))).aside


def test_without_published_curves_step_7_says_where_to_get_them(fake_results: list[StepResult]) -> None:
    findings = fake_results[6]
    assert len(findings.figures) == 1 and findings.numbers["curves"].empty
    assert "not loaded" in findings.notice
    assert "pfcore results import --bundled" in findings.aside and "Trajectories page" in findings.aside
    assert "Spearman's ρ = 0.69" in findings.notice and "36 models" in findings.notice


@pytest.mark.parametrize("number, sentence, problem", [
    (3, "The weather is nice today.", "No Paired-Focus construction found"),
    (4, "He doesn't like shrimp, let alone squid.", "the paper's frame"),
    (5, "", "type a sentence"),
    (8, "x" * 501, "at most 500"),
])
def test_a_sentence_that_cannot_be_used_is_one_line(number: int, sentence: str, problem: str) -> None:
    result = run_step(lesson_step(number), FAKE, {"sentence": sentence})
    assert problem in result.problem and "\n" not in result.problem
    assert not result.numbers and not result.notice


def test_a_masked_model_has_no_next_word_and_its_scores_are_named(tiny_bert: Path, cache_dir: Path) -> None:
    context = LessonContext(LazyScorer(ModelSpec(name=str(tiny_bert), kind="masked"), ScoringMethod.PLL_ORIGINAL),
                            str(tiny_bert))
    assert "does not apply to a masked model" in run_step(lesson_step(1), context).problem
    words = run_step(lesson_step(2), context)
    assert not words.problem and "pseudo-log-likelihood" in words.aside
    assert "pseudo-log-likelihood" not in run_step(lesson_step(7), context).aside


def test_the_class_sentences_are_used(cache_dir: Path) -> None:
    with ScoreCache() as cache:
        result = run_step(lesson_step(3), FAKE.with_cache(cache), {"sentence": LUNCH})
    assert list(result.numbers["words"]["word"])[-1] == "dinner."
    assert "'dinner.' is" in result.notice


def test_steps_on_the_tiny_gpt2(tiny_gpt2: Path, cache_dir: Path) -> None:
    scorer = LazyScorer(ModelSpec(name=str(tiny_gpt2)), ScoringMethod.CAUSAL)
    results = run_lesson(LessonContext(scorer, str(tiny_gpt2)))
    assert all(not r.problem for r in results), [r.problem for r in results]
    assert results[0].numbers["about"].iloc[0]["vocabulary"] > 100
    four = results[4].numbers["followups"]
    assert list(four["followup"]) == ["entailed", "contradicted", "entailed", "contradicted"]


def test_the_glossary_has_the_lessons_words_and_links() -> None:
    assert {"surprisal", "bit", "token", "focus", "follow-up", "control", "decision", "aligned"} <= set(TERMS)
    assert all(key in TERMS for step in LESSON for key in step.terms)
    assert glossary_link("surprisal") == "/Lesson?step=glossary&term=surprisal"
    assert glossary_link() == "/Lesson?step=glossary"
    with pytest.raises(InputError, match="no glossary entry"):
        glossary_link("entropy")


def test_the_handout_is_one_self_contained_page(fake_results: list[StepResult]) -> None:
    mine = run_lesson(FAKE, {8: {"sentence": "We can't sing an ugly song, much less a beautiful one."}})
    page = handout_html(mine, model="pfcore-fake-scorer", made=date(2026, 12, 2))
    assert page.startswith("<!DOCTYPE html>") and "2026-12-02" in page and "pfcore-fake-scorer" in page
    for result in mine:
        assert f"Step {result.step.number}: {inline(result.step.title)}" in page
        assert inline(result.notice) in page
    assert "We can&#x27;t sing an ugly song" in page or "We can't sing an ugly song" in page
    assert page.count("* plotly.js v") == 1  # plotly.js inlined once: the file opens offline
    assert not re.search(r"<script[^>]*\bsrc=|<link[^>]*\bhref=", page)  # nothing loaded from elsewhere
    assert all(f'<dt id="{t.key}">' in page for t in GLOSSARY)
    assert len(re.findall(r'class="plotly-graph-div"', page)) == sum(len(r.figures) for r in mine)


def test_inline_markdown_is_escaped_and_kept() -> None:
    assert inline("*let alone* <b> `pfcore results`") == "<em>let alone</em> &lt;b&gt; <code>pfcore results</code>"


def test_projector_charts_have_large_type_everywhere(fake_results: list[StepResult]) -> None:
    for result in fake_results:
        for fig in result.figures:
            big = projector(fig)
            assert big.layout.font.size == PROJECTOR_FONT and big.layout.height > (fig.layout.height or 0)
            assert all(axis.tickfont.size == PROJECTOR_FONT for axis in big.select_xaxes())
            assert all(axis.tickfont.size == PROJECTOR_FONT for axis in big.select_yaxes())
            assert fig.layout.font.size != PROJECTOR_FONT  # the page's own figure is left as it was
