"""Issue 16's defects, each reproduced: nothing lost, nothing silently wrong."""
from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from pfcore.errors import InputError, ModelLoadError
from pfcore.items import default_items, write_items
from pfcore.models import ModelSpec, gguf_convert
from pfcore.models.loading import _conversion_path
from pfcore.runs.runner import run_suite
from pfcore.scoring.factory import cache_identity, scorer_for
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS, load_model
from pfcore.scoring.requests import Request
from pfcore.store import results as res
from pfcore.store.cache import TABLE, ScoreCache, namespace, request_key, score_cached
from pfcore.suites.base import RunConfig
from tests.writers import ROWS, start

SENTENCES = [Request("", "The cat sat on the mat."), Request("The cat", "sat on the mat.")]


def fake_gguf_model(tiny_gpt2: Path, folder: Path) -> Path:
    """A .gguf file (magic bytes only) whose converted copy under the cache is the tiny GPT-2, so
    the conversion path is exercised without a real GGUF conversion."""
    gguf = folder / "toy-model.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 28)
    converted = _conversion_path(gguf.resolve())
    shutil.copytree(tiny_gpt2, converted)
    files = {p.name: p.stat().st_size for p in converted.iterdir() if p.is_file()}
    (converted / gguf_convert.MARKER).write_text(json.dumps(
        {"source": str(gguf), "fingerprint": gguf_convert.fingerprint(gguf.resolve()), "files": files}))
    return gguf


# ----- 1. a transient load failure keeps the converted model -----

def test_out_of_memory_load_keeps_the_converted_model(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    gguf = fake_gguf_model(tiny_gpt2, tmp_path)
    converted = _conversion_path(gguf.resolve())
    before = sorted(p.name for p in converted.iterdir())

    def no_memory(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("DefaultCPUAllocator: not enough memory: you tried to allocate 611 MB")

    MODELS.clear()
    with monkeypatch.context() as patch, pytest.raises(ModelLoadError, match="not enough memory to load"):
        patch.setattr("transformers.AutoModelForCausalLM.from_pretrained", no_memory)
        load_model(ModelSpec(str(gguf)))
    assert sorted(p.name for p in converted.iterdir()) == before
    assert load_model(ModelSpec(str(gguf))).source == str(converted)  # and it still loads
    MODELS.clear()


def test_a_damaged_header_is_an_integrity_error(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path) -> None:
    gguf = fake_gguf_model(tiny_gpt2, tmp_path)
    converted = _conversion_path(gguf.resolve())
    assert gguf_convert.is_complete(converted, gguf.resolve())
    weights = converted / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[10:20] = b"!" * 10  # same size, header no longer JSON
    weights.write_bytes(bytes(data))
    assert not gguf_convert.is_complete(converted, gguf.resolve())


def test_a_file_that_is_not_gguf_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "notes.gguf"
    fake.write_text("just text")
    with pytest.raises(ModelLoadError, match="not a GGUF file"):
        load_model(ModelSpec(str(fake)))


def test_a_folder_without_weights_is_refused(tiny_gpt2: Path, tmp_path: Path) -> None:
    folder = tmp_path / "config-only"
    folder.mkdir()
    shutil.copy(tiny_gpt2 / "config.json", folder / "config.json")
    with pytest.raises(ModelLoadError, match="no weights"):
        load_model(ModelSpec(str(folder)))


def test_kind_mismatch_is_refused_before_loading(tiny_gpt2: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("transformers.AutoConfig.from_pretrained", lambda *a, **k: pytest.fail("loaded"))
    with pytest.raises(ModelLoadError, match="causal model.*choose kind 'causal'"):
        load_model(ModelSpec(str(tiny_gpt2), kind="masked"))


# ----- 2. two writers of the results table -----

def test_two_processes_appending_keep_every_row(cache_dir: Path) -> None:
    cache_dir.mkdir(parents=True, exist_ok=True)
    procs = [start("append_rows", str(cache_dir), w) for w in (1, 2)]
    assert [p.wait(600) for p in procs] == [0, 0]  # generous for a busy machine; quiet, both are done in 2 s
    assert len(res.load_results()) == 2 * ROWS


# ----- 3. non-finite scores and half-read numbers -----

@pytest.fixture()
def nan_model(tiny_gpt2: Path, tmp_path: Path) -> Path:
    """The tiny GPT-2 with its output layer's weights turned to NaN (files of the right size)."""
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2)
    with torch.no_grad():
        model.transformer.wte.weight[5:9] = float("nan")
    out = tmp_path / "nan-model"
    model.save_pretrained(out)
    AutoTokenizer.from_pretrained(tiny_gpt2).save_pretrained(out)
    return out


def test_nan_scores_are_refused_and_not_cached(nan_model: Path, cache_dir: Path) -> None:
    with pytest.raises(InputError, match="non-finite scores"):
        run_suite(ModelSpec(str(nan_model)), RunConfig(constructions=("let_alone",), limit_blocks=2))
    with ScoreCache() as cache:
        assert cache.count() == 0
    assert res.load_results().empty  # no 0.0% accuracy in the table


def test_a_truncated_published_file_is_refused(tmp_path: Path, cache_dir: Path) -> None:
    path = tmp_path / "EleutherAI" / "pythia-12b" / "accuracy_summary.tsv"
    path.parent.mkdir(parents=True)
    path.write_text("revision\tconstruction\tworld_knowledge_filter\taccuracy\n"
                    "step1\tletalone\tall\t0.51\nstep2\tletalone\tall\t0.")  # cut mid-number
    with pytest.raises(InputError, match="cut off"):
        res.import_published(tmp_path)
    assert res.load_results().empty


# ----- 4. cache keys -----

def test_requests_split_at_a_nul_do_not_share_a_key() -> None:
    ns = namespace({"model": "x"})
    assert request_key(ns, "walk\0", "let alone") != request_key(ns, "walk", "\0let alone")
    with pytest.raises(InputError, match="NUL"):
        Request("walk\0", "let alone")


# ----- 5. an item file items check rejects is not run -----

def test_run_refuses_a_file_with_duplicate_items(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path) -> None:
    items = default_items("semantic", "let_alone")[:8]
    path = tmp_path / "dup.jsonl"
    write_items(items + items[:2], path)
    with pytest.raises(InputError, match="(?s)fails the item check.*duplicate item_id"):
        run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(items_path=str(path)))


# ----- 6. a moved cache serves its scores -----

class Refusing:
    """A scorer that must not be asked: every score has to come from the cache."""

    def __init__(self, identity: dict[str, object]) -> None:
        self.identity = identity

    def score(self, requests, progress=None):
        """Fail: the cache should have answered."""
        raise AssertionError(f"{len(requests)} requests were scored again")

    def display_tokens(self, ids):
        """Token strings are not needed here."""
        return tuple(str(i) for i in ids)

    def cache_identity(self):
        """The identity of the model as computed now."""
        return self.identity


def test_a_moved_cache_serves_its_scores(tiny_gpt2: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = tmp_path / "first-cache"
    monkeypatch.setenv("PFCORE_CACHE", str(first))
    gguf = fake_gguf_model(tiny_gpt2, tmp_path)
    spec = ModelSpec(str(gguf))
    MODELS.clear()
    with ScoreCache() as cache:
        scores = score_cached(scorer_for(spec, ScoringMethod.CAUSAL), SENTENCES, cache)
    moved = tmp_path / "elsewhere" / "cache"
    moved.parent.mkdir()
    shutil.move(first, moved)
    monkeypatch.setenv("PFCORE_CACHE", str(moved))
    MODELS.clear()
    with ScoreCache() as cache:
        again = score_cached(Refusing(cache_identity(spec, ScoringMethod.CAUSAL)), SENTENCES, cache)
    assert [list(s.logprobs) for s in again] == [list(s.logprobs) for s in scores]
    MODELS.clear()


def test_a_moved_model_folder_serves_its_scores(tiny_gpt2: Path, tmp_path: Path, cache_dir: Path) -> None:
    """The folder's path was part of the key: a model moved or copied elsewhere was scored again."""
    first, moved = tmp_path / "first" / "model", tmp_path / "moved" / "model"
    shutil.copytree(tiny_gpt2, first)
    MODELS.clear()
    with ScoreCache() as cache:
        scores = score_cached(scorer_for(ModelSpec(str(first)), ScoringMethod.CAUSAL), SENTENCES, cache)
    shutil.move(first, moved)
    with ScoreCache() as cache:
        again = score_cached(Refusing(cache_identity(ModelSpec(str(moved)), ScoringMethod.CAUSAL)), SENTENCES, cache)
    assert [list(s.logprobs) for s in again] == [list(s.logprobs) for s in scores]
    MODELS.clear()


def test_touching_a_weight_file_keeps_the_key_but_changing_it_does_not(tiny_gpt2: Path, tmp_path: Path,
                                                                       cache_dir: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(tiny_gpt2, folder)
    spec = ModelSpec(str(folder))
    key = cache_identity(spec, ScoringMethod.CAUSAL)
    weights = folder / "model.safetensors"
    weights.touch()
    assert cache_identity(spec, ScoringMethod.CAUSAL) == key
    data = bytearray(weights.read_bytes())
    data[-1] ^= 0xFF
    weights.write_bytes(bytes(data))
    assert cache_identity(spec, ScoringMethod.CAUSAL) != key


# ----- 7. a damaged stored value is detected -----

def test_a_flipped_byte_in_a_stored_score_is_detected_and_rescored(tiny_gpt2: Path, cache_dir: Path) -> None:
    scorer = scorer_for(ModelSpec(str(tiny_gpt2)), ScoringMethod.CAUSAL)
    with ScoreCache() as cache:
        first = score_cached(scorer, SENTENCES, cache)
        with sqlite3.connect(cache.path) as conn:
            key, blob = conn.execute(f"SELECT key, logprobs FROM {TABLE} LIMIT 1").fetchone()
            damaged = bytearray(blob)
            damaged[3] ^= 0x10
            conn.execute(f"UPDATE {TABLE} SET logprobs = ? WHERE key = ?", (bytes(damaged), key))
        with pytest.warns(UserWarning, match="1 stored scores fail their checksum"):
            again = score_cached(scorer, SENTENCES, cache)
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a.logprobs, b.logprobs)
        assert len(cache.get_many([key])) == 1  # rescored and stored whole again


# ----- 8. a damaged results table is rebuilt -----

def test_a_run_after_corrupting_the_results_table_succeeds_and_keeps_every_row(
        tiny_gpt2: Path, cache_dir: Path, tmp_path: Path) -> None:
    published = tmp_path / "published" / "EleutherAI" / "pythia-12b" / "accuracy_summary.tsv"
    published.parent.mkdir(parents=True)
    published.write_text("revision\tconstruction\tworld_knowledge_filter\taccuracy\n"
                         "step1\tletalone\tall\t0.51\nstep2\tletalone\tall\t0.62\n")
    res.import_published(tmp_path / "published")
    run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(constructions=("let_alone",), limit_blocks=1))
    before = res.load_results()
    res.results_path().write_bytes(b"PAR1 garbage")
    with pytest.warns(UserWarning, match="rebuilt it"):
        record = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(suite="syntax", limit_blocks=1))
    after = res.load_results()
    added = after[after["source"] == f"pfcore run {record.manifest.run_id}"]
    kept = after[after["source"] != f"pfcore run {record.manifest.run_id}"]
    key = ["source", "model", "revision", "suite", "construction", "filter", "metric"]
    pd.testing.assert_frame_equal(kept.sort_values(key).reset_index(drop=True),
                                  before.sort_values(key).reset_index(drop=True), check_dtype=False)
    assert len(added) > 0


def test_a_rebuilt_results_table_keeps_runs_recorded_outside_the_cache(
        tiny_gpt2: Path, cache_dir: Path, tmp_path: Path) -> None:
    """A run saved with --out elsewhere lost its rows when the table was rebuilt (76 rows -> 0)."""
    record = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(constructions=("let_alone",), limit_blocks=1,
                                                            out=str(tmp_path / "elsewhere")))
    source = f"pfcore run {record.manifest.run_id}"
    before = res.load_results()
    res.results_path().write_bytes(b"PAR1 garbage")
    with pytest.warns(UserWarning, match="rebuilt it"):
        after = res.load_results()
    assert (after["source"] == source).sum() == (before["source"] == source).sum() > 0


def test_two_runs_in_the_same_second_keep_both_records(tiny_gpt2: Path, cache_dir: Path) -> None:
    """Run ids were stamped to the second: a second run in the same second overwrote the first."""
    config = RunConfig(constructions=("let_alone",), limit_blocks=1)
    first, second = (run_suite(ModelSpec(str(tiny_gpt2)), config) for _ in range(2))
    assert first.path != second.path and first.path.is_dir() and second.path.is_dir()
