"""Model loading: local folders, kind checks, clear errors, the default model and its conversion."""
from __future__ import annotations

import json
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pfcore.errors import ModelLoadError
from pfcore.models import ModelSpec, loading
from pfcore.models.spec import split_label
from pfcore.scoring.models import MAX_LOADED, MODELS, load_model


def test_local_folder_loads_and_is_cached_per_process(tiny_gpt2: Path) -> None:
    first = load_model(ModelSpec(str(tiny_gpt2)))
    assert load_model(ModelSpec(str(tiny_gpt2))) is first
    assert first.source == str(tiny_gpt2.resolve())
    assert not first.model.training


def test_cache_is_bounded(tiny_gpt2: Path, tiny_bert: Path, tiny_roberta: Path) -> None:
    MODELS.clear()
    specs = [ModelSpec(str(tiny_gpt2)), ModelSpec(str(tiny_bert), kind="masked"),
             ModelSpec(str(tiny_roberta), kind="masked")]
    for spec in specs:
        load_model(spec)
    assert sum(MODELS.loaded_now(s) is not None for s in specs) == MAX_LOADED
    assert MODELS.loaded_now(ModelSpec(str(tiny_gpt2))) is None  # the least recently used gave up its weights


def test_kind_mismatch_is_explained(tiny_gpt2: Path, tiny_bert: Path) -> None:
    with pytest.raises(ModelLoadError, match="causal model"):
        load_model(ModelSpec(str(tiny_gpt2), kind="masked"))
    with pytest.raises(ModelLoadError, match="masked model"):
        load_model(ModelSpec(str(tiny_bert), kind="causal"))


def test_missing_path_and_folder_without_config(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="not found"):
        load_model(ModelSpec(str(tmp_path / "nope" / "model")))
    with pytest.raises(ModelLoadError, match="config.json"):
        load_model(ModelSpec(str(tmp_path)))
    with pytest.raises(ModelLoadError, match="GGUF file not found"):
        load_model(ModelSpec(str(tmp_path / "x.gguf")))


def test_unreachable_hub_id_gives_one_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelLoadError, match="Hugging Face hub.*local model folder"):
        load_model(ModelSpec("someone/not-a-model-here"))


def test_bad_dtype(tiny_gpt2: Path) -> None:
    with pytest.raises(ModelLoadError, match="dtype"):
        load_model(ModelSpec(str(tiny_gpt2), dtype="float8"))


def test_pickled_weights_are_not_loaded(tiny_gpt2: Path, tmp_path: Path) -> None:
    folder = tmp_path / "bin-only"
    loaded = load_model(ModelSpec(str(tiny_gpt2)))
    loaded.model.save_pretrained(folder, safe_serialization=False)
    loaded.tokenizer.save_pretrained(folder)
    with pytest.raises(ModelLoadError):
        load_model(ModelSpec(str(folder)))


@pytest.mark.slow
def test_default_model_converts_once_and_rebuilds_a_damaged_copy(converted_models: Path, cache_dir: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The shared conversion is complete; a copy with truncated weights is noticed and converted again,
    parsing the GGUF file once (transformers asks for it three times, pfcore's metadata a fourth)."""
    import gguf
    parsed = []
    monkeypatch.setattr(gguf, "GGUFReader", lambda path, mode="r", real=gguf.GGUFReader: parsed.append(path)
                        or real(path, mode))
    shared = converted_models / "SmolLM2-135M-Instruct.Q4_1"
    marker = json.loads((shared / "pfcore-converted.json").read_text())
    assert marker["files"]["model.safetensors"] > 100_000_000
    assert not list(converted_models.glob(".tmp-*"))
    folder = cache_dir / "models" / shared.name
    shutil.copytree(shared, folder)
    MODELS.clear()
    tok = load_model(ModelSpec()).tokenizer
    assert Path(load_model(ModelSpec()).source) == folder.resolve()  # the copy is used, not converted again
    assert tok("Hello")["input_ids"][0] != tok.bos_token_id  # no BOS added
    assert tok.eos_token == tok.pad_token == "<|im_end|>"
    # damage it: truncate the weights; the next load notices and converts again
    MODELS.clear()
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.warns(UserWarning, match="incomplete or stale"):
        again = load_model(ModelSpec())
    assert weights.stat().st_size == marker["files"]["model.safetensors"]
    assert again.tokenizer.eos_token == "<|im_end|>"
    assert len(parsed) == 1
    assert not list(folder.parent.glob(".tmp-*"))
    MODELS.clear()


def test_two_conversions_at_once_leave_gguf_as_it_was() -> None:
    """Two threads converting (two GGUF files in two sessions) patch gguf one after the other: had the
    second entered while the first was inside, the first's exit would restore gguf's own reader and the
    second's would then put the first's memo back for good."""
    import threading

    import gguf

    from pfcore.models.gguf_convert import _parsed_once
    own = (gguf.GGUFReader, gguf.get_tensor_name_map)
    inside, leave, entered = threading.Event(), threading.Event(), []

    def first() -> None:
        with _parsed_once():
            inside.set()
            leave.wait(10)

    def second() -> None:
        with _parsed_once():
            entered.append(leave.is_set())

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    threads[0].start()
    inside.wait(10)
    threads[1].start()
    time.sleep(0.2)
    leave.set()
    for thread in threads:
        thread.join(10)
    assert entered == [True]  # the second waited for the first to leave
    assert (gguf.GGUFReader, gguf.get_tensor_name_map) == own


def test_cpu_models_keep_freed_memory(tiny_gpt2) -> None:
    """Loading a model on the CPU asks glibc once to keep freed tensor memory (see
    pfcore.models.memory); on Linux with glibc that request must succeed."""
    from pfcore.models.memory import keep_freed_memory
    keep_freed_memory.cache_clear()
    MODELS.clear()
    load_model(ModelSpec(str(tiny_gpt2)))
    assert keep_freed_memory.cache_info().currsize == 1
    assert keep_freed_memory() is True


@pytest.mark.parametrize("label, parsed", [
    ("EleutherAI/pythia-160m@step1000", ("EleutherAI/pythia-160m", "step1000")),
    ("EleutherAI/pythia-160m", ("EleutherAI/pythia-160m", None)),
    ("runs@2/model@step8", ("runs@2/model", "step8")),  # a path may hold "@"; a hub revision does not
    ("model@", ("model", None)),
    ("@step8", ("@step8", None)),
])
def test_a_label_splits_into_name_and_revision(label: str, parsed: tuple[str, str | None]) -> None:
    assert split_label(label) == parsed
    name, revision = parsed
    if revision:
        assert ModelSpec(name, revision=revision).label == label  # the inverse of ModelSpec.label


def test_a_folder_whose_path_holds_an_at_sign_is_a_name_alone(tiny_gpt2: Path, tmp_path: Path) -> None:
    folder = tmp_path / "run@2"
    folder.symlink_to(tiny_gpt2)
    assert split_label(str(folder)) == (str(folder), None)
    masked = ModelSpec("x", kind="masked", dtype="bfloat16").with_label(f"{folder}@step8")
    assert (masked.name, masked.revision, masked.kind, masked.dtype) == (str(folder), "step8", "masked", "bfloat16")
    assert split_label("x" * 300 + "@main") == ("x" * 300, "main")  # a name too long for a path is no error


def test_two_conversions_at_once_convert_once(cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    """Two loads of a GGUF file that is not converted yet (the app's warm-up and a command, or two
    test workers, on a fresh clone): one converts, the other waits for it and reuses its folder."""
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    calls: list[Path] = []

    def convert(source: Path, folder: Path) -> Path:
        calls.append(folder)
        time.sleep(0.5)  # the other thread asks meanwhile
        folder.mkdir(parents=True)
        return folder

    monkeypatch.setattr(loading.gguf_convert, "is_complete", lambda folder, _gguf: folder.is_dir())
    monkeypatch.setattr(loading.gguf_convert, "convert", convert)
    with ThreadPoolExecutor(2) as pool:
        folders = list(pool.map(lambda _: loading.converted_folder(gguf), range(2)))
    assert len(calls) == 1 and folders[0] == folders[1] == calls[0]
