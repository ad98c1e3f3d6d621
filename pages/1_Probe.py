"""Probe: type one sentence; see how much the construction, against "or", shifts the model."""
from contextlib import closing

import streamlit as st

from pfcore.plots.tokens import rises_figure, token_bars_figure
from pfcore.probe import FRAME_EXAMPLE, UNITS, analyze_sentence, score_manipulations, score_probe
from pfcore.probe.view import followup_tokens, result_summary, sentence_tokens
from pfcore.store.cache import ScoreCache
from pfcore.ui.downloads import chart, download_csv, download_json
from pfcore.ui.errors import shown_errors
from pfcore.ui.model import scorer as request_scorer
from pfcore.ui.page import start_page

INTRO = """Type a sentence with *let alone*, *much less*, *not to mention* or *never mind*. The
model reads two follow-ups, one the construction **entails** and one it **contradicts**, after
your sentence and after the same sentence with *or*. If the model knows the construction's
meaning, the construction moves it toward the entailed follow-up more than *or* does."""

choice = start_page("Probe", INTRO)
with shown_errors():
    text = st.text_area("Your sentence", value=FRAME_EXAMPLE, height=80, max_chars=2000, key="probe_text",
                        help="Sentences in the paper's frame (pronoun, modal, verb, adjective + noun, "
                             "connective, adjective + one) get follow-ups and syntactic tests proposed.")
    if not text.strip():
        st.info(f"Type a sentence above, for example: *{FRAME_EXAMPLE}*")
        st.stop()
    found = analyze_sentence(text)
    if found.construction is None:
        st.warning(found.message)
        st.stop()
    chosen = st.segmented_control("Construction", list(found.choices), format_func=found.choices.get,
                                  default=found.construction, required=True,
                                  key=f"probe_cxn_{found.text}")
    probe = found if chosen == found.construction else found.with_construction(chosen)
    st.markdown(f"**Sentence**: {probe.text}  \n**Control**: {probe.control}")
    st.caption(probe.message)
    proposed = probe.proposed or ("", "")
    c1, c2 = st.columns(2)
    entailed = c1.text_input("Entailed follow-up", value=proposed[0], key=f"probe_ent_{found.text}",
                             placeholder="what the construction implies, e.g. Squid is worse than shrimp.")
    contradicted = c2.text_input("Contradicted follow-up", value=proposed[1], key=f"probe_con_{found.text}",
                                 placeholder="what it rules out, e.g. Shrimp is worse than squid.")
    reduction = st.radio("Sentence score", list(UNITS), horizontal=True, key="probe_reduction",
                         format_func=lambda r: {"sum": "sum of log-probs", "mean": "mean per token"}[r])
    if choice is None:
        st.info("Load a model in the sidebar to score the sentence.")
        st.stop()
    if not entailed.strip() or not contradicted.strip():
        st.info("Type both follow-ups to score the sentence (a sentence in the paper's frame gets "
                f"them proposed, e.g. *{FRAME_EXAMPLE}*).")
        st.stop()
    scorer = request_scorer(choice.spec)
    with st.spinner(f"Scoring with {choice.spec.label}..."), closing(ScoreCache()) as cache:
        result = score_probe(scorer, probe, entailed, contradicted, cache, reduction)
    unit = UNITS[reduction]
    m1, m2, m3 = st.columns(3)
    m1.metric(f"Log-odds shift with '{probe.connective}'", f"{result.shift_construction:+.3f}",
              help=f"log P(entailed) − log P(contradicted) after the sentence ({unit})")
    m2.metric(f"Log-odds shift with '{probe.lexicon.semantic_control}' (control)", f"{result.shift_control:+.3f}")
    m3.metric("Effect of the construction", f"{result.effect:+.3f}", help=f"the difference ({unit})")
    (st.success if result.correct else st.warning)(result.verdict)
    st.caption(f"Scored by {choice.spec.label}: {scorer.method.label}. Bars: surprisal of each token "
               "in bits; red: the tokens whose surprisal the construction changes most against the "
               "control.")
    chart(token_bars_figure(followup_tokens(result), "panel", highlight="moved",
                            title="Per-token surprisal of the follow-ups"), "probe_followups.html",
          key="probe_followups_chart")
    st.markdown("**Tokens the construction moves most** (change in bits, construction minus control; "
                "negative: less surprising with the construction)")
    st.dataframe(result.moved_most, hide_index=True)
    with st.expander("The sentence and its control, scored alone"):
        chart(token_bars_figure(sentence_tokens(result), "panel", title="Per-token surprisal"),
              "probe_sentences.html", key="probe_sentences_chart")
    d1, d2 = st.columns(2)
    with d1:
        download_csv(result.tokens, "probe_tokens.csv", "Per-token surprisals (CSV)")
    with d2:
        download_json(result_summary(result, choice.spec.label), "probe.json", "Result (JSON)")

    st.subheader("Syntactic manipulations")
    if not probe.fits_frame:
        st.info(f"Manipulations are built for sentences in the paper's frame, such as *{FRAME_EXAMPLE}*")
        st.stop()
    st.markdown("Paired-Focus constructions resist these changes more than *and* does (paper Table 3): "
                "a model that knows their form finds the manipulated sentence more surprising with "
                "the construction than with *and*. VP Conjunction and VP Gap Conjunction are controls.")
    with st.spinner("Scoring the manipulations..."), closing(ScoreCache()) as cache:
        rises = score_manipulations(scorer, probe, cache)
    chart(rises_figure(rises, probe.connective, "and"), "probe_manipulations.html", key="probe_rises_chart")
    st.dataframe(rises, hide_index=True)
    download_csv(rises, "probe_manipulations.csv", "Manipulations (CSV)")
