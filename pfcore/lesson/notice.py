"""Each lesson step's "what to notice" line, computed from the numbers the step shows (its tables),
so the line always says what those numbers say. Numbers are in bits or bits per token."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pfcore.analysis.models import PAPER_RHO, accuracy_parameter_rho
from pfcore.analysis.series import milestones
from pfcore.lesson.paper import percent
from pfcore.probe.words import focus2_bits

Numbers = dict[str, pd.DataFrame]
SAME = 0.05  # bits (or bits per token): differences smaller than this are read as "about the same"
SIZE_THRESHOLD = 400e6  # the paper's "parameter threshold of roughly 400M" (section 4.2)
NEAR_PEAK = 0.95  # a curve counts as learned from the first step within this fraction of its best
FORM, MEANING = "syntax:Avg_Test", "pf_avg:aligned"


def share(probability: float) -> str:
    """A probability as a percentage a class reads ("31.2%", "<0.1%")."""
    return percent(100 * probability) if probability >= 0.0005 else "<0.1%"


def times(bits: float) -> str:
    """How many times more likely a difference of `bits` makes something, to two significant
    digits ("about 3.0 times", "about 8,500,000 times")."""
    factor = 2 ** abs(bits)
    return f"about {factor:.1f} times" if factor < 10 else f"about {float(f'{factor:.2g}'):,.0f} times"


def signed(value: float) -> str:
    """A signed difference in plain decimals, a tiny one to its first digit so that it does not
    print as +0.00 (+0.004, -0.00005; at most 6 decimals)."""
    if value == 0 or abs(value) >= 0.005:
        return f"{value:+.2f}"
    return f"{value:+.{min(6, -math.floor(math.log10(abs(value))))}f}"


def than(value: float, unit: str, adjective: str, other: str, this: str = "") -> str:
    """A difference as a comparison: "2.67 bits more surprising after 'let alone' than after 'or'",
    or "about as surprising ... as ..." when it is under SAME."""
    this = f" {this}" if this else ""
    if abs(value) < SAME:
        return f"about as {adjective}{this} as {other}"
    return f"{abs(value):.2f} {unit} {'more' if value > 0 else 'less'} {adjective}{this} than {other}"


def next_words(numbers: Numbers) -> str:
    """Step 1: the most likely next word, the runner-up, and how much of the probability the list holds."""
    table, about = numbers["next"], numbers["about"].iloc[0]
    first = table.iloc[0]
    second = f", then '{table.iloc[1]['word']}' ({share(table.iloc[1]['probability'])})" if len(table) > 1 else ""
    covered = float(table["probability"].sum())
    rest = int(about["vocabulary"]) - len(table)
    return (f"After '{about['prefix']}', the most likely next word is '{first['word']}' "
            f"({share(first['probability'])}){second}. These {len(table)} share {share(covered)} of the "
            f"probability; the other {share(max(0.0, 1 - covered))} is spread over the remaining {rest:,} "
            "tokens of the model's vocabulary.")


def surprisal(numbers: Numbers) -> str:
    """Step 2: the first word where the two sentences differ, its surprisal in each, and what the
    difference means as a factor of probability."""
    words = numbers["words"]
    texts = list(dict.fromkeys(words["sentence"]))
    if len(texts) < 2:
        return "Both sentences are the same: change a word of the second one to compare them."
    a, b = (words[words["sentence"] == t].set_index("position") for t in texts[:2])
    shared = [p for p in a.index if p in b.index and a.at[p, "word"] != b.at[p, "word"]
              and math.isfinite(a.at[p, "surprisal_bits"]) and math.isfinite(b.at[p, "surprisal_bits"])]
    if not shared:
        return (f"The most surprising word of the first sentence is {_peak(a)}; of the second, {_peak(b)}. "
                "Make the sentences differ in one word (not the first) to compare that word directly.")
    p = shared[0]
    context = " ".join(a.loc[a.index < p, "word"])
    gap = float(b.at[p, "surprisal_bits"] - a.at[p, "surprisal_bits"])
    likely = f", so the model finds it {times(gap)} {'less' if gap > 0 else 'more'} likely there" \
        if abs(gap) >= SAME else ""
    other = f"'{a.at[p, 'word']}'"
    return (f"After '{context}', '{b.at[p, 'word']}' is {than(gap, 'bits', 'surprising', other)} "
            f"({b.at[p, 'surprisal_bits']:.1f} against {a.at[p, 'surprisal_bits']:.1f} bits){likely}.")


def _peak(words: pd.DataFrame) -> str:
    """The most surprising word of a sentence, with its surprisal."""
    scored = words[np.isfinite(words["surprisal_bits"])]
    if scored.empty:
        return "none (no word has a surprisal)"
    top = scored.loc[scored["surprisal_bits"].idxmax()]
    return f"'{top['word']}' ({top['surprisal_bits']:.1f} bits)"


def construction(numbers: Numbers) -> str:
    """Step 3 (and 8): focus 2's surprisal after the construction against after "or"."""
    return _focus2_line(numbers["words"], str(numbers["about"].iloc[0]["connective"]))


def _focus2_line(words: pd.DataFrame, connective: str) -> str:
    """How much more or less surprising focus 2 is after the connective than after "or"."""
    cxn, ctl = focus2_bits(words)
    if math.isnan(cxn) or math.isnan(ctl):
        return f"pfcore found no focus 2 after '{connective}' to compare."
    phrase = " ".join(words.loc[words["focus2"], "word"])
    comparison = than(cxn - ctl, "bits", "surprising", "after 'or'", f"after '{connective}'")
    return f"'{phrase}' is {comparison} ({cxn:.1f} against {ctl:.1f} bits)."


def form(numbers: Numbers) -> str:
    """Step 4: the surprisal rise without the negation, with the construction against with "and"."""
    table = numbers["form"]
    cxn, ctl = table.iloc[0], table.iloc[1]
    gap = float(cxn["rise_bits_per_token"] - ctl["rise_bits_per_token"])
    why = ("it goes the way knowing the form predicts" if gap > 0 else
           "knowing the form predicts a larger rise with the construction")
    return (f"Removing the negation {_rise(cxn['rise_bits_per_token'])} with '{cxn['connective']}' and "
            f"{_rise(ctl['rise_bits_per_token'])} with '{ctl['connective']}'. The rise with '{cxn['connective']}' "
            f"minus the rise with '{ctl['connective']}' is {signed(gap)} bits per token: this decision is "
            f"{_correct(gap)} ({why}).")


def _rise(value: float) -> str:
    """A change of surprisal in words: "raises the surprisal by 0.42 bits per token"."""
    return f"{'raises' if value >= 0 else 'lowers'} the surprisal by {abs(value):.2f} bits per token"


def delta_p(followups: pd.DataFrame) -> pd.Series:
    """ΔP per context: surprisal of the contradicted follow-up minus the entailed one's (bits per token)."""
    wide = followups.pivot(index="context", columns="followup", values="surprisal_bits_per_token")
    return (wide["contradicted"] - wide["entailed"]).reindex(list(dict.fromkeys(followups["context"])))


def meaning(numbers: Numbers) -> str:
    """Step 5: ΔP after the construction and after "or", and the decision they give."""
    about = numbers["about"].iloc[0]
    cxn, ctl = delta_p(numbers["followups"])
    return (f"After '{about['connective']}', the entailed follow-up is {_likelier(cxn, 'the contradicted one')} "
            f"(ΔP = {signed(cxn)} bits per token); after 'or', ΔP = {signed(ctl)}. "
            + _decision(cxn, ctl, about["connective"]))


def world_knowledge(numbers: Numbers) -> str:
    """Step 6: how much the model prefers the plausible follow-up after "or" and after the
    construction, and whether the construction moves it toward the (implausible) entailed one."""
    about = numbers["about"].iloc[0]
    if bool(about["aligned"]):
        return ("This sentence names the easier thing first, so the entailed follow-up is also the plausible one "
                "and world knowledge agrees with the construction. " + meaning(numbers))
    cxn, ctl = delta_p(numbers["followups"])
    return (f"Here the entailed follow-up is the implausible one. After 'or', the plausible follow-up is "
            f"{_likelier(-ctl, 'the implausible one')}; after '{about['connective']}', it is "
            f"{_likelier(-cxn, 'the implausible one')}. {_decision(cxn, ctl, about['connective'])}")


def _likelier(bits: float, other: str) -> str:
    """"0.21 bits per token more likely than the other" / "about as likely as the other"."""
    return than(bits, "bits per token", "likely", other)


def _decision(cxn: float, ctl: float, connective: str) -> str:
    """The decision from the two ΔP values: correct when the construction's is the larger."""
    return (f"ΔP with '{connective}' minus ΔP with 'or' is {signed(cxn - ctl)} bits per token: this decision is "
            f"{_correct(cxn - ctl)}.")


def _correct(effect: float) -> str:
    """A decision in words (the suite's rule: the construction's ΔP must be the larger)."""
    return "correct" if effect > 0 else "not correct"


def findings(numbers: Numbers) -> str:
    """Step 7: size against accuracy over the models shown, and form before meaning over training."""
    models = numbers["models"]
    rho = accuracy_parameter_rho(models)
    small = models.loc[models["parameters"] < SIZE_THRESHOLD, "accuracy"]
    large = models.loc[models["parameters"] >= SIZE_THRESHOLD, "accuracy"]
    source = ("your runs among them; the paper reports " if (models["origin"] == "run").any()
              else "computed from the paper's own tables; the paper reports ")
    differs = ", a difference" if f"{rho.rho:.2f}" != f"{PAPER_RHO:.2f}" else ""
    trend = "rises with size" if rho.rho > 0 else "does not rise with size"
    text = (f"Across these {rho.n} models, accuracy {trend}: Spearman's ρ = {rho.rho:.2f} ({source}"
            f"{PAPER_RHO} for its 36{differs}). Models under 400M parameters average {small.mean():.1f}%, "
            f"larger ones {large.mean():.1f}% (chance is 50%).")
    return f"{text} {_training_line(numbers['curves'])}"


def _training_line(curves: pd.DataFrame) -> str:
    """When form and meaning come near their best over Pythia-12b's training (or that the curves
    are not loaded)."""
    if curves.empty or not {FORM, MEANING} <= set(curves["series"]):
        return "Pythia-12b's published training curves are not loaded, so Figure 2 is not drawn."
    steps = {name: milestones(curves[curves["series"] == name].set_index("step")["value"].rename(name),
                              NEAR_PEAK).near_peak_step for name in (FORM, MEANING)}
    order = "form first" if steps[FORM] < steps[MEANING] else "meaning first" \
        if steps[MEANING] < steps[FORM] else "both at once"
    return (f"Over Pythia-12b's training, form (syntax) comes within {NEAR_PEAK:.0%} of its best accuracy at step "
            f"{steps[FORM]:,}, meaning on plausible items at step {steps[MEANING]:,}: {order}.")


def try_it(numbers: Numbers) -> str:
    """Step 8: what pfcore read in the class's sentence and what the Probe will do with it."""
    reading = numbers["reading"].iloc[0]
    then = ("It fits the paper's frame, so the Probe tests it on the suite's four decisions." if reading["fits_frame"]
            else "It is not in the paper's frame, so on the Probe you type follow-up pairs: one the construction "
                 "entails and one it contradicts, each pair one decision.")
    return (f"pfcore reads '{reading['connective']}' with focus 1 '{reading['focus1']}' and focus 2 "
            f"'{reading['focus2']}'. {_focus2_line(numbers['words'], str(reading['connective']))} {then}")
