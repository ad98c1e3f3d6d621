"""A probe's results for reading: per-token tables with readable panel names, rises in bits."""
from __future__ import annotations

import pandas as pd

from pfcore.analysis.base_rates import ALL
from pfcore.probe.score import ProbeResult
from pfcore.scoring.requests import LN2

PART_NAMES = {"entailed": "entailed follow-up", "contradicted": "contradicted follow-up"}


def labelled_tokens(result: ProbeResult) -> pd.DataFrame:
    """The per-token table with a `panel` column naming each text in words."""
    probe = result.probe
    words = {"construction": f"'{probe.connective}'", "control": f"'{probe.lexicon.semantic_control}'"}
    tokens = result.tokens.copy()
    tokens["panel"] = [f"{PART_NAMES[part]} after {words[context]}" if part in PART_NAMES
                       else f"the sentence with {words[context]}"
                       for part, context in zip(tokens["part"], tokens["context"])]
    return tokens


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
