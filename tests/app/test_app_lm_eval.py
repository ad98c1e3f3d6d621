"""The Models page's upload of lm-eval sample logs (issue 42): offered with its fields, the button idle until
logs are given, and absent in public mode. What a click does, `run_from_uploads`, is tested in
tests/cli/test_lm_eval.py (AppTest cannot upload files)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pfcore.scoring.kinds.fake import ENABLE_VAR, FAKE_MODEL
from tests.app_helpers import no_errors, page, texts

KEYS = ("lm_eval_suite", "lm_eval_constructions", "lm_eval_blocks", "lm_eval_model")


def test_the_models_page_offers_an_lm_eval_upload(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/4_Models.py", tiny_gpt2).run()
    no_errors(at)
    assert any(e.label.startswith("Add a run from lm-evaluation-harness") for e in at.expander)
    assert at.selectbox(key="lm_eval_suite").options == ["semantic", "syntax"]
    assert all(at.session_state[key] is not None for key in KEYS)
    assert at.button(key="lm_eval_read").disabled


def test_not_in_public_mode(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    monkeypatch.setenv(ENABLE_VAR, "1")
    monkeypatch.setenv("PFCORE_PUBLIC", "1")
    monkeypatch.setenv("PFCORE_MODELS_ALLOWED", f"{FAKE_MODEL}:fake")
    at = page("pages/4_Models.py", FAKE_MODEL).run()
    no_errors(at)
    assert not any(e.label.startswith("Add a run from lm-evaluation-harness") for e in at.expander)


class Upload:
    """What streamlit's uploader gives for one file: its name and bytes."""

    def __init__(self, path: Path) -> None:
        self.name, self._data = path.name, path.read_bytes()

    def getvalue(self) -> bytes:
        """The file's bytes."""
        return self._data


def test_uploaded_logs_become_a_run_named_for_lm_eval(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import streamlit as st

    from pfcore.cli import main
    from pfcore.store.runs import list_runs
    from tests.cli.test_lm_eval import write_log

    assert main(["export", "lm-eval", str(tmp_path / "tasks"), "--suite", "syntax", "--construction", "let_alone",
                 "--limit-blocks", "1"]) == 0
    (tmp_path / "out").mkdir()
    write_log(tmp_path / "tasks", tmp_path / "out", tiny_gpt2, "syntax", bos=True)
    uploads = [Upload(p) for p in sorted((tmp_path / "out").iterdir())]
    monkeypatch.setattr(st, "file_uploader", lambda *args, **kwargs: uploads)  # AppTest cannot upload
    at = page("pages/4_Models.py", tiny_gpt2).run()
    at.selectbox(key="lm_eval_suite").set_value("syntax")
    at.text_input(key="lm_eval_constructions").set_value("let_alone")
    at.number_input(key="lm_eval_blocks").set_value(1)
    at.button(key="lm_eval_read").click().run()
    no_errors(at)
    assert any("Recorded" in s and "(lm-eval, samples_paired_focus_syntax_" in s for s in texts(at.success))
    [run] = [r for r in list_runs() if "(lm-eval, " in r.manifest.model.name]
    assert run.manifest.suite == "syntax" and run.manifest.settings["bos"] is True
