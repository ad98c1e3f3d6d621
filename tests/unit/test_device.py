"""Where a model computes (--device auto: CUDA where torch sees it, else the CPU) and how exactly
(TF32 off); the device actually used is what a run's manifest records."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from pfcore.cli import main
from pfcore.models import device as placement
from pfcore.models import spec as spec_module
from pfcore.models.identity import model_identity
from pfcore.models.spec import AUTO, ModelSpec, resolve_device
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.models import MODELS
from pfcore.scoring.requests import Request


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


def test_cuda_places_layers_across_the_gpus_within_their_free_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    free = {0: 10 << 30, 1: 20 << 30}
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda i: (free[i], 80 << 30))
    found = placement.layer_map_kwargs("cuda")
    assert found["device_map"] == "sequential"
    budget = found["max_memory"]
    assert budget[0] == int(placement.SHARE * free[0]) and budget[1] == int(placement.SHARE * free[1])
    assert budget["cpu"] > 0
    assert placement.layer_map_kwargs("cuda:1") == placement.layer_map_kwargs("cpu") == {}
    assert placement.layer_map_kwargs("cuda", "AutoModelForMaskedLM") == {}  # masked models load whole


def test_a_model_whose_layers_a_map_spreads_over_two_devices_scores_as_one(
        tiny_gpt2: Path, cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A layer map over two devices the CPU has (the CPU, and the disk that accelerate's hooks load
    the second block from when it runs): the same numbers as the whole model in one place."""
    requests = [Request("The dog did not eat,", "let alone run."), Request("", "Nobody came, much less stayed."),
                Request("The dog did not eat,", "much less sleep.")]
    spec = ModelSpec(str(tiny_gpt2))
    MODELS.clear()
    whole = [s.logprobs for s in CausalScorer(MODELS.loaded(spec)).score(requests)]
    layers = {"transformer.wte": "cpu", "transformer.wpe": "cpu", "transformer.h.0": "cpu", "transformer.h.1": "disk",
              "transformer.ln_f": "cpu", "lm_head": "cpu"}
    monkeypatch.setattr(placement, "layer_map_kwargs",
                        lambda _device, _kind: {"device_map": layers, "offload_folder": str(tmp_path / "offload")})
    MODELS.clear()
    loaded = MODELS.loaded(spec)
    assert placement.placed_on(loaded.model) == {"cpu", "disk"}
    mapped = [s.logprobs for s in CausalScorer(loaded).score(requests)]
    MODELS.clear()
    for a, b in zip(whole, mapped, strict=True):
        np.testing.assert_allclose(b, a, atol=1e-6)
