"""The balanced Probe verdict (issue 12): a frame sentence's four decisions are the semantic suite's
own decisions on its block; free-form pairs are one decision each; the verdict comes from all."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from pfcore.analysis.base_rates import base_rates, describe_base_rates
from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.items import default_items, write_items
from pfcore.models import ModelSpec
from pfcore.probe import analyze_sentence, probe_sentence
from pfcore.probe.verdict import AGAINST, CONSISTENT, MIXED, SINGLE
from pfcore.runs.runner import run_suite
from pfcore.scoring.factory import scorer_for
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import LN2
from pfcore.suites.base import RunConfig

ROCK = "You couldn't lift a tiny rock, let alone a huge one."
SHRIMP = "He doesn't like shrimp, let alone squid."
JSON_KEYS = {"model", "construction", "focus1", "focus2", "control", "reduction", "decisions", "n_decisions",
             "n_correct", "verdict"}
DECISION_KEYS = {"context_order", "followup_order", "entailed", "contradicted", "origin",
                 "shift_construction_bits_per_token", "shift_control_bits_per_token", "effect_bits_per_token",
                 "correct"}


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


def test_each_free_form_pair_is_two_decisions_one_on_the_swapped_sentence(tiny_gpt2: Path) -> None:
    scorer = scorer_for(ModelSpec(str(tiny_gpt2)), ScoringMethod.CAUSAL)
    probe = analyze_sentence(SHRIMP)
    pair = ("He doesn't like squid either.", "He likes squid.")
    one = probe_sentence(scorer, probe, [pair])
    assert [(d.context_order, d.condition, d.origin) for d in one.decisions] == [
        ("as typed", "pair 1, as typed", "typed"), ("swapped", "pair 1, swapped", "typed")]
    typed, swapped = one.decisions
    assert swapped.context == one.swapped == "He doesn't like squid, let alone shrimp."
    assert (swapped.entailed, swapped.contradicted) == (typed.contradicted, typed.entailed) == pair[::-1]
    contexts = [SHRIMP, probe.control, swapped.context, "He doesn't like squid, or shrimp."]
    direct = scorer.conditional_logprobs([c for c in contexts for _ in pair], list(pair) * 4, "mean")
    assert typed.effect == pytest.approx((direct[0] - direct[1]) - (direct[2] - direct[3]), abs=1e-6)
    assert swapped.effect == pytest.approx((direct[5] - direct[4]) - (direct[7] - direct[6]), abs=1e-6)
    assert not one.anecdote and one.verdict == {2: CONSISTENT, 0: AGAINST, 1: MIXED}[one.n_correct]
    two = probe_sentence(scorer, probe, [pair, ("Squid is worse than shrimp for him.",
                                                "Squid is better than shrimp for him.")])
    assert [d.condition for d in two.decisions] == ["pair 1, as typed", "pair 1, swapped", "pair 2, as typed",
                                                    "pair 2, swapped"]
    assert two.verdict == {4: CONSISTENT, 0: AGAINST}.get(two.n_correct, MIXED)


def test_a_pair_whose_sentence_cannot_be_swapped_is_one_decision_not_a_verdict(tiny_gpt2: Path) -> None:
    scorer = scorer_for(ModelSpec(str(tiny_gpt2)), ScoringMethod.CAUSAL)
    probe = analyze_sentence("The hotel was noisy, not to mention the cost.")
    one = probe_sentence(scorer, probe, [("The cost was high too.", "The cost was low.")])
    assert len(one.decisions) == 1 and one.anecdote and one.verdict == SINGLE and one.swapped is None
    assert "not the same kind of phrase" in one.swap_note
    way = "toward" if one.decisions[0].correct else "away from"
    assert one.reading().startswith(f"one decision: against 'or', 'not to mention' moved the model {way} the "
                                    "entailed follow-up")
    out = one.as_json("m")
    assert out["verdict"] == SINGLE and out["n_decisions"] == 1 and out["swapped_sentence"] is None
    assert "anecdote" in out["note"] and "not the same kind of phrase" in out["note"]


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
    first = out["decisions"][0]
    assert first["effect_bits_per_token"] == pytest.approx(first["shift_construction_bits_per_token"]
                                                           - first["shift_control_bits_per_token"])
    assert main(["probe", SHRIMP, "--entailed", "He doesn't like squid either.", "--contradicted",
                 "He likes squid.", "--model", str(tiny_gpt2), "--model", str(tiny_gpt2) + "/", "--json"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert len(both["results"]) == 2 and both["results"][0]["n_decisions"] == 2


def test_probe_cli_refuses_a_sentence_without_construction(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "He ate much less than I did.", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "construction" in err
    assert main(["probe", "The cat sat on the mat.", "--json"]) == 2
    err = capsys.readouterr().err  # whole, not cut at "e.g.:" (issue 40)
    assert err.count("\n") == 1 and "e.g.: / - let alone: He doesn't like shrimp, let alone squid." in err
    assert err.rstrip().endswith("never mind cook a meal.")


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
        expected = signs[d["condition"]] * suite[d["condition"]]["effect"] / LN2
        assert d["effect_bits_per_token"] == pytest.approx(expected, abs=1e-6)


LUNCH = "We barely had time for lunch, let alone dinner."


def test_probe_cli_single_decision_is_not_a_verdict(tiny_gpt2: Path, cache_dir: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["probe", "The hotel was noisy, not to mention the cost.", "--entailed", "The cost was high too.",
            "--contradicted", "The cost was low.", "--model", str(tiny_gpt2)]
    assert main(argv) == 0  # its JSON: test_a_pair_whose_sentence_cannot_be_swapped_is_one_decision_not_a_verdict
    text = capsys.readouterr().out
    assert "verdict: one decision: against 'or', 'not to mention' moved the model" in text
    assert "not the same kind of phrase" in text


def test_probe_cli_words_need_no_pair(tiny_gpt2: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", LUNCH, "--words", "--json", "--model", str(tiny_gpt2)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [w["word"] for w in out["words"]][-2:] == ["let alone", "dinner."]
    assert out["focus1"] == "lunch" and not {"decisions", "n_decisions", "verdict", "base_rate"} & out.keys()
    assert main(["probe", LUNCH, "--words", "--model", str(tiny_gpt2)]) == 0
    text = capsys.readouterr().out
    assert "difference_bits" in text and "verdict" not in text


def test_probe_cli_without_pair_or_words_suggests_propose(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", LUNCH]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--propose" in err and "--words" in err


def test_base_rate_is_the_largest_run_not_the_latest() -> None:
    def run(source: str, n: float, accuracy: float, width: float) -> list[dict[str, object]]:
        values = {"accuracy": accuracy, "ci_low": accuracy - width / 2, "ci_high": accuracy + width / 2}
        return [{"model": "m", "revision": "main", "step": None, "suite": "semantic", "construction": "letalone",
                 "filter": f, "metric": metric, "value": value, "source": source}
                for f in ("all", "aligned1")
                for metric, value in {**values, "n": n if f == "all" else n / 4}.items()]
    table = pd.DataFrame(run("pfcore run 20260101T000000Z-big", 800, 0.61, 0.07)
                         + run("pfcore run 20260301T000000Z-small", 40, 0.9, 0.3)
                         + run("paper Table 6", 9999, 0.5, 0.01)).astype({"step": "Int64"})
    rates = base_rates(table, "m", "let_alone")
    assert set(rates["source"]) == {"pfcore run 20260101T000000Z-big"}
    assert list(rates["condition"]) == ["aligned1", "all"] and list(rates["n"]) == [200, 800]
    assert not rates["too_small"].any()
    assert "0.610 (n = 800, 95% interval 0.575 to 0.645)" in describe_base_rates(rates, "let_alone")
    small = base_rates(table[~table["source"].str.endswith("big")], "m", "let_alone")
    assert small["too_small"].all() and "too small to say much" in describe_base_rates(small, "let_alone")
    assert base_rates(table, "other", "let_alone").empty


def test_probe_cli_reads_decisions_against_the_suites_accuracy(tiny_gpt2: Path, cache_dir: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    record = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(constructions=("let_alone",), limit_blocks=2))
    assert main(["probe", ROCK, "--model", str(tiny_gpt2), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    summary = record.summary.set_index("filter")
    for d in out["decisions"]:
        assert d["suite_accuracy"] == pytest.approx(summary.at[d["condition"], "accuracy"])
        assert d["suite_n"] == summary.at[d["condition"], "n"] and d["suite_run"].endswith(record.path.name)
    rows = {r["condition"]: r for r in out["base_rate"]["rows"]}
    assert rows["all"]["n"] == 8 and rows["all"]["too_small"] is True  # two blocks say little
    assert "too small to say much" in out["base_rate"]["note"] and record.path.name in out["base_rate"]["note"]
    assert main(["probe", ROCK, "--model", str(tiny_gpt2)]) == 0
    assert "base rate: the semantic suite's accuracy on 'let alone' over all items" in capsys.readouterr().out


def test_a_cached_probe_loads_neither_torch_nor_statsmodels(tiny_gpt2: Path, cache_dir: Path) -> None:
    """Fast: a probe whose scores are cached imports no model code and none of the fitting libraries."""
    argv = ["probe", ROCK, "--model", str(tiny_gpt2), "--json"]
    assert main(argv) == 0
    code = ("import contextlib, io, json, sys; from pfcore.cli import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()): main({argv!r})\n"
            "heavy = ('torch', 'transformers', 'statsmodels', 'scipy')\n"
            "print(json.dumps(sorted(m for m in heavy if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PFCORE_CACHE": str(cache_dir)})
    assert json.loads(done.stdout) == []
