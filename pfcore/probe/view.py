"""A probe's results for reading: per-token tables with readable panel names, rises in bits, the
decisions with their base rates (the key columns first), and the verdict in words."""
from __future__ import annotations

import pandas as pd

from pfcore.analysis.base_rates import ALL
from pfcore.probe.score import ProbeResult
from pfcore.probe.verdict import SINGLE, ProbeVerdict
from pfcore.scoring.requests import LN2

PART_NAMES = {"entailed": "entailed follow-up", "contradicted": "contradicted follow-up"}


def labelled_tokens(result: ProbeResult) -> pd.DataFrame:
    """The per-token table with a `panel` column naming each text in words."""
    probe = result.probe
    words = {"construction": f"'{probe.connective}'", "control": f"'{probe.control_word}'"}
    tokens = result.tokens
    return tokens.assign(panel=[f"{PART_NAMES[part]} after {words[context]}" if part in PART_NAMES
                                else f"the sentence with {words[context]}"
                                for part, context in zip(tokens["part"], tokens["context"])])


def followup_tokens(result: ProbeResult) -> pd.DataFrame:
    """Tokens of the four follow-ups, ordered entailed then contradicted, construction then control."""
    tokens = labelled_tokens(result)
    follow = tokens[tokens["part"].isin(list(PART_NAMES))]
    rank = follow["part"].map({p: i for i, p in enumerate(PART_NAMES)}) * 2 + (follow["context"] == "control")
    return follow.assign(_rank=rank).sort_values(["_rank", "position"], kind="stable").drop(columns="_rank")


def sentence_tokens(result: ProbeResult) -> pd.DataFrame:
    """Tokens of the sentence and its control, scored alone."""
    tokens = labelled_tokens(result)
    return tokens[tokens["part"] == "sentence"]


def rises_in_bits(rises: pd.DataFrame) -> pd.DataFrame:
    """The manipulations' table with the rises in bits per token (the engine's are nats), first."""
    bits = rises.assign(rise_construction_bits=rises["rise_construction"] / LN2,
                        rise_and_bits=rises["rise_and"] / LN2).drop(columns=["rise_construction", "rise_and"])
    first = ["manipulation", "kind", "rise_construction_bits", "rise_and_bits", "correct"]
    return bits[first + [c for c in bits.columns if c not in first]]


def with_base_rates(decisions: pd.DataFrame, rates: pd.DataFrame) -> pd.DataFrame:
    """The decision table with the model's suite accuracy beside each decision: for its condition
    in the paper's frame, over all items for a free-form pair; with its n, interval and run."""
    if rates.empty:
        return decisions
    by = rates.set_index("condition")
    keys = decisions["condition"].where(decisions["condition"].isin(by.index), ALL)
    return decisions.assign(suite_condition=keys, suite_accuracy=keys.map(by["accuracy"]), suite_n=keys.map(by["n"]),
                            suite_ci_low=keys.map(by["ci_low"]), suite_ci_high=keys.map(by["ci_high"]),
                            suite_too_small=keys.map(by["too_small"]), suite_run=keys.map(by["source"]))


KEY_COLUMNS = ("condition", "context", "correct")  # then the effect, in its unit, and the base rate
NO_RUN = "no suite run yet"


def base_rate_cell(row: pd.Series) -> str:
    """A decision's base rate as one cell: the suite's accuracy for its condition with n and the
    95% interval, and "too small to say much" when the run is (NO_RUN without a run)."""
    accuracy = row.get("suite_accuracy")
    if accuracy is None or pd.isna(accuracy):
        return NO_RUN
    text = (f"{accuracy:.3f} (n = {row['suite_n']:.0f}, 95% {row['suite_ci_low']:.3f} to {row['suite_ci_high']:.3f}"
            f"{', ' + row['suite_condition'] if row['suite_condition'] == ALL else ''})")
    return text + ("; too small to say much" if bool(row["suite_too_small"]) else "")


def key_decisions(decisions: pd.DataFrame, effect: str) -> pd.DataFrame:
    """The columns to read first, for a narrow window: (model,) condition, the sentence, whether
    the decision is correct, its effect (the column `effect`) and its base rate in one cell."""
    lead = ["model"] if "model" in decisions.columns else []
    shown = decisions[[*lead, *KEY_COLUMNS, effect]].copy()
    shown["base_rate"] = decisions.apply(base_rate_cell, axis=1) if len(decisions) else []
    return shown


def order_counts(verdict: ProbeVerdict) -> str:
    """How many decisions go the construction's way in each order of the context ("as typed: 1
    of 1; swapped: 0 of 1", or aligned / misaligned in the paper's frame)."""
    orders: dict[str, list[bool]] = {}
    for d in verdict.decisions:
        orders.setdefault(d.context_order, []).append(d.correct)
    return "; ".join(f"{order}: {sum(marks)} of {len(marks)}" for order, marks in orders.items())


def verdict_line(label: str, verdict: ProbeVerdict) -> str:
    """The verdict of one model as the page's banner says it: the one decision, or how many of
    all of them go the construction's way, in each order of the context."""
    if verdict.verdict == SINGLE:
        return f"**{label}: {verdict.reading()}**"
    probe = verdict.probe
    return (f"**{label}: {verdict.verdict}**: with '{probe.connective}' the model moves toward the entailed "
            f"follow-up more than with '{probe.control_word}' in {verdict.n_correct} of "
            f"{len(verdict.decisions)} decisions ({order_counts(verdict)}).")


def without_signed_zeros(table: pd.DataFrame) -> pd.DataFrame:
    """The table with every -0.0 made 0.0, so no cell or CSV value reads "-0"."""
    numbers = table.select_dtypes("float").columns
    return table.assign(**{c: table[c] + 0.0 for c in numbers}) if len(numbers) else table
