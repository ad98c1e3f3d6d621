"""Lesson: a guided, live lesson a class can follow, one screen per step with Back and Next; every
step computed on the spot by the sidebar's model from the class's sentences; a presenter view for a
projector, a handout to download and a glossary."""

import streamlit as st

from pfcore.lesson import GLOSSARY_STEP, lesson_step, run_step
from pfcore.store.cache import ScoreCache
from pfcore.ui.errors import shown_errors
from pfcore.ui.lesson_view import (
    class_sentences,
    handout_button,
    lesson_context,
    link_query,
    navigation,
    open_link,
    presenter_mode,
    presenter_on,
    reading,
    render_glossary,
    render_step,
    revealed,
    sentences,
    step_columns,
)
from pfcore.ui.links import opened_query, publish, show_link
from pfcore.ui.model import apply_models_link, models_query
from pfcore.ui.page import start_page
from pfcore.ui.trajectories_view import results_table

INTRO = """Eight steps, from what a language model expects next to what the paper found about *let alone*,
*much less*, *not to mention* and *never mind*. Every number is computed on the spot by the model in the
sidebar, from sentences the class can edit."""

opened = opened_query("lesson")
notes = (apply_models_link(opened) + open_link(opened)) if opened is not None else []
presenter = presenter_on()
choice = start_page("Lesson", "" if presenter else INTRO)
presenter_mode(on=presenter)
with shown_errors():
    screen = navigation(presenter=presenter)
    if screen == GLOSSARY_STEP:
        render_glossary()
        show_link(publish("lesson", link_query(screen) | models_query(choice)), notes)
        st.stop()
    step = lesson_step(int(screen))
    words, charts = step_columns(presenter=presenter)
    with words:
        given = sentences(step)
        shown = revealed(step, presenter=presenter)
    link = publish("lesson", link_query(screen) | models_query(choice))
    if choice is None:
        show_link(link, notes)
        st.info("Load a model in the sidebar: the lesson's numbers are computed by it.")
        st.stop()
    context = lesson_context(choice, results_table())
    with charts:
        with reading(st.empty(), step), ScoreCache() as cache:
            result = run_step(step, context.with_cache(cache), given)
        render_step(result, presenter=presenter, shown=shown)
    show_link(link, notes)
    handout_button(context, class_sentences())
