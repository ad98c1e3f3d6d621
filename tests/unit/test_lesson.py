"""The lesson engine: every step computes on the fake scorer and the tiny GPT-2, each "what to notice"
line follows its step's numbers (changed numbers, changed line) and its arithmetic holds on the numbers
as printed (on real model output), its verdict words come from the model's own run, its charts fit a
projector and tell their series apart, bad sentences are one-line problems, the glossary (its entries
and links), and the self-contained handout under 1 MB."""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import pytest

from pfcore.analysis.models import accuracy_parameter_rho
from pfcore.errors import InputError
from pfcore.glossary import TERMS, term
from pfcore.intervals import proportion
from pfcore.lesson import GLOSSARY, LESSON, LessonContext, StepResult, glossary_link, lesson_step, run_lesson, run_step
from pfcore.lesson.handout import handout_html, inline
from pfcore.lesson.notice import Numbers, delta_p, next_digits, shown_difference
from pfcore.lesson.paper import published_final
from pfcore.lesson.steps import MODEL_NAMES, masked_note
from pfcore.lesson.svg import figure_svg
from pfcore.models import ModelSpec
from pfcore.names import Construction
from pfcore.plots.lesson import (
    BLUE,
    FIT_HEIGHT,
    GREEN,
    HEIGHT,
    ORANGE,
    PROJECTOR_FONT,
    VERMILLION,
    models_figure,
    projector,
)
from pfcore.probe.words import focus2_bits
from pfcore.runs.runner import RunConfig, run_suite
from pfcore.scoring.factory import LazyScorer
from pfcore.scoring.kinds.fake import FakeScorer
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import LN2, Request
from pfcore.scoring.words import score_texts, unpack_bow
from pfcore.store.cache import ScoreCache
from pfcore.store.published import bundled_label
from pfcore.store.result_rows import empty_results
from pfcore.store.results import load_results
from pfcore.ui.lesson_view import reading

PYTHIA = "EleutherAI/pythia-12b"
LUNCH = "We barely had time for lunch, let alone dinner."
OKABE_ITO = {BLUE, ORANGE, GREEN, VERMILLION}
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
    for number in (3, 5, 8):
        assert "anecdote" in asides[number] and "Table 6" in asides[number] and "chance is 50%" in asides[number]
    assert "anecdote" in asides[4] and "Table 7" in asides[4]
    assert "anecdote" in asides[6] and "plausible items only" in asides[6] and "Table 6 on" not in asides[6]
    assert "GPT2 (125M)" in asides[3]  # the paper's models nearest the default model's 135M parameters
    assert not asides[1] and not asides[2]


def _first(numbers: Numbers) -> tuple[Numbers, str]:
    table = numbers["next"].copy()
    table.loc[0, ["word", "probability", "probability_percent"]] = ["zebra", 0.9, 90.0]
    return {**numbers, "next": table}, "'zebra' (90.0"


def _second(numbers: Numbers) -> tuple[Numbers, str]:
    words = numbers["words"].copy()
    words.loc[words["differs"], "surprisal_bits"] = 30.0
    return {**numbers, "words": words}, "(30.0 against"


def _focus(numbers: Numbers) -> tuple[Numbers, str]:
    words = numbers["words"].copy()
    words.loc[words["focus2"], ["surprisal_construction_bits", "surprisal_or_bits"]] = [2.0, 9.5]
    return {**numbers, "words": words}, "7.5 bits less surprising after"


def _form(numbers: Numbers) -> tuple[Numbers, str]:
    form = numbers["form"].copy()
    form["rise_bits_per_token"] = [0.1, 0.6]
    return {**numbers, "form": form}, "is 0.10 - 0.60 = -0.50 bits per token: this decision is not correct"


def _followups(numbers: Numbers) -> tuple[Numbers, str]:
    followups = numbers["followups"].copy()
    followups["surprisal_bits_per_token"] = [3.0, 4.0, 3.5, 3.5]  # after the construction: ΔP +1; after or: 0
    return {**numbers, "followups": followups}, "is 1.00 - 0.00 = +1.00 bits per token: this decision is correct"


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
    return {**numbers, "words": words}, "0.02 bits less surprising after 'much less' than after 'or' (8.00 against 8.02"


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
    assert "form (the syntactic test) comes within 95% of its best (90.0%) at step 1,000" in early.notice
    assert "meaning on plausible items within 95% of its best (90.0%) at step 64,000: form first" in early.notice
    assert len(early.figures) == 2 and "Figure 2" in early.figures[1].layout.title.text
    late = run_step(lesson_step(7), LessonContext(FakeScorer(), "fake", results=published_curves(64000, 8000)))
    assert "meaning first" in late.notice
    world = run_step(lesson_step(6), LessonContext(FakeScorer(), "fake", results=published_curves(1000, 8000)))
    assert "Pythia-12b ends its training at 90.0% on implausible items" in world.aside
    assert "its 1 model with checkpoints 90.0% to 90.0% on *let alone*" in world.aside


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
    assert "<script" not in page and "plotly" not in page  # static SVG charts: no chart library at all
    assert not re.search(r"<link[^>]*\bhref=|\bsrc=", page)  # nothing loaded from elsewhere
    assert all(f'<dt id="{t.key}">' in page for t in GLOSSARY)
    assert page.count("<svg ") == sum(len(r.figures) for r in mine)
    assert len(page.encode()) < 1_000_000


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


# ----- every sentence's arithmetic, recomputed from the numbers as printed -----

NUMBER = r"[-+]?\d[\d,]*(?:\.\d+)?"


def dec(text: str) -> Decimal:
    """A number as printed in a line."""
    return Decimal(text.replace(",", ""))


def labels(fig: go.Figure) -> list[Decimal]:
    """The numbers printed on a chart's bars, in order."""
    return [dec(str(t).rstrip("%")) for trace in fig.data if trace.type == "bar" and trace.text is not None
            for t in trace.text]


def decimals(text: str) -> int:
    """How many decimals a printed number has."""
    return len(text.split(".")[1]) if "." in text else 0


def honest(printed: str, value: float) -> bool:
    """Whether a printed number is the true value rounded to its decimals."""
    return dec(printed) == Decimal(value).quantize(Decimal(1).scaleb(-decimals(printed)), rounding=ROUND_HALF_EVEN)


def check_subtraction(notice: str, what: str) -> tuple[Decimal, Decimal, Decimal]:
    """The line's "A - B = C" after `what`: C is A - B, and the decision word follows C's sign."""
    found = re.search(rf"{what} is ({NUMBER}) - \(?({NUMBER})\)? = ({NUMBER}) bits per token: this decision is "
                      r"(correct|not correct)", notice)
    assert found, notice
    a, b, c = (dec(found.group(i)) for i in (1, 2, 3))
    assert a - b == c, notice
    assert found.group(4) == ("correct" if c > 0 else "not correct"), notice
    return a, b, c


def check_arithmetic(result: StepResult) -> None:
    """Recompute every number a step's line derives from the numbers it (or its chart) prints, and
    check each printed number against the step's own table."""
    notice, numbers, number = result.notice, result.numbers, result.step.number
    if number == 1:
        found = re.search(rf"word is '.*?' \(({NUMBER})%\)(?:, then '.*?' \(({NUMBER})%\))?\. These (\d+) add up to "
                          rf"({NUMBER})% of the probability; the other ({NUMBER})%", notice)
        assert found, notice
        shown = labels(result.figures[0])
        assert len(shown) == int(found.group(3)) and sum(shown) == dec(found.group(4)), (shown, notice)
        assert Decimal(100) - dec(found.group(4)) == dec(found.group(5))
        assert shown[0] == dec(found.group(1)) and (found.group(2) is None or shown[1] == dec(found.group(2)))
        assert all(honest(f"{v}", p) for v, p in zip(shown, numbers["next"]["probability_percent"]))
    elif number in (2, 3, 8):
        found = re.search(rf"is ({NUMBER}) bits (more|less) surprising (?:after .*? )?than .*?\(({NUMBER}) against "
                          rf"({NUMBER}) bits\)(?:, so the model finds it about ({NUMBER}) times)?", notice)
        assert found, notice
        gap, a, b = dec(found.group(1)), dec(found.group(3)), dec(found.group(4))
        assert a - b == (gap if found.group(2) == "more" else -gap), notice
        if found.group(5):
            assert dec(found.group(5)) == Decimal(float(f"{2 ** float(gap):.2g}")).quantize(Decimal(1)), notice
        if number == 2:
            words = numbers["words"]
            values = words.loc[words["differs"], "surprisal_bits"]
            assert honest(found.group(3), float(values.iloc[0])), notice
        else:
            cxn, ctl = focus2_bits(numbers["words"])
            assert honest(found.group(3), cxn) and honest(found.group(4), ctl), notice
    elif number == 4:
        a, b, c = check_subtraction(notice, r"The rise with '.*?' minus the rise with 'and'")
        rises = numbers["form"]["rise_bits_per_token"]
        assert all(honest(f"{v}", r) for v, r in zip((a, b), rises)) and honest(f"{c}", rises[0] - rises[1])
        assert labels(result.figures[0]) == [a, b, c]
        for value, way in zip((a, b), re.findall(rf"(raises|lowers) the surprisal by ({NUMBER})", notice)):
            assert (value > 0) == (way[0] == "raises") and abs(value) == dec(way[1]), notice
    elif number in (5, 6):
        a, b, c = check_subtraction(notice, r"ΔP with '.*?' minus ΔP with 'or'")
        shown = [dec(v) for v in re.findall(rf"ΔP = ({NUMBER})", notice)]
        assert sorted(shown) == sorted([a, b]), notice
        cxn, ctl = delta_p(numbers["followups"])
        assert honest(f"{a}", cxn) and honest(f"{b}", ctl) and honest(f"{c}", cxn - ctl), notice
        assert labels(result.figures[0]) == [a, b, c]
    elif number == 7:
        models = numbers["models"]
        found = re.search(rf"ρ = ({NUMBER}), computed.*?reports ρ = ({NUMBER})(?:.*?a difference of ({NUMBER}))?",
                          notice)
        assert found and honest(found.group(1), accuracy_parameter_rho(models).rho), notice
        if found.group(3):
            assert abs(dec(found.group(1)) - dec(found.group(2))) == dec(found.group(3)), notice
        groups = re.search(rf"The (\d+) models under 400M parameters average ({NUMBER})%, the (\d+) larger ones "
                           rf"({NUMBER})%", notice)
        small, large = (models[models["parameters"] < 4e8], models[models["parameters"] >= 4e8])
        assert groups and int(groups.group(1)) == len(small) and int(groups.group(3)) == len(large), notice
        assert honest(groups.group(2), small["accuracy"].mean()) and honest(groups.group(4), large["accuracy"].mean())


LESSONS = [  # the class's sentences: the defaults, and others that move every step's numbers
    {},
    {1: {"prefix": "She opened the"}, 2: {"expected": "We sat on the chair.", "unexpected": "We sat on the moon."},
     3: {"sentence": "We barely had time for lunch, let alone dinner."},
     4: {"sentence": "We can't sing an ugly song, much less a beautiful one."},
     5: {"sentence": "They couldn't bake a tiny cake, never mind an enormous one."},
     6: {"sentence": "We couldn't write a wonderful poem, not to mention an awful one."},
     8: {"sentence": "He never reads a short book, let alone a long one."}},
]


@pytest.mark.parametrize("given", LESSONS)
def test_every_sentence_adds_up_on_the_tiny_gpt2(tiny_gpt2: Path, cache_dir: Path, given: dict) -> None:
    scorer = LazyScorer(ModelSpec(name=str(tiny_gpt2)), ScoringMethod.CAUSAL)
    results = run_lesson(LessonContext(scorer, str(tiny_gpt2), results=published_curves(1000, 64000)), given)
    assert all(not r.problem for r in results), [r.problem for r in results]
    for result in results:
        check_arithmetic(result)
        assert "about as" not in result.notice  # no fixed threshold calls a difference "about the same"


def test_every_sentence_adds_up_on_the_fake_scorer(fake_results: list[StepResult]) -> None:
    for result in fake_results:
        check_arithmetic(result)


@pytest.mark.slow
def test_every_sentence_adds_up_on_the_default_model(default_model_cache: Path) -> None:
    scorer = LazyScorer(ModelSpec(), ScoringMethod.CAUSAL)
    for given in LESSONS:
        for result in run_lesson(LessonContext(scorer, ModelSpec().label), given):
            assert not result.problem, result.problem
            check_arithmetic(result)


def test_the_lines_print_the_digits_their_arithmetic_needs() -> None:
    # 0.067094 - 0.174049: at two decimals 0.07 - 0.17 would print -0.10 for a true -0.107
    shown = shown_difference(0.067094, 0.174049)
    assert shown.subtraction() == "0.067 - 0.174 = -0.107"
    assert shown_difference(-0.0000477, -0.0042859).subtraction() == "-0.00005 - (-0.00429) = +0.00424"
    assert shown_difference(0.5, 0.25).subtraction() == "0.50 - 0.25 = +0.25"
    assert next_digits([45.5424, 16.3129, 11.9231, 1.8902, 0.8980, 0.7309, 0.7259, 0.6565, 0.6306, 0.5862]) == 2


# ----- the verdict words: from the decision and the run's spread -----

def test_the_margin_is_read_against_the_models_own_run(tiny_gpt2: Path, cache_dir: Path) -> None:
    spec = ModelSpec(name=str(tiny_gpt2))
    scorer = LazyScorer(spec, ScoringMethod.CAUSAL)
    before = run_step(lesson_step(5), LessonContext(scorer, spec.label, model=spec.name))
    assert "one sentence cannot say" in before.notice and "spread" not in before.numbers
    runs = {suite: run_suite(spec, RunConfig(suite=suite, constructions=("let_alone",), limit_blocks=3))
            for suite in ("semantic", "syntax")}
    context = LessonContext(scorer, spec.label, model=spec.name, results=load_results())
    for number, suite, columns in ((5, "semantic", ("cxn_logodds", "or_logodds")), (4, "syntax", ("rise", "rise_and"))):
        result = run_step(lesson_step(number), context)
        decisions = runs[suite].tables["decisions"]
        if suite == "syntax":
            decisions = decisions[decisions["manipulation"] == "NPI"]
        margins = (decisions[columns[0]] - decisions[columns[1]]).abs() / LN2
        mine = (abs(float(delta_p(result.numbers["followups"]).diff().iloc[-1])) if number == 5 else
                abs(float(result.numbers["form"]["rise_bits_per_token"].diff().iloc[-1])))
        spread = result.numbers["spread"].iloc[0]
        share = float((margins < mine).mean())
        assert spread["decisions"] == len(margins) and spread["smaller_share"] == pytest.approx(share)
        size = "small" if share < 0.25 else "large" if share > 0.75 else "typical"
        assert f"That is a {size} margin for this model: in its {suite} suite run, {100 * share:.0f}% of the " \
               f"{len(margins)} decisions" in result.notice, result.notice
        check_arithmetic(result)


# ----- the charts: a projector window, colour-blind-safe series told apart, plain words -----

def every_figure(results: list[StepResult]) -> list[tuple[int, go.Figure]]:
    """Each figure of each step with the step's number."""
    return [(r.step.number, fig) for r in results for fig in r.figures]


def test_the_charts_fit_a_presenter_window_and_tell_their_series_apart(fake_results: list[StepResult]) -> None:
    figures = every_figure(fake_results) + every_figure([run_step(lesson_step(7), LessonContext(
        FakeScorer(), "fake", results=published_curves(1000, 64000)))])
    assert len(figures) >= 9
    for number, fig in figures:
        assert fig.layout.height <= HEIGHT and projector(fig).layout.height <= FIT_HEIGHT <= 720 - 200, number
        assert not fig.layout.coloraxis.colorbar.title.text and not any(
            getattr(t.marker, "showscale", None) for t in fig.data), number  # no unexplained colour bar
        names = [t.name for t in fig.data if t.name]
        assert not any(re.search(r"\w:\w", n) for n in names), names  # no series codes such as pf_avg:aligned
        ticks = list(fig.layout.xaxis.ticktext or ())
        assert not any(re.match(r"\d+:", str(t)) for t in ticks), ticks  # words as written, not "0:He"
        lines = [t for t in fig.data if t.type == "scatter"]
        if len(lines) > 1:
            assert len({t.line.color or t.marker.color for t in lines}) == len(lines), number
            assert len({t.marker.symbol for t in lines}) == len(lines), number  # more than colour ...
            assert all(t.marker.color in OKABE_ITO for t in lines), number
        if any(t.type == "scatter" and "lines" in (t.mode or "") for t in lines) and len(lines) > 1:
            assert len({t.line.dash for t in lines}) == len(lines), number  # ... and more than dashes
    findings = [fig for number, fig in figures if number == 7]
    assert all(fig.layout.yaxis.title.text == "accuracy (%)" for fig in findings)
    assert all(max(max(t.y) for t in fig.data) > 1 for fig in findings)  # both in %, not a 0-1 fraction
    assert [t.name for t in findings[0].data] == ["causal (left-to-right) models (n = 24)", "masked models (n = 12)"]
    named = [str(t.name) for t in findings[-1].data]
    assert [n.split(" (n = ")[0] for n in named] == ["meaning, plausible items", "meaning, implausible items",
                                                     "form: the syntactic test"]


def test_steps_5_and_6_chart_delta_p_and_its_difference(fake_results: list[StepResult]) -> None:
    for result in fake_results[4:6]:
        bars = result.figures[0].data[0]
        assert list(bars.x) == [f"ΔP with '{result.numbers['about'].iloc[0]['connective']}'", "ΔP with 'or'",
                                "difference"]
        assert len(set(bars.marker.color)) == 3 and len(set(bars.marker.pattern.shape)) == 3


def test_steps_4_and_5_score_only_what_they_show(cache_dir: Path) -> None:
    class Counting(FakeScorer):
        scored: list[Request] = []

        def score(self, requests, progress=None):  # type: ignore[no-untyped-def]
            self.scored.extend(requests)
            return super().score(requests, progress)

    for number in (4, 5):
        scorer = Counting()
        run_step(lesson_step(number), LessonContext(scorer, "fake"))
        assert len(scorer.scored) == 4, number  # two sentences twice, or two follow-ups after two sentences
        Counting.scored = []


def test_the_size_threshold_is_labelled_at_its_line_in_the_chart_and_the_handout() -> None:
    """Plotly places a note on a log axis by the log10 of its value (the '400M parameters' label was
    off its axis, so not drawn, until it said so); the handout's SVG reads the note the same way: the
    label starts at the dashed line, 0.60 of the way from the 100M tick to the 1B tick, and runs to its
    right (on its left it covered the paper's small models at the foot of the chart)."""
    models = pd.DataFrame({"model": ["a", "b"], "parameters": [7e7, 7e9], "accuracy": [50.0, 80.0],
                           "model_type": ["CausalLM", "MLM"]})
    fig = models_figure(models, threshold=4e8, names=MODEL_NAMES)
    note = next(a for a in fig.layout.annotations if a.text == "400M parameters")
    assert note.x == pytest.approx(math.log10(4e8)) and fig.layout.shapes[-1].x0 == 4e8  # a line takes the value
    svg = figure_svg(fig)
    at = {t: float(x) for x, t in re.findall(r'<text x="([-\d.]+)"[^>]*>([^<]+)</text>', svg)}
    assert note.xanchor == "left" and 'text-anchor="start"' in svg.split(">400M parameters<")[0].rsplit("<text", 1)[1]
    assert (at["400M parameters"] - 4 - at["100M"]) / (at["1B"] - at["100M"]) == pytest.approx(math.log10(4), abs=0.01)


def test_the_handout_is_small(cache_dir: Path) -> None:
    results = run_lesson(LessonContext(FakeScorer(), "fake", results=published_curves(1000, 64000)))
    page = handout_html(results, model="fake")
    assert len(page.encode()) < 1_000_000 and page.count("<svg ") == sum(len(r.figures) for r in results)
    meaning = results[4]
    assert all(f">{t}</text>" in page for t in meaning.figures[0].data[0].text)  # the labels the line quotes


def test_the_step_6_aside_quotes_implausible_items(bundled_cache: Path) -> None:
    table = load_results()
    result = run_step(lesson_step(6), LessonContext(FakeScorer(), "fake", results=table))
    final = published_final(table, Construction.LET_ALONE, "misaligned")
    values = 100 * final["value"]
    assert f"its {len(final)} models with checkpoints {values.min():.1f}% to {values.max():.1f}%" in result.aside
    assert "Pythia-12b ends its training at" in result.aside and "Table 6" not in result.aside


def test_a_line_says_the_model_is_reading_while_a_step_computes() -> None:
    class Place:
        def __init__(self) -> None:
            self.shown: list[str] = []

        def info(self, body: str, *, icon: str | None = None) -> None:
            self.shown.append(body)

        def empty(self) -> None:
            self.shown.append("")

    place = Place()
    with reading(place, lesson_step(4)):
        assert place.shown == ["The model is reading the sentence…"]
    assert place.shown[-1] == ""
    place = Place()
    with pytest.raises(RuntimeError), reading(place, lesson_step(7)):
        raise RuntimeError("failed")
    assert place.shown == ["Reading the paper's published results…", ""]  # gone when the step failed too


# ----- the glossary -----

def test_the_glossary_entries_say_what_the_code_computes() -> None:
    correction = TERMS["word-correction"].definition
    assert "Pimentel & Meister 2024" in correction
    assert "surprisal(w) = −log₂ P(tokens of w | c) − log₂ P_bow(c w) + log₂ P_bow(c)" in correction
    terms = [dec(v.replace("−", "-")) for v in re.search(r"([\d.]+) \+ ([\d.]+) − ([\d.]+) = ([\d.]+)",
                                                            correction).groups()]
    assert terms[0] + terms[1] - terms[2] == terms[3]
    assert "A word's surprisal is the sum" not in TERMS["token"].definition  # the default is corrected
    pll = TERMS["pll"].definition
    assert all(w in pll for w in ("Salazar", "Kauf & Ivanova", "pll-original", "pll-l2r", "Table 5 uses Kauf"))
    assert "not a surprisal" in pll
    assert {"base-rate", "interval"} <= set(TERMS)
    twenty, two_thousand = proportion(12, 20), proportion(1200, 2000)
    assert (f"60% of 20 decisions is {100 * twenty.low:.0f}% to {100 * twenty.high:.0f}%, 60% of 2,000 is "
            f"{100 * two_thousand.low:.0f}% to {100 * two_thousand.high:.0f}%") in TERMS["interval"].definition
    assert TERMS["delta-p"].word == "ΔP (also called the shift)" and "shift" not in TERMS
    assert term("shift") is TERMS["delta-p"] and glossary_link("shift") == "/Lesson?step=glossary&term=delta-p"
    assert TERMS["effect"].word == "ΔP difference (also called the effect)"
    masked = masked_note(ScoringMethod.PLL_L2R)
    assert "not surprisals" in masked and "Kauf & Ivanova" in masked


@pytest.mark.slow
def test_the_glossary_example_is_the_default_models(default_model_cache: Path) -> None:
    """'doesn't' after 'He': 11.517 bits uncorrected, boundary terms 0.037 and -1.640, 9.913 corrected."""
    scorer = LazyScorer(ModelSpec(), ScoringMethod.CAUSAL)
    request = Request("", "He doesn't like shrimp, let alone squid.")
    [scored] = score_texts(scorer, [request])
    word = scored.words[1]
    assert word.text == "doesn't"
    assert word.surprisal_bits_uncorrected == pytest.approx(11.517, abs=5e-4)
    assert word.surprisal_bits == pytest.approx(9.913, abs=5e-4)
    _tokens, masses = unpack_bow(scorer.bow_scorer().score([request])[0])
    assert -masses[word.first + word.n_tokens - 1] / LN2 == pytest.approx(0.037, abs=5e-4)
    assert masses[word.first - 1] / LN2 == pytest.approx(-1.640, abs=5e-4)
    assert "11.517" in correction_text() and "9.91 bits corrected" in correction_text()


def correction_text() -> str:
    """The glossary's entry on the word correction."""
    return TERMS["word-correction"].definition
