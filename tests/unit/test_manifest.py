"""The run manifest's model record: a ModelSpec plus where it loaded from, with manifest.json's
layout unchanged and older manifests read back."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pfcore.errors import InputError
from pfcore.models.spec import DEFAULT_MODEL, ModelSpec
from pfcore.store.manifest import ItemsRecord, Manifest, ModelRecord, read_manifest

# The model object of manifest.json as every version so far wrote it: the spec's fields in order,
# then where the model loaded from and its weights' digest.
MODEL_LAYOUT = ("name", "revision", "dtype", "device", "kind", "trust_remote_code", "source", "weights_sha256")

# A manifest as the first typed version wrote it (commit c75433f): the default model under its
# earlier name, no weight digest, timings without `scored`.
OLD_MANIFEST = {
    "run_id": "20250101-120000-semantic-smollm2-135m", "created": "2025-01-01T12:00:00+00:00",
    "suite": "semantic",
    "model": {"name": "smollm2-135m", "revision": None, "dtype": "float32", "device": "cpu", "kind": "causal",
              "trust_remote_code": False, "source": "/cache/models/smollm2-135m"},
    "scoring": "causal", "items": {"count": 64, "hash": "0123456789abcdef", "source": "data/items/semantic"},
    "settings": {"suite": "semantic", "constructions": ["let_alone"]},
    "versions": {"pfcore": "0.1.0"}, "git_commit": None,
    "timings_s": {"items_s": 0.1, "load_s": 2.0, "score_s": 5.0, "total_s": 7.1},
}


def test_a_record_is_its_spec_with_where_it_loaded_from() -> None:
    spec = ModelSpec("EleutherAI/pythia-160m", revision="step1000", kind="causal")
    record = ModelRecord.of(spec, source="/hub/snapshot", weights_sha256="ab" * 32)
    assert record.label == spec.label == "EleutherAI/pythia-160m@step1000"
    assert (record.name, record.revision, record.kind, record.source) == (spec.name, spec.revision, spec.kind,
                                                                          "/hub/snapshot")
    assert ModelRecord.of(ModelSpec("smollm2-135m"), source="", weights_sha256="").name == DEFAULT_MODEL


def test_the_manifests_model_object_keeps_its_layout() -> None:
    record = ModelRecord.of(ModelSpec("m", revision="step8"), source="/m", weights_sha256="f" * 64)
    manifest = Manifest("r", "t", "semantic", record, "causal", ItemsRecord(1, "h", "s"))
    model = json.loads(json.dumps(manifest.to_json()))["model"]
    assert tuple(model) == MODEL_LAYOUT
    assert model == {"name": "m", "revision": "step8", "dtype": "float32", "device": "cpu", "kind": "causal",
                     "trust_remote_code": False, "source": "/m", "weights_sha256": "f" * 64}


def test_an_old_manifest_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(OLD_MANIFEST))
    manifest = read_manifest(path)
    assert manifest.model.label == DEFAULT_MODEL  # the earlier name reads back under the name now
    assert (manifest.model.source, manifest.model.weights_sha256) == ("/cache/models/smollm2-135m", "")
    assert manifest.timings_s.total_s == 7.1 and manifest.items.count == 64
    again = Manifest.from_json(manifest.to_json())
    assert again == manifest


def test_a_manifest_without_a_model_name_is_refused() -> None:
    model = {k: v for k, v in OLD_MANIFEST["model"].items() if k != "name"}  # type: ignore[union-attr]
    with pytest.raises(InputError, match="not a pfcore run manifest"):
        Manifest.from_json({**OLD_MANIFEST, "model": model})
