"""Public mode (a class server) in the app, with the fake scorer: every page shows no path input and
no server file content, links name only allowed models, and each attack of the classroom-server
issue is replayed; the every-mode fixes (path boxes never echoing a file, the explicit "All" blocks)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pfcore.deployment import PUBLIC_NOTE, RUN_BUSY, Deployment
from pfcore.errors import InputError, ModelLoadError
from pfcore.models import ModelSpec
from pfcore.paths import REPO_ROOT
from pfcore.scoring.kinds import fake
from pfcore.scoring.kinds.fake import ENABLE_VAR, FAKE_MODEL
from pfcore.scoring.models import MODELS
from pfcore.store.results import load_results
from pfcore.store.runs import list_runs
from pfcore.ui import model as ui_model
from pfcore.ui.page import PAGES
from tests.app_helpers import no_errors, page, texts

PATH_INPUTS = {"stimuli_path", "traj_import_folder", "probe_ckpt_dir", "probe_ckpt_revisions", "sweep_plan_path",
               "model_name", "model_revision"}


@pytest.fixture
def public(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> str:
    """Public mode with the fake scorer as the one allowed model; a load of any other kind fails the test."""
    monkeypatch.setenv(ENABLE_VAR, "1")
    monkeypatch.setenv("PFCORE_PUBLIC", "1")
    monkeypatch.setenv("PFCORE_MODELS_ALLOWED", f"{FAKE_MODEL}:fake")
    real = MODELS.loaded
    monkeypatch.setattr(MODELS, "loaded", lambda spec: real(spec) if spec.kind == fake.KIND.name
                        else pytest.fail(f"a model was loaded: {spec}"))
    return FAKE_MODEL


def shown(at: AppTest) -> str:
    """Everything the page sends to the browser (every element's message), as text."""
    out: list[str] = []

    def walk(node: object) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(out)


def environ_entries() -> list[str]:
    """The entries of this process's /proc/self/environ long enough to be recognised on a page."""
    raw = Path("/proc/self/environ").read_bytes() if Path("/proc/self/environ").exists() else b""
    return [e for e in raw.decode("utf-8", "replace").split("\0") if len(e) > 12]


def no_server_paths(at: AppTest, *folders: Path) -> None:
    """No path input on the page, and neither the repository's nor the given folders' paths shown."""
    keys = {w.key for w in at.text_input} | {w.key for w in at.sidebar.text_input}
    assert not keys & PATH_INPUTS, keys & PATH_INPUTS
    page_text = shown(at)
    for folder in (REPO_ROOT, *folders):
        assert str(folder) not in page_text, folder


@pytest.mark.parametrize("script", [p.path for p in PAGES])
def test_every_page_shows_no_path_input(public: str, cache_dir: Path, script: str) -> None:
    at = page(script, public).run(timeout=240)
    assert not at.exception, texts(at.exception)
    no_server_paths(at, cache_dir)
    assert at.sidebar.selectbox(key="model_name").options == [FAKE_MODEL]  # the allow-list, no free text


def test_sweep_section_and_folder_imports_are_off(public: str, cache_dir: Path) -> None:
    at = page("pages/3_Run.py", public).run()
    assert any(PUBLIC_NOTE in c and "sweep plans are off" in c for c in texts(at.caption))
    assert not [b for b in at.button if b.key == "sweep_start"]
    assert [u.key for u in at.get("file_uploader")] == ["cx_upload"]  # a construction definition only, no plan
    at = page("pages/5_Trajectories.py", public).run()
    assert not {b.key for b in at.button} & {"traj_import", "traj_fetch"}
    assert any("folder imports and fetches are off" in c for c in texts(at.caption))


@pytest.mark.parametrize("target", ["/proc/self/environ", "/etc/hostname", "sentences.csv"])
def test_a_forged_stimuli_path_reads_nothing_in_public_mode(public: str, tmp_path: Path, target: str) -> None:
    csv = tmp_path / "sentences.csv"
    csv.write_text("sentence\nThe teacher's private sentence is here.\n")
    at = page("pages/6_Stimuli.py", public)
    at.session_state["stimuli_path"] = str(csv) if target == "sentences.csv" else target
    at.run()
    no_errors(at)
    assert any("upload only" in i for i in texts(at.info))
    assert "private sentence" not in shown(at) and not at.dataframe


@pytest.mark.parametrize("target", ["/proc/self/environ", "/etc/hostname", "/dev/zero", "fifo"])
def test_a_typed_path_never_shows_the_file(fake_model_env: None, cache_dir: Path, tmp_path: Path, target: str) -> None:
    """Every mode: a system file, a device or a FIFO typed into the path box shows none of its content."""
    if target == "fifo":
        target = str(tmp_path / "fifo")
        os.mkfifo(target)
    if not Path(target).exists():
        pytest.skip(f"{target} is not on this machine")
    content = environ_entries() if "environ" in target else (
        [Path(target).read_text().strip()] if target == "/etc/hostname" else [])
    at = page("pages/6_Stimuli.py", FAKE_MODEL)
    at.session_state["stimuli_path"] = target
    at.run(timeout=30)
    assert not at.exception and len(at.error) == 1
    page_text = shown(at)
    assert not [c for c in content if c and c in page_text]


def test_links_name_only_allowed_models(public: str, tmp_path: Path) -> None:
    folder = tmp_path / "teachers-model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    for asked in (str(folder), "EleutherAI/pythia-160m", f"{FAKE_MODEL}@step1"):
        at = page("pages/1_Probe.py", public)
        at.query_params["models"] = [asked, "ORG/NAME"]
        at.run()
        assert not at.exception
        assert at.sidebar.selectbox(key="model_name").value == FAKE_MODEL  # the class's model stays
        notes = " ".join(texts(at.caption))
        assert PUBLIC_NOTE in notes and f"{FAKE_MODEL} is shown instead" in notes
        assert str(folder) not in shown(at) and "ORG/NAME" not in shown(at)


def test_a_forged_model_name_is_replaced_and_never_loads(public: str) -> None:
    at = page("pages/0_Home.py", "/srv/secret/model", kind=fake.KIND.name)
    at.session_state["model_compare"] = ["ORG/NAME"]
    at.run()
    assert not at.exception
    assert at.sidebar.selectbox(key="model_name").value == FAKE_MODEL
    assert any(PUBLIC_NOTE in w for w in texts(at.sidebar.warning))
    assert "/srv/secret" not in shown(at)


def test_only_allowed_models_load_even_when_asked_directly(public: str) -> None:
    """No page, link or checkpoint can load (and so evict) a model off the list, nor with remote code."""
    for spec in (ModelSpec(name="ORG/NAME"), ModelSpec(name="/srv/model"),
                 ModelSpec(name=FAKE_MODEL, trust_remote_code=True)):
        with pytest.raises(ModelLoadError, match=re.escape(PUBLIC_NOTE)):
            ui_model.cached_model(spec)


def test_run_is_capped_private_and_one_at_a_time(public: str, cache_dir: Path) -> None:
    at = page("pages/3_Run.py", public).run()
    no_errors(at)
    blocks = at.number_input(key="run_blocks")
    assert (blocks.min, blocks.max) == (1, Deployment().max_blocks)
    assert not [c for c in at.checkbox if c.key == "run_all"]  # no "All" in public mode
    at.multiselect(key="run_constructions").set_value(["let_alone"])
    blocks.set_value(1)
    with Deployment(public=True).run_slot():  # another visitor's run holds the server's slot
        at.button(key="run_start").click().run()
    assert RUN_BUSY in texts(at.error)
    assert not at.session_state["run_queue"]  # nothing left queued
    at.button(key="run_start").click().run()
    no_errors(at)
    assert texts(at.success)[0].startswith("semantic")
    assert not list_runs() and load_results().empty  # nothing reached the shared store
    assert "record `" not in " ".join(texts(at.caption))
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Summary (CSV)" in labels and "Manifest (JSON)" not in labels  # the manifest names server folders
    other = page("pages/3_Run.py", public).run()  # another visitor sees none of it
    assert any("No runs yet" in i for i in texts(other.info))


def test_blocks_have_an_explicit_all(fake_model_env: None, cache_dir: Path) -> None:
    """Every mode: "−" from the minimum never reaches a value meaning all; "All" is its own choice."""
    at = page("pages/3_Run.py", FAKE_MODEL).run()
    no_errors(at)
    blocks = at.number_input(key="run_blocks")
    assert blocks.min == 1 and blocks.value == 5
    few = [c for c in texts(at.caption) if "items" in c]
    at.checkbox(key="run_all").check().run()
    no_errors(at)
    every = [c for c in texts(at.caption) if "items" in c]
    assert at.number_input(key="run_blocks").proto.disabled
    assert int(every[0].split()[0].replace(",", "")) > int(few[0].split()[0].replace(",", ""))


@pytest.fixture
def fake_model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake scorer allowed, in private mode."""
    monkeypatch.setenv(ENABLE_VAR, "1")
    monkeypatch.delenv("PFCORE_PUBLIC", raising=False)


@pytest.mark.slow
def test_the_sidebar_shows_no_model_folder(default_model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Public mode with the embedded model: ready in the sidebar, its folder on the server not shown."""
    monkeypatch.setenv("PFCORE_PUBLIC", "1")
    monkeypatch.delenv("PFCORE_MODELS_ALLOWED", raising=False)
    at = page("pages/6_Stimuli.py").run(timeout=240)
    no_errors(at)
    assert any("ready" in s for s in texts(at.sidebar.success))
    assert not any(c.startswith("from `") for c in texts(at.sidebar.caption))
    no_server_paths(at, default_model_cache, default_model_cache.resolve())


SUMMARY = ("revision\tconstruction\tworld_knowledge_filter\taccuracy\n"
           + "".join(f"step{s}\tletalone\tall\t{a}\n" for s, a in ((1000, 0.5), (2000, 0.6), (4000, 0.7))))


def test_uploaded_summaries_stay_in_the_session(public: str, cache_dir: Path) -> None:
    """Public mode's stand-in for the folder import: uploaded TSVs join one visitor's view only."""
    from pfcore.store.published import uploaded_published

    rows = uploaded_published([("semantic.tsv", SUMMARY.encode())], "ORG/tiny-series")
    assert set(rows["model"]) == {"ORG/tiny-series"} and rows["source"].str.startswith("import@").all()
    with pytest.raises(InputError) as caught:
        uploaded_published([("x.tsv", b"db_password\tapi_token\nhunter2\tk\n")], "ORG/m")
    assert "hunter2" not in str(caught.value) and "db_password" not in str(caught.value)
    with pytest.raises(InputError, match="ORG/NAME"):
        uploaded_published([("x.tsv", SUMMARY.encode())], "/srv/folder")
    at = page("pages/5_Trajectories.py", public)
    at.session_state["traj_uploaded"] = rows
    at.run()
    no_errors(at)
    assert any("ORG/tiny-series" in o for o in at.selectbox(key="traj_model").options)
    other = page("pages/5_Trajectories.py", public).run()  # another visitor
    assert "ORG/tiny-series" not in " ".join(o for s in other.selectbox if s.key == "traj_model" for o in s.options)
    assert load_results().query("model == 'ORG/tiny-series'").empty


def test_a_failed_load_names_no_server_folder(public: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PFCORE_MODELS_ALLOWED", "ORG/missing")

    def refuse(spec: ModelSpec) -> None:
        raise ModelLoadError("model path not found or not a model: /srv/secret/models/ORG/missing")

    monkeypatch.setattr(MODELS, "loaded", refuse)
    at = page("pages/6_Stimuli.py", "ORG/missing").run()
    assert not at.exception
    assert any("could not be loaded" in e for e in texts(at.sidebar.error))
    assert "/srv/secret" not in shown(at)
