"""Probe: one sentence with a construction, read against "or", by up to four models side by side:
the sentence word by word, the sentence across training checkpoints, the balanced verdict from all
its decisions, one decision token by token, and the syntactic manipulations."""
import streamlit as st

from pfcore.items.schema import CONSTRUCTIONS
from pfcore.names import Reduction
from pfcore.probe import FRAME_EXAMPLE, MAX_CHARS, analyze_sentence
from pfcore.ui.errors import shown_errors
from pfcore.ui.links import Param, apply, choice_of, current, opened_query, publish, show_link
from pfcore.ui.model import apply_models_link, models_query
from pfcore.ui.page import start_page
from pfcore.ui.probe_view import (
    Models,
    checkpoints_section,
    detail_section,
    manipulations_section,
    verdicts_section,
    words_section,
)

INTRO = """Type a sentence with *let alone*, *much less*, *not to mention* or *never mind*. The model
reads follow-ups the construction **entails** and ones it **contradicts**, after your sentence and
after the same sentence with *or*: a model that knows the construction's meaning moves toward the
entailed follow-up more with the construction than with *or*. Each such comparison is one
**decision**; the verdict comes from all of them."""
REDUCTIONS = {Reduction.MEAN: "mean log-prob per token (the paper's code)",
              Reduction.SUM: "sum of log-probs (a departure from the paper: longer follow-ups weigh more)"}
MAX_PAIRS = 6


def typed() -> str:
    """The sentence in the box, with its spaces made single (as the probe reads it)."""
    return " ".join(str(st.session_state.get("probe_text", FRAME_EXAMPLE)).split())


def construction_key() -> str:
    """The construction switch's key: one per sentence, so a new sentence starts on its own."""
    return f"probe_cxn_{typed()}"


def pair_key(what: str, row: int | None = None) -> str:
    """The key of a follow-up pair widget of the typed sentence (kept when the construction switches)."""
    return f"probe_{what}_{typed()}" if row is None else f"probe_{what}_{row}_{typed()}"


def restore_pairs(query: dict[str, list[str]]) -> list[str]:
    """Put a link's entailed/contradicted follow-ups into the pair inputs; a note when unpaired."""
    entailed, contradicted = query.get("entailed", []), query.get("contradicted", [])
    if len(entailed) != len(contradicted):
        return [f"entailed/contradicted ({len(entailed)} and {len(contradicted)}: they come in pairs)"]
    if entailed:
        st.session_state[pair_key("npairs")] = min(len(entailed), MAX_PAIRS)
        for row, (e, c) in enumerate(list(zip(entailed, contradicted))[:MAX_PAIRS]):
            st.session_state[pair_key("ent", row)], st.session_state[pair_key("con", row)] = e, c
    return []


def pairs_query() -> dict[str, list[str]]:
    """The typed follow-up pairs as the link's entailed/contradicted values."""
    rows = int(st.session_state.get(pair_key("npairs"), 0) or 0)
    pairs = [(st.session_state.get(pair_key("ent", r), ""), st.session_state.get(pair_key("con", r), ""))
             for r in range(rows)]
    pairs = [(e, c) for e, c in pairs if str(e).strip() and str(c).strip()]
    return {"entailed": [e for e, _ in pairs], "contradicted": [c for _, c in pairs]} if pairs else {}


def pair_inputs() -> list[tuple[str, str]]:
    """The follow-up pair inputs (one decision per row); the pairs typed in full."""
    st.markdown("**Follow-up pairs**: in each row, a follow-up the construction entails and one it "
                "contradicts. Each row is one decision; add the pair in the reversed order too.")
    st.session_state.setdefault(pair_key("npairs"), 2)
    rows = st.number_input("Pairs", min_value=1, max_value=MAX_PAIRS, key=pair_key("npairs"), persist_state="session")
    pairs = []
    for row in range(int(rows)):
        c1, c2 = st.columns(2)
        pairs.append((c1.text_input(f"Entailed {row + 1}", key=pair_key("ent", row), persist_state="session",
                                    placeholder="e.g. Squid is worse than shrimp."),
                      c2.text_input(f"Contradicted {row + 1}", key=pair_key("con", row), persist_state="session",
                                    placeholder="e.g. Shrimp is worse than squid.")))
    return [(e, c) for e, c in pairs if e.strip() and c.strip()]


PARAMS = (Param("sentence", "probe_text"),
          Param("construction", construction_key, choice_of(list(CONSTRUCTIONS))),
          Param("reduction", "probe_reduction", choice_of(list(REDUCTIONS))))

state = st.session_state
opened = opened_query("probe")
model_notes = apply_models_link(opened) if opened is not None else []
choice = start_page("Probe", INTRO)
with shown_errors():
    notes = apply(PARAMS, opened, also_known=("entailed", "contradicted", "models")) if opened is not None else []
    notes += restore_pairs(opened or {}) + model_notes
    state.setdefault("probe_text", FRAME_EXAMPLE)
    show_link(publish("probe", current(PARAMS) | pairs_query() | models_query(choice)), notes)
    text = st.text_area("Your sentence", height=80, key="probe_text", persist_state="session",
                        help="Sentences in the paper's frame (pronoun, modal, verb, adjective + noun, connective, "
                             "adjective + one) are tested on the suite's whole block of four decisions.")
    if len(text) > MAX_CHARS:
        st.error(f"The text is {len(text):,} characters long; the Probe reads one sentence of at most "
                 f"{MAX_CHARS} characters. Shorten it above (nothing was scored).")
        st.stop()
    if not text.strip():
        st.info(f"Type a sentence above, for example: *{FRAME_EXAMPLE}*")
        st.stop()
    found = analyze_sentence(text)
    if found.construction is None:
        st.warning(found.message)
        st.stop()
    state.setdefault(construction_key(), found.construction)
    chosen = st.segmented_control("Construction", list(found.choices), format_func=found.choices.__getitem__,
                                  required=True, key=construction_key(), persist_state="session") or found.construction
    probe = found if chosen == found.construction else found.with_construction(chosen)
    st.markdown(f"**Sentence**: {probe.text}  \n**Control**: {probe.control}")
    st.caption(probe.message)
    reduction = Reduction(st.radio("Sentence score", list(REDUCTIONS), format_func=REDUCTIONS.__getitem__,
                                   key="probe_reduction", persist_state="session") or Reduction.MEAN)
    pairs = [] if probe.fits_frame else pair_inputs()
    if choice is None:
        st.info("Load a model in the sidebar to score the sentence.")
        st.stop()
    models = Models(choice.specs)
    opened_point = checkpoints_section(probe, pairs, reduction, choice.spec)
    if opened_point is not None:
        models = Models((opened_point.spec, *choice.compared))
        st.info(f"Below: checkpoint **{opened_point.label}** in place of {choice.spec.label}.")
    words_section(probe, models)
    if not probe.fits_frame and not pairs:
        st.info("Type a follow-up pair above (e.g. *Squid is worse than shrimp.* / *Shrimp is worse "
                f"than squid.*) for the verdict; sentences in the paper's frame, such as *{FRAME_EXAMPLE}*, get "
                "the suite's four decisions without typing.")
        st.stop()
    verdicts = verdicts_section(probe, pairs, reduction, models)
    detail_section(probe, verdicts, reduction, models)
    manipulations_section(probe, models)
