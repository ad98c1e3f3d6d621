"""A fast start: the embedded model's short loading path (Llama in plain torch, the tokenizer by
`tokenizers` alone) gives the Auto* classes' weights, tokenizer, logits and scores to the bit without
importing transformers; the Home page is usable while the server's warm-up loads the model, without
importing torch; the warm-up waits for the first page and leaves the scorer every session shares ready."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from pfcore.errors import InputError, ModelLoadError
from pfcore.items import default_items
from pfcore.models import LoadedModel, ModelSpec, loading
from pfcore.models.llama import LlamaConfig, LlamaLM
from pfcore.models.loading import load_converted
from pfcore.models.spec import _gpu_build
from pfcore.names import ModelKind
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.factory import scorer_for
from pfcore.scoring.kinds import kind_of
from pfcore.scoring.masked import MaskedScorer
from pfcore.scoring.models import MODELS, load_model
from pfcore.scoring.requests import Request
from pfcore.ui import serve
from pfcore.ui.model import load_time
from pfcore.ui.model import scorer as app_scorer
from pfcore.ui.page import PAGES
from tests.app_helpers import ROOT, no_errors, page, texts
from tests.tiny_models import CORPUS, build_llama, by_auto_classes

REQUESTS = [Request("", text) for text in CORPUS] + [
    Request(CORPUS[0], "Lifting a tiny rock is easier than lifting a huge rock."),
    Request(CORPUS[0], "Lifting a huge rock is easier than lifting a tiny rock."),
    Request(CORPUS[1], "Singing a beautiful song is harder than singing an ugly song.")]
# The transformers release the plain-torch Llama was last shown bit for bit equal to (the two tests
# `..._loads_the_short_way_to_the_same_scores`): set it again only after running them on a new pin.
BIT_EXACT_WITH = "4.57.6"
TOKENIZER_FACTS = ("bos_token", "eos_token", "pad_token", "unk_token", "bos_token_id", "eos_token_id", "pad_token_id",
                   "unk_token_id", "model_max_length",
                   "clean_up_tokenization_spaces", "all_special_ids", "is_fast")


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Llama folder shaped like the converted default model."""
    return build_llama(tmp_path_factory.mktemp("llama") / "tiny-llama")


def mask_forms(vocabulary: int) -> dict[str, dict[str, torch.Tensor]]:
    """Every kind of forward pass pfcore's scorers make: no mask (next tokens, the exactness checks), a
    2-D mask without and with padding (plain batches), one token, and the prefix tree's 4-D additive
    mask with positions that restart (and those positions alone)."""
    ids = torch.randint(3, vocabulary, (3, 17), generator=torch.Generator().manual_seed(0))
    padded = torch.ones_like(ids)
    padded[1, 12:], padded[2, 5:] = 0, 0
    allowed = torch.tril(torch.ones(17, 17, dtype=torch.bool))
    allowed[9:, 4:9] = False  # a second branch that shares the first four tokens
    tree = torch.zeros(3, 1, 17, 17).masked_fill_(~allowed, torch.finfo(torch.float32).min)
    positions = torch.cat([torch.arange(9), torch.arange(4, 12)]).unsqueeze(0).expand(3, -1)
    return {"no mask": {"input_ids": ids},
            "2-D, no padding": {"input_ids": ids, "attention_mask": torch.ones_like(ids)},
            "2-D, padded": {"input_ids": ids, "attention_mask": padded}, "one token": {"input_ids": ids[:, :1]},
            "4-D tree": {"input_ids": ids, "attention_mask": tree, "position_ids": positions},
            "positions alone": {"input_ids": ids, "position_ids": positions}}


def assert_same_model(short: LoadedModel, auto: LoadedModel, requests: list[Request]) -> None:
    """The same weights (the output layer tied) and rotary frequencies; the same logits and last hidden
    states in every kind of forward pass, and the same scores, to the bit."""
    assert isinstance(short.model, LlamaLM) and not short.model.training
    a, b = short.model.state_dict(), auto.model.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) and a[k].dtype == b[k].dtype for k in a)
    assert short.model.lm_head.weight is short.model.model.embed_tokens.weight
    assert torch.equal(short.model.model.inv_freq, auto.model.model.rotary_emb.inv_freq)
    with torch.inference_mode():
        for form, inputs in mask_forms(short.model.config.vocab_size).items():  # called as pfcore calls them
            assert torch.equal(short.model(**inputs, use_cache=False).logits,
                               auto.model(**inputs, use_cache=False).logits), form
            assert torch.equal(short.model.base_model(**inputs, use_cache=False).last_hidden_state,
                               auto.model.base_model(**inputs, use_cache=False).last_hidden_state), form
    for plain in (CausalScorer(short), CausalScorer(auto)):
        assert plain._tree_ok  # the prefix-tree path, with its 4-D mask, is what the scores take
    for got, expected in ((CausalScorer(short), CausalScorer(auto)),
                          (CausalScorer(short).bow_scorer(), CausalScorer(auto).bow_scorer())):
        for x, y in zip(got.score(requests), expected.score(requests)):
            assert x.token_ids == y.token_ids and np.array_equal(x.logprobs, y.logprobs)


def assert_same_tokenizer(short: object, auto: object, texts: list[str]) -> None:
    """The same ids and character offsets (with and without special tokens), the same text for every
    token and pair of tokens (cleaned up or not), and the same special ids and settings."""
    for special in (False, True):
        found, expected = (tok(texts, add_special_tokens=special, return_offsets_mapping=True)  # type: ignore[operator]
                           for tok in (short, auto))
        assert found["input_ids"] == expected["input_ids"] and found["offset_mapping"] == expected["offset_mapping"]
    assert short(texts[0])["input_ids"] == auto(texts[0])["input_ids"]  # type: ignore[operator]
    size = len(auto)  # type: ignore[arg-type]
    assert len(short) == size  # type: ignore[arg-type]
    ids = [[i] for i in range(size)] + [[i, (i * 7919) % size] for i in range(size)]
    for clean in (None, False, True):
        assert short.batch_decode(ids, clean_up_tokenization_spaces=clean) == \
            auto.batch_decode(ids, clean_up_tokenization_spaces=clean)  # type: ignore[attr-defined]
    for name in TOKENIZER_FACTS:
        assert getattr(short, name) == getattr(auto, name), name


def test_a_converted_folder_loads_the_short_way_to_the_same_scores(tiny_llama: Path, cache_dir: Path) -> None:
    spec, source = ModelSpec(name=str(tiny_llama)), str(tiny_llama)
    short = LoadedModel(spec, *load_converted(tiny_llama), source)
    auto = LoadedModel(spec, *by_auto_classes(tiny_llama), source)
    assert_same_model(short, auto, REQUESTS)
    assert_same_tokenizer(short.tokenizer, auto.tokenizer, [r.text for r in REQUESTS] + ["", " a  b\n c 's ."])


def test_the_short_way_imports_neither_transformers_nor_torch_compile(tiny_llama: Path) -> None:
    """Loading and scoring the short way: no transformers (3 to 4 s), no torch._dynamo (some 3 s, which
    initialising weights on torch's meta device would import)."""
    found = run_python(f"""
        import json, sys
        from pathlib import Path
        from pfcore.models import LoadedModel, ModelSpec
        from pfcore.models.loading import load_converted
        from pfcore.scoring.causal import CausalScorer
        from pfcore.scoring.requests import Request

        folder = Path({str(tiny_llama)!r})
        loaded = LoadedModel(ModelSpec(name=str(folder)), *load_converted(folder), str(folder))
        scores = CausalScorer(loaded).bow_scorer().score([Request("We saw a rock,", "let alone a mountain.")])
        print(json.dumps({{"scored": len(scores[0].logprobs), "imported": sorted(
            m for m in ("transformers", "torch._dynamo", "pandas", "scipy") if m in sys.modules)}}))""")
    assert found["scored"] > 0 and found["imported"] == []


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


@pytest.mark.parametrize("change", [{"rope_scaling": {"rope_type": "linear", "factor": 2.0}},
                                    {"hidden_act": "gelu"}, {"attention_bias": True},
                                    {"architectures": ["MistralForCausalLM"]}])
def test_a_folder_the_plain_llama_would_compute_differently_is_refused(tiny_llama: Path, tmp_path: Path,
                                                                      change: dict[str, object]) -> None:
    """A config whose model the plain torch Llama would not compute as transformers does (another rope,
    activation, bias or architecture) is refused with its reason, never scored differently."""
    (tmp_path / "config.json").write_text(json.dumps(json.loads((tiny_llama / "config.json").read_text()) | change))
    with pytest.raises(ModelLoadError, match=f"not a plain Llama model \\(its {next(iter(change))} differ"):
        LlamaConfig.read(tmp_path)


def test_the_transformers_pin_is_the_one_the_plain_llama_was_checked_against() -> None:
    """A moved pin fails here until the bit-exact tests have run on it (transformers may change how it
    computes Llama, and the short way would then give other scores than the Auto* classes)."""
    import transformers

    pins = dict(line.split("==") for line in (ROOT / "requirements.txt").read_text().splitlines() if "==" in line)
    moved = {"requirements.txt": pins["transformers"], "installed": transformers.__version__}
    assert set(moved.values()) == {BIT_EXACT_WITH}, (
        f"transformers is {moved}, but the plain Llama was shown bit-exact on {BIT_EXACT_WITH}: run the "
        "short-way tests of tests/app/test_startup.py (with -m slow), then set BIT_EXACT_WITH")


def test_a_config_the_plain_llama_refuses_loads_through_transformers(tiny_llama: Path, tmp_path: Path) -> None:
    """The embedded model's folder with a config the plain Llama would compute differently: a note, and
    transformers' route, to the same scores as the Auto* classes give."""
    from pfcore.models.loading import Architecture, load_weights

    folder = tmp_path / "converted"
    folder.mkdir()
    for file in tiny_llama.iterdir():
        (folder / file.name).write_bytes(file.read_bytes())
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps(config | {"rope_scaling": {"rope_type": "linear", "factor": 2.0}}))
    with pytest.warns(UserWarning, match="not a plain Llama model .*loads through transformers instead"):
        loaded = load_weights(ModelSpec(), str(folder), True, Architecture("AutoModelForCausalLM"), {"name": "t"})
    assert not isinstance(loaded.model, LlamaLM)
    auto = LoadedModel(loaded.spec, *by_auto_classes(folder), str(folder))
    for one, other in zip(CausalScorer(loaded).score(REQUESTS), CausalScorer(auto).score(REQUESTS)):
        np.testing.assert_array_equal(one.logprobs, other.logprobs)


def test_masked_scoring_refuses_the_plain_llama(tiny_llama: Path) -> None:
    loaded = LoadedModel(ModelSpec(name=str(tiny_llama)), *load_converted(tiny_llama), str(tiny_llama))
    with pytest.raises(InputError, match="LlamaLM is a causal model; use causal scoring"):
        MaskedScorer(loaded)


@pytest.mark.slow
def test_the_embedded_model_loads_the_short_way_to_the_same_scores(default_model_cache: Path) -> None:
    """load_model's short path for the default model against the Auto* classes, on the shipped items'
    first two semantic blocks (40 requests in real batches, plain and beginning-of-word; 64 items took
    29 s of this test's 45 s and read no other path), both suites' texts and every token's text."""
    MODELS.clear()
    short = load_model(ModelSpec())
    auto = LoadedModel(short.spec, *by_auto_classes(Path(short.source)), short.source)
    items = default_items("semantic")[:16]
    requests = list(dict.fromkeys([Request("", i.context) for i in items] +
                                  [Request(i.context, i.followup.replace("<MASK>", fill))
                                   for i in items for fill in i.fills]))
    assert_same_model(short, auto, requests)
    texts = sorted({t for kind in ("semantic", "syntax") for i in default_items(kind)
                    for t in (getattr(i, "context", ""), getattr(i, "followup", ""), getattr(i, "sentence", "")) if t})
    assert_same_tokenizer(short.tokenizer, auto.tokenizer, texts[::20])  # some 4,700 distinct texts of both suites


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
    loading and reaches its wait (the signal that lets the warm-up begin) without importing torch,
    transformers or pandas; when the load ends, it is drawn again, ready."""
    found = run_python(f"""
        import json, sys, threading
        from streamlit.testing.v1 import AppTest
        import pfcore.ui.model as ui_model
        from pfcore.models import ModelSpec
        from pfcore.scoring.kinds import base
        from pfcore.scoring.models import MODELS

        spec, release, real = ModelSpec(name={str(tiny_gpt2)!r}), threading.Event(), base.load_weights
        base.load_weights = lambda *a: (release.wait(60), real(*a))[1]
        warm_up = threading.Thread(target=MODELS.loaded, args=(spec,))
        warm_up.start()
        while not MODELS.being_loaded(spec):
            release.wait(0.01)
        seen, wait_for_model = {{}}, ui_model.wait_for_model

        def reached_the_wait():
            if not release.is_set():  # the first run, while the model loads (not the run after it)
                seen.update(torch="torch" in sys.modules, transformers="transformers" in sys.modules,
                            pandas="pandas" in sys.modules,
                            loading=ui_model.model_loading())
                release.set()
            wait_for_model()

        ui_model.wait_for_model = reached_the_wait
        at = AppTest.from_file("app.py", default_timeout=60)
        at.session_state["model_name"] = spec.name
        at.run()
        seen.update(links=len(at.get("page_link")), warnings=[str(w.value) for w in at.warning],
                    ready=[str(s.value) for s in at.sidebar.success], exception=bool(at.exception),
                    first_page=ui_model.FIRST_PAGE.is_set())
        print(json.dumps(seen))""")
    assert found["loading"] and not found["torch"] and not found["transformers"] and not found["pandas"]
    assert not found["exception"] and found["links"] == len(PAGES) - 1 and not found["warnings"]
    assert found["first_page"]  # the server's warm-up may begin
    assert any("(causal) ready" in s and "loaded in" in s for s in found["ready"])


def test_the_warm_up_lets_the_first_page_come_first(tiny_gpt2: Path, cache_dir: Path) -> None:
    """Waiting for a first page, the warm-up counts as a load under way (so Home does not start one);
    it loads once a page is drawn and has had its settling time, or after its longest wait when nobody
    comes."""
    MODELS.clear()
    spec, drawn = ModelSpec(name=str(tiny_gpt2)), threading.Event()
    warm = threading.Thread(target=serve.warm_up, args=(spec,),
                            kwargs={"after": drawn.is_set, "at_most_s": 60, "settle_s": 0.4})
    warm.start()
    while not MODELS.being_loaded(spec):
        drawn.wait(0.01)
    drawn.wait(0.5)
    assert MODELS.being_loaded(spec) and MODELS.loaded_now(spec) is None  # still waiting for the page
    drawn.set()
    drawn.wait(0.2)
    assert MODELS.being_loaded(spec) and MODELS.loaded_now(spec) is None  # the page is settling in the browser
    warm.join(60)
    assert MODELS.loaded_now(spec) is not None and not MODELS.being_loaded(spec)
    MODELS.clear()
    serve.warm_up(spec, after=lambda: False, at_most_s=0.1)  # no page was drawn: it loads all the same
    assert MODELS.loaded_now(spec) is not None


def test_a_page_waiting_for_the_model_wakes_when_the_load_ends() -> None:
    """wait_while_loading returns as soon as the load's promise ends, not at the end of its timeout."""
    spec, ended = ModelSpec(name="not-loaded-here"), threading.Event()
    with MODELS.promised(spec):
        assert not MODELS.wait_while_loading(spec, 0.05)  # under way: it waited, and says so
        threading.Timer(0.2, ended.set).start()
        ended.wait(5)
    started = time.monotonic()
    assert MODELS.wait_while_loading(spec, 30)
    assert time.monotonic() - started < 1

    def end_later() -> None:
        with MODELS.promised(spec):
            time.sleep(0.3)

    waiter = threading.Thread(target=end_later)
    waiter.start()
    while not MODELS.being_loaded(spec):
        time.sleep(0.01)
    started = time.monotonic()
    assert MODELS.wait_while_loading(spec, 30)
    assert time.monotonic() - started < 5  # woken by the promise's end, long before its 30 s
    waiter.join()


def test_the_warm_up_leaves_the_sessions_scorer_ready(tiny_gpt2: Path, cache_dir: Path) -> None:
    MODELS.clear()
    spec = ModelSpec(name=str(tiny_gpt2))
    serve.warm_up(spec)
    warmed = scorer_for(spec, kind_of(ModelKind.CAUSAL).text_method)
    assert app_scorer(spec) is warmed  # the page's scorer is the one the warm-up built
    assert "_extras" in vars(warmed.bow_scorer())  # its word-start tokens were worked out
    checks = json.loads((cache_dir / "scorer-checks.json").read_text())
    assert any({"head", "tree"} <= set(entry) for entry in checks.values())


SLOW_CONVERSION_S = 0.6  # the embedded model's takes about 45 s on a laptop's CPU


@pytest.fixture()
def slow_gguf(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A GGUF file not converted yet, whose conversion (faked) takes SLOW_CONVERSION_S and gives the tiny GPT-2."""
    gguf = tmp_path / "slow.gguf"
    gguf.write_bytes(b"GGUF")

    def slow_convert(source: Path, folder: Path) -> Path:
        time.sleep(SLOW_CONVERSION_S)
        shutil.copytree(tiny_gpt2, folder)
        return folder

    monkeypatch.setattr(loading.gguf_convert, "check_gguf", lambda _path: None)
    monkeypatch.setattr(loading.gguf_convert, "is_complete", lambda folder, _gguf: folder.is_dir())
    monkeypatch.setattr(loading.gguf_convert, "convert", slow_convert)
    yield gguf
    MODELS.forget(ModelSpec(str(gguf)))


def test_the_load_time_counts_a_gguf_files_first_conversion(slow_gguf: Path) -> None:
    """A GGUF model's first load converts it before the weights load: the seconds reported include that
    conversion and name it ("loaded in 0.1 s" after a 49 s first start, before); a later load has none to count."""
    spec = ModelSpec(str(slow_gguf))
    first = load_model(spec)
    assert first.converting_s >= SLOW_CONVERSION_S and first.seconds >= first.converting_s
    assert load_time(first) == (f"loaded in {first.seconds:.1f} s (of which {first.converting_s:.1f} s "
                                "converting the GGUF file once)")
    MODELS.forget(spec)
    again = load_model(spec)  # converted already: nothing more to count
    assert again is not first and again.converting_s == 0.0
    assert load_time(again) == f"loaded in {again.seconds:.1f} s"


def test_the_sidebar_says_the_conversion_in_the_load_time(slow_gguf: Path) -> None:
    """The sidebar's ready line, on a first start that converts the GGUF file, counts and names the conversion."""
    at = page("app.py", slow_gguf).run()
    no_errors(at)
    ready = texts(at.sidebar.success)
    assert ready and "converting the GGUF file once)" in ready[0]
    seconds = float(ready[0].split("loaded in ")[1].split(" s")[0])
    assert seconds >= SLOW_CONVERSION_S
