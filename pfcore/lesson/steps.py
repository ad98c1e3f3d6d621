"""The lesson's eight steps. Each has a title, a plain explanation, the class's editable sentences,
its numbers computed on the spot by the model (through the probe engine and the score cache), its
figures, a "what to notice" line computed from those numbers (pfcore.lesson.notice), an aside where
the numbers rest on one sentence (the paper's suite accuracy beside them), and a question."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import pandas as pd
import plotly.graph_objects as go

from pfcore.analysis.model_tables import figure_data, figure_models
from pfcore.analysis.trajectories import bundled_scope, curves
from pfcore.errors import InputError
from pfcore.glossary import probe_path
from pfcore.items.schema import SYNTAX_CONTROL
from pfcore.lesson import notice
from pfcore.lesson.notice import FORM, IMPLAUSIBLE, MEANING, SIZE_THRESHOLD, Numbers
from pfcore.lesson.paper import ANECDOTE, anecdote_note, implausible_note, own_run_note, percent, run_margins
from pfcore.names import Construction, Reduction, SuiteName
from pfcore.plots.lesson import (
    difference_figure,
    models_figure,
    next_words_figure,
    training_figure,
    word_bars_figure,
    word_lines_figure,
)
from pfcore.probe import FRAME_EXAMPLE, Probe, analyze_sentence, clean_text
from pfcore.probe.detect import checked_pair
from pfcore.probe.score import detail_requests
from pfcore.probe.words import sentence_words
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.next_tokens import TOP_K, most_likely_next
from pfcore.scoring.requests import LN2, Request, RequestScorer
from pfcore.scoring.words import score_texts
from pfcore.store.cache import ScoreCache, score_cached, through_cache
from pfcore.store.published_tsv import PUBLISHED_REPO
from pfcore.store.result_rows import empty_results
from pfcore.suites import semantic, syntax

PYTHIA = "EleutherAI/pythia-12b"
FIGURE2_SERIES = (MEANING, IMPLAUSIBLE, FORM)
SERIES_NAMES = {FORM: "form: the syntactic test", MEANING: "meaning, plausible items",
                IMPLAUSIBLE: "meaning, implausible items"}
MODEL_NAMES = {"CausalLM": "causal (left-to-right) models", "MLM": "masked models"}  # others: your runs
PLL_NAMES = {ScoringMethod.PLL_ORIGINAL: "Salazar et al.'s original",
             ScoringMethod.PLL_L2R: "Kauf & Ivanova's within-word l2r"}
FORM_TEST = ("base", "NPI")  # the lesson's form test: the sentence and the one without its negation
# what each of the steps' tables holds, in words (captions on the page and in the handout)
TABLE_NAMES = {"next": "the most likely next tokens", "about": "what pfcore read", "words": "each word's surprisal",
               "form": "the sentences with and without the negation", "followups": "the four follow-up surprisals",
               "models": "Figure 1: each model's average accuracy", "curves": "Figure 2: the published curves",
               "reading": "what pfcore read in the sentence",
               "spread": "this model's own run of the suite: how large its decisions' margins are"}


def masked_note(method: ScoringMethod) -> str:
    """What a masked model's numbers are: pseudo-log-likelihoods, which are not surprisals."""
    variant = f" ({PLL_NAMES[method]})" if method in PLL_NAMES else ""
    return (f"This is a masked model: its numbers are pseudo-log-likelihoods{variant}, not surprisals: each token is "
            "hidden in turn and predicted from all the other tokens of the sentence, those after it too, where a "
            "surprisal uses only those before it.")


@dataclass(frozen=True)
class LessonContext:
    """What every step computes with: the model's scorer and name (for titles and own-run lookups),
    its parameter count (to name the paper's models of its size), the score cache, the results table."""

    scorer: RequestScorer
    label: str
    model: str | None = None
    parameters: int | None = None
    cache: ScoreCache | None = None
    results: pd.DataFrame = field(default_factory=empty_results)

    def with_cache(self, cache: ScoreCache | None) -> LessonContext:
        """The same context scoring through another (open) score cache."""
        return replace(self, cache=cache)


@dataclass(frozen=True)
class Field:
    """One sentence the class can edit: its name (in links), its label, and what it starts as."""

    name: str
    label: str
    default: str


Compute = Callable[[LessonContext, Mapping[str, str]], Numbers]
Figures = Callable[[Numbers, LessonContext], tuple[go.Figure, ...]]
Aside = Callable[[Numbers, LessonContext], str]


def _no_aside(numbers: Numbers, context: LessonContext) -> str:
    """No aside: the step's numbers do not rest on one sentence."""
    return ""


@dataclass(frozen=True)
class Step:
    """One screen of the lesson: its words, its sentences, and how its numbers, figures, "what to
    notice" line and aside are made."""

    number: int
    key: str
    title: str
    explanation: str
    question: str
    fields: tuple[Field, ...]
    terms: tuple[str, ...]  # glossary entries the step uses
    compute: Compute
    figures: Figures
    notice: Callable[[Numbers], str]
    aside: Aside = _no_aside
    scored: bool = True  # whether the model scores its sentences (step 7 reads the paper's results)


@dataclass(frozen=True)
class StepResult:
    """A step computed for the class's sentences: its numbers (named tables), figures, the line of
    what to notice and the aside; or, when the sentences cannot be used, the one-line problem."""

    step: Step
    inputs: dict[str, str]
    numbers: Numbers = field(default_factory=dict)
    figures: tuple[go.Figure, ...] = ()
    notice: str = ""
    aside: str = ""
    problem: str = ""


# ----- step 1: what a language model does -----

def _next_words(context: LessonContext, inputs: Mapping[str, str]) -> Numbers:
    """The model's most likely next words after the prefix."""
    found = most_likely_next(context.scorer, inputs["prefix"], k=TOP_K)
    return {"next": found.table(), "about": pd.DataFrame([{"prefix": found.prefix, "vocabulary": found.vocabulary}])}


def _next_words_figures(numbers: Numbers, context: LessonContext) -> tuple[go.Figure, ...]:
    """The next words as bars."""
    prefix = numbers["about"].iloc[0]["prefix"]
    digits = notice.next_digits(list(numbers["next"]["probability_percent"]))
    return (next_words_figure(numbers["next"], title=f"What the model expects after '{prefix}'", digits=digits),)


# ----- step 2: surprisal -----

def _surprisal(context: LessonContext, inputs: Mapping[str, str]) -> Numbers:
    """Both sentences word by word: each word's surprisal (bits) and the probability it stands for."""
    texts = [clean_text(inputs["expected"], "the first sentence"),
             clean_text(inputs["unexpected"], "the second sentence")]
    scored = score_texts(context.scorer, [Request("", t) for t in dict.fromkeys(texts)], through_cache(context.cache))
    rows = [{"sentence": s.request.text, "position": i, "word": w.text, "surprisal_bits": w.surprisal_bits,
             "probability_percent": 100 * 2 ** -w.surprisal_bits} for s in scored for i, w in enumerate(s.words)]
    words = pd.DataFrame(rows)
    first = words[words["sentence"] == texts[0]].set_index("position")["word"]
    words["differs"] = [s != texts[0] and first.get(p) != w for s, p, w in
                        zip(words["sentence"], words["position"], words["word"])]
    return {"words": words}


def _surprisal_figures(numbers: Numbers, context: LessonContext) -> tuple[go.Figure, ...]:
    """Both sentences' words as bars of surprisal, side by side at each position."""
    return (word_bars_figure(numbers["words"], title="Surprisal of each word"),)


# ----- step 3: the construction against "or" -----

def _probe(text: str) -> Probe:
    """The sentence read for a construction; InputError saying why when it has none."""
    probe = analyze_sentence(text)
    if probe.construction is None:
        raise InputError(" ".join(probe.message.split()))
    return probe


def _about(probe: Probe) -> pd.DataFrame:
    """What pfcore read in the sentence, as one row."""
    return pd.DataFrame([{"sentence": probe.text, "control": probe.control, "construction": probe.construction,
                          "connective": probe.connective, "focus1": probe.focus1, "focus2": probe.focus2,
                          "fits_frame": probe.fits_frame, "aligned": bool(probe.frame and probe.frame.aligned)}])


def _construction(context: LessonContext, inputs: Mapping[str, str]) -> Numbers:
    """The sentence and its "or" control word by word."""
    probe = _probe(inputs["sentence"])
    return {"words": sentence_words(context.scorer, probe, context.cache), "about": _about(probe)}


def _words_figures(numbers: Numbers, context: LessonContext) -> tuple[go.Figure, ...]:
    """The sentence word by word, with the construction and with "or", and the difference."""
    connective = str(numbers["about"].iloc[0]["connective"])
    return (word_lines_figure(numbers["words"].assign(model=context.label), connective,
                              title=f"Word by word, with '{connective}' and with 'or'"),)


def _construction_of(numbers: Numbers) -> Construction:
    """The construction the step's sentence has."""
    return Construction(str(numbers["about"].iloc[0]["construction"]))


def _meaning_aside(numbers: Numbers, context: LessonContext) -> str:
    """One sentence is an anecdote: the paper's semantic accuracy beside it."""
    return anecdote_note("Table 6", _construction_of(numbers), parameters=context.parameters)


# ----- step 4: form -----

def _frame_probe(text: str, test: str) -> Probe:
    """The sentence, which must be in the paper's frame (so the test's sentences can be built)."""
    probe = _probe(text)
    if not probe.fits_frame:
        raise InputError(f"{test} builds its sentences from the paper's frame (pronoun, modal, verb, adjective + "
                         f"noun, connective, adjective + one), such as '{FRAME_EXAMPLE}'; this sentence is not in it")
    return probe


def _form(context: LessonContext, inputs: Mapping[str, str]) -> Numbers:
    """The base sentence and the one without the negation (the NPI test), with the construction and
    with "and": each sentence's surprisal (bits per token, the syntactic suite's mean) and the rise."""
    probe = _frame_probe(inputs["sentence"], "The form test")
    items = [item for item in probe.syntax_items if item.manipulation in FORM_TEST]
    rows = syntax.row_scores(items, score_cached(context.scorer, syntax.requests(items), context.cache), Reduction.MEAN)
    table = []
    for name, connective in ((probe.construction, probe.connective), (SYNTAX_CONTROL, SYNTAX_CONTROL)):
        mine = rows[rows["construction"] == name].set_index("manipulation")
        base, manipulated = mine.loc["base"], mine.loc["NPI"]
        table.append({"connective": connective, "base": base["sentence"], "without_negation": manipulated["sentence"],
                      "base_bits_per_token": base["surprisal"] / LN2,
                      "without_negation_bits_per_token": manipulated["surprisal"] / LN2,
                      "rise_bits_per_token": (manipulated["surprisal"] - base["surprisal"]) / LN2})
    form = pd.DataFrame(table)
    numbers = {"form": form, "about": _about(probe)}
    gap = float(form["rise_bits_per_token"].iloc[0] - form["rise_bits_per_token"].iloc[1])
    return numbers | _spread(context, SuiteName.SYNTAX, Construction(str(probe.construction)), gap)


def _spread(context: LessonContext, suite: SuiteName, construction: Construction, margin: float) -> Numbers:
    """Where this decision's margin falls among those of the model's own run of the suite (no table
    without a run)."""
    found = run_margins(context.results, context.model, suite, construction, context.scorer.method)
    if found is None:
        return {}
    run, margins = found
    return {"spread": notice.spread_row(margins, margin, run=run, suite=f"{suite} suite")}


def _form_figures(numbers: Numbers, context: LessonContext) -> tuple[go.Figure, ...]:
    """The rise without the negation with the construction and with "and", and their difference."""
    cxn, ctl = numbers["form"]["connective"]
    return _difference_figures(notice.form_difference(numbers), (f"rise with '{cxn}'", f"rise with '{ctl}'"),
                               "rise (bits per token)", "Removing the negation: the rise in surprisal")


def _difference_figures(shown: notice.Difference, names: tuple[str, str], unit: str, title: str) -> tuple[go.Figure]:
    """Two values as their line prints them and their difference, as three bars."""
    bars = ((names[0], float(shown.a)), (names[1], float(shown.b)), ("difference", float(shown.gap)))
    return (difference_figure(bars, shown.digits, unit, title=title),)


def _form_aside(numbers: Numbers, context: LessonContext) -> str:
    """One sentence is an anecdote: the paper's syntactic accuracy beside it."""
    return anecdote_note("Table 7", _construction_of(numbers), parameters=context.parameters)


# ----- steps 5 and 6: meaning, and world knowledge against it -----

def _followups(context: LessonContext, inputs: Mapping[str, str]) -> Numbers:
    """The entailed and the contradicted follow-up after the sentence and after its "or" control:
    four surprisals (bits per token, the paper's mean), from which ΔP and the decision follow."""
    probe = _frame_probe(inputs["sentence"], "The follow-up test")
    entailed, contradicted = checked_pair(*(probe.proposed or ("", "")))
    requests = detail_requests(probe, entailed, contradicted)[:4]  # the follow-ups (not the sentences alone)
    scores = score_cached(context.scorer, requests, context.cache)
    contexts = {probe.text: f"after '{probe.connective}'", probe.control: "after 'or'"}
    kinds = {entailed: "entailed", contradicted: "contradicted"}
    followups = pd.DataFrame([{"context": contexts[r.prefix], "sentence": r.prefix, "followup": kinds[r.text],
                               "text": r.text, "surprisal_bits_per_token": -s.reduce(Reduction.MEAN) / LN2}
                              for r, s in zip(requests, scores)])
    order = ("aligned", "same") if probe.frame and probe.frame.aligned else ("misaligned", "reversed")
    numbers = {"followups": followups, "about": _about(probe).assign(condition=semantic.CONDITIONS[order][0])}
    cxn, ctl = notice.delta_p(followups)
    return numbers | _spread(context, SuiteName.SEMANTIC, Construction(str(probe.construction)), float(cxn - ctl))


def _followup_figures(numbers: Numbers, context: LessonContext) -> tuple[go.Figure, ...]:
    """ΔP after the construction and after "or", and their difference (the decision)."""
    connective = numbers["about"].iloc[0]["connective"]
    return _difference_figures(notice.meaning_difference(numbers), (f"ΔP with '{connective}'", "ΔP with 'or'"),
                               "ΔP (bits per token)", "ΔP after each sentence, and their difference")


def _followup_aside(numbers: Numbers, context: LessonContext) -> str:
    """The anecdote note, with the model's own suite accuracy on the same condition where it has a run."""
    about = numbers["about"].iloc[0]
    own = own_run_note(context.results, context.model, _construction_of(numbers), str(about["condition"]))
    return " ".join(filter(None, [_meaning_aside(numbers, context), own]))


def _world_aside(numbers: Numbers, context: LessonContext) -> str:
    """The anecdote note with the paper's implausible-item accuracies (its tables give plausible ones
    only), Pythia-12b's four-construction mean at the end of training where it is loaded, and the
    model's own run on the same condition."""
    construction = _construction_of(numbers)
    final = _final_value(context.results, IMPLAUSIBLE)
    mean = (f"Averaged over the four constructions, Pythia-12b ends its training at {percent(100 * final)} on "
            "implausible items (Figure 2, step 7)." if final is not None else "")
    own = own_run_note(context.results, context.model, construction, str(numbers["about"].iloc[0]["condition"]))
    return " ".join(filter(None, [ANECDOTE, implausible_note(context.results, construction), mean, own]))


# ----- step 7: what the paper found -----

def _pythia_curves(results: pd.DataFrame) -> pd.DataFrame:
    """Pythia-12b's published Figure 2 series, as they ship with pfcore (empty when the results table
    does not hold them)."""
    try:
        return curves(results, [bundled_scope(PYTHIA)], FIGURE2_SERIES)
    except InputError:
        return pd.DataFrame(columns=["series", "label", "step", "value", "source"])


def _final_value(results: pd.DataFrame, series: str) -> float | None:
    """A Pythia-12b series' published value at its last checkpoint, or None where it is not loaded."""
    rows = _pythia_curves(results)
    rows = rows[rows["series"] == series]
    return float(rows.sort_values("step")["value"].iloc[-1]) if len(rows) else None


def _findings(context: LessonContext, inputs: Mapping[str, str]) -> Numbers:
    """Figure 1's models (the paper's Table 6 with Table 9's sizes, and own runs with known sizes)
    and Pythia-12b's published curves."""
    models = figure_models(figure_data(context.results, include_runs=True).data)
    return {"models": models, "curves": _pythia_curves(context.results)}


def _findings_figures(numbers: Numbers, context: LessonContext) -> tuple[go.Figure, ...]:
    """Figure 1, and Figure 2 where its curves are loaded, both in %."""
    figure1 = models_figure(numbers["models"], threshold=SIZE_THRESHOLD, names=MODEL_NAMES,
                            title="Figure 1: meaning test (plausible items) against model size")
    if numbers["curves"].empty:
        return (figure1,)
    return figure1, training_figure(numbers["curves"], SERIES_NAMES, title="Figure 2: Pythia-12b over its training")


def _findings_aside(numbers: Numbers, context: LessonContext) -> str:
    """Where the numbers come from, and where to get Figure 2's when they are not loaded."""
    source = "Figure 1: the paper's Tables 6 and 9 (data/reference/), with your own runs where their sizes are known."
    if numbers["curves"].empty:
        return (f"{source} Figure 2 needs the paper's published per-checkpoint results, which this results table "
                "does not hold: put back the copy that ships with pfcore with `pfcore results import --bundled` (or "
                f"the button on the Trajectories page), or import the `outputs_summary/` folder of {PUBLISHED_REPO}.")
    files = ", ".join(sorted({s for cell in numbers["curves"]["source"] for s in str(cell).split("; ")}))
    return f"{source} Figure 2: the published results of {PUBLISHED_REPO} ({files})."


# ----- step 8: the class's own sentence -----

def _try_it(context: LessonContext, inputs: Mapping[str, str]) -> Numbers:
    """What pfcore reads in the class's sentence, its words against "or", and the link to the Probe."""
    probe = _probe(inputs["sentence"])
    reading = _about(probe).assign(probe_link=probe_path(probe.text))
    return {"reading": reading, "words": sentence_words(context.scorer, probe, context.cache)}


def _try_figures(numbers: Numbers, context: LessonContext) -> tuple[go.Figure, ...]:
    """The class's sentence word by word against "or"."""
    return _words_figures({"words": numbers["words"], "about": numbers["reading"]}, context)


def _try_aside(numbers: Numbers, context: LessonContext) -> str:
    """One sentence is an anecdote: the paper's semantic accuracy beside it."""
    return _meaning_aside({"about": numbers["reading"]}, context)


LESSON: tuple[Step, ...] = (
    Step(1, "next-word", "What a language model does",
         "A language model reads the words so far and gives every possible next piece of text a probability: its "
         "guess of what comes next. The pieces are called tokens: often a whole word, sometimes part of one. Below "
         f"are the model's {TOP_K} most likely next tokens after the start of a sentence, taken from its whole "
         "vocabulary; a piece that continues the last word is shown as …ing.",
         "Before you look: which word would you put next? Is it on the list, and how likely does the model find it?",
         (Field("prefix", "Start of a sentence", "I drank a cup of"),), ("language-model", "token"),
         _next_words, _next_words_figures, notice.next_words),
    Step(2, "surprisal", "Surprisal: how unexpected a word is",
         "Surprisal says how unexpected a word is to the model: −log₂ of its probability, in bits. One bit is the "
         "surprise of a fair coin landing heads (probability 1/2), and every further bit halves the probability, so "
         "10 bits is about 1 in 1,000. Each word of the two sentences below gets its surprisal; the first word has "
         "none, because nothing comes before it. A word keeps the punctuation after it: 'coffee.' is 'coffee' and then "
         "the period, so its surprisal also counts how unexpected it is that the sentence ends there, which is why "
         "it is higher than step 1's chance of 'coffee' alone.",
         "Which word of the second sentence surprises the model most? Change one word: can you predict the new number?",
         (Field("expected", "First sentence", "I drank a cup of coffee."),
          Field("unexpected", "Second sentence", "I drank a cup of shoes.")), ("surprisal", "bit", "token"),
         _surprisal, _surprisal_figures, notice.surprisal),
    Step(3, "construction", "Let alone changes what the model expects",
         "'He doesn't like shrimp, let alone squid' says more than 'He doesn't like shrimp or squid': with let alone, "
         "squid is the stronger case. The two compared phrases are the foci: focus 1 (shrimp) and focus 2 (squid). "
         "The model reads the sentence twice, with let alone and with or (the control), and the lower chart is the "
         "difference per word; negative means the word is less surprising after let alone.",
         "Why are the words before the connective exactly as surprising in both sentences? Which words change?",
         (Field("sentence", "Sentence", "He doesn't like shrimp, let alone squid."),),
         ("construction", "focus", "control", "surprisal"),
         _construction, _words_figures, notice.construction, _meaning_aside),
    Step(4, "form", "Form: where let alone can stand",
         "Let alone needs a negative sentence: 'You couldn't lift a tiny rock, let alone a huge one' is fine, but "
         "without the negation, 'You could lift a tiny rock, let alone a huge one' goes wrong, while 'and' is fine "
         "either way. So a model that knows the form should find the sentence without the negation more surprising "
         "with let alone than with and. Surprisal here is per token (bits per token), as the paper's syntactic "
         "test averages it over the sentence.",
         "Why compare with 'and' instead of only checking that the sentence without the negation is surprising?",
         (Field("sentence", "Sentence (in the paper's frame)", FRAME_EXAMPLE),),
         ("control", "bits-per-token", "decision"),
         _form, _form_figures, notice.form, _form_aside),
    Step(5, "meaning", "Meaning: what follows from let alone",
         "'You couldn't lift a tiny rock, let alone a huge one' entails that lifting a tiny rock is easier than "
         "lifting a huge one. The model reads that follow-up and its contradiction after the sentence with let alone "
         "and after the same sentence with or. The paper's ΔP is how much more likely the entailed follow-up is "
         "than the contradicted one; the decision is correct when ΔP is larger with let alone than with or.",
         "Why compare with 'or' instead of only asking which follow-up the model prefers after let alone?",
         (Field("sentence", "Sentence (in the paper's frame)", FRAME_EXAMPLE),), ("follow-up", "delta-p", "decision"),
         _followups, _followup_figures, notice.meaning, _followup_aside),
    Step(6, "world-knowledge", "World knowledge against the construction",
         "Now the sentence names the harder task first: 'You couldn't lift a huge rock, let alone a tiny one.' Let "
         "alone still makes the second thing the harder one, so here it entails the implausible 'Lifting a huge rock "
         "is easier than lifting a tiny rock.' A model that only knows what is plausible prefers the plausible "
         "follow-up as much after let alone as after or, so its decision fails.",
         "Does the model follow the construction or what it knows about rocks? What does a person do?",
         (Field("sentence", "Sentence (harder thing first)", "You couldn't lift a huge rock, let alone a tiny one."),),
         ("aligned", "delta-p", "decision"), _followups, _followup_figures, notice.world_knowledge, _world_aside),
    Step(7, "findings", "What the paper found",
         "The paper ran its whole suites (about 3.5k sentence pairs per construction for the meaning test) on 36 "
         "models. The first chart is the accuracy of each model on the meaning test against its size; chance is "
         "50%. The second follows one model, Pythia-12b, through its training: the form test and the meaning test "
         "at each saved step.",
         "Where on the first chart would you expect the model in the sidebar (its size is shown there), and why?",
         (), ("decision", "aligned", "parameters", "checkpoint"), _findings, _findings_figures, notice.findings,
         _findings_aside, scored=False),
    Step(8, "try-it", "Try it yourself",
         "Type a sentence of your own with let alone, much less, not to mention or never mind. As in the steps "
         "before, pfcore finds the construction and its two foci and builds the control with or. The Probe page "
         "then tests the sentence the way the paper does, on as many decisions as the sentence allows.",
         "Before you open the Probe: will the model get your sentence right? What would make it fail?",
         (Field("sentence", "Your sentence", "She can't afford a bike, much less a car."),), ("focus", "follow-up"),
         _try_it, _try_figures, notice.try_it, _try_aside),
)
STEPS = {step.number: step for step in LESSON}


def lesson_step(number: int) -> Step:
    """A step by its number (1-8); InputError otherwise."""
    if number not in STEPS:
        raise InputError(f"the lesson has steps 1 to {len(LESSON)}; there is no step {number}")
    return STEPS[number]


def step_inputs(step: Step, given: Mapping[str, str]) -> dict[str, str]:
    """The step's sentences: the class's where given, else the step's defaults."""
    return {f.name: str(given.get(f.name, f.default)) for f in step.fields}


def run_step(step: Step, context: LessonContext, given: Mapping[str, str] | None = None) -> StepResult:
    """Compute one step for the class's sentences; bad input becomes the result's one-line problem."""
    inputs = step_inputs(step, given or {})
    try:
        numbers = step.compute(context, inputs)
    except InputError as exc:
        return StepResult(step, inputs, problem=str(exc))
    pll = step.scored and context.scorer.method.is_pll
    aside = " ".join(filter(None, [step.aside(numbers, context), masked_note(context.scorer.method) if pll else ""]))
    return StepResult(step, inputs, numbers, step.figures(numbers, context), step.notice(numbers), aside)


def run_lesson(context: LessonContext, given: Mapping[int, Mapping[str, str]] | None = None, *,
               steps: Sequence[Step] = LESSON) -> list[StepResult]:
    """Every step computed, each with the class's sentences for it (the handout's content)."""
    return [run_step(s, context, (given or {}).get(s.number)) for s in steps]
