"""The Probe page's sections, each drawn for every model the sidebar compares (one colour, column or
table row per model on a shared axis): the settings, the follow-up pairs (with the pair pfcore
proposes), the sentence across training checkpoints, the sentence word by word, and, from one
scorer call per model (`probe_sections`), the balanced verdict beside its base rate, one decision
token by token and the manipulations."""
from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
import streamlit as st
from streamlit.elements.lib.column_types import ColumnConfig

from pfcore.analysis.base_rates import base_rates, describe_base_rates
from pfcore.deployment import PUBLIC_NOTE, deployment
from pfcore.errors import PfcoreError
from pfcore.glossary import glossary_link
from pfcore.models import ModelSpec
from pfcore.names import Reduction
from pfcore.output import envelope
from pfcore.plots.tokens import rises_figure, token_bars_figure
from pfcore.plots.words import checkpoint_figure, word_curves_figure
from pfcore.probe import FRAME_EXAMPLE, Probe
from pfcore.probe.checkpoints import effect_column, probe_checkpoints
from pfcore.probe.propose import Proposal, pair_hints
from pfcore.probe.sections import ProbeSections, Section, probe_sections
from pfcore.probe.verdict import (
    AGAINST,
    CAVEAT,
    CONSISTENT,
    MIXED,
    UNIT,
    ProbeVerdict,
    anecdote_note,
    plan_decisions,
    unit_key,
)
from pfcore.probe.view import (
    followup_tokens,
    key_decisions,
    rises_in_bits,
    sentence_tokens,
    verdict_line,
    with_base_rates,
    without_signed_zeros,
)
from pfcore.probe.words import FIRST_WORD_NOTE, sentence_token_table
from pfcore.runs.checkpoints import Checkpoint, checkpoints, series_name
from pfcore.scoring.tables import stacked
from pfcore.store.cache import ScoreCache
from pfcore.store.results import load_results
from pfcore.ui.downloads import chart, download_csv, download_json
from pfcore.ui.errors import message_for
from pfcore.ui.model import Models
from pfcore.ui.tables import BITS, number_columns
from pfcore.ui.text import plain, quoted

BANNER = {CONSISTENT: st.success, AGAINST: st.warning, MIXED: st.info}  # one decision: a neutral box
BOW_HELP = ("On: a word's surprisal is that of the whole word: its tokens' surprisal, plus the surprisal of a "
            "new word starting after it, minus that of a new word starting before it (the "
            f"[beginning-of-word correction]({glossary_link('word-correction')})). Off: the sum of its tokens' "
            "surprisals, as minicons reports it. It applies to the words and to the checkpoints.")
REDUCTIONS = {Reduction.MEAN: "mean log-prob per token (the paper's code)",
              Reduction.SUM: "sum of log-probs (a departure from the paper: longer follow-ups weigh more)"}
MAX_PAIRS = 6
MISSING = "–"  # what a cell without a value shows (never "None")
SIGNED = "%+.3g"  # a signed value to 3 significant digits: a small one is never shown as "-0.00"


@dataclass(frozen=True)
class ProbeRequest:
    """What the page scores for one sentence: the probe, the follow-up pairs typed and those
    proposed (kept apart, so the table marks them), and the settings."""

    probe: Probe
    pairs: tuple[tuple[str, str], ...] = ()
    proposed: tuple[tuple[str, str], ...] = ()
    reduction: Reduction = Reduction.MEAN
    corrected: bool = True

    @property
    def has_decisions(self) -> bool:
        """Whether there is something to decide: the frame's block, or a pair."""
        return bool(self.pairs or self.proposed) or self.probe.fits_frame

    @property
    def unit(self) -> str:
        """The unit of ΔP and its difference."""
        return UNIT[self.reduction]

    @property
    def key(self) -> tuple[object, ...]:
        """What the request's results depend on, to tell when they must be made again."""
        return self.probe.text, self.pairs, self.proposed, self.reduction, self.corrected


# ----- settings and follow-up pairs -----

def probe_settings() -> tuple[Reduction, bool]:
    """The sentence score (mean or sum) and the word correction, each on a line of its own."""
    reduction = st.radio("Sentence score", list(REDUCTIONS), format_func=REDUCTIONS.__getitem__,
                         key="probe_reduction", persist_state="session")
    corrected = st.toggle("Beginning-of-word correction", value=True, key="probe_corrected",
                          persist_state="session", help=BOW_HELP)
    return Reduction(reduction or Reduction.MEAN), bool(corrected)


def pair_key(sentence: str, what: str, row: int | None = None) -> str:
    """The key of a follow-up pair widget of a typed sentence (kept when the construction switches)."""
    return f"probe_{what}_{sentence}" if row is None else f"probe_{what}_{row}_{sentence}"


def restore_pairs(sentence: str, query: Mapping[str, list[str]]) -> list[str]:
    """Put a link's entailed/contradicted follow-ups into the pair inputs; a note when unpaired."""
    entailed, contradicted = query.get("entailed", []), query.get("contradicted", [])
    if len(entailed) != len(contradicted):
        return [f"entailed/contradicted ({len(entailed)} and {len(contradicted)}: they come in pairs)"]
    if entailed:
        st.session_state[pair_key(sentence, "npairs")] = min(len(entailed), MAX_PAIRS)
        for row, (e, c) in enumerate(list(zip(entailed, contradicted))[:MAX_PAIRS]):
            st.session_state[pair_key(sentence, "ent", row)] = e
            st.session_state[pair_key(sentence, "con", row)] = c
    return []


def _typed_pairs(sentence: str) -> list[tuple[str, str]]:
    """The pairs typed in full for a sentence, from the widgets' state."""
    rows = int(st.session_state.get(pair_key(sentence, "npairs"), 0) or 0)
    pairs = [(str(st.session_state.get(pair_key(sentence, "ent", r), "")),
              str(st.session_state.get(pair_key(sentence, "con", r), ""))) for r in range(rows)]
    return [(e, c) for e, c in pairs if e.strip() and c.strip()]


def pairs_query(sentence: str) -> dict[str, list[str]]:
    """The typed follow-up pairs as the link's entailed/contradicted values."""
    pairs = _typed_pairs(sentence)
    return {"entailed": [e for e, _ in pairs], "contradicted": [c for _, c in pairs]} if pairs else {}


def _use_proposal(sentence: str, proposal: Proposal) -> None:
    """Put the proposed pair into the first empty row (a new one when all are full)."""
    state = st.session_state
    rows = int(state.get(pair_key(sentence, "npairs"), 1) or 1)
    empty = [r for r in range(rows) if not str(state.get(pair_key(sentence, "ent", r), "")).strip()
             and not str(state.get(pair_key(sentence, "con", r), "")).strip()]
    row = empty[0] if empty else min(rows, MAX_PAIRS - 1)
    state[pair_key(sentence, "npairs")] = max(rows, row + 1)
    state[pair_key(sentence, "ent", row)] = proposal.entailed
    state[pair_key(sentence, "con", row)] = proposal.contradicted


def pair_inputs(sentence: str, probe: Probe,
                proposal: Proposal) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The follow-up pair inputs of a sentence outside the frame, with the pair pfcore proposes
    (shown, and put into a row for editing only at a click); returns the complete pairs as
    (typed, proposed): a row holding the proposal unedited counts as proposed."""
    st.markdown("**Follow-up pairs**: in each row, a follow-up the construction entails and one it "
                "contradicts. Each row is read twice: on the sentence as typed and with its foci swapped.")
    if proposal.pair is not None and not proposal.scorable:
        st.info(f"**Proposed follow-ups, not scored**: *{proposal.entailed}* / *{proposal.contradicted}*. "
                f"Not scored: {proposal.not_scored}. Type a pair of your own below.")
    elif proposal.pair is not None:
        with st.container(border=True):
            st.markdown(f"**Proposed follow-ups** (a proposal from {proposal.source}; not scored until you put "
                        f"it in a row):  \nentailed: *{plain(proposal.entailed)}*  \n"
                        f"contradicted: *{plain(proposal.contradicted)}*")
            st.button("Use the proposed pair", key=pair_key(sentence, "use"), on_click=_use_proposal,
                      args=(sentence, proposal), help="puts it into a row below, where you can edit it")
    else:
        st.info(f"No follow-ups are proposed for this sentence: {plain(proposal.reason)}.")
    st.session_state.setdefault(pair_key(sentence, "npairs"), 1)
    rows = st.number_input("Pairs", min_value=1, max_value=MAX_PAIRS, key=pair_key(sentence, "npairs"),
                           persist_state="session")
    hint_entailed, hint_contradicted = pair_hints(probe, proposal)
    for row in range(int(rows)):
        c1, c2 = st.columns(2)
        c1.text_input(f"Entailed {row + 1}", key=pair_key(sentence, "ent", row), persist_state="session",
                      placeholder=hint_entailed)
        c2.text_input(f"Contradicted {row + 1}", key=pair_key(sentence, "con", row), persist_state="session",
                      placeholder=hint_contradicted)
    pairs = _typed_pairs(sentence)
    proposed = [p for p in pairs if proposal.scorable and p == proposal.pair]
    return [p for p in pairs if p not in proposed], proposed


def no_pair_hint(proposal: Proposal | None) -> str:
    """What to do when a sentence outside the frame has no pair yet, with an example that follows it."""
    example = (f"Use the proposed pair, or type one such as *{plain(proposal.entailed)}* / "
               f"*{plain(proposal.contradicted)}*"
               if proposal is not None and proposal.scorable else "No pair could be proposed, so type one")
    return (f"Type a follow-up pair above for the verdict. {example}. Sentences in the paper's frame, such as "
            f"*{FRAME_EXAMPLE}*, get the suite's four decisions without typing.")


# ----- the sentence across checkpoints -----

def checkpoints_section(request: ProbeRequest, spec: ModelSpec) -> Checkpoint | None:
    """The sentence over a model's training checkpoints; returns the checkpoint opened with the
    slider (its full view then replaces the sidebar model below), or None. Off in public mode."""
    if not deployment().allows_paths:
        st.caption(f"{PUBLIC_NOTE}: checkpoint folders and revisions are off here; the Trajectories page "
                   "shows the published checkpoint results.")
        return None
    state = st.session_state
    with st.expander("Across training checkpoints", expanded="probe_ckpt_table" in state):
        st.markdown("For a model saved at several training steps: a local folder of `step<N>` or `checkpoint-<N>` "
                    "subfolders, or hub revisions of the sidebar model (such as Pythia's `step1000`).")
        folder = st.text_input("Checkpoint folder", key="probe_ckpt_dir", persist_state="session")
        revisions = st.text_input("...or revisions of the sidebar model", key="probe_ckpt_revisions",
                                  persist_state="session", placeholder="step1000,step8000,step143000 or pythia-log")
        try:
            points = checkpoints(spec, revisions.strip() or None, folder.strip() or None) \
                if folder.strip() or revisions.strip() else []
        except PfcoreError as exc:  # revisions of a model that has none, a folder without checkpoints...
            st.error(plain(message_for(exc)))
            return None
        if not points:
            st.caption("Give a folder or revisions to score this sentence at each checkpoint.")
            return None
        key = (request.key, tuple(p.label for p in points))
        if state.get("probe_ckpt_key") != key:
            state.pop("probe_ckpt_table", None)
        if st.button(f"Score {len(points)} checkpoints", key="probe_ckpt_go"):
            _score_checkpoints(request, points, series_name(spec, folder.strip() or None))
            state["probe_ckpt_key"] = key
        table = state.get("probe_ckpt_table")
        if table is None:
            return None
        for warning in state.get("probe_ckpt_repeats", []):
            st.warning(warning)
        return _show_checkpoints(table, [p for p in points if p.label in set(table["checkpoint"])], request)


def _score_checkpoints(request: ProbeRequest, points: Sequence[Checkpoint], series: str) -> None:
    """Score the checkpoints with the CLI's loop (every setting passed, one model in memory at a
    time, each from the score cache when it was scored before), into the session."""
    bar = st.progress(0.0, text="starting")

    def started(number: int, total: int, point: Checkpoint) -> None:
        bar.progress((number - 1) / total, text=f"checkpoint {number} of {total}: {point.label}")

    with ScoreCache() as cache:
        scored = probe_checkpoints(points, request.probe, request.pairs + request.proposed, series=series,
                                   results=load_results(), cache=cache, reduction=request.reduction,
                                   corrected=request.corrected, started=started)
    bar.progress(1.0, text=f"{len(points)} checkpoints scored" + (
        f", {len(scored.probes)} with distinct weights" if scored.repeats else ""))
    st.session_state["probe_ckpt_table"] = without_signed_zeros(scored.table)
    st.session_state["probe_ckpt_repeats"] = list(scored.repeats)


def _show_checkpoints(table: pd.DataFrame, points: Sequence[Checkpoint], request: ProbeRequest) -> Checkpoint | None:
    """The checkpoint chart and table, and the slider that opens one checkpoint's full view."""
    effect = effect_column(request.reduction)
    chart(checkpoint_figure(table, request.unit, effect=effect, title=f"{quoted(request.probe.text)} over training"),
          "probe_checkpoints.html", key="probe_checkpoints_chart")
    st.dataframe(table, hide_index=True, placeholder=MISSING, column_config={
        effect: st.column_config.NumberColumn(f"mean ΔP difference ({request.unit})", format=SIGNED),
        "focus2_difference_bits": st.column_config.NumberColumn("focus 2, difference (bits)", format=SIGNED),
        "suite_accuracy": st.column_config.NumberColumn("suite accuracy at this step (results table)",
                                                        format="%.3f")})
    st.caption(f"Words {'with' if request.corrected else 'without'} the beginning-of-word correction.")
    if table["suite_accuracy"].isna().all():
        st.caption("No trajectory of this model is in the results table, so no suite accuracy is shown; "
                   "`pfcore trajectory` puts one there.")
    download_csv(table, "probe_checkpoints.csv", "Checkpoints (CSV)")
    if not st.toggle("Open one checkpoint below", key="probe_ckpt_open"):
        return None
    label = st.select_slider("Checkpoint", [p.label for p in points], key="probe_ckpt_pick")
    return next(p for p in points if p.label == label)


# ----- the sentence word by word -----

def surprisal_columns(connective: str, construction: str, control: str) -> dict[str, ColumnConfig]:
    """A table's two surprisal columns, with the construction and with 'or', named alike in every table
    of the page (the table of tokens moved most showed its raw column names)."""
    return {construction: st.column_config.NumberColumn(f"with '{connective}' (bits)", format=BITS),
            control: st.column_config.NumberColumn("with 'or' (bits)", format=BITS)}


def words_section(probe: Probe, models: Models, *, corrected: bool) -> None:
    """The sentence word by word (or token by token) with the construction against "or", scored
    first and alone, so that it shows before the rest."""
    st.subheader("The sentence word by word")
    unit = st.segmented_control("Show", ["words", "tokens"], default="words", required=True, key="probe_unit",
                                persist_state="session")
    with st.spinner(f"Scoring the sentence with {models.named()}..."), ScoreCache() as cache:
        shown = {label: probe_sections(s, probe, sections={Section.WORDS}, cache=cache, corrected=corrected)
                 for label, s in models.scorers.items()}
    if unit == "tokens":
        tokens = stacked({label: sentence_token_table(probe, *s.sentences) for label, s in shown.items()
                          if s.sentences is not None})
        st.caption("Surprisal of each token in bits; red: the tokens of focus 2.")
        chart(token_bars_figure(tokens, "sentence", highlight="focus2", facet="model",
                                title=f"Per-token surprisal of {quoted(probe.text)} ({models.named()})"),
              "probe_sentence_tokens.html", key="probe_sentence_tokens_chart")
        download_csv(tokens, "probe_sentence_tokens.csv", "Sentence tokens (CSV)")
        return
    words = without_signed_zeros(stacked({label: s.words for label, s in shown.items() if s.words is not None}))
    st.caption(f"Surprisal of each word in bits with '{probe.connective}' (solid) and with 'or' (dotted); below, "
               f"the difference ('{probe.connective}' minus 'or'; negative: the word is less surprising after the "
               f"construction). Shaded: focus 2. The connective is one row, its words summed; {FIRST_WORD_NOTE} "
               f"({MISSING} in the table). Words {'with' if corrected else 'without'} the beginning-of-word "
               "correction.")
    chart(word_curves_figure(words, probe.connective, title=f"{quoted(probe.text)}, word by word ({models.named()})"),
          "probe_words.html", key="probe_words_chart")
    st.dataframe(words, hide_index=True, placeholder=MISSING, column_config={
        **surprisal_columns(probe.connective, "surprisal_construction_bits", "surprisal_or_bits"),
        "difference_bits": st.column_config.NumberColumn("difference (bits)", format=SIGNED)})
    download_csv(words, "probe_words.csv", "Words (CSV)")


# ----- the decisions, from one scorer call per model -----

def decision_choice(request: ProbeRequest) -> tuple[str, list[str], int]:
    """The decision picker of this request, planned before scoring: its key (one per sentence
    and pairs, so it never shows another sentence's decision), its labels and the index picked."""
    plan = plan_decisions(request.probe, request.pairs, proposed=request.proposed)
    labels = [f"{p.condition}: {p.entailed} / {p.contradicted}" for p in plan.planned]
    key = "probe_decision_" + hashlib.sha256("\n".join([request.probe.text, *labels]).encode()).hexdigest()[:16]
    picked = st.session_state.get(key)
    return key, labels, labels.index(picked) if picked in labels else 0


def scored_sections(request: ProbeRequest, models: Models, *, detail: int) -> dict[str, ProbeSections]:
    """Every section below the words for each model, each model's in one scorer call (one
    prefix tree: the decisions on both orders, the decision in detail, the manipulations)."""
    wanted = {Section.DECISIONS, Section.DETAIL, Section.MANIPULATIONS}
    with st.spinner(f"Scoring the decisions with {models.named()}..."), ScoreCache() as cache:
        return {label: probe_sections(s, request.probe, sections=wanted, pairs=request.pairs,
                                      proposed=request.proposed, detail=detail, cache=cache,
                                      reduction=request.reduction, corrected=request.corrected)
                for label, s in models.scorers.items()}


def _banner(label: str, verdict: ProbeVerdict) -> None:
    """One model's verdict: green, yellow or blue for consistent, against or mixed; one decision,
    which is no verdict, in a neutral box."""
    show = BANNER.get(verdict.verdict) or st.container(border=True).markdown
    show(verdict_line(label, verdict))


def verdicts_section(request: ProbeRequest, models: Models, shown: Mapping[str, ProbeSections]) -> None:
    """Each model's verdict with its base rate beside it, then one table of all decisions: the key
    columns first (the sentence, the decision, its ΔP difference, the base rate), the rest folded away."""
    probe = request.probe
    st.subheader("Verdict")
    results = load_results()
    tables, first = {}, None
    for spec, (label, sections) in zip(models.specs, shown.items()):
        verdict = sections.verdict
        if verdict is None:
            continue
        first = first or verdict
        rates = base_rates(results, spec.name, str(probe.construction))
        _banner(label, verdict)
        st.markdown(f"**Base rate** ({label}): {describe_base_rates(rates, str(probe.construction))}.")
        tables[label] = with_base_rates(verdict.table(), rates)
    if first is None:
        return
    if first.swapped:
        st.markdown(f"**As typed**: {plain(probe.text)}  \n**Swapped** (foci exchanged): {plain(first.swapped)}")
    elif first.swap_note:
        st.info(plain(first.swap_note[:1].upper() + first.swap_note[1:] + ": only the sentence as typed is read."))
    st.caption(plain(anecdote_note(first)) if first.anecdote else CAVEAT)
    decisions = without_signed_zeros(stacked(tables))
    effect = unit_key("effect", first.unit)
    st.dataframe(key_decisions(decisions, effect), hide_index=True, placeholder=MISSING, column_config={
        "context": st.column_config.TextColumn("sentence", width="medium"),
        "correct": st.column_config.CheckboxColumn("correct"),
        effect: st.column_config.NumberColumn(f"ΔP difference ({first.unit})", format=SIGNED),
        "base_rate": st.column_config.TextColumn("base rate: suite accuracy (n, 95% interval)", width="medium")})
    with st.expander("Every column of the decisions (as in the CSV)"):
        st.dataframe(decisions, hide_index=True, placeholder=MISSING, column_config={
            unit_key("shift_construction", first.unit): st.column_config.NumberColumn(
                f"ΔP with '{probe.connective}' ({first.unit})", format=SIGNED),
            unit_key("shift_control", first.unit): st.column_config.NumberColumn(
                f"ΔP with 'or' ({first.unit})", format=SIGNED),
            effect: st.column_config.NumberColumn(f"ΔP difference ({first.unit})", format=SIGNED),
            "suite_accuracy": st.column_config.NumberColumn("suite accuracy", format="%.3f")})
    methods = "; ".join(f"{label}: {s.method.label}" for label, s in models.scorers.items())
    st.caption(f"Scored by {methods}. ΔP (also called the shift) = log₂ P(entailed) − log₂ P(contradicted), "
               f"{first.unit}; ΔP difference (also called the effect) = ΔP with the construction − ΔP with 'or'. "
               "Origin: the suite's block, a pair you typed, or the proposed pair.")
    if "suite_accuracy" not in decisions.columns and probe.fits_frame:
        st.markdown("No suite run of these models yet: [run the semantic suite](/Run) on one to read these "
                    "decisions against its accuracy for each condition.")
    with st.container(horizontal=True):  # each button as wide as its words
        download_csv(decisions, "probe_decisions.csv", "Decisions (CSV)")
        objects = [s.verdict.as_json(label) for label, s in shown.items() if s.verdict is not None]
        download_json(envelope(objects), "probe.json", "Verdict (JSON)")


def detail_section(shown: Mapping[str, ProbeSections], models: Models, *, key: str, labels: Sequence[str]) -> None:
    """One decision's follow-ups token by token, one column per model (the decision picked, scored
    with the rest)."""
    st.subheader("One decision, token by token")
    picked = st.selectbox("Decision", labels, key=key)
    details = {label: s.detail for label, s in shown.items() if s.detail is not None}
    if not details:
        return
    probe = next(iter(details.values())).probe
    context = probe.text
    condition = str(picked).split(":", 1)[0]
    st.caption("Surprisal of each token in bits (one y-axis for all panels); red: the tokens whose surprisal "
               "the construction changes most against the control.")
    follow = stacked({label: followup_tokens(d) for label, d in details.items()})
    chart(token_bars_figure(follow, "panel", highlight="moved", facet="model",
                            title=f"{condition}: the follow-ups after {quoted(context)} ({models.named()})"),
          "probe_followups.html", key="probe_followups_chart")
    st.markdown("**Tokens the construction moves most** (change in bits, construction minus control; negative: "
                "less surprising with the construction)")
    moved = without_signed_zeros(stacked({label: d.moved_most for label, d in details.items()}))
    st.dataframe(moved, hide_index=True, placeholder=MISSING, column_config={
        **number_columns(moved), **surprisal_columns(probe.connective, "surprisal_bits_construction",
                                                     "surprisal_bits_control"),
        "change_bits": st.column_config.NumberColumn("change (bits)", format=SIGNED)})
    with st.expander("The sentence and its control, scored alone"):
        chart(token_bars_figure(stacked({label: sentence_tokens(d) for label, d in details.items()}), "panel",
                                facet="model", title=f"Per-token surprisal of {quoted(context)} ({models.named()})"),
              "probe_sentences.html", key="probe_sentences_chart")
    tokens = stacked({label: d.tokens.drop(columns="logprob") for label, d in details.items()})
    download_csv(tokens, "probe_tokens.csv", "Per-token surprisals (CSV)")


def manipulations_section(probe: Probe, models: Models, shown: Mapping[str, ProbeSections]) -> None:
    """The syntactic manipulations' surprisal rises, construction against "and", one panel per model."""
    st.subheader("Syntactic manipulations")
    if not probe.fits_frame:
        st.info(f"Manipulations are built for sentences in the paper's frame, such as *{FRAME_EXAMPLE}*")
        return
    st.markdown("Paired-Focus constructions resist these changes more than *and* does (paper Table 3): a model "
                "that knows their form finds the manipulated sentence more surprising with the construction than "
                "with *and*. VP Conjunction and VP Gap Conjunction are controls. Each row is one comparison.")
    rises = without_signed_zeros(stacked({label: rises_in_bits(s.manipulations) for label, s in shown.items()
                                          if s.manipulations is not None}))
    chart(rises_figure(rises, probe.connective, "and",
                       title=f"Manipulations of {quoted(probe.text)} ({models.named()})"),
          "probe_manipulations.html", key="probe_rises_chart")
    st.dataframe(rises, hide_index=True, placeholder=MISSING, column_config={
        c: st.column_config.NumberColumn(f"rise with '{w}' (bits per token)", format=SIGNED)
        for c, w in (("rise_construction_bits", probe.connective), ("rise_and_bits", "and"))})
    download_csv(rises, "probe_manipulations.csv", "Manipulations (CSV)")
