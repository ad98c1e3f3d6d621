"""Lesson: a guided, live lesson a class can follow, one screen per step with Back and Next; every
step computed on the spot by the sidebar's model from the class's sentences; a presenter view for a
projector, a handout to download and a glossary."""

from pfcore.ui.errors import shown_errors
from pfcore.ui.lesson_view import link_notes, navigation, presenter_mode, presenter_on, render_screen
from pfcore.ui.page import start_page

INTRO = """Eight steps, from what a language model expects next to what the paper found about *let alone*,
*much less*, *not to mention* and *never mind*. Every number is computed on the spot by the model in the
sidebar, from sentences the class can edit."""

notes = link_notes()
presenter = presenter_on()
choice = start_page("Lesson", "" if presenter else INTRO)
presenter_mode(on=presenter)
with shown_errors():
    render_screen(navigation(presenter=presenter), choice, notes, presenter=presenter)
