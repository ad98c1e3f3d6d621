"""A link is input like any other (issue 28): one parser bounds every page's link values before a file
is touched; the page boundary covers the whole page as the server runs it; and the server it starts
shows no error details in the browser, whatever the folder it starts from or the environment says."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pfcore.ui.links import MAX_NAMES, MAX_VALUES, read_link
from pfcore.ui.page import PAGES
from tests.app_helpers import ROOT, no_errors, served, texts, use_app_navigation

LONG_RUN = "x" * 5000


def test_the_parser_bounds_names_values_and_characters() -> None:
    kept, notes = read_link({
        "run": [LONG_RUN], "sentence": ["He doesn't like shrimp,\x00 let alone squid."],
        "entailed": ["a\u202eb"], "models": ["[login](https://evil.example)"], "series": ["s"] * (MAX_VALUES + 3),
        "Bad Name!": ["x"], "construction": ["much_less"], **{f"p{i}": ["1"] for i in range(MAX_NAMES)}})
    assert kept["construction"] == ["much_less"] and len(kept["series"]) == MAX_VALUES
    assert not {"run", "sentence", "entailed", "models"} & set(kept)
    assert len(kept) == MAX_NAMES - 4  # the first MAX_NAMES well-named settings, less the four refused
    said = " / ".join(notes)
    assert "run (a value of 5,000 characters; at most 128 are read)" in said
    assert "U+0000" in said and "U+202E" in said and "models (a value that is not a model" in said
    assert "1 setting(s) whose name is not a setting's" in said and "past the first 32" in said
    assert "x" * 40 not in said and "evil" not in said and "Bad Name" not in said  # no refused value is repeated


def test_a_run_id_that_is_a_path_never_reaches_the_file_system() -> None:
    for value in ("../../etc", "/etc/passwd", ".hidden", "a" * 129):
        kept, notes = read_link({"run": [value]})
        assert not kept and notes[0].startswith("run (")
    assert read_link({"run": ["20261130-101010-123456-semantic-x_1"]})[0]


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch, fake_model: str, cache_dir: Path) -> str:
    """Pages run as the server runs them, with the fake scorer in the sidebar."""
    use_app_navigation(monkeypatch)
    return fake_model


def test_a_run_link_of_5000_characters_is_one_clear_note(app: str) -> None:
    """It raised an uncaught OSError (File name too long) before the Run page's boundary."""
    at = served("pages/3_Run.py", app, {"run": LONG_RUN}).run()
    no_errors(at)
    notes = [c for c in texts(at.caption) if c.startswith("Ignored in the link")]
    assert notes == ["Ignored in the link: run (a value of 5,000 characters; at most 128 are read)"]


def test_a_link_to_a_run_whose_record_is_damaged_is_a_note(app: str, cache_dir: Path) -> None:
    folder = cache_dir / "runs" / "20261130-101010-000001-semantic-x"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text("{not json")
    at = served("pages/3_Run.py", app, {"run": folder.name}).run()
    no_errors(at)
    assert any(c.startswith(f"Ignored in the link: run='{folder.name}'") for c in texts(at.caption))


@pytest.mark.parametrize("script", [p.path for p in PAGES])
def test_the_boundary_covers_the_whole_page(app: str, monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    """An error in a page's first line (its setup, before any block of its own) is one message."""
    import pfcore.ui.page

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the setup broke")

    at = served(script, app)
    monkeypatch.setattr(pfcore.ui.page, "start_page", broken)
    at.run()
    assert not at.exception, texts(at.exception)
    assert texts(at.error) == ["Unexpected error (RuntimeError: the setup broke); please report it with the steps "
                               "that led here."]


SETTINGS = """
    import json, sys
    from streamlit import config
    from streamlit.web import bootstrap
    from pfcore.ui import serve

    if sys.argv[1] == "working-directory":  # streamlit's documented order: no config file beside the script
        config.get_config_files = lambda name: [str(__import__("pathlib").Path.cwd() / ".streamlit" / name)]
    serve.warm_up = lambda *args, **kwargs: None
    bootstrap.run = lambda *args, **kwargs: print(json.dumps(
        {name: config.get_option(name) for name in ("client.showErrorDetails", "client.disableDataExport",
                                                        "runner.postScriptGC")}))
    serve.main(sys.argv[2:])
"""


@pytest.mark.parametrize("reads", ["environment", "working-directory"])
@pytest.mark.parametrize("public", [False, True])
def test_the_server_shows_no_error_details_from_any_folder(tmp_path: Path, reads: str, public: bool) -> None:
    """Started from another folder, whose config says "full" (or where STREAMLIT_* says it), the
    server still sends no error text to the browser; a class server offers no unneutralised CSV; no full
    garbage collection follows every script run."""
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "config.toml").write_text('[client]\nshowErrorDetails = "full"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STREAMLIT_", "PFCORE_PUBLIC"))}
    env |= {"PYTHONPATH": str(ROOT), "STREAMLIT_CLIENT_SHOW_ERROR_DETAILS": "full" if reads == "environment" else ""}
    if not env["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"]:
        del env["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"]
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(SETTINGS), reads, "--server.port", "9",
                          *(["--public"] if public else [])],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    settings = json.loads(out.stdout.strip().splitlines()[-1])
    assert settings["client.showErrorDetails"] == "none"
    assert settings["client.disableDataExport"] is public
    assert settings["runner.postScriptGC"] is False  # no full collection after every click
