"""Public mode's policy (pfcore.deployment): the environment read into limits, bad values
refused at start with the variable named, the allow-list, the block and upload caps, one run slot."""
from __future__ import annotations

import ast
import os
import time
from pathlib import Path

import pytest

from pfcore.deployment import RUN_BUSY, Deployment, deployment
from pfcore.errors import InputError
from pfcore.files import MIB
from pfcore.items.lexicon import load_lexicon
from pfcore.models.spec import DEFAULT_MODEL, ModelSpec
from pfcore.sweep.plan import load_plan
from pfcore.ui import serve


def test_private_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PFCORE_PUBLIC", "PFCORE_MODELS_ALLOWED", "PFCORE_MAX_BLOCKS", "PFCORE_UPLOAD_MIB"):
        monkeypatch.delenv(name, raising=False)
    policy = deployment()
    assert not policy.public and policy.allows_paths
    assert policy.is_allowed(ModelSpec(name="/any/folder", trust_remote_code=True))
    policy.check_blocks(None)
    policy.check_upload(10**9)


MODE_QUESTIONS = ("allows_paths", "allows_saving", "allows_typed_definitions", "hides_server_folders",
                  "picks_from_allow_list", "keeps_runs_in_session", "hardens_server")
REPO = Path(__file__).resolve().parents[2]


def test_the_mode_answers_named_questions() -> None:
    """Each question a page asks of the mode has the answer the raw flag gave it before: private mode
    offers paths, saving, typing and free model names; public mode none of them."""
    private, public = Deployment(), Deployment(public=True, max_blocks=3)
    assert {q: getattr(private, q) for q in MODE_QUESTIONS} == {
        "allows_paths": True, "allows_saving": True, "allows_typed_definitions": True, "hides_server_folders": False,
        "picks_from_allow_list": False, "keeps_runs_in_session": False, "hardens_server": False}
    assert {q: getattr(public, q) for q in MODE_QUESTIONS} == {
        "allows_paths": False, "allows_saving": False, "allows_typed_definitions": False, "hides_server_folders": True,
        "picks_from_allow_list": True, "keeps_runs_in_session": True, "hardens_server": True}
    assert (private.blocks_offered(None), private.blocks_offered(50), public.blocks_offered(50)) == (None, 50, 3)


def raw_flag_reads(path: Path) -> list[int]:
    """The lines of a module that read an object's `public` attribute."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "public"]


def test_only_the_deployment_reads_the_public_flag() -> None:
    """`grep` finds the public-mode question in one module: every other module of pfcore, the pages and
    the app ask the Deployment's named questions (allows_paths, allows_saving, ...), never `.public`."""
    modules = [*REPO.joinpath("pfcore").rglob("*.py"), *REPO.joinpath("pages").glob("*.py"), REPO / "app.py"]
    home = REPO / "pfcore" / "deployment.py"
    readers = {str(m.relative_to(REPO)): lines for m in modules if m != home and (lines := raw_flag_reads(m))}
    assert len(modules) > 50 and raw_flag_reads(home)  # the walk sees the code, and the one home reads it
    assert readers == {}, f"ask pfcore.deployment.Deployment a named question instead of .public: {readers}"


def test_public_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PFCORE_PUBLIC", "1")
    monkeypatch.setenv("PFCORE_MODELS_ALLOWED", "EleutherAI/pythia-160m@step1000, gpt2")
    monkeypatch.setenv("PFCORE_MAX_BLOCKS", "3")
    monkeypatch.setenv("PFCORE_UPLOAD_MIB", "1")
    policy = deployment()
    assert policy == Deployment(True, ("EleutherAI/pythia-160m@step1000", "gpt2"), 3, MIB)
    assert not policy.allows_paths
    assert policy.is_allowed(ModelSpec(name="EleutherAI/pythia-160m", revision="step1000"))
    assert not policy.is_allowed(ModelSpec(name="EleutherAI/pythia-160m"))
    assert not policy.is_allowed(ModelSpec(name="gpt2", trust_remote_code=True))
    assert ModelSpec().with_label(policy.first_label()) == ModelSpec(name="EleutherAI/pythia-160m", revision="step1000")
    with pytest.raises(InputError, match="at most 3 blocks"):
        policy.check_blocks(None)
    with pytest.raises(InputError, match="at most 3 blocks"):
        policy.check_blocks(4)
    policy.check_blocks(3)
    with pytest.raises(InputError, match="at most 1 MiB"):
        policy.check_upload(MIB + 1)


def test_public_default_allows_the_embedded_model_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PFCORE_PUBLIC", "1")
    monkeypatch.delenv("PFCORE_MODELS_ALLOWED", raising=False)
    policy = deployment()
    assert policy.models_allowed == (DEFAULT_MODEL,) and policy.is_allowed(ModelSpec())
    assert "/" not in policy.refusal().replace("a class server", "")


@pytest.mark.parametrize(("name", "value", "said"), [
    ("PFCORE_PUBLIC", "yes", "PFCORE_PUBLIC must be 1"),
    ("PFCORE_MAX_BLOCKS", "0", "PFCORE_MAX_BLOCKS must be a whole number from 1"),
    ("PFCORE_MAX_BLOCKS", "many", "PFCORE_MAX_BLOCKS must be a whole number from 1"),
    ("PFCORE_UPLOAD_MIB", "1000", "PFCORE_UPLOAD_MIB must be a whole number from 1 to 64"),
    ("PFCORE_MODELS_ALLOWED", "gpt2,/srv/secret/model", "entry 2 is not a hub id"),
    ("PFCORE_MODELS_ALLOWED", "../up/there", "entry 1 is not a hub id"),
    ("PFCORE_MODELS_ALLOWED", "model.gguf", "entry 1 is not a hub id"),
])
def test_bad_settings_are_refused_at_start(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                           name: str, value: str, said: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(InputError, match=said) as caught:
        deployment()
    assert "/srv" not in str(caught.value)
    assert serve.main(["--server.port", "1"]) == 2  # streamlit never starts
    assert said in capsys.readouterr().err


def test_serve_public_sets_public_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PFCORE_PUBLIC", "0")  # recorded, so the 1 main sets is undone after the test
    monkeypatch.setenv("PFCORE_MAX_BLOCKS", "0")  # stops main before streamlit starts
    assert serve.main(["--public"]) == 2
    assert os.environ["PFCORE_PUBLIC"] == "1"


def test_serve_public_caps_uploads_in_streamlit(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.web import cli as streamlit_cli

    started: list[list[str]] = []
    monkeypatch.setenv("PFCORE_PUBLIC", "0")
    monkeypatch.setenv("PFCORE_UPLOAD_MIB", "3")
    warmed: list[object] = []
    monkeypatch.setattr(serve, "warm_up", lambda spec, **_: warmed.append(spec))
    monkeypatch.setattr(serve, "use_app_navigation", lambda: None)
    monkeypatch.setattr(streamlit_cli, "main", lambda: started.append(list(serve.sys.argv)))
    monkeypatch.setattr(serve.sys, "argv", ["serve"])
    assert serve.main(["--public", "--server.port", "9"]) == 0
    assert started[0][-3:] == ["--server.port", "9", "--server.maxUploadSize=3"] and "--public" not in started[0]
    for _ in range(100):  # the warm-up runs on a thread of its own
        if warmed:
            break
        time.sleep(0.05)
    assert warmed == [ModelSpec().with_label(deployment().first_label())]  # the model the class is offered


def test_one_run_at_a_time_in_public_mode() -> None:
    public = Deployment(public=True)
    with public.run_slot():
        with pytest.raises(InputError) as caught, public.run_slot():
            pass
        assert str(caught.value) == RUN_BUSY
        with Deployment().run_slot():  # private mode has no slot to wait for
            pass
    with public.run_slot():  # released after the run
        pass


SECRETS = "db_password: hunter2-secret\napi_token: tok-0123456789\nnested:\n  private_key: k-987\n  2: x\n"


@pytest.mark.parametrize("text", [SECRETS, "suites: [semantic]\nmodels: [{model: org/m}]\n" + SECRETS,
                                  "suites: [semantic]\nmodels: [{model: org/m, db_password: hunter2-secret}]\n",
                                  "suites: {semantic: {limit-blocks: hunter2-secret}}\nmodels: [{model: org/m}]\n",
                                  "name: hunter2 secret\nsuites: [semantic]\nmodels: [{model: org/m}]\n",
                                  "suites: [semantic]\nmodels: [{model: org/m}]\napi_token: a\napi_token: b\n"])
def test_yaml_checkers_never_echo_keys_or_values(tmp_path: Path, text: str) -> None:
    """A YAML given by mistake as a sweep plan or a lexicon: the message names lines and the schema's
    fields, never the file's own keys or values."""
    path = tmp_path / "given.yaml"
    path.write_text(text)
    for load in (load_plan, load_lexicon):
        with pytest.raises(InputError) as caught:
            load(path)
        message = str(caught.value)
        assert "given.yaml:" in message
        for secret in ("db_password", "hunter2", "api_token", "tok-", "private_key", "k-987", "nested"):
            assert secret not in message, (load.__name__, message)
