"""A fast start: the embedded model's short loading path gives the Auto* classes' model, tokenizer
and scores exactly; the Home page is usable while the server's warm-up loads the model, without
importing torch; the warm-up leaves the scorer every session shares ready."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file
from transformers import AutoModelForCausalLM, AutoTokenizer

from pfcore.errors import ModelLoadError
from pfcore.items import default_items
from pfcore.models import LoadedModel, ModelSpec, clear_loaded, load_model
from pfcore.models.loading import being_loaded, load_converted, loaded_now
from pfcore.models.spec import _gpu_build
from pfcore.names import ModelKind
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.factory import shared_scorer
from pfcore.scoring.methods import text_method
from pfcore.scoring.requests import Request
from pfcore.ui import serve
from pfcore.ui.model import scorer as app_scorer
from pfcore.ui.page import PAGES
from tests.app_helpers import ROOT
from tests.tiny_models import CORPUS, build_llama

REQUESTS = [Request("", text) for text in CORPUS] + [
    Request(CORPUS[0], "Lifting a tiny rock is easier than lifting a huge rock."),
    Request(CORPUS[0], "Lifting a huge rock is easier than lifting a tiny rock."),
    Request(CORPUS[1], "Singing a beautiful song is harder than singing an ugly song.")]


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Llama folder shaped like the converted default model."""
    return build_llama(tmp_path_factory.mktemp("llama") / "tiny-llama")


def by_auto_classes(folder: Path) -> tuple[torch.nn.Module, object]:
    """The model and tokenizer as the Auto* classes load them (float32, safetensors)."""
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, use_safetensors=True).eval()
    return model, AutoTokenizer.from_pretrained(folder)


def assert_same_model(short: LoadedModel, auto: LoadedModel, requests: list[Request]) -> None:
    """Same class, weights, buffers, tying and attention; the same scores, to the bit."""
    assert type(short.model) is type(auto.model) and type(short.tokenizer) is type(auto.tokenizer)
    a, b = short.model.state_dict(), auto.model.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) and a[k].dtype == b[k].dtype for k in a)
    a, b = dict(short.model.named_buffers()), dict(auto.model.named_buffers())
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) and a[k].dtype == b[k].dtype for k in a)
    assert short.model.lm_head.weight is short.model.model.embed_tokens.weight
    assert short.model.config._attn_implementation == auto.model.config._attn_implementation
    assert not short.model.training
    for plain in (CausalScorer(short), CausalScorer(auto)):
        assert plain._tree_ok  # the prefix-tree path, with its 4-D mask, is what is compared
    for got, expected in ((CausalScorer(short), CausalScorer(auto)),
                          (CausalScorer(short).bow_scorer(), CausalScorer(auto).bow_scorer())):
        for x, y in zip(got.score(requests), expected.score(requests)):
            assert x.token_ids == y.token_ids and np.array_equal(x.logprobs, y.logprobs)


def test_a_converted_folder_loads_the_short_way_to_the_same_scores(tiny_llama: Path, cache_dir: Path) -> None:
    spec, source = ModelSpec(name=str(tiny_llama)), str(tiny_llama)
    short = LoadedModel(spec, *load_converted(tiny_llama), source)
    short.model.eval()
    auto = LoadedModel(spec, *by_auto_classes(tiny_llama), source)
    assert_same_model(short, auto, REQUESTS)
    texts = [r.text for r in REQUESTS]
    assert short.tokenizer(texts)["input_ids"] == auto.tokenizer(texts)["input_ids"]
    ids = [[i] for i in range(len(auto.tokenizer))]
    assert short.tokenizer.batch_decode(ids) == auto.tokenizer.batch_decode(ids)


def test_a_converted_folder_missing_weights_is_refused(tiny_llama: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    for file in tiny_llama.iterdir():
        (broken / file.name).write_bytes(file.read_bytes())
    weights = load_file(tiny_llama / "model.safetensors")
    weights.pop("model.norm.weight")
    save_file(weights, broken / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(ModelLoadError, match=r"missing \['model.norm.weight'\].*convert it again"):
        load_converted(broken)


@pytest.mark.slow
def test_the_embedded_model_loads_the_short_way_to_the_same_scores(default_model_cache: Path) -> None:
    """load_model's short path for the default model against the Auto* classes, on the shipped items'
    first semantic blocks and every token's text."""
    clear_loaded()
    short = load_model(ModelSpec())
    auto = LoadedModel(short.spec, *by_auto_classes(Path(short.source)), short.source)
    items = default_items("semantic")[:64]
    requests = list(dict.fromkeys([Request("", i.context) for i in items] +
                                  [Request(i.context, i.followup.replace("<MASK>", fill))
                                   for i in items for fill in i.fills]))
    assert_same_model(short, auto, requests)
    texts = sorted({t for kind in ("semantic", "syntax") for i in default_items(kind)
                    for t in (getattr(i, "context", ""), getattr(i, "followup", ""), getattr(i, "sentence", "")) if t})
    texts = texts[::20]  # some 4,700 distinct texts of both suites
    found, expected = (tok(texts, add_special_tokens=False, return_offsets_mapping=True)
                       for tok in (short.tokenizer, auto.tokenizer))
    assert found["input_ids"] == expected["input_ids"] and found["offset_mapping"] == expected["offset_mapping"]
    ids = [[i] for i in range(len(auto.tokenizer))]
    assert short.tokenizer.batch_decode(ids) == auto.tokenizer.batch_decode(ids)
    for name in ("bos_token_id", "eos_token_id", "pad_token_id", "padding_side", "model_max_length",
                 "clean_up_tokenization_spaces", "all_special_ids"):
        assert getattr(short.tokenizer, name) == getattr(auto.tokenizer, name), name


def run_python(code: str) -> dict:
    """Run code in a fresh Python (so that what it imports is its own) and read its last line as JSON."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(_gpu_build(), reason="torch here is built for a GPU: it is asked, so it is imported")
def test_the_device_choice_does_not_import_torch() -> None:
    found = run_python("""
        import json, sys
        from pfcore.models.spec import available_devices
        print(json.dumps({"devices": available_devices(), "torch": "torch" in sys.modules}))""")
    assert found == {"devices": ["cpu"], "torch": False}


@pytest.mark.skipif(_gpu_build(), reason="torch here is built for a GPU: the device choice imports it")
def test_the_home_page_is_usable_while_the_server_loads_the_model(tiny_gpt2: Path, cache_dir: Path) -> None:
    """The warm-up is loading the model (held at its start): Home draws everything, says the model is
    loading and reaches its wait without importing torch or transformers; when the load ends, it is
    drawn again, ready."""
    found = run_python(f"""
        import json, sys, threading
        from streamlit.testing.v1 import AppTest
        import pfcore.ui.model as ui_model
        from pfcore.models import ModelSpec, loading

        spec, release, real = ModelSpec(name={str(tiny_gpt2)!r}), threading.Event(), loading._load
        loading._load = lambda s: (release.wait(60), real(s))[1]
        warm_up = threading.Thread(target=loading.load_model, args=(spec,))
        warm_up.start()
        while not loading.being_loaded(spec):
            release.wait(0.01)
        seen, wait_for_model = {{}}, ui_model.wait_for_model

        def reached_the_wait():
            if not release.is_set():  # the first run, while the model loads (not the run after it)
                seen.update(torch="torch" in sys.modules, transformers="transformers" in sys.modules,
                            loading=ui_model.model_loading())
                release.set()
            wait_for_model()

        ui_model.wait_for_model = reached_the_wait
        at = AppTest.from_file("app.py", default_timeout=60)
        at.session_state["model_name"] = spec.name
        at.run()
        seen.update(links=len(at.get("page_link")), warnings=[str(w.value) for w in at.warning],
                    ready=[str(s.value) for s in at.sidebar.success], exception=bool(at.exception))
        print(json.dumps(seen))""")
    assert found["loading"] and not found["torch"] and not found["transformers"]
    assert not found["exception"] and found["links"] == len(PAGES) - 1 and not found["warnings"]
    assert any("(causal) ready" in s and "loaded in" in s for s in found["ready"])


def test_the_warm_up_lets_the_server_start_first(tiny_gpt2: Path, cache_dir: Path) -> None:
    """Waiting for the server, the warm-up counts as a load under way (so Home does not start one);
    it loads once the server has started, or after its longest wait."""
    clear_loaded()
    spec, started = ModelSpec(name=str(tiny_gpt2)), threading.Event()
    warm = threading.Thread(target=serve.warm_up, args=(spec,), kwargs={"after": started.is_set, "at_most_s": 60})
    warm.start()
    while not being_loaded(spec):
        started.wait(0.01)
    started.wait(0.5)
    assert being_loaded(spec) and loaded_now(spec) is None  # still waiting for the server
    started.set()
    warm.join(60)
    assert loaded_now(spec) is not None and not being_loaded(spec)
    clear_loaded()
    serve.warm_up(spec, after=lambda: False, at_most_s=0.1)  # the server never said so: it loads all the same
    assert loaded_now(spec) is not None
    assert not serve.server_started()  # no streamlit runtime in this process


def test_the_warm_up_leaves_the_sessions_scorer_ready(tiny_gpt2: Path, cache_dir: Path) -> None:
    clear_loaded()
    spec = ModelSpec(name=str(tiny_gpt2))
    serve.warm_up(spec)
    warmed = shared_scorer(spec, text_method(ModelKind.CAUSAL))
    assert app_scorer(spec) is warmed  # the page's scorer is the one the warm-up built
    assert "_extras" in vars(warmed.bow_scorer())  # its word-start tokens were worked out
    checks = json.loads((cache_dir / "scorer-checks.json").read_text())
    assert any({"head", "tree"} <= set(entry) for entry in checks.values())
