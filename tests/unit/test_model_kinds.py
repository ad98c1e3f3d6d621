"""The table of model kinds is the one place a kind is added: docs/extending.md's example kind (a
character-unigram model), built from the manual's own code and registered by the test alone, passes
lint and runs suites end to end, through the runner and the command line, with no other file touched.
Also the one model cache's policy and the built-in kinds' tables."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.models.spec import ModelSpec
from pfcore.names import ModelKind, SuiteName
from pfcore.runs.runner import RunConfig, run_suite
from pfcore.scoring.kinds import KINDS, kind_of, method_named
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS
from pfcore.store.cache import ScoreCache
from pfcore.suites.registry import get_suite, suites_for
from tests import doc_kind


@pytest.fixture(scope="module")
def doc_module(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """docs/extending.md's example kind module, as written there."""
    return doc_kind.build(tmp_path_factory.mktemp("kind"))


@pytest.fixture
def loads() -> Counter[str]:
    """How many times the example kind loaded a model in one test."""
    return Counter()


@pytest.fixture
def unigram(doc_module: ModuleType, loads: Counter[str], tmp_path: Path,
            monkeypatch: pytest.MonkeyPatch) -> Iterator[ModelSpec]:
    """The example kind in the table for one test (the one line a new kind adds), its loads counted."""
    monkeypatch.setitem(KINDS, "unigram", doc_module.KIND)
    real = doc_module.KIND.load
    monkeypatch.setattr(doc_module.KIND, "load", lambda *a: (loads.update(["load"]), real(*a))[1])
    MODELS.clear()
    yield ModelSpec(str(doc_kind.corpus(tmp_path)), kind="unigram")
    MODELS.clear()


def test_the_manuals_example_kind_passes_lint(doc_module: ModuleType) -> None:
    """`make lint` on the module as it would sit in pfcore/scoring/kinds/: ruff and mypy with the
    project's settings (mypy reads the project's cache, which `make lint` has just filled)."""
    path = doc_module.__file__
    ruff = subprocess.run([str(Path(sys.executable).parent / "ruff"), "check", "--config",
                           str(doc_kind.ROOT / "pyproject.toml"), path], capture_output=True, text=True)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    mypy = subprocess.run([sys.executable, "-m", "mypy", path], cwd=doc_kind.ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(doc_kind.ROOT)}, timeout=900)
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr


def test_a_third_kind_runs_a_suite_end_to_end(unigram: ModelSpec, loads: Counter[str], cache_dir: Path,
                                              tmp_path: Path) -> None:
    record = run_suite(unigram, RunConfig(suite=SuiteName.SEMANTIC, constructions=("let_alone",), limit_blocks=2,
                                          out=str(tmp_path / "run")))
    manifest = json.loads((record.path / "manifest.json").read_text())
    assert manifest["scoring"] == "unigram-logprob" and manifest["model"]["kind"] == "unigram"
    summary = record.tables["summary"].set_index(["construction", "filter"])
    assert summary.loc[("let_alone", "all"), "n"] == 8  # 2 blocks x 4 decisions
    assert 0 <= summary.loc[("let_alone", "all"), "accuracy"] <= 1
    assert loads["load"] == 1
    with ScoreCache() as cache:
        assert cache.count() > 0  # its scores are cached like any model's, under its own identity
    again = run_suite(unigram, RunConfig(suite=SuiteName.SEMANTIC, constructions=("let_alone",), limit_blocks=2,
                                         out=str(tmp_path / "again")))
    assert again.tables["summary"].equals(record.tables["summary"])
    assert json.loads((again.path / "manifest.json").read_text())["timings_s"]["scored"] == 0  # all from the cache


def test_the_command_line_offers_a_registered_kind(unigram: ModelSpec, cache_dir: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--suite", "syntax", "--kind", "unigram", "--model", unigram.name, "--construction",
                 "let_alone", "--limit-blocks", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scoring"] == "unigram-logprob"


def test_a_suite_that_reads_the_model_itself_refuses_the_third_kind(unigram: ModelSpec) -> None:
    assert SuiteName.AFFINITY not in suites_for("unigram") and SuiteName.SEMANTIC in suites_for("unigram")
    with pytest.raises(InputError, match="the affinity suite needs a masked model"):
        get_suite(SuiteName.AFFINITY).method(unigram, None)


def test_the_built_in_kinds_keep_their_methods_and_defaults() -> None:
    """The built-in kinds and their defaults, whatever other kinds the table has."""
    assert {"causal", "masked", "scores", "fake"} <= set(KINDS)
    assert kind_of(ModelKind.MASKED).text_method is ScoringMethod.PLL_ORIGINAL
    assert kind_of(ModelKind.CAUSAL).text_method is ScoringMethod.CAUSAL
    semantic, syntax = get_suite(SuiteName.SEMANTIC), get_suite(SuiteName.SYNTAX)
    assert semantic.default_method(kind_of("masked")) is ScoringMethod.MASKED_TOKEN  # the blank's readout
    assert syntax.default_method(kind_of("masked")) is ScoringMethod.PLL_ORIGINAL
    built_in = [m.value for m in semantic.methods if m.kind in ("causal", "masked", "scores")]
    assert built_in == ["causal", "masked-token", "pll-original", "pll-l2r", "scores-file"]
    assert method_named("pll-l2r") is ScoringMethod.PLL_L2R
    with pytest.raises(InputError, match=f"unknown model kind 'seq2seq'; choose one of {', '.join(KINDS)}$"):
        kind_of("seq2seq")


def test_cache_keys_of_the_built_in_methods_are_unchanged() -> None:
    """The score cache's keys are built from these: a change would make every cached score unreachable."""
    assert ScoringMethod.CAUSAL.identity(bos=True, bow=True) == {"scorer": "causal", "bos": True, "bow": True}
    assert ScoringMethod.PLL_L2R.identity() == {"scorer": "pll", "metric": "within_word_l2r"}
    assert ScoringMethod.MASKED_TOKEN.identity() == {"scorer": "masked-token"}


def test_the_model_cache_finds_each_thing_once_per_model(tiny_gpt2: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a model loads from and what identifies it are worked out once, and the load uses them."""
    from pfcore.scoring.kinds import base

    MODELS.clear()
    calls: Counter[str] = Counter()
    for name in ("resolve_source", "model_identity"):
        real = getattr(base, name)
        monkeypatch.setattr(base, name, lambda *a, _real=real, _name=name: (calls.update([_name]), _real(*a))[1])
    spec = ModelSpec(str(tiny_gpt2))
    identity = MODELS.identity(spec)
    loaded = MODELS.loaded(spec)
    assert MODELS.scorer(spec, ScoringMethod.CAUSAL) is MODELS.scorer(spec, ScoringMethod.CAUSAL)
    assert loaded.identity == identity and MODELS.scorer(spec, ScoringMethod.CAUSAL).cache_identity()["name"] is None
    assert calls == {"resolve_source": 1, "model_identity": 1}
    MODELS.clear()


def test_a_model_folder_changed_on_disk_is_found_again(tiny_gpt2: Path, tmp_path: Path) -> None:
    """A long-lived process (the app) sees new weights under the same folder: new identity, new load."""
    import shutil

    folder = tmp_path / "model"
    shutil.copytree(tiny_gpt2, folder)
    spec = ModelSpec(str(folder))
    MODELS.clear()
    before, first = MODELS.identity(spec), MODELS.loaded(spec)
    weights = next(folder.glob("*.safetensors"))
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1  # a changed weight
    weights.write_bytes(bytes(data))
    stat = weights.stat()
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a later time, whatever the clock's grain
    after = MODELS.identity(spec)
    assert after["weights_sha256"] != before["weights_sha256"]
    assert MODELS.loaded_now(spec) is None and MODELS.loaded(spec) is not first
    MODELS.clear()


def test_an_unknown_kind_is_refused_with_the_table(cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "--sentence", "A cat.", "--kind", "seq2seq"]) == 2
    assert "choose from 'causal', 'masked'" in capsys.readouterr().err


def test_the_lesson_calls_no_other_kind_a_masked_model(unigram: ModelSpec, cache_dir: Path) -> None:
    """What a kind's method can do decides the Lesson's words: a unigram model has no next word (said
    so by its own name), and only a pseudo-log-likelihood gets the masked model's note."""
    from pfcore.lesson.steps import LESSON, LessonContext, run_lesson
    from pfcore.scoring.factory import LazyScorer

    results = run_lesson(LessonContext(LazyScorer(unigram, kind_of("unigram").text_method), unigram.name))
    assert results[0].problem.startswith("the next word does not apply to a unigram model")
    assert len(results) == len(LESSON) and not any("masked model" in r.aside + r.problem for r in results)
