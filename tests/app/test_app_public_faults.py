"""No server path in public mode in any message (issue 28): every page, served as the class server
serves it, meets each fault of docs/robustness.md it can meet (a cache folder that is a file or whose
name is too long, a corrupt score cache or results table, a damaged or missing bundled table, hostile
links and uploads), and nothing it shows names the repository, the cache, the temporary folder or HOME."""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from pfcore.paths import REPO_ROOT
from pfcore.store import published
from pfcore.ui.page import PAGES
from tests.app.test_app_public import shown
from tests.app_helpers import served, texts, use_app_navigation

Setup = Callable[[Path, pytest.MonkeyPatch], None]
LINK = {"run": "x" * 5000, "sentence": "He doesn't like shrimp,\x00 let alone squid.", "block": "../../etc/passwd",
        "model": str(REPO_ROOT), "series": f"{tempfile.gettempdir()}/x", "models": str(Path.home())}


def cache_is_a_file(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PFCORE_CACHE names a file."""
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("not a folder")


def cache_name_too_long(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PFCORE_CACHE of 300 characters (File name too long)."""
    monkeypatch.setenv("PFCORE_CACHE", str(cache.parent / ("c" * 300)))


def corrupt_score_cache(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """scores.sqlite that is not a database (moved aside with a warning)."""
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "scores.sqlite").write_bytes(b"not a database" * 100)


def corrupt_results(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """results.parquet that is not a table (rebuilt with a warning)."""
    (cache / "results").mkdir(parents=True, exist_ok=True)
    (cache / "results" / "results.parquet").write_bytes(b"not parquet" * 100)


def bundle(cache: Path, monkeypatch: pytest.MonkeyPatch, *, damaged: bool) -> None:
    """The bundled published table edited (or missing), its manifest in place; a new cache takes it."""
    monkeypatch.delenv("PFCORE_BUNDLED", raising=False)
    copy = cache.parent / "reference" / published.BUNDLE_PATH.name
    copy.parent.mkdir(parents=True)
    shutil.copy(published.manifest_path(published.BUNDLE_PATH), published.manifest_path(copy))
    if damaged:
        copy.write_bytes(published.BUNDLE_PATH.read_bytes()[:-100])
    monkeypatch.setattr(published, "BUNDLE_PATH", copy)


FAULTS: dict[str, tuple[Setup, tuple[str, ...]]] = {
    "no fault": (lambda cache, patch: None, ()),
    "cache is a file": (cache_is_a_file, ()),
    "cache name too long": (cache_name_too_long, ()),
    "corrupt score cache": (corrupt_score_cache, ()),
    "corrupt results table": (corrupt_results, ()),
    "damaged bundled table": (lambda c, p: bundle(c, p, damaged=True), ("Models", "Trajectories", "Lesson")),
    "missing bundled table": (lambda c, p: bundle(c, p, damaged=False), ("Models", "Trajectories", "Lesson")),
}
CASES = [(p.path, fault) for fault, (_, only) in FAULTS.items() for p in PAGES if not only or p.title in only]


def server_folders(*more: Path) -> list[str]:
    """The folders no page may name: the repository, the cache, the temporary folder, HOME."""
    folders = [REPO_ROOT, Path(tempfile.gettempdir()), Path.home(), *more]
    return sorted({str(f) for folder in folders for f in (folder, folder.resolve())}, key=len, reverse=True)


@pytest.fixture
def public(monkeypatch: pytest.MonkeyPatch, fake_model: str, cache_dir: Path) -> str:
    """A class server with the fake scorer as its one model, its pages run as the server runs them."""
    monkeypatch.setenv("PFCORE_PUBLIC", "1")
    monkeypatch.setenv("PFCORE_MODELS_ALLOWED", f"{fake_model}:fake")
    use_app_navigation(monkeypatch)
    return fake_model


def names_no_server_folder(at: AppTest, cache: Path) -> None:
    """The page ran to its end or to one message, and shows no server folder."""
    assert not at.exception, texts(at.exception)
    page_text = shown(at)
    for folder in server_folders(cache, Path(os.environ["PFCORE_CACHE"])):
        assert folder not in page_text, (folder, [t for t in texts(at.error) + texts(at.warning) if folder in t])


@pytest.mark.parametrize(("script", "fault"), CASES)
def test_no_page_names_a_server_folder(public: str, cache_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                       script: str, fault: str) -> None:
    FAULTS[fault][0](cache_dir, monkeypatch)
    query = LINK | ({"step": "7"} if script.endswith("Lesson.py") and "bundled" in fault else {})
    at = served(script, public, query).run(timeout=240)
    names_no_server_folder(at, cache_dir)
    if script.endswith("Run.py") and any(b.key == "run_start" for b in at.button):  # a run into the broken cache
        at.multiselect(key="run_constructions").set_value(["let_alone"])
        at.number_input(key="run_blocks").set_value(1)
        at.button(key="run_start").click().run(timeout=240)
        names_no_server_folder(at, cache_dir)


NAMES = {"300 characters": "a" * 300}


@pytest.mark.parametrize("name", ["x\x00y.csv", "..", "deep/.."])
def test_a_nul_or_dots_name_names_no_server_folder(public: str, cache_dir: Path, name: str) -> None:
    """Streamlit 1.67 refuses these before the page runs (its own message, no details); were it not to,
    pfcore refuses them with the reason (tests/unit/test_upload_names.py)."""
    at = served("pages/6_Stimuli.py", public).run()
    at.file_uploader(key="stimuli_upload").set_value((name, b"sentence\nThe key is here.\n", "text/csv"))
    at.run()
    page_text = shown(at)
    assert not [folder for folder in server_folders(cache_dir) if folder in page_text]
    assert at.exception or (len(at.error) == 1 and "rename the file" in at.error[0].value)


@pytest.mark.parametrize("name", list(NAMES))
@pytest.mark.parametrize(("script", "uploader", "extension"), [("pages/6_Stimuli.py", "stimuli_upload", ".csv"),
                                                                ("pages/5_Trajectories.py", "traj_uploads", ".tsv")])
def test_an_upload_name_is_refused_with_its_reason(public: str, cache_dir: Path, name: str, script: str,
                                                   uploader: str, extension: str) -> None:
    """It quoted the server's temporary folder."""
    at = served(script, public).run()
    upload = (NAMES[name] + extension, b"sentence\tmore\nThe key is here.\tx\n", "text/csv")
    at.file_uploader(key=uploader).set_value([upload] if script.endswith("Trajectories.py") else upload)
    at.run()
    if script.endswith("Trajectories.py"):
        at.text_input(key="traj_upload_model").input("ORG/tiny")
        at.button(key="traj_add_uploads").click().run()
    names_no_server_folder(at, cache_dir)
    assert len(at.error) == 1 and "rename the file and upload it again" in at.error[0].value


def test_each_uploader_says_the_cap_of_what_it_reads(public: str, cache_dir: Path) -> None:
    """The uploaders said Streamlit's "200MB per file" above a 64 KiB cap (a definition) or 16 MiB (a
    published summary): each says, and the browser enforces, its files' cap in whole MB, never more than
    the class server takes (its upload cap, which `pfcore.ui.serve` sets as server.maxUploadSize)."""
    said = {}
    for script in ("pages/3_Run.py", "pages/6_Stimuli.py", "pages/5_Trajectories.py"):
        said |= {u.key: u.proto.max_upload_size_mb for u in served(script, public).run().get("file_uploader")}
    assert said == {"cx_upload": 1, "stimuli_upload": 64, "traj_uploads": 16}
    before = config.get_option("server.maxUploadSize")
    config.set_option("server.maxUploadSize", 8)
    try:
        at = served("pages/5_Trajectories.py", public).run()
        assert at.file_uploader(key="traj_uploads").proto.max_upload_size_mb == 8
    finally:
        config.set_option("server.maxUploadSize", before)


CONTENTS = {"not UTF-8": ("bad.csv", b"sentence\n\xff\xfe bytes\n"),
            "no sentence column": ("cols.csv", b"text\nThe key is here.\n"),
            "deep JSON": ("deep.json", b"[" * 5000 + b"]" * 5000),
            "over the upload cap": ("big.csv", b"sentence\n" + b"The key is here.\n" * 200_000),
            "a cell over the csv limit": ("cell.csv", b"sentence\n" + b"x" * 200_000 + b"\n")}


@pytest.mark.parametrize("content", list(CONTENTS))
def test_a_bad_upload_names_no_server_folder(public: str, cache_dir: Path, content: str) -> None:
    name, data = CONTENTS[content]
    at = served("pages/6_Stimuli.py", public).run()
    at.file_uploader(key="stimuli_upload").set_value((name, data, "application/json" if name.endswith("json")
                                                      else "text/csv"))
    at.run()
    names_no_server_folder(at, cache_dir)
    assert len(at.error) == 1 and "Unexpected error" not in at.error[0].value


def test_the_bundle_warning_on_trajectories_names_no_folder(public: str, cache_dir: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The one fault whose message names a file of the repository: said, without the folder."""
    bundle(cache_dir, monkeypatch, damaged=True)
    at = served("pages/5_Trajectories.py", public).run()
    names_no_server_folder(at, cache_dir)
    warning = next(w for w in texts(at.warning) if "bundled published results" in w)
    assert warning.startswith("the bundled published results …/") and "do not match the sha256" in warning
