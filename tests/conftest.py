"""Shared fixtures: tiny local models built once per test session, small data sets the tests write
themselves, and the reference data (read where it is, never copied)."""
from __future__ import annotations

import gc
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

# huggingface_hub reads its settings once, when it is first imported (tests.tiny_models imports it),
# so they are set here, before any import: every test is offline, with a private Hugging Face cache
# of its session (never the user's), which the `hub_series` fixture fills.
HF_HOME = Path(tempfile.mkdtemp(prefix="pfcore-tests-hf-"))
os.environ.update({"HF_HOME": str(HF_HOME), "HF_HUB_CACHE": str(HF_HOME / "hub"), "HF_HUB_OFFLINE": "1",
                   "TRANSFORMERS_OFFLINE": "1"})
# Two test workers on two cores, each torch with one thread (a test that wants more sets it itself), and
# Ray's workers at the tests' own priority: on a busy machine torch's spinning OpenMP threads ran 20x
# slower than one thread, and Ray's workers at niceness 15 waited behind every other process.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("RAY_worker_niceness", "0")

import pytest  # noqa: E402

from tests.hub_cache import HubSeries, build_hub_series  # noqa: E402

# tests.tiny_models (it imports torch and transformers: 4.5 s) is imported by the fixtures that build a
# model, so that xdist's controller, which runs no test, starts without it.

REPO = Path(__file__).resolve().parents[1]
REPO_CACHE = REPO / "cache"
REFERENCE_VAR = "PFCORE_REFERENCE_DATA"
DEFAULT_REFERENCE = REPO.parent / "shared" / "data"
PAPER_VAR = "PFCORE_PAPER"
RAY_GROUP = "ray"  # the xdist group of the tests that use Ray
MISSING_DATA = "reference data missing"  # how every skip for absent reference data begins (counted at the end)
# Made-up minimal pairs in BLiMP's format (not BLiMP items): paradigm -> (good, bad) pairs.
TOY_BLIMP = {
    "passive_1": [("The cake was eaten by Sam.", "The cake was arrived by Sam."),
                  ("The song was sung by Ann.", "The song was fallen by Ann."),
                  ("The box was lifted by us.", "The box was slept by us."),
                  ("The rock was moved by them.", "The rock was laughed by them."),
                  ("The door was opened by Tom.", "The door was existed by Tom."),
                  ("The poem was read by Kim.", "The poem was vanished by Kim."),
                  ("The car was sold by Lee.", "The car was happened by Lee."),
                  ("The lamp was seen by me.", "The lamp was gone by me.")],
    "wh_island": [("What did you say that Sam ate?", "What did you wonder who ate?"),
                  ("Who do you think left?", "Who do you wonder whether left?"),
                  ("What did Ann claim she sang?", "What did Ann ask who sang?"),
                  ("Who did you hear Tom saw?", "Who did you ask why Tom saw?"),
                  ("What do they think we lifted?", "What do they wonder who lifted?"),
                  ("Who did Kim say we met?", "Who did Kim wonder if we met?"),
                  ("What did Lee think you sold?", "What did Lee ask when you sold?"),
                  ("Who did she say I called?", "Who did she wonder how I called?")],
}


def pytest_configure(config: pytest.Config) -> None:
    """Start every test's results table empty (a test that wants a new user's table, with the
    bundled published rows, asks for `bundled_cache`)."""
    os.environ["PFCORE_BUNDLED"] = "0"


def skip_missing(what: str) -> NoReturn:
    """Skip the test for absent reference data, in the words the end of the run counts."""
    pytest.skip(f"{MISSING_DATA}: {what}")


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """At the end of the run, how many tests skipped for want of reference data, and where to set it."""
    missing = [r for r in terminalreporter.stats.get("skipped", [])
               if isinstance(r.longrepr, tuple) and MISSING_DATA in str(r.longrepr[2])]
    if missing:
        terminalreporter.write_sep("=", f"{len(missing)} tests skipped: {MISSING_DATA} (set {REFERENCE_VAR} "
                                        f"and {PAPER_VAR}; docs/development.md, Reference data)", yellow=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the session's private Hugging Face cache."""
    shutil.rmtree(HF_HOME, ignore_errors=True)


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path to a saved 2-layer GPT-2 with its own BPE tokenizer."""
    from tests import tiny_models

    return tiny_models.build_gpt2(tmp_path_factory.mktemp("tiny-gpt2"))


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path to a saved 2-layer BERT masked LM with a WordPiece tokenizer."""
    from tests import tiny_models

    return tiny_models.build_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="session")
def tiny_roberta(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path to a saved 2-layer RoBERTa masked LM with a byte-level BPE tokenizer."""
    from tests import tiny_models

    return tiny_models.build_roberta(tmp_path_factory.mktemp("tiny-roberta"))


@pytest.fixture(scope="session")
def checkpoint_series(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of three checkpoints of the tiny GPT-2 trained on a small corpus: step0, step8, step32."""
    from tests import tiny_models

    out = tiny_models.build_checkpoint_series(tmp_path_factory.mktemp("checkpoints") / "tiny-series")
    shutil.rmtree(out / "_base")
    return out


@pytest.fixture
def models_in_memory() -> Iterator[Callable[[Path], int]]:
    """How many models (by the folder each was loaded from) under a folder are still in memory, with
    Python's cycle collector off for the test: what is dropped must then go by reference counts alone,
    as it does between the collector's runs (a model held in a reference cycle stayed, however large,
    until one)."""
    import torch

    def count(folder: Path) -> int:
        paths = {str(getattr(getattr(o, "config", None), "_name_or_path", ""))
                 for o in gc.get_objects() if isinstance(o, torch.nn.Module)}
        return sum(path.startswith(str(folder)) for path in paths)

    gc.collect()
    gc.disable()
    try:
        yield count
    finally:
        gc.enable()


@pytest.fixture(scope="session")
def sweep_faults(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder through which a test arms a Ray worker's death (tests/ray_faults.py)."""
    return tmp_path_factory.mktemp("faults")


class LocalRay:
    """The session's one real local Ray instance: 2 CPUs, no dashboard, workers armed by
    tests.ray_faults.arm_worker. Started by the first test that asks for it, stopped after the last of a
    run of such tests (their xdist group keeps them together on one worker): an idle instance took 4% of a
    core for the rest of the run. A sweep finds it started and uses it, as a sweep in a process that has
    Ray already does. (One instance per module until 2026-12-05: each start and stop took some 8 s.)"""

    def __init__(self, ray: Any, faults: Path) -> None:
        self.ray, self.faults = ray, faults

    def up(self) -> Any:
        """Ray, started if it is not."""
        from tests.ray_faults import FAULTS

        if not self.ray.is_initialized():
            self.ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                          runtime_env={"worker_process_setup_hook": "tests.ray_faults.arm_worker",
                                       "env_vars": {"PYTHONPATH": str(REPO), FAULTS: str(self.faults)}})
        return self.ray

    def down(self) -> None:
        """Ray stopped, if it runs."""
        if self.ray.is_initialized():
            self.ray.shutdown()


LOCAL_RAY = pytest.StashKey[LocalRay]()


@pytest.fixture(scope="session")
def local_ray(sweep_faults: Path, request: pytest.FixtureRequest) -> Iterator[LocalRay]:
    """The session's LocalRay, stopped at the session's end at the latest."""
    ray = request.session.stash[LOCAL_RAY] = LocalRay(pytest.importorskip("ray"), sweep_faults)
    yield ray
    ray.down()


@pytest.fixture
def ray_instance(local_ray: LocalRay) -> Any:
    """Ray, started for the test (see LocalRay)."""
    return local_ray.up()


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After the last test of a run of the Ray group's tests, the session's Ray is stopped (a later
    test that asks for it starts it again)."""
    if in_ray_group(item) and not (nextitem and in_ray_group(nextitem)):
        ray = item.session.stash.get(LOCAL_RAY, None)
        if ray is not None:
            ray.down()


def in_ray_group(item: pytest.Item) -> bool:
    """Whether the test is in the xdist group of the tests that use Ray (one local Ray at a time)."""
    group = item.get_closest_marker("xdist_group")
    return group is not None and group.args[:1] == (RAY_GROUP,)


@pytest.fixture(scope="session")
def hub_series(checkpoint_series: Path) -> HubSeries:
    """The tiny checkpoint series as the hub id pfcore-tests/tiny-pythia in the session's Hugging Face
    cache, loaded offline by from_pretrained: revisions step0, step8, step32 (also `main`), and step16,
    a revision serving step 8's very weights (as some published revisions do)."""
    return build_hub_series(Path(os.environ["HF_HUB_CACHE"]), checkpoint_series,
                            {"step0": "step0", "step8": "step8", "step16": "step8", "step32": "step32"})


@pytest.fixture(scope="session")
def converted_models() -> Path:
    """The repository's cache/models with the default model converted in it (once per clone, as
    `make app` does): every test of the default model shares this one conversion."""
    from pfcore.models.loading import converted_folder, default_gguf
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PFCORE_CACHE", str(REPO_CACHE))
        converted_folder(default_gguf())
    return REPO_CACHE / "models"


@pytest.fixture()
def default_model_cache(cache_dir: Path, converted_models: Path) -> Path:
    """A private cache that shares only the converted default model, so the model is not converted
    again and the user's scores and runs are left alone."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    (cache_dir / "models").symlink_to(converted_models)
    return cache_dir


def reference_data() -> Path:
    """Where the reference data is: $PFCORE_REFERENCE_DATA, else ../shared/data beside the repo."""
    return Path(os.environ.get(REFERENCE_VAR) or DEFAULT_REFERENCE)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The reference data folder (see `reference_data`); skips where it is absent."""
    folder = reference_data()
    if not folder.is_dir():
        skip_missing(f"not found at {folder} (set {REFERENCE_VAR} to its folder)")
    return folder


def paper_text_file() -> Path:
    """Where the paper's text is: $PFCORE_PAPER, else paper/paired-focus-paper.txt beside the
    reference data folder."""
    return Path(os.environ.get(PAPER_VAR) or reference_data().parent / "paper" / "paired-focus-paper.txt")


@pytest.fixture(scope="session")
def paper_text() -> Path:
    """The paper's text file (see `paper_text_file`); skips where it is absent."""
    path = paper_text_file()
    if not path.is_file():
        skip_missing(f"the paper's text not found at {path} (set {PAPER_VAR} to its file)")
    return path


@pytest.fixture(scope="session")
def blimp_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of two made-up paradigms in BLiMP's jsonl format, plus a non-paradigm jsonl file."""
    folder = tmp_path_factory.mktemp("toy-blimp")
    for paradigm, pairs in TOY_BLIMP.items():
        lines = [json.dumps({"sentence_good": good, "sentence_bad": bad, "field": "syntax",
                             "linguistics_term": "toy_term", "UID": paradigm, "pairID": str(i)})
                 for i, (good, bad) in enumerate(pairs)]
        (folder / f"{paradigm}.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "models_summary.jsonl").write_text(json.dumps({"model": "x", "accuracy": 0.5}) + "\n")
    return folder


@pytest.fixture(scope="session")
def paper_let_alone_tsv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """let_alone.tsv as the paper published it, written by pfcore's paper-compatible generator
    (the items tests check it equals the published file byte for byte)."""
    from pfcore.items import generate_semantic, load_lexicon, write_items

    path = tmp_path_factory.mktemp("paper-items") / "let_alone.tsv"
    write_items(generate_semantic(load_lexicon(), "let_alone", paper_compatible=True), path, "paper-tsv")
    return path


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


@pytest.fixture()
def bundled_cache(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache whose empty results table gets the bundled published rows, as a new user's does."""
    monkeypatch.delenv("PFCORE_BUNDLED")
    return cache_dir


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> str:
    """The deterministic stand-in scorer, for page logic that needs no language model."""
    from pfcore.scoring.kinds.fake import ENABLE_VAR, FAKE_MODEL

    monkeypatch.setenv(ENABLE_VAR, "1")
    return FAKE_MODEL
