"""Probe: one sentence with a construction, read against "or", by up to four models side by side:
the sentence word by word, the sentence across training checkpoints, the balanced verdict from all
its decisions (both orders) beside the suite's base rate, one decision token by token, and the
syntactic manipulations."""
import streamlit as st

from pfcore.items.schema import CONSTRUCTIONS
from pfcore.probe import FRAME_EXAMPLE, MAX_CHARS, analyze_sentence
from pfcore.probe.propose import propose_followups
from pfcore.ui.errors import shown_errors
from pfcore.ui.links import Param, apply, choice_of, current, opened_query, publish, show_link
from pfcore.ui.model import Models, apply_models_link, models_query
from pfcore.ui.page import start_page
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

INTRO = """Type a sentence with *let alone*, *much less*, *not to mention* or *never mind* and press
Enter. The model reads follow-ups the construction **entails** and ones it **contradicts**, after your
sentence and after the same sentence with *or*: a model that knows the construction's meaning moves
toward the entailed follow-up more with the construction than with *or*. Each such comparison is one
**decision**; the verdict comes from all of them, on the sentence as typed and with its foci swapped."""
WORDS = ("surprisal", "bit", "token", "bits-per-token", "focus", "follow-up", "control", "delta-p", "effect",
         "decision", "base-rate", "interval", "word-correction")


def typed() -> str:
    """The sentence in the box, with its spaces made single (as the probe reads it)."""
    return " ".join(str(st.session_state.get("probe_text", FRAME_EXAMPLE)).split())


def construction_key() -> str:
    """The construction switch's key: one per sentence, so a new sentence starts on its own."""
    return f"probe_cxn_{typed()}"


PARAMS = (Param("sentence", "probe_text"),
          Param("construction", construction_key, choice_of(list(CONSTRUCTIONS))),
          Param("reduction", "probe_reduction", choice_of(list(REDUCTIONS))))

state = st.session_state
opened = opened_query("probe")
model_notes = apply_models_link(opened) if opened is not None else []
choice = start_page("Probe", INTRO, terms=WORDS)
with shown_errors():
    notes = apply(PARAMS, opened, also_known=("entailed", "contradicted", "models")) if opened is not None else []
    notes += restore_pairs(typed(), opened or {}) + model_notes
    state.setdefault("probe_text", FRAME_EXAMPLE)
    show_link(publish("probe", current(PARAMS) | pairs_query(typed()) | models_query(choice)), notes)
    c1, c2 = st.columns([6, 1], vertical_alignment="bottom")
    text = c1.text_input("Your sentence", key="probe_text", persist_state="session",
                         help="Press Enter to score. Sentences in the paper's frame (pronoun, modal, verb, adjective "
                              "+ noun, connective, adjective + one) are tested on the suite's whole block of four "
                              "decisions.")
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
                                  required=True, key=construction_key(), persist_state="session") or found.construction
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
