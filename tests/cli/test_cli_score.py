"""`python -m pfcore score`: table and JSON output, and clear errors without tracebacks."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from minicons import scorer as mscorer

from pfcore.cli import main
from pfcore.cli.common import print_envelope
from pfcore.models import ModelSpec
from pfcore.output import envelope
from pfcore.scoring.models import load_model
from tests.tiny_models import by_auto_classes

PREFIX = "I couldn't lift a tiny rock, let alone a huge one."
CONT = "Lifting a tiny rock is easier than lifting a huge one."
KEYS = {"model", "prefix", "continuation", "tokens", "logprobs", "surprisals_bits", "sum_logprob",
        "mean_logprob"}


def test_json_output_matches_minicons(tiny_gpt2: Path, cache_dir: Path, capsys) -> None:
    assert main(["score", PREFIX, CONT, "--model", str(tiny_gpt2), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert KEYS <= out.keys()
    loaded = load_model(ModelSpec(str(tiny_gpt2)))
    ref = mscorer.IncrementalLMScorer(loaded.model, tokenizer=loaded.tokenizer)
    expected = ref.conditional_score(PREFIX, CONT, reduction=lambda x: x.sum(0).item())[0]
    assert out["sum_logprob"] == pytest.approx(expected, abs=1e-4)
    assert len(out["tokens"]) == len(out["logprobs"]) == len(out["surprisals_bits"])


def test_sentence_table(tiny_gpt2: Path, cache_dir: Path, capsys) -> None:
    assert main(["score", "--sentence", CONT, "--model", str(tiny_gpt2)]) == 0
    out = capsys.readouterr().out
    assert "surprisal(bits)" in out and "sum logprob" in out and "' easier'" in out


@pytest.mark.parametrize("argv, message", [
    (["score", "--sentence", ""], "empty text"),
    (["score", PREFIX], "give PREFIX and CONTINUATION"),
    (["score", PREFIX, CONT, "--sentence", CONT], "not both"),
    (["score", "--sentence", "hi", "--model", "/nowhere/model"], "not found"),
])
def test_bad_input_is_one_line(argv: list[str], message: str, cache_dir: Path, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.slow
def test_default_model_sum_matches_minicons(default_model_cache: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "pfcore", "score", PREFIX, CONT, "--json"],
                          capture_output=True, text=True, check=True)
    out = json.loads(proc.stdout)
    model, tokenizer = by_auto_classes(Path(load_model(ModelSpec()).source))  # minicons' usual input
    ref = mscorer.IncrementalLMScorer(model, tokenizer=tokenizer)
    expected = ref.conditional_score(PREFIX, CONT, reduction=lambda x: x.sum(0).item())[0]
    assert out["model"] == "smollm2-135m-instruct-q4_1"
    assert out["sum_logprob"] == pytest.approx(expected, abs=1e-4)


def test_kind_masked_scores_pll_like_minicons(tiny_bert: Path, cache_dir: Path, capsys) -> None:
    assert main(["score", "--sentence", CONT, "--model", str(tiny_bert), "--kind", "masked", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    loaded = load_model(ModelSpec(str(tiny_bert), kind="masked"))
    ref = mscorer.MaskedLMScorer(loaded.model, tokenizer=loaded.tokenizer, device="cpu")
    expected = ref.sequence_score([CONT], reduction=lambda x: x.sum(0).item(), PLL_metric="original")[0]
    assert out["sum_logprob"] == pytest.approx(expected, abs=1e-4)
    assert out["first_token_policy"] == "every token scored (PLL)"
    assert main(["score", "--sentence", CONT, "--model", str(tiny_bert), "--kind", "masked", "--bos"]) == 2
    assert "--bos goes with causal models" in capsys.readouterr().err


def test_one_model_is_its_object_and_several_are_results(capsys: pytest.CaptureFixture[str]) -> None:
    one, two = {"model": "a", "value": 1.5}, {"model": "b", "value": -0.5}
    assert envelope([one]) is one
    assert envelope([one, two]) == {"results": [one, two]}
    print_envelope([one, two])
    assert json.loads(capsys.readouterr().out) == {"results": [one, two]}
    with pytest.raises(ValueError):  # strict JSON: a NaN is refused, never printed
        print_envelope([{"value": float("nan")}])
