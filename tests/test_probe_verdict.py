"""The balanced Probe verdict (issue 12): a frame sentence's four decisions are the semantic suite's
own decisions on its block; free-form pairs are one decision each; the verdict comes from all."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.items import default_items, write_items
from pfcore.models import ModelSpec
from pfcore.probe import analyze_sentence, probe_sentence
from pfcore.probe.verdict import AGAINST, CONSISTENT, MIXED
from pfcore.scoring.factory import scorer_for
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import LN2
from pfcore.suites.base import RunConfig
from pfcore.suites.runner import run_suite

ROCK = "You couldn't lift a tiny rock, let alone a huge one."
SHRIMP = "He doesn't like shrimp, let alone squid."
JSON_KEYS = {"model", "construction", "focus1", "focus2", "control", "reduction", "decisions", "n_decisions",
             "n_correct", "verdict"}
DECISION_KEYS = {"context_order", "followup_order", "entailed", "contradicted", "shift_construction",
                 "shift_control", "effect", "correct"}


def suite_decisions(model: Path | str, sentence: str, folder: Path) -> dict[str, dict[str, object]]:
    """The semantic suite's decisions on the shipped block whose aligned context is `sentence`."""
    items = default_items("semantic", "let_alone")
    block = next(i.block_id for i in items if i.context == sentence and i.is_construction)
    path = folder / "block.jsonl"
    write_items([i for i in items if i.block_id == block], path)
    record = run_suite(ModelSpec(str(model)), RunConfig(items_path=str(path)))
    dec = record.tables["decisions"]
    return {row.condition: {"effect": (row.cxn_logodds - row.or_logodds), "correct": bool(row.correct)}
            for row in dec.itertuples()}


def test_a_frame_sentence_gets_the_suites_four_decisions(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path) -> None:
    result = probe_sentence(scorer_for(ModelSpec(str(tiny_gpt2)), ScoringMethod.CAUSAL), analyze_sentence(ROCK))
    assert [d.condition for d in result.decisions] == ["aligned1", "aligned2", "misaligned1", "misaligned2"]
    suite = suite_decisions(tiny_gpt2, ROCK, tmp_path)
    signs = {"aligned1": 1, "aligned2": -1, "misaligned1": -1, "misaligned2": 1}
    for d in result.decisions:
        assert d.correct == suite[d.condition]["correct"]
        assert d.effect == pytest.approx(signs[d.condition] * suite[d.condition]["effect"], abs=1e-9)
    assert result.verdict in (CONSISTENT, AGAINST, MIXED)
    assert result.verdict == (CONSISTENT if result.n_correct == 4 else AGAINST if result.n_correct == 0 else MIXED)
    assert result.reduction == "mean" and not result.anecdote


def test_a_misaligned_sentence_gets_the_same_block(tiny_gpt2: Path) -> None:
    scorer = scorer_for(ModelSpec(str(tiny_gpt2)), ScoringMethod.CAUSAL)
    typed = probe_sentence(scorer, analyze_sentence("You couldn't lift a huge rock, let alone a tiny one."))
    aligned = probe_sentence(scorer, analyze_sentence(ROCK))
    assert [(d.condition, d.effect) for d in typed.decisions] == [(d.condition, d.effect) for d in aligned.decisions]


def test_free_form_pairs_are_one_decision_each(tiny_gpt2: Path) -> None:
    scorer = scorer_for(ModelSpec(str(tiny_gpt2)), ScoringMethod.CAUSAL)
    probe = analyze_sentence(SHRIMP)
    one = probe_sentence(scorer, probe, [("He doesn't like squid either.", "He likes squid.")])
    assert one.anecdote and len(one.decisions) == 1
    assert "anecdote" in one.as_json("m")["note"] and "reversed order" in one.as_json("m")["note"]
    direct = scorer.conditional_logprobs([SHRIMP, SHRIMP, probe.control, probe.control],
                                         ["He doesn't like squid either.", "He likes squid."] * 2, "mean")
    assert one.decisions[0].effect == pytest.approx((direct[0] - direct[1]) - (direct[2] - direct[3]), abs=1e-9)
    two = probe_sentence(scorer, probe, [("He doesn't like squid either.", "He likes squid."),
                                         ("Squid is worse than shrimp for him.",
                                          "Squid is better than shrimp for him.")])
    assert len(two.decisions) == 2 and not two.anecdote
    assert two.verdict == {2: CONSISTENT, 0: AGAINST, 1: MIXED}[two.n_correct]


def test_sum_is_a_choice_and_can_differ(tiny_gpt2: Path) -> None:
    scorer = scorer_for(ModelSpec(str(tiny_gpt2)), ScoringMethod.CAUSAL)
    probe = analyze_sentence("The hotel was noisy, not to mention dirty.")
    pairs = [("It was dirty too.", "It was very clean and it was also spotless everywhere.")]
    mean, total = (probe_sentence(scorer, probe, pairs, reduction=r) for r in ("mean", "sum"))
    assert mean.unit == "bits per token" and total.unit == "bits"
    assert mean.decisions[0].effect != pytest.approx(total.decisions[0].effect)


@pytest.mark.parametrize("text, pairs, message", [
    ("The cat sat on the mat.", [], "No Paired-Focus construction"),
    (SHRIMP, [], "give at least one follow-up pair"),
    (SHRIMP, [("Same.", "Same.")], "are the same"),
])
def test_bad_probes_are_refused(tiny_gpt2: Path, text: str, pairs: list[tuple[str, str]], message: str) -> None:
    with pytest.raises(InputError, match=message):
        probe_sentence(scorer_for(ModelSpec(str(tiny_gpt2)), ScoringMethod.CAUSAL), analyze_sentence(text), pairs)


def test_probe_cli_json(tiny_gpt2: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", ROCK, "--model", str(tiny_gpt2), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert JSON_KEYS <= out.keys() and out["n_decisions"] == 4 and out["reduction"] == "mean"
    assert all(DECISION_KEYS <= d.keys() for d in out["decisions"])
    assert out["verdict"] in (CONSISTENT, AGAINST, MIXED)
    assert out["decisions"][0]["effect"] == pytest.approx(out["decisions"][0]["shift_construction"]
                                                          - out["decisions"][0]["shift_control"])
    assert main(["probe", SHRIMP, "--entailed", "He doesn't like squid either.", "--contradicted",
                 "He likes squid.", "--model", str(tiny_gpt2), "--model", str(tiny_gpt2) + "/", "--json"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert len(both["results"]) == 2 and both["results"][0]["n_decisions"] == 1


def test_probe_cli_refuses_a_sentence_without_construction(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "He ate much less than I did.", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "construction" in err


@pytest.mark.slow
def test_default_model_probe_equals_the_suite_on_that_block(default_model_cache: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's own example on the embedded default model, through the CLI."""
    assert main(["probe", ROCK, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_decisions"] == 4 and out["reduction"] == "mean"
    suite = suite_decisions("smollm2-135m-instruct-q4_1", ROCK, tmp_path)
    signs = {"aligned1": 1, "aligned2": -1, "misaligned1": -1, "misaligned2": 1}
    for d in out["decisions"]:
        assert d["correct"] == suite[d["condition"]]["correct"]
        assert d["effect"] == pytest.approx(signs[d["condition"]] * suite[d["condition"]]["effect"] / LN2, abs=1e-9)
