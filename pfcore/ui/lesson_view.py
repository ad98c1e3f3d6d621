"""The Lesson page's streamlit side: the step indicator with Back and Next, the class's sentences, one
step drawn (in the presenter view with large type, projector charts and the sidebar collapsed), the
glossary, the link that reopens a step, and the handout download. pfcore.lesson computes the steps."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Protocol

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from pfcore.errors import InputError
from pfcore.glossary import TERMS, term
from pfcore.lesson import (
    GLOSSARY,
    GLOSSARY_STEP,
    LESSON,
    LessonContext,
    Step,
    StepResult,
    glossary_link,
    lesson_step,
    run_lesson,
    run_step,
)
from pfcore.lesson.handout import handout_html
from pfcore.lesson.steps import TABLE_NAMES
from pfcore.plots.lesson import projector
from pfcore.probe import MAX_CHARS
from pfcore.store.cache import ScoreCache
from pfcore.ui.downloads import chart
from pfcore.ui.links import Param, Query, apply, choice_of, current, opened_query, publish, show_link
from pfcore.ui.model import ModelChoice, apply_models_link, lazy_scorer, models_query
from pfcore.ui.tables import number_columns
from pfcore.ui.text import plain
from pfcore.ui.trajectories_view import results_table

SCREENS = [str(s.number) for s in LESSON] + [GLOSSARY_STEP]
STEP_KEY, PRESENTER_KEY, TERM_KEY = "lesson_step", "lesson_presenter", "lesson_term"
FIELD_NAMES = tuple(dict.fromkeys(f.name for s in LESSON for f in s.fields))
PRESENTER_CSS = """<style>
[data-testid="stMainBlockContainer"] {max-width: 100%; padding: 1.5rem 3rem 3rem 3rem;}
[data-testid="stMainBlockContainer"] h1 {display: none;}
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li,
[data-testid="stMainBlockContainer"] label, [data-testid="stMainBlockContainer"] input {font-size: 1.55rem !important;}
[data-testid="stMainBlockContainer"] h2 {font-size: 2.2rem; padding-top: 0;}
[data-testid="stMainBlockContainer"] h3 {font-size: 2rem;}
</style>"""


def _flag(text: str) -> bool:
    """A link's on/off value: 1 or 0."""
    if text not in ("1", "0"):
        raise ValueError("use 1 (on) or 0 (off)")
    return text == "1"


def _term_key(text: str) -> str:
    """A link's glossary entry: its key (a former key opens the entry it became)."""
    try:
        return term(text).key
    except InputError as exc:
        raise ValueError(f"not one of {', '.join(TERMS)}") from exc


PARAMS = (Param("step", STEP_KEY, choice_of(SCREENS)),
          Param("presenter", PRESENTER_KEY, _flag, write=lambda on: "1" if on else "0"),
          Param("term", TERM_KEY, _term_key))


def field_key(step: Step, name: str) -> str:
    """The session key of one of a step's sentences."""
    return f"lesson_{step.key}_{name}"


def _field_params(step: Step) -> tuple[Param, ...]:
    """A step's sentences as link parameters."""
    return tuple(Param(f.name, field_key(step, f.name)) for f in step.fields)


def open_link(opened: Query | None) -> list[str]:
    """Put a link's step, presenter view, glossary entry and the step's sentences into the widgets;
    a note for each parameter that is not the page's."""
    if opened is None:
        return []
    notes = apply(PARAMS, opened, also_known=(*FIELD_NAMES, "models"))
    screen = st.session_state.get(STEP_KEY, SCREENS[0])
    if screen != GLOSSARY_STEP:
        apply(_field_params(LESSON[int(screen) - 1]), opened)  # its unknown names were noted above
    return notes


def link_query(screen: str) -> Query:
    """The view as a link: the step (or the glossary entry), the presenter view when on, the step's sentences."""
    query = current(PARAMS[:2] + ((PARAMS[2],) if screen == GLOSSARY_STEP else ()))
    if not st.session_state.get(PRESENTER_KEY):
        query.pop("presenter", None)
    return query | (current(_field_params(LESSON[int(screen) - 1])) if screen != GLOSSARY_STEP else {})


def presenter_on() -> bool:
    """Whether the presenter view is on (read before the page is drawn)."""
    return bool(st.session_state.get(PRESENTER_KEY, False))


def presenter_mode(*, on: bool) -> None:
    """For a projector: the sidebar collapsed and large type; or the usual page."""
    st.set_page_config(initial_sidebar_state="collapsed" if on else "auto")
    if on:
        st.html(PRESENTER_CSS)


def _label(screen: str) -> str:
    """A screen in the step indicator."""
    return "Glossary" if screen == GLOSSARY_STEP else screen


def _move(delta: int) -> None:
    """Back (-1) or Next (+1): the step indicator moves before the page is drawn again."""
    index = SCREENS.index(st.session_state.get(STEP_KEY, SCREENS[0]))
    st.session_state[STEP_KEY] = SCREENS[min(max(index + delta, 0), len(SCREENS) - 1)]


def navigation(*, presenter: bool = False) -> str:
    """The step indicator (a link per step), Back and Next, and the presenter toggle; the screen shown.
    In the presenter view all on one row, so that the step's first chart fits the screen below it."""
    st.session_state.setdefault(STEP_KEY, SCREENS[0])
    if presenter:
        back, forward, steps, toggle = st.columns([1.2, 1.2, 5, 2], vertical_alignment="center")
    else:
        steps = st.container()
        back = forward = toggle = st.container(horizontal=True, vertical_alignment="center")  # as wide as their words
    screen = steps.segmented_control("Step", SCREENS, format_func=_label, required=True, key=STEP_KEY,
                                     persist_state="session",
                                     label_visibility="collapsed" if presenter else "visible") or SCREENS[0]
    index = SCREENS.index(screen)
    back.button("Back", key="lesson_back", on_click=_move, args=(-1,), disabled=index == 0,
                icon=":material/arrow_back:", width="stretch" if presenter else "content", shortcut="Left")
    forward.button("Next", key="lesson_next", on_click=_move, args=(1,), disabled=index == len(SCREENS) - 1,
                   icon=":material/arrow_forward:", type="primary", width="stretch" if presenter else "content",
                   shortcut="Right")
    toggle.toggle("Presenter view", key=PRESENTER_KEY, persist_state="session",
                  help="for a projector: large type, wide charts, the sidebar folded away")
    if screen != GLOSSARY_STEP:
        (toggle if presenter else st).caption(f"Step {screen} of {len(LESSON)}")
    return screen


def sentences(step: Step) -> dict[str, str]:
    """The step's title and explanation, and the sentences the class can edit."""
    st.header(f"{step.number}. {step.title}", anchor=step.key)
    st.markdown(step.explanation)
    values = {}
    for f in step.fields:
        key = field_key(step, f.name)
        st.session_state.setdefault(key, f.default)
        values[f.name] = st.text_input(f.label, key=key, max_chars=MAX_CHARS, persist_state="session") or ""
    return values


def lesson_context(choice: ModelChoice, results: pd.DataFrame) -> LessonContext:
    """The sidebar model as the lesson computes with it (scores through the app's cached loader)."""
    return LessonContext(lazy_scorer(choice.spec), choice.spec.label, model=choice.spec.name,
                         parameters=choice.parameters, results=results)


READING = "The model is reading the sentence…"
READING_RESULTS = "Reading the paper's published results…"


class Placeholder(Protocol):
    """Where a line can stand for a while (st.empty())."""

    def info(self, body: str, *, icon: str | None = None) -> object:
        """Show a line."""

    def empty(self) -> object:
        """Take it away."""


@contextmanager
def reading(place: Placeholder, step: Step) -> Iterator[None]:
    """While a step computes: a line, shown at once where its charts will stand, saying that the
    model is reading the sentence (or that the published results are read); gone when it is done,
    or when it failed."""
    place.info(READING if step.scored else READING_RESULTS, icon=":material/hourglass_top:")
    try:
        yield
    finally:
        place.empty()


def step_columns(*, presenter: bool) -> tuple[DeltaGenerator, DeltaGenerator]:
    """Where a step's words and its charts go: in the presenter view side by side, so that the first
    chart stands whole on a 1280x720 screen under Back and Next; else one after the other."""
    if presenter:
        words, charts = st.columns([2, 3], gap="medium")
        return words, charts
    return st.container(), st.container()


BEFORE_YOU_LOOK = "Before you"  # a question asked before the chart that answers it


def asks_first(step: Step, *, presenter: bool) -> bool:
    """Whether the step asks its question before its chart: a "Before you look" question in the
    presenter view."""
    return presenter and step.question.startswith(BEFORE_YOU_LOOK)


def _reveal_key(step: Step) -> str:
    """The session key of a step's "Show the answer" switch."""
    return f"lesson_reveal_{step.number}"


def _ask(step: Step) -> bool:
    """The question for the class and the switch that shows its answer; whether it is on."""
    st.markdown(f"#### Question for the class\n{step.question}")
    return st.toggle("Show the answer", key=_reveal_key(step), value=False)


def revealed(step: Step, *, presenter: bool) -> bool:
    """Whether the step's charts are shown: a question asked first keeps its answer hidden (the
    question then stands where the chart will) until the teacher reveals it; then the question
    moves beside the step's words (here) and the chart takes the top of the screen."""
    if not asks_first(step, presenter=presenter):
        return True
    return bool(st.session_state.get(_reveal_key(step))) and _ask(step)


def render_step(result: StepResult, *, presenter: bool, shown: bool = True) -> None:
    """One computed step: its charts, what to notice, the aside, the numbers and the question (in the
    presenter view a "Before you look" question first, in the chart's place, until `shown`)."""
    step = result.step
    if result.problem:
        st.error(plain(result.problem))
    if not shown:
        _ask(step)
        return
    for index, fig in enumerate(result.figures, start=1):
        chart(projector(fig) if presenter else fig, f"lesson_step{step.number}_{index}.html",
              key=f"lesson_chart_{step.number}_{index}", toolbar=not presenter)  # the buttons below download
    if result.notice:
        st.info(f"**What to notice:** {plain(result.notice)}", icon=":material/lightbulb:")
    if result.aside:
        st.warning(result.aside, icon=":material/info:")
    if "reading" in result.numbers:
        st.markdown(f"**[Open your sentence in the Probe]({result.numbers['reading'].iloc[0]['probe_link']})**")
    if result.numbers:
        with st.expander("The numbers", expanded=not presenter):
            for name, table in result.numbers.items():
                st.caption(TABLE_NAMES[name])
                st.dataframe(table, hide_index=True, placeholder="", column_config=number_columns(table))
    if not asks_first(step, presenter=presenter):  # else asked beside the words
        st.markdown(f"#### Question for the class\n{step.question}")
    _words_used(step)


def _words_used(step: Step) -> None:
    """The glossary entries the step uses, each with its link into the glossary."""
    with st.expander("Words used here"):
        for key in step.terms:
            entry = TERMS[key]
            st.markdown(f"**{entry.word}**: {entry.definition} ([glossary]({glossary_link(key)}))")


def render_glossary() -> None:
    """The glossary: every entry, the one a link named (or the class picks) first."""
    st.header("Glossary", anchor="glossary")
    picked = st.selectbox("Look up", list(TERMS), format_func=lambda key: TERMS[key].word, index=None,
                          placeholder="a word the lesson uses", key=TERM_KEY)
    if picked:
        st.info(f"**{TERMS[picked].word}**: {TERMS[picked].definition}")
    for entry in GLOSSARY:
        st.subheader(entry.word, anchor=entry.key)
        st.markdown(entry.definition)


def class_sentences() -> dict[int, dict[str, str]]:
    """Every step's sentences as the class has them now (defaults where untouched)."""
    return {s.number: {f.name: str(st.session_state.get(field_key(s, f.name), f.default)) for f in s.fields}
            for s in LESSON}


def handout_button(context: LessonContext, given: Mapping[int, Mapping[str, str]]) -> None:
    """The handout download: every step computed with the class's sentences, as one HTML file."""
    st.download_button("Download the handout (HTML)", lambda: _handout(context, given),
                       file_name="paired-focus-lesson.html", mime="text/html", on_click="ignore",
                       key="lesson_handout", icon=":material/download:",
                       help="the whole lesson with your sentences, numbers and charts, to open offline")


def _handout(context: LessonContext, given: Mapping[int, Mapping[str, str]]) -> str:
    """The handout's HTML (computed when it is downloaded; scores come from the cache)."""
    with ScoreCache() as cache:
        return handout_html(run_lesson(context.with_cache(cache), given), model=context.label)


def link_notes() -> list[str]:
    """Open the page's link (its step, view, sentences and models) into the widgets; a note for each
    parameter that is not the page's."""
    opened = opened_query("lesson")
    return (apply_models_link(opened) + open_link(opened)) if opened is not None else []


def render_screen(screen: str, choice: ModelChoice | None, notes: list[str], *, presenter: bool) -> None:
    """One screen of the lesson: the glossary, or a step (its words, its charts computed by the
    sidebar's model, the link that reopens it, the handout)."""
    link = publish("lesson", link_query(screen) | models_query(choice))
    if screen == GLOSSARY_STEP:
        render_glossary()
        show_link(link, notes)
        return
    step = lesson_step(int(screen))
    words, charts = step_columns(presenter=presenter)
    with words:
        given = sentences(step)
        shown = revealed(step, presenter=presenter)
    if choice is None:
        show_link(link, notes)
        st.info("Load a model in the sidebar: the lesson's numbers are computed by it.")
        return
    context = lesson_context(choice, results_table())
    with charts:
        with reading(st.empty(), step), ScoreCache() as cache:
            result = run_step(step, context.with_cache(cache), given)
        render_step(result, presenter=presenter, shown=shown)
    show_link(link, notes)
    handout_button(context, class_sentences())
