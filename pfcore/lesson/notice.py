"""Each lesson step's "what to notice" line, computed from the numbers the step shows (its tables),
so the line always says what those numbers say. Numbers are in bits or bits per token.

A class checks the lines by hand, so their arithmetic holds on the numbers as printed: two values
and their difference are printed with the fewest decimals at which the printed difference is both
the difference of the printed values and the true difference rounded, each with its true sign
(`shown_difference`); shares add up as printed (`next_digits`). The verdict words come from the
decision (its sign) and, where the model has a suite run, from where its size falls among the
run's decisions (`spread`), never from a fixed threshold."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

import numpy as np
import pandas as pd

from pfcore.analysis.models import PAPER_RHO, accuracy_parameter_rho
from pfcore.analysis.series import milestones
from pfcore.probe.words import focus2_bits

Numbers = dict[str, pd.DataFrame]
MAX_DIGITS = 6  # decimals a line prints at most
SIZE_THRESHOLD = 400e6  # the paper's "parameter threshold of roughly 400M" (section 4.2)
NEAR_PEAK = 0.95  # a curve counts as learned from the first step within this fraction of its best
FORM, MEANING, IMPLAUSIBLE = "syntax:Avg_Test", "pf_avg:aligned", "pf_avg:misaligned"
SMALL, LARGE = 0.25, 0.75  # a margin below the run's lower quartile is small, above its upper one large


def fixed(value: float, digits: int) -> Decimal:
    """A value rounded to `digits` decimals exactly as f"{value:.{digits}f}" prints it."""
    return Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN)


@dataclass(frozen=True)
class Difference:
    """Two values as a line prints them, at one number of decimals; `gap` is their difference."""

    digits: int
    a: Decimal
    b: Decimal

    @property
    def gap(self) -> Decimal:
        """The printed a minus the printed b."""
        return self.a - self.b

    def text(self, value: Decimal, *, sign: bool = False) -> str:
        """A printed value ("0.067", or "+0.067" with `sign`)."""
        return f"{value:{'+' if sign else ''}.{self.digits}f}"

    def subtraction(self) -> str:
        """The subtraction written out: "0.067 - 0.174 = -0.107"."""
        b = self.text(self.b)
        return f"{self.text(self.a)} - {f'({b})' if self.b < 0 else b} = {self.text(self.gap, sign=True)}"


def _sign(value: float | Decimal) -> int:
    """-1, 0 or 1."""
    return (value > 0) - (value < 0)


def shown_difference(a: float, b: float, least: int = 2) -> Difference:
    """a and b at the fewest decimals (at least `least`) at which the printed a - b is the true
    difference rounded, and a, b and a - b keep their signs; at MAX_DIGITS where none is (the
    printed difference is then still that of the printed values)."""
    for digits in range(least, MAX_DIGITS + 1):
        shown = Difference(digits, fixed(a, digits), fixed(b, digits))
        if shown.gap == fixed(a - b, digits) and \
                all(_sign(s) == _sign(v) for s, v in ((shown.a, a), (shown.b, b), (shown.gap, a - b))):
            return shown
    return Difference(MAX_DIGITS, fixed(a, MAX_DIGITS), fixed(b, MAX_DIGITS))


def next_digits(percents: Sequence[float]) -> int:
    """The decimals (1 to 3) at which the printed percentages add up to their total rounded; 3
    where none do (a line then adds the printed ones)."""
    return next((d for d in (1, 2, 3) if sum(fixed(p, d) for p in percents) == fixed(sum(percents), d)), 3)


def times(bits: Decimal) -> str:
    """How many times more likely a difference of `bits` makes something, to two significant
    digits ("about 3.0 times", "about 8,400,000 times")."""
    factor = 2 ** abs(float(bits))
    return f"about {factor:.1f} times" if factor < 10 else f"about {float(f'{factor:.2g}'):,.0f} times"


def next_words(numbers: Numbers) -> str:
    """Step 1: the most likely next word, the runner-up, and how much of the probability the list
    holds, added up from the percentages as the chart prints them."""
    table, about = numbers["next"], numbers["about"].iloc[0]
    digits = next_digits(list(table["probability_percent"]))
    shown = [fixed(p, digits) for p in table["probability_percent"]]
    second = f", then '{table.iloc[1]['word']}' ({shown[1]}%)" if len(table) > 1 else ""
    total = sum(shown, Decimal(0))
    rest = int(about["vocabulary"]) - len(table)
    return (f"After '{about['prefix']}', the most likely next word is '{table.iloc[0]['word']}' ({shown[0]}%){second}. "
            f"These {len(table)} add up to {total}% of the probability; the other {Decimal(100) - total}% is spread "
            f"over the remaining {rest:,} tokens of the model's vocabulary.")


PUNCTUATION = ".,;:!?\"')»”’"  # what a written word may carry after it


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
    shown = shown_difference(float(b.at[p, "surprisal_bits"]), float(a.at[p, "surprisal_bits"]), least=1)
    if shown.gap == 0:
        return (f"After '{context}', '{b.at[p, 'word']}' is as surprising as '{a.at[p, 'word']}' "
                f"({shown.text(shown.a)} bits).")
    more = shown.gap > 0
    return (f"After '{context}', '{b.at[p, 'word']}' is {shown.text(abs(shown.gap))} bits "
            f"{'more' if more else 'less'} surprising than '{a.at[p, 'word']}' ({shown.text(shown.a)} against "
            f"{shown.text(shown.b)} bits), so the model finds it {times(shown.gap)} {'less' if more else 'more'} "
            "likely there." + _punctuation_note(str(a.at[p, "word"]), str(b.at[p, "word"])))


def _punctuation_note(*words: str) -> str:
    """Where a compared word carries punctuation ('coffee.'), a sentence saying that its bits count it."""
    marked = [w for w in words if w.rstrip(PUNCTUATION) != w and w.rstrip(PUNCTUATION)]
    if not marked:
        return ""
    return (f" A word's bits count the punctuation written with it: '{marked[0]}' is "
            f"'{marked[0].rstrip(PUNCTUATION)}' and then '{marked[0][len(marked[0].rstrip(PUNCTUATION)):]}'.")


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
    shown = shown_difference(cxn, ctl, least=1)
    numbers = f"({shown.text(shown.a)} against {shown.text(shown.b)} bits)"
    if shown.gap == 0:
        return f"'{phrase}' is as surprising after '{connective}' as after 'or' {numbers}."
    return (f"'{phrase}' is {shown.text(abs(shown.gap))} bits {'more' if shown.gap > 0 else 'less'} surprising "
            f"after '{connective}' than after 'or' {numbers}.")


def form_difference(numbers: Numbers) -> Difference:
    """Step 4's two rises (with the construction, with "and") as its line and chart print them."""
    table = numbers["form"]
    return shown_difference(float(table.iloc[0]["rise_bits_per_token"]), float(table.iloc[1]["rise_bits_per_token"]))


def form(numbers: Numbers) -> str:
    """Step 4: the surprisal rise without the negation, with the construction against with "and"."""
    table = numbers["form"]
    cxn, ctl = table.iloc[0]["connective"], table.iloc[1]["connective"]
    shown = form_difference(numbers)
    why = ("it goes the way knowing the form predicts" if shown.gap > 0 else
           "knowing the form predicts a larger rise with the construction")
    return (f"Removing the negation {_rise(shown, shown.a)} with '{cxn}' and {_rise(shown, shown.b)} with '{ctl}'. "
            f"The rise with '{cxn}' minus the rise with '{ctl}' is {shown.subtraction()} bits per token: this decision "
            f"is {_correct(shown.gap)} ({why}). {_margin(numbers)}")


def _rise(shown: Difference, value: Decimal) -> str:
    """A change of surprisal in words: "raises the surprisal by 0.067 bits per token"."""
    way = "raises" if value > 0 else "lowers" if value < 0 else "does not change"
    return f"{way} the surprisal" + (f" by {shown.text(abs(value))} bits per token" if value else "")


def delta_p(followups: pd.DataFrame) -> pd.Series:
    """ΔP per context: surprisal of the contradicted follow-up minus the entailed one's (bits per token)."""
    wide = followups.pivot(index="context", columns="followup", values="surprisal_bits_per_token")
    return (wide["contradicted"] - wide["entailed"]).reindex(list(dict.fromkeys(followups["context"])))


def meaning_difference(numbers: Numbers) -> Difference:
    """Steps 5 and 6: ΔP after the construction and after "or" as their line and chart print them."""
    cxn, ctl = delta_p(numbers["followups"])
    return shown_difference(float(cxn), float(ctl))


def meaning(numbers: Numbers) -> str:
    """Step 5: ΔP after the construction and after "or", and the decision they give."""
    about = numbers["about"].iloc[0]
    shown = meaning_difference(numbers)
    return (f"After '{about['connective']}', the entailed follow-up is {_likelier(shown.a, 'the contradicted one')} "
            f"(ΔP = {shown.text(shown.a, sign=True)} bits per token); after 'or', "
            f"ΔP = {shown.text(shown.b, sign=True)}. "
            + _decision(shown, str(about["connective"]), numbers))


def world_knowledge(numbers: Numbers) -> str:
    """Step 6: how much the model prefers the plausible follow-up after "or" and after the
    construction, and whether the construction moves it toward the (implausible) entailed one."""
    about = numbers["about"].iloc[0]
    if bool(about["aligned"]):
        return ("This sentence names the easier thing first, so the entailed follow-up is also the plausible one "
                "and world knowledge agrees with the construction. " + meaning(numbers))
    shown = meaning_difference(numbers)
    return (f"Here the entailed follow-up is the implausible one. After 'or', the plausible follow-up is "
            f"{_likelier(-shown.b, 'the implausible one')} (ΔP = {shown.text(shown.b, sign=True)} bits per "
            f"token); after '{about['connective']}', it is {_likelier(-shown.a, 'the implausible one')} "
            f"(ΔP = {shown.text(shown.a, sign=True)}). {_decision(shown, str(about['connective']), numbers)}")


def _likelier(value: Decimal, other: str) -> str:
    """"more likely than the other" / "less likely ..." / "as likely as ..." by the printed sign."""
    return f"as likely as {other}" if value == 0 else f"{'more' if value > 0 else 'less'} likely than {other}"


def _decision(shown: Difference, connective: str, numbers: Numbers) -> str:
    """The decision from the two ΔP values: correct when the construction's is the larger; and how
    large the margin is for this model."""
    return (f"ΔP with '{connective}' minus ΔP with 'or' is {shown.subtraction()} bits per token: this decision is "
            f"{_correct(shown.gap)}. {_margin(numbers)}")


def _correct(effect: Decimal) -> str:
    """A decision in words (the suite's rule: the construction's value must be the larger)."""
    return "correct" if effect > 0 else "not correct"


def spread_row(sizes: Sequence[float] | np.ndarray, value: float, *, run: str, suite: str) -> pd.DataFrame:
    """Where one decision's margin falls among a run's decisions (`sizes`: their margins, bits per
    token), as the one-row table a step shows: how many decisions, the share decided by a smaller
    margin, and the quartiles."""
    array = np.abs(np.asarray(sizes, dtype=float))
    q1, median, q3 = np.quantile(array, [0.25, 0.5, 0.75])
    return pd.DataFrame([{"run": run, "suite": suite, "decisions": len(array), "margin_bits_per_token": abs(value),
                          "smaller_share": float((array < abs(value)).mean()), "q1_bits_per_token": q1,
                          "median_bits_per_token": median, "q3_bits_per_token": q3}])


def _margin(numbers: Numbers) -> str:
    """How large the decision's margin is for this model: where it falls among its run's decisions,
    or that one sentence cannot say without a run."""
    spread = numbers.get("spread")
    if spread is None or spread.empty:
        return ("How large a margin that is for this model one sentence cannot say: a run of the suite (the Run "
                "page) shows how large its decisions' margins usually are.")
    row = spread.iloc[0]
    share = float(row["smaller_share"])
    size = "small" if share < SMALL else "large" if share > LARGE else "typical"
    return (f"That is a {size} margin for this model: in its {row['suite']} run, {100 * share:.0f}% of the "
            f"{int(row['decisions']):,} decisions of this construction were decided by a smaller one (the middle half "
            f"by {row['q1_bits_per_token']:.3f} to {row['q3_bits_per_token']:.3f} bits per token).")


def findings(numbers: Numbers) -> str:
    """Step 7: size against accuracy over the models shown, with each group's n, and form before
    meaning over training."""
    models = numbers["models"]
    rho = accuracy_parameter_rho(models)
    small = models.loc[models["parameters"] < SIZE_THRESHOLD, "accuracy"]
    large = models.loc[models["parameters"] >= SIZE_THRESHOLD, "accuracy"]
    runs = int((models["origin"] == "run").sum())
    trend = "rises with size" if rho.rho > 0 else "does not rise with size"
    if runs:
        which = (f"these {rho.n} models (the paper's and {runs} of your runs), accuracy {trend}: Spearman's "
                 f"ρ = {rho.rho:.2f}. The paper reports ρ = {PAPER_RHO:.2f} for its 36 alone.")
    else:
        gap = abs(fixed(rho.rho, 2) - fixed(PAPER_RHO, 2))  # as both are printed
        which = (f"these {rho.n} models, accuracy {trend}: Spearman's ρ = {rho.rho:.2f}, computed here from the "
                 f"paper's Tables 6 and 9. The paper itself reports ρ = {PAPER_RHO:.2f} for the same models"
                 + (f", a difference of {gap} that its tables do not explain." if gap else "."))
    text = (f"Across {which} The {len(small)} models under {SIZE_THRESHOLD / 1e6:.0f}M parameters average "
            f"{small.mean():.1f}%, the {len(large)} larger ones {large.mean():.1f}% (chance is 50%).")
    return f"{text} {_training_line(numbers['curves'])}"


def _training_line(curves: pd.DataFrame) -> str:
    """When form and meaning come near their best over Pythia-12b's training (or that the curves
    are not loaded)."""
    if curves.empty or not {FORM, MEANING} <= set(curves["series"]):
        return "Pythia-12b's published training curves are not loaded, so Figure 2 is not drawn."
    found = {name: milestones(curves[curves["series"] == name].set_index("step")["value"].rename(name), NEAR_PEAK)
             for name in (FORM, MEANING)}
    steps = {name: m.near_peak_step for name, m in found.items()}
    order = "form first" if steps[FORM] < steps[MEANING] else "meaning first" \
        if steps[MEANING] < steps[FORM] else "both at once"
    return (f"Over Pythia-12b's training, form (the syntactic test) comes within {NEAR_PEAK:.0%} of its best "
            f"({100 * found[FORM].peak_value:.1f}%) at step {steps[FORM]:,}, meaning on plausible items within "
            f"{NEAR_PEAK:.0%} of its best ({100 * found[MEANING].peak_value:.1f}%) at step {steps[MEANING]:,}: "
            f"{order}.")


def try_it(numbers: Numbers) -> str:
    """Step 8: what pfcore read in the class's sentence and what the Probe will do with it."""
    reading = numbers["reading"].iloc[0]
    then = ("It fits the paper's frame, so the Probe tests it on the suite's four decisions." if reading["fits_frame"]
            else "It is not in the paper's frame, so on the Probe you type follow-up pairs: one the construction "
                 "entails and one it contradicts, each pair one decision.")
    return (f"pfcore reads '{reading['connective']}' with focus 1 '{reading['focus1']}' and focus 2 "
            f"'{reading['focus2']}'. {_focus2_line(numbers['words'], str(reading['connective']))} {then}")
