"""Where torch sees a CUDA device (skipped elsewhere): the golden table on CUDA equals the pinned one,
pfcore on CUDA agrees with minicons on CUDA, `--device auto` picks CUDA and the manifest says so, TF32
stays off, and a model split over two GPUs gives one GPU's numbers."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from pfcore.cli import main
from pfcore.models import ModelSpec
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.models import MODELS
from pfcore.scoring.requests import Request
from tests.golden_table import golden_table, read_table
from tests.unit.test_golden import assert_matches

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")
REQUESTS = [Request("The dog did not eat,", "let alone run."), Request("", "Nobody came, much less stayed.")]


def test_the_golden_table_on_cuda_equals_the_pinned_one(default_model_cache: Path, tmp_path: Path) -> None:
    MODELS.clear()
    assert_matches(golden_table(tmp_path / "runs", device="cuda"), read_table())
    manifest = json.loads(next((tmp_path / "runs").rglob("manifest.json")).read_text())
    assert manifest["model"]["device"] == "cuda"


def test_auto_runs_on_cuda_with_tf32_off(tiny_gpt2: Path, cache_dir: Path, capsys) -> None:
    torch.backends.cuda.matmul.allow_tf32 = True
    assert main(["run", "--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1",
                 "--model", str(tiny_gpt2), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["device"] == "cuda"
    assert torch.backends.cuda.matmul.allow_tf32 is False and torch.backends.cudnn.allow_tf32 is False


def test_pfcore_on_cuda_matches_minicons_on_cuda(tiny_gpt2: Path, cache_dir: Path) -> None:
    from minicons import scorer as mscorer

    loaded = MODELS.loaded(ModelSpec(str(tiny_gpt2), device="cuda"))
    ours = CausalScorer(loaded).conditional_logprobs([r.prefix for r in REQUESTS[:1]], [r.text for r in REQUESTS[:1]])
    reference = mscorer.IncrementalLMScorer(loaded.model, tokenizer=loaded.tokenizer, device="cuda")
    theirs = reference.conditional_score([REQUESTS[0].prefix], [REQUESTS[0].text], reduction=lambda x: x.sum(0).item())
    np.testing.assert_allclose(ours, theirs, atol=1e-4)


def test_the_scoring_benchmark_on_cuda_against_minicons(tiny_gpt2: Path) -> None:
    from tests.unit.test_bench_rounds import last_json

    found = last_json("bench_scoring.py", "--blocks", "1", "--model", str(tiny_gpt2), "--device", "cuda")
    assert found["device"] == "cuda" and found["max_abs_diff"] < 1e-4
