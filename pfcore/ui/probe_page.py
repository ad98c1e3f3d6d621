"""The Probe page's streamlit side as one view function: the link opened, the sentence typed and
read, the construction switch, the follow-ups, and the sections pfcore.ui.probe_view draws."""
from __future__ import annotations

import streamlit as st

from pfcore.items.schema import CONSTRUCTIONS
from pfcore.probe import FRAME_EXAMPLE, MAX_CHARS, analyze_sentence
from pfcore.probe.propose import propose_followups
from pfcore.ui.errors import shown_errors
from pfcore.ui.links import Param, Query, apply, choice_of, current, opened_query, publish, show_link
from pfcore.ui.model import ModelChoice, Models, apply_models_link, models_query
from pfcore.ui.probe_view import (
    REDUCTIONS,
    ProbeRequest,
    checkpoints_section,
    decision_choice,
    detail_section,
    manipulations_section,
    no_pair_hint,
    pair_inputs,
    pairs_query,
    probe_settings,
    restore_pairs,
    scored_sections,
    verdicts_section,
    words_section,
)
from pfcore.ui.text import plain


def typed() -> str:
    """The sentence in the box, with its spaces made single (as the probe reads it)."""
    return " ".join(str(st.session_state.get("probe_text", FRAME_EXAMPLE)).split())


def construction_key() -> str:
    """The construction switch's key: one per sentence, so a new sentence starts on its own."""
    return f"probe_cxn_{typed()}"


PARAMS = (Param("sentence", "probe_text"),
          Param("construction", construction_key, choice_of(list(CONSTRUCTIONS))),
          Param("reduction", "probe_reduction", choice_of(list(REDUCTIONS))))


def open_probe_link() -> tuple[Query | None, list[str]]:
    """The page's link, opened before the sidebar is drawn (it may choose the models); notes on it."""
    opened = opened_query("probe")
    return opened, (apply_models_link(opened) if opened is not None else [])


def render_probe(choice: ModelChoice | None, opened: Query | None, model_notes: list[str]) -> None:
    """The page below its intro: the sentence, its reading, and every section scored by the sidebar's models."""
    state = st.session_state
    with shown_errors():
        notes = apply(PARAMS, opened, also_known=("entailed", "contradicted", "models")) if opened is not None else []
        notes += restore_pairs(typed(), opened or {}) + model_notes
        state.setdefault("probe_text", FRAME_EXAMPLE)
        show_link(publish("probe", current(PARAMS) | pairs_query(typed()) | models_query(choice)), notes)
        c1, c2 = st.columns([6, 1], vertical_alignment="bottom")
        text = c1.text_input("Your sentence", key="probe_text", persist_state="session",
                             help="Press Enter to score. Sentences in the paper's frame (pronoun, modal, verb, "
                                  "adjective + noun, connective, adjective + one) are tested on the suite's whole "
                                  "block of four decisions.")
        c2.button("Score", key="probe_score", type="primary")
        if len(text) > MAX_CHARS:
            st.error(f"The text is {len(text):,} characters long; the Probe reads one sentence of at most "
                     f"{MAX_CHARS} characters. Shorten it above (nothing was scored).")
            st.stop()
        if not text.strip():
            st.info(f"Type a sentence above, for example: *{FRAME_EXAMPLE}*")
            st.stop()
        found = analyze_sentence(text)
        if found.construction is None:
            st.warning(plain(found.message))
            st.stop()
        state.setdefault(construction_key(), found.construction)
        chosen = st.segmented_control("Construction", list(found.choices), format_func=found.choices.__getitem__,
                                      required=True, key=construction_key(),
                                      persist_state="session") or found.construction
        probe = found if chosen == found.construction else found.with_construction(chosen)
        st.markdown(f"**Sentence**: {plain(probe.text)}  \n**Control**: {plain(probe.control)}")
        st.caption(plain(probe.message))
        reduction, corrected = probe_settings()
        proposal = None if probe.fits_frame else propose_followups(probe)
        pairs, proposed = pair_inputs(typed(), probe, proposal) if proposal is not None else ([], [])
        request = ProbeRequest(probe, tuple(pairs), tuple(proposed), reduction, corrected)
        if choice is None:
            st.info("Load a model in the sidebar to score the sentence.")
            st.stop()
        models = Models(choice.specs)
        opened_point = checkpoints_section(request, choice.spec)
        if opened_point is not None:
            models = Models((opened_point.spec, *choice.compared))
            st.info(f"Below: checkpoint **{plain(opened_point.label)}** in place of {plain(choice.spec.label)}.")
        words_section(probe, models, corrected=corrected)
        if not request.has_decisions:
            st.info(no_pair_hint(proposal))
            st.stop()
        key, labels, picked = decision_choice(request)
        shown = scored_sections(request, models, detail=picked)
        verdicts_section(request, models, shown)
        detail_section(shown, models, key=key, labels=labels)
        manipulations_section(probe, models, shown)
