"""Probe: one sentence with a construction, read against "or": the balanced verdict from all its
decisions, per-token surprisal, and the syntactic manipulations."""
from contextlib import closing

import streamlit as st

from pfcore.analysis.base_rates import base_rates
from pfcore.items.schema import CONSTRUCTIONS
from pfcore.plots.tokens import rises_figure, token_bars_figure
from pfcore.probe import FRAME_EXAMPLE, MAX_CHARS, analyze_sentence, probe_sentence, score_manipulations, score_probe
from pfcore.probe.verdict import AGAINST, CAVEAT, CONSISTENT, anecdote_note
from pfcore.probe.view import followup_tokens, rises_in_bits, sentence_tokens, with_base_rates
from pfcore.store.cache import ScoreCache
from pfcore.store.results import load_results
from pfcore.ui.downloads import chart, download_csv, download_json
from pfcore.ui.errors import shown_errors
from pfcore.ui.links import Param, apply, choice_of, current, opened_query, publish, show_link
from pfcore.ui.model import scorer as request_scorer
from pfcore.ui.page import start_page

INTRO = """Type a sentence with *let alone*, *much less*, *not to mention* or *never mind*. The model
reads follow-ups the construction **entails** and ones it **contradicts**, after your sentence and
after the same sentence with *or*: a model that knows the construction's meaning moves toward the
entailed follow-up more with the construction than with *or*. Each such comparison is one
**decision**; the verdict comes from all of them."""
REDUCTIONS = {"mean": "mean log-prob per token (the paper's code)",
              "sum": "sum of log-probs (a departure from the paper: longer follow-ups weigh more)"}
BANNER = {CONSISTENT: st.success, AGAINST: st.warning}
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


PARAMS = (Param("sentence", "probe_text"),
          Param("construction", construction_key, choice_of(list(CONSTRUCTIONS))),
          Param("reduction", "probe_reduction", choice_of(list(REDUCTIONS))))

choice = start_page("Probe", INTRO)
state = st.session_state
with shown_errors():
    opened = opened_query("probe")
    notes = apply(PARAMS, opened, also_known=("entailed", "contradicted")) if opened is not None else []
    notes += restore_pairs(opened or {})
    state.setdefault("probe_text", FRAME_EXAMPLE)
    show_link(publish("probe", current(PARAMS) | pairs_query()), notes)
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
    chosen = st.segmented_control("Construction", list(found.choices), format_func=found.choices.get,
                                  required=True, key=construction_key(), persist_state="session")
    probe = found if chosen == found.construction else found.with_construction(chosen)
    st.markdown(f"**Sentence**: {probe.text}  \n**Control**: {probe.control}")
    st.caption(probe.message)
    reduction = st.radio("Sentence score", list(REDUCTIONS), format_func=REDUCTIONS.get, key="probe_reduction",
                         persist_state="session")
    pairs: list[tuple[str, str]] = []
    if not probe.fits_frame:
        st.markdown("**Follow-up pairs**: in each row, a follow-up the construction entails and one it "
                    "contradicts. Each row is one decision; add the pair in the reversed order too.")
        state.setdefault(pair_key("npairs"), 2)
        rows = st.number_input("Pairs", min_value=1, max_value=MAX_PAIRS, key=pair_key("npairs"),
                               persist_state="session")
        for row in range(int(rows)):
            c1, c2 = st.columns(2)
            pairs.append((c1.text_input(f"Entailed {row + 1}", key=pair_key("ent", row), persist_state="session",
                                        placeholder="e.g. Squid is worse than shrimp."),
                          c2.text_input(f"Contradicted {row + 1}", key=pair_key("con", row), persist_state="session",
                                        placeholder="e.g. Shrimp is worse than squid.")))
        pairs = [(e, c) for e, c in pairs if e.strip() and c.strip()]
        if not pairs:
            st.info("Type a follow-up pair above (e.g. *Squid is worse than shrimp.* / *Shrimp is worse "
                    f"than squid.*); sentences in the paper's frame, such as *{FRAME_EXAMPLE}*, get the "
                    "suite's four decisions without typing.")
            st.stop()
    if choice is None:
        st.info("Load a model in the sidebar to score the sentence.")
        st.stop()
    scorer = request_scorer(choice.spec)
    with st.spinner(f"Scoring with {choice.spec.label}..."), closing(ScoreCache()) as cache:
        result = probe_sentence(scorer, probe, pairs, cache, reduction)

    st.subheader("Verdict")
    BANNER.get(result.verdict, st.info)(
        f"**{result.verdict}**: with '{probe.connective}' the model moves toward the entailed follow-up more "
        f"than with 'or' in {result.n_correct} of {len(result.decisions)} decisions.")
    st.caption(anecdote_note(result) if result.anecdote else CAVEAT)
    rates = base_rates(load_results(), choice.spec.name, str(probe.construction))
    decisions = with_base_rates(result.table(), rates)
    st.dataframe(decisions, hide_index=True, column_config={
        "shift_construction": st.column_config.NumberColumn(f"shift with '{probe.connective}' ({result.unit})",
                                                            format="%+.3f"),
        "shift_control": st.column_config.NumberColumn(f"shift with 'or' ({result.unit})", format="%+.3f"),
        "effect": st.column_config.NumberColumn(f"effect ({result.unit})", format="%+.3f"),
        "suite_accuracy": st.column_config.NumberColumn("suite accuracy (this model, this condition)",
                                                        format="%.3f")})
    st.caption(f"Scored by {choice.spec.label}: {scorer.method.label}; a shift is log P(entailed) − log "
               f"P(contradicted), {result.unit}; effect = shift with the construction − shift with 'or'.")
    if rates.empty and probe.fits_frame:
        st.markdown("No suite run of this model yet: [run the semantic suite](/Run) on it to read these decisions "
                    "against its accuracy for each condition.")
    elif not rates.empty:
        st.caption(f"Suite accuracy from `{rates['source'].iloc[0]}` (results table).")
    d1, d2 = st.columns(2)
    with d1:
        download_csv(decisions, "probe_decisions.csv", "Decisions (CSV)")
    with d2:
        download_json(result.as_json(choice.spec.label), "probe.json", "Verdict (JSON)")

    st.subheader("One decision, token by token")
    labels = [f"{d.condition}: {d.entailed} / {d.contradicted}" for d in result.decisions]
    picked = result.decisions[st.selectbox("Decision", range(len(labels)), format_func=labels.__getitem__,
                                           key="probe_decision")]
    context = probe if picked.context == probe.text else analyze_sentence(picked.context)
    with closing(ScoreCache()) as cache:
        detail = score_probe(scorer, context, picked.entailed, picked.contradicted, cache, reduction)
    st.caption("Surprisal of each token in bits (one y-axis for all panels); red: the tokens whose surprisal "
               "the construction changes most against the control.")
    chart(token_bars_figure(followup_tokens(detail), "panel", highlight="moved",
                            title=f"{picked.condition}: the follow-ups after {picked.context!r} ({choice.spec.label})"),
          "probe_followups.html", key="probe_followups_chart")
    st.markdown("**Tokens the construction moves most** (change in bits, construction minus control; negative: "
                "less surprising with the construction)")
    st.dataframe(detail.moved_most, hide_index=True)
    with st.expander("The sentence and its control, scored alone"):
        chart(token_bars_figure(sentence_tokens(detail), "panel", title=f"Per-token surprisal ({choice.spec.label})"),
              "probe_sentences.html", key="probe_sentences_chart")
    download_csv(detail.tokens, "probe_tokens.csv", "Per-token surprisals (CSV)")

    st.subheader("Syntactic manipulations")
    if not probe.fits_frame:
        st.info(f"Manipulations are built for sentences in the paper's frame, such as *{FRAME_EXAMPLE}*")
        st.stop()
    st.markdown("Paired-Focus constructions resist these changes more than *and* does (paper Table 3): a model "
                "that knows their form finds the manipulated sentence more surprising with the construction than "
                "with *and*. VP Conjunction and VP Gap Conjunction are controls. Each row is one comparison.")
    with st.spinner("Scoring the manipulations..."), closing(ScoreCache()) as cache:
        rises = rises_in_bits(score_manipulations(scorer, probe, cache))
    figure = rises_figure(rises, probe.connective, "and")
    figure.update_layout(title=f"Manipulations of {probe.text!r} ({choice.spec.label})")
    chart(figure, "probe_manipulations.html", key="probe_rises_chart")
    st.dataframe(rises, hide_index=True)
    download_csv(rises, "probe_manipulations.csv", "Manipulations (CSV)")
