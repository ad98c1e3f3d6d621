"""The table of model kinds is the one place a kind is added: a third kind (a character-unigram model,
registered by the test alone) runs a suite end to end, through the runner and the command line, with
no other file touched. Also the one model cache's policy and the built-in kinds' tables."""
from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.models.loading import LoadedModel
from pfcore.models.spec import ModelSpec
from pfcore.names import ModelKind, SuiteName
from pfcore.runs.runner import RunConfig, run_suite
from pfcore.scoring.align import Span
from pfcore.scoring.kinds import KINDS, kind_of, method_named
from pfcore.scoring.kinds.base import Kind
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS
from pfcore.scoring.requests import Progress, Request, TokenScores
from pfcore.store.cache import ScoreCache
from pfcore.suites.registry import get_suite, suites_for

CORPUS = "you couldn't lift a tiny rock, let alone a huge one. easier than harder or and."
UNIGRAM = ScoringMethod("unigram-logprob", "unigram", "character unigram log-probabilities (a test kind)")


class UnigramScorer:
    """Scores every character of a text by its add-one unigram probability in CORPUS."""

    def __init__(self, loaded: LoadedModel) -> None:
        self.loaded = loaded
        counts: Counter[str] = loaded.model
        self.total = sum(counts.values()) + len(counts) + 1
        self.counts = counts

    @property
    def method(self) -> ScoringMethod:
        """The test kind's one method."""
        return UNIGRAM

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """Each character by its unigram log-probability."""
        out = []
        for request in requests:
            ids = tuple(ord(c) for c in request.text)
            lps = np.array([math.log((self.counts[c] + 1) / self.total) for c in request.text])
            out.append(TokenScores(ids, lps, self.display_tokens))
        if progress:
            progress(len(requests), len(requests))
        return out

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """Characters."""
        return tuple(chr(i) for i in ids)

    def cache_identity(self) -> dict[str, object]:
        """The model's identity and the method's."""
        return {**self.loaded.identity, **UNIGRAM.identity()}

    def text_token_ids(self, text: str) -> tuple[int, ...]:
        """One id per character."""
        return tuple(ord(c) for c in text)

    def token_spans(self, text: str) -> tuple[Span, ...]:
        """One span per character."""
        return tuple((i, i + 1) for i in range(len(text)))

    def bow_scorer(self) -> None:
        """No beginning-of-word variant: the correction does not apply."""
        return None


class UnigramKind(Kind):
    """A kind no transformers model has: its "weights" are character counts."""

    name, help, methods = "unigram", "character unigram models (a test kind)", (UNIGRAM,)
    loads = 0

    def resolve(self, spec: ModelSpec) -> tuple[str, bool]:
        """Nothing to find on disk: the counts are CORPUS's."""
        return f"unigram:{spec.name}", False

    def identity(self, spec: ModelSpec, source: str) -> dict[str, object]:
        """The name and the corpus it counts."""
        return {"name": spec.name, "kind": self.name, "corpus_chars": len(CORPUS)}

    def load(self, spec: ModelSpec, source: str, local: bool, identity: dict[str, object]) -> LoadedModel:
        """The counts, as the model."""
        type(self).loads += 1
        return LoadedModel(spec, Counter(CORPUS), None, source, 0.0, identity)  # type: ignore[arg-type]

    def tokenizer(self, spec: ModelSpec, source: str, local: bool) -> Any:
        """No tokenizer: characters are its tokens."""
        return None

    def scorer(self, loaded: LoadedModel, method: ScoringMethod, *, bos: bool) -> UnigramScorer:
        """The unigram scorer."""
        return UnigramScorer(loaded)


@pytest.fixture
def unigram(monkeypatch: pytest.MonkeyPatch) -> ModelSpec:
    """The unigram kind in the table for one test (the one line a new kind adds)."""
    monkeypatch.setitem(KINDS, "unigram", UnigramKind())
    UnigramKind.loads = 0
    MODELS.clear()
    yield ModelSpec("corpus-unigram", kind="unigram")
    MODELS.clear()


def test_a_third_kind_runs_a_suite_end_to_end(unigram: ModelSpec, cache_dir: Path, tmp_path: Path) -> None:
    record = run_suite(unigram, RunConfig(suite=SuiteName.SEMANTIC, constructions=("let_alone",), limit_blocks=2,
                                          out=str(tmp_path / "run")))
    manifest = json.loads((record.path / "manifest.json").read_text())
    assert manifest["scoring"] == "unigram-logprob" and manifest["model"]["kind"] == "unigram"
    summary = record.tables["summary"].set_index(["construction", "filter"])
    assert summary.loc[("let_alone", "all"), "n"] == 8  # 2 blocks x 4 decisions
    assert 0 <= summary.loc[("let_alone", "all"), "accuracy"] <= 1
    assert UnigramKind.loads == 1
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
    assert list(KINDS) == ["causal", "masked", "scores"]
    assert kind_of(ModelKind.MASKED).text_method is ScoringMethod.PLL_ORIGINAL
    assert kind_of(ModelKind.CAUSAL).text_method is ScoringMethod.CAUSAL
    semantic, syntax = get_suite(SuiteName.SEMANTIC), get_suite(SuiteName.SYNTAX)
    assert semantic.default_method(kind_of("masked")) is ScoringMethod.MASKED_TOKEN  # the blank's readout
    assert syntax.default_method(kind_of("masked")) is ScoringMethod.PLL_ORIGINAL
    assert [m.value for m in semantic.methods] == ["causal", "masked-token", "pll-original", "pll-l2r", "scores-file"]
    assert method_named("pll-l2r") is ScoringMethod.PLL_L2R
    with pytest.raises(InputError, match="unknown model kind 'seq2seq'; choose one of causal, masked, scores"):
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
