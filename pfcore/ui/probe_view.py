"""The Probe page's sections, each drawn for every model the sidebar compares (one colour, column or
table row per model on a shared axis): the sentence word by word, the sentence across training
checkpoints, the balanced verdict, one decision token by token, and the manipulations."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import closing

import pandas as pd
import streamlit as st

from pfcore.analysis.base_rates import base_rates
from pfcore.errors import PfcoreError
from pfcore.models import ModelSpec
from pfcore.plots.tokens import rises_figure, token_bars_figure
from pfcore.plots.words import checkpoint_figure, word_curves_figure
from pfcore.probe import FRAME_EXAMPLE, Probe, analyze_sentence, probe_sentence, score_manipulations, score_probe
from pfcore.probe.checkpoints import CheckpointProbe, checkpoint_series, distinct_weights, probe_checkpoint
from pfcore.probe.verdict import AGAINST, CAVEAT, CONSISTENT, SINGLE, ProbeVerdict, anecdote_note, unit_key
from pfcore.probe.view import followup_tokens, rises_in_bits, sentence_tokens, with_base_rates
from pfcore.probe.words import FIRST_WORD_NOTE, score_sentences, sentence_token_table, word_table
from pfcore.scoring.requests import Reduction
from pfcore.scoring.tables import stacked
from pfcore.store.cache import ScoreCache
from pfcore.store.results import load_results
from pfcore.suites.checkpoints import Checkpoint, checkpoints, series_name
from pfcore.ui.downloads import chart, download_csv, download_json
from pfcore.ui.errors import message_for
from pfcore.ui.model import Models, lazy_scorer

BANNER = {CONSISTENT: st.success, AGAINST: st.warning}
BOW_HELP = ("On: a word's surprisal is that of the word itself, its tokens plus the chance that a new word "
            "starts after it (the beginning-of-word correction; see docs/words-and-regions.md). Off: the sum of "
            "its tokens' surprisals, as minicons reports it.")


def words_section(probe: Probe, models: Models) -> None:
    """The sentence word by word (or token by token) with the construction against "or"."""
    st.subheader("The sentence word by word")
    c1, c2 = st.columns(2)
    unit = c1.segmented_control("Show", ["words", "tokens"], default="words", required=True, key="probe_unit",
                                persist_state="session")
    corrected = c2.toggle("Beginning-of-word correction", value=True, key="probe_corrected",
                          persist_state="session", help=BOW_HELP)
    with st.spinner(f"Scoring the sentence with {models.named()}..."), closing(ScoreCache()) as cache:
        scored = {label: score_sentences(s, probe, cache, corrected=bool(corrected))
                  for label, s in models.scorers.items()}
    if unit == "tokens":
        tokens = stacked({label: sentence_token_table(probe, *pair) for label, pair in scored.items()})
        st.caption("Surprisal of each token in bits; red: the tokens of focus 2.")
        chart(token_bars_figure(tokens, "sentence", highlight="focus2", facet="model",
                                title=f"Per-token surprisal of {probe.text!r} ({models.named()})"),
              "probe_sentence_tokens.html", key="probe_sentence_tokens_chart")
        download_csv(tokens, "probe_sentence_tokens.csv", "Sentence tokens (CSV)")
        return
    words = stacked({label: word_table(probe, *pair, corrected=bool(corrected)) for label, pair in scored.items()})
    st.caption(f"Surprisal of each word in bits with '{probe.connective}' (solid) and with 'or' (dotted); below, "
               f"the difference ('{probe.connective}' minus 'or'; negative: the word is less surprising after the "
               f"construction). Shaded: focus 2. The connective is one row, its words summed; {FIRST_WORD_NOTE}.")
    chart(word_curves_figure(words, probe.connective, title=f"{probe.text!r}, word by word ({models.named()})"),
          "probe_words.html", key="probe_words_chart")
    st.dataframe(words, hide_index=True, column_config={
        "surprisal_construction_bits": st.column_config.NumberColumn(f"with '{probe.connective}' (bits)",
                                                                     format="%.2f"),
        "surprisal_or_bits": st.column_config.NumberColumn("with 'or' (bits)", format="%.2f"),
        "difference_bits": st.column_config.NumberColumn("difference (bits)", format="%+.2f")})
    download_csv(words, "probe_words.csv", "Words (CSV)")


def checkpoints_section(probe: Probe, pairs: Sequence[tuple[str, str]], reduction: Reduction,
                        spec: ModelSpec) -> Checkpoint | None:
    """The sentence over a model's training checkpoints; returns the checkpoint opened with the
    slider (its full view then replaces the sidebar model below), or None."""
    with st.expander("Across training checkpoints", expanded="probe_ckpt_table" in st.session_state):
        st.markdown("For a model saved at several training steps: a local folder of `step<N>` or `checkpoint-<N>` "
                    "subfolders, or hub revisions of the sidebar model (such as Pythia's `step1000`).")
        c1, c2 = st.columns(2)
        folder = c1.text_input("Checkpoint folder", key="probe_ckpt_dir", persist_state="session")
        revisions = c2.text_input("...or revisions of the sidebar model", key="probe_ckpt_revisions",
                                  persist_state="session", placeholder="step1000,step8000,step143000 or pythia-log")
        try:
            points = checkpoints(spec, revisions.strip() or None, folder.strip() or None) \
                if folder.strip() or revisions.strip() else []
        except PfcoreError as exc:  # revisions of a model that has none, a folder without checkpoints...
            st.error(message_for(exc))
            return None
        if not points:
            st.caption("Give a folder or revisions to score this sentence at each checkpoint.")
            return None
        key = (probe.text, tuple(pairs), reduction, tuple(p.label for p in points))
        if st.session_state.get("probe_ckpt_key") != key:
            st.session_state.pop("probe_ckpt_table", None)
        if st.button(f"Score {len(points)} checkpoints", key="probe_ckpt_go"):
            st.session_state["probe_ckpt_table"], st.session_state["probe_ckpt_repeats"] = _score_checkpoints(
                probe, pairs, reduction, points, spec, folder.strip() or None)
            st.session_state["probe_ckpt_key"] = key
        table = st.session_state.get("probe_ckpt_table")
        if table is None:
            return None
        for warning in st.session_state.get("probe_ckpt_repeats", []):
            st.warning(warning)
        return _show_checkpoints(table, [p for p in points if p.label in set(table["checkpoint"])], probe,
                                 reduction)


def _score_checkpoints(probe: Probe, pairs: Sequence[tuple[str, str]], reduction: Reduction,
                       points: Sequence[Checkpoint], spec: ModelSpec,
                       folder: str | None) -> tuple[pd.DataFrame, list[str]]:
    """Score the checkpoints one at a time (each from the score cache when it was scored before);
    the series of those with distinct weights, and a warning for each one left out."""
    bar = st.progress(0.0, text="starting")
    probes: list[CheckpointProbe] = []
    with closing(ScoreCache()) as cache:
        for number, point in enumerate(points, start=1):
            bar.progress((number - 1) / len(points), text=f"checkpoint {number} of {len(points)}: {point.label}")
            probes.append(probe_checkpoint(lazy_scorer(point.spec), point, probe, pairs, cache, reduction=reduction))
    kept, repeats = distinct_weights(probes)
    bar.progress(1.0, text=f"{len(points)} checkpoints scored" + (f", {len(kept)} with distinct weights" if repeats
                                                                  else ""))
    return checkpoint_series(kept, load_results(), series_name(spec, folder), str(probe.construction)), repeats


def _show_checkpoints(table: pd.DataFrame, points: Sequence[Checkpoint], probe: Probe,
                      reduction: Reduction) -> Checkpoint | None:
    """The checkpoint chart and table, and the slider that opens one checkpoint's full view."""
    unit = reduction.unit
    chart(checkpoint_figure(table, unit, title=f"{probe.text!r} over training"), "probe_checkpoints.html",
          key="probe_checkpoints_chart")
    st.dataframe(table, hide_index=True, column_config={
        "effect": st.column_config.NumberColumn(f"mean effect ({unit})", format="%+.3f"),
        "suite_accuracy": st.column_config.NumberColumn("suite accuracy at this step (results table)",
                                                        format="%.3f")})
    if table["suite_accuracy"].isna().all():
        st.caption("No trajectory of this model is in the results table, so no suite accuracy is shown; "
                   "`pfcore trajectory` puts one there.")
    download_csv(table, "probe_checkpoints.csv", "Checkpoints (CSV)")
    if not st.toggle("Open one checkpoint below", key="probe_ckpt_open"):
        return None
    label = st.select_slider("Checkpoint", [p.label for p in points], key="probe_ckpt_pick")
    return next(p for p in points if p.label == label)


def verdicts_section(probe: Probe, pairs: Sequence[tuple[str, str]], reduction: Reduction,
                     models: Models) -> dict[str, ProbeVerdict]:
    """The balanced verdict of each model, one table of all decisions with the suite's accuracy."""
    with st.spinner(f"Scoring the decisions with {models.named()}..."), closing(ScoreCache()) as cache:
        verdicts = {label: probe_sentence(s, probe, pairs, cache, reduction) for label, s in models.scorers.items()}
    st.subheader("Verdict")
    results = load_results()
    tables = {}
    for spec, (label, result) in zip(models.specs, verdicts.items()):
        BANNER.get(result.verdict, st.info)(
            f"**{label}: {result.reading()}**" if result.verdict == SINGLE else
            f"**{label}: {result.verdict}**: with '{probe.connective}' the model moves toward the entailed "
            f"follow-up more than with 'or' in {result.n_correct} of {len(result.decisions)} decisions.")
        tables[label] = with_base_rates(result.table(), base_rates(results, spec.name, str(probe.construction)))
    first = next(iter(verdicts.values()))
    st.caption(anecdote_note(first) if first.anecdote else CAVEAT)
    decisions = stacked(tables)
    st.dataframe(decisions, hide_index=True, column_config={
        unit_key("shift_construction", first.unit): st.column_config.NumberColumn(
            f"shift with '{probe.connective}' ({first.unit})", format="%+.3f"),
        unit_key("shift_control", first.unit): st.column_config.NumberColumn(f"shift with 'or' ({first.unit})",
                                                                             format="%+.3f"),
        unit_key("effect", first.unit): st.column_config.NumberColumn(f"effect ({first.unit})", format="%+.3f"),
        "suite_accuracy": st.column_config.NumberColumn("suite accuracy (this model, this condition)",
                                                        format="%.3f")})
    methods = "; ".join(f"{label}: {s.method.label}" for label, s in models.scorers.items())
    st.caption(f"Scored by {methods}. A shift is log P(entailed) − log P(contradicted), {first.unit}; "
               "effect = shift with the construction − shift with 'or'.")
    if "suite_accuracy" not in decisions.columns and probe.fits_frame:
        st.markdown("No suite run of these models yet: [run the semantic suite](/Run) on one to read these "
                    "decisions against its accuracy for each condition.")
    d1, d2 = st.columns(2)
    with d1:
        download_csv(decisions, "probe_decisions.csv", "Decisions (CSV)")
    with d2:
        objects = [v.as_json(label) for label, v in verdicts.items()]
        download_json(objects[0] if len(objects) == 1 else {"results": objects}, "probe.json", "Verdict (JSON)")
    return verdicts


def detail_section(probe: Probe, verdicts: Mapping[str, ProbeVerdict], reduction: Reduction, models: Models) -> None:
    """One decision's follow-ups token by token, one column per model."""
    st.subheader("One decision, token by token")
    decisions = next(iter(verdicts.values())).decisions
    labels = [f"{d.condition}: {d.entailed} / {d.contradicted}" for d in decisions]
    picked = decisions[st.selectbox("Decision", range(len(labels)), format_func=labels.__getitem__,
                                    key="probe_decision")]
    context = probe if picked.context == probe.text else analyze_sentence(picked.context)
    with closing(ScoreCache()) as cache:
        details = {label: score_probe(s, context, picked.entailed, picked.contradicted, cache, reduction)
                   for label, s in models.scorers.items()}
    st.caption("Surprisal of each token in bits (one y-axis for all panels); red: the tokens whose surprisal "
               "the construction changes most against the control.")
    follow = stacked({label: followup_tokens(d) for label, d in details.items()})
    chart(token_bars_figure(follow, "panel", highlight="moved", facet="model",
                            title=f"{picked.condition}: the follow-ups after {picked.context!r} ({models.named()})"),
          "probe_followups.html", key="probe_followups_chart")
    st.markdown("**Tokens the construction moves most** (change in bits, construction minus control; negative: "
                "less surprising with the construction)")
    st.dataframe(stacked({label: d.moved_most for label, d in details.items()}), hide_index=True)
    with st.expander("The sentence and its control, scored alone"):
        chart(token_bars_figure(stacked({label: sentence_tokens(d) for label, d in details.items()}), "panel",
                                facet="model", title=f"Per-token surprisal ({models.named()})"),
              "probe_sentences.html", key="probe_sentences_chart")
    tokens = stacked({label: d.tokens.drop(columns="logprob") for label, d in details.items()})
    download_csv(tokens, "probe_tokens.csv", "Per-token surprisals (CSV)")


def manipulations_section(probe: Probe, models: Models) -> None:
    """The syntactic manipulations' surprisal rises, construction against "and", one panel per model."""
    st.subheader("Syntactic manipulations")
    if not probe.fits_frame:
        st.info(f"Manipulations are built for sentences in the paper's frame, such as *{FRAME_EXAMPLE}*")
        return
    st.markdown("Paired-Focus constructions resist these changes more than *and* does (paper Table 3): a model "
                "that knows their form finds the manipulated sentence more surprising with the construction than "
                "with *and*. VP Conjunction and VP Gap Conjunction are controls. Each row is one comparison.")
    with st.spinner("Scoring the manipulations..."), closing(ScoreCache()) as cache:
        rises = stacked({label: rises_in_bits(score_manipulations(s, probe, cache))
                         for label, s in models.scorers.items()})
    figure = rises_figure(rises, probe.connective, "and")
    figure.update_layout(title=f"Manipulations of {probe.text!r} ({models.named()})")
    chart(figure, "probe_manipulations.html", key="probe_rises_chart")
    st.dataframe(rises, hide_index=True)
    download_csv(rises, "probe_manipulations.csv", "Manipulations (CSV)")
