"""Shared fixtures: tiny local models built once per test session, and the shared reference data."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import tiny_models

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def pytest_configure(config: pytest.Config) -> None:
    """Keep every test off the network."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path to a saved 2-layer GPT-2 with its own BPE tokenizer."""
    return tiny_models.build_gpt2(tmp_path_factory.mktemp("tiny-gpt2"))


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path to a saved 2-layer BERT masked LM with a WordPiece tokenizer."""
    return tiny_models.build_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="session")
def tiny_roberta(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path to a saved 2-layer RoBERTa masked LM with a byte-level BPE tokenizer."""
    return tiny_models.build_roberta(tmp_path_factory.mktemp("tiny-roberta"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The reference data folder beside the repository; skips where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"reference data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def lexicon():
    """The shipped lexicon (pfcore.items.load_lexicon())."""
    from pfcore.items import load_lexicon
    return load_lexicon()


@pytest.fixture()
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private PFCORE_CACHE for one test, so nothing touches the user's cache/."""
    monkeypatch.setenv("PFCORE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"
