"""Where a model computes (--device auto: CUDA where torch sees it, else the CPU) and how exactly
(TF32 off); the device actually used is what a run's manifest records."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from pfcore.cli import main
from pfcore.models import spec as spec_module
from pfcore.models.identity import model_identity
from pfcore.models.spec import AUTO, ModelSpec, resolve_device
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.models import MODELS


@pytest.mark.parametrize(("seen", "expected"), [(("cpu",), "cpu"), (("cpu", "cuda"), "cuda")])
def test_auto_is_cuda_where_torch_sees_it_else_the_cpu(monkeypatch: pytest.MonkeyPatch,
                                                       seen: tuple[str, ...], expected: str) -> None:
    monkeypatch.setattr(spec_module, "available_devices", lambda: seen)
    assert resolve_device(AUTO) == expected
    assert resolve_device("cpu") == "cpu" and resolve_device("cuda:1") == "cuda:1"  # a named device as given


def test_a_run_by_default_records_the_device_it_used(tiny_gpt2: Path, cache_dir: Path, capsys) -> None:
    assert main(["run", "--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1",
                 "--model", str(tiny_gpt2), "--json"]) == 0
    record = Path(json.loads(capsys.readouterr().out)["record"])
    device = json.loads((record / "manifest.json").read_text())["model"]["device"]
    assert device == ("cuda" if torch.cuda.is_available() else "cpu") != AUTO


def test_the_device_is_no_part_of_a_models_identity(tiny_gpt2: Path, cache_dir: Path) -> None:
    source = str(tiny_gpt2)
    assert model_identity(ModelSpec(source, device="cpu"), source) == model_identity(ModelSpec(source, device="cuda"),
                                                                                     source)


def test_tf32_is_off_wherever_pfcore_scores(tiny_gpt2: Path, cache_dir: Path) -> None:
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True  # as a user's code might leave it
    try:
        CausalScorer(MODELS.loaded(ModelSpec(str(tiny_gpt2))))
        assert torch.backends.cuda.matmul.allow_tf32 is False and torch.backends.cudnn.allow_tf32 is False
        assert torch.get_float32_matmul_precision() == "highest"
    finally:
        torch.backends.cudnn.allow_tf32 = True  # torch's own default for cuDNN
