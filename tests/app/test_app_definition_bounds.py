"""A visitor's construction definition on the Run page (issue 38): a 63 kB definition rebuilt all
13,320 items on every rerun (about 5 s and +127 to +377 MB each); an upload whose frames the lexicon
lacks named the server's temporary folder. Now the definition is refused before any work, in one
message naming the field and the rule, and no message names a server folder."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from pfcore.errors import InputError
from pfcore.views.constructions import definition_from_text, trial_of
from tests.app.test_app_public import shown
from tests.app.test_app_public_faults import names_no_server_folder, public, server_folders  # noqa: F401
from tests.app_helpers import page, served, texts

PAGE = "pages/3_Run.py"
HUGE = f"name: big\nwords: {' '.join(['still'] * 10_500)}\nlicensing: negative\nfocus2: stronger\n".encode()
UNKNOWN_FRAMES = b"name: fu\nwords: still less\nlicensing: negative\nfocus2: stronger\nframes: [no such frame]\n"


def test_a_63_kb_definition_is_refused_before_any_work(cache_dir: Path) -> None:
    assert len(HUGE) > 63_000
    started = time.monotonic()
    with pytest.raises(InputError, match=r"big\.yaml:2: words: a spelling has at most 40 characters"):
        trial_of(definition_from_text("big.yaml", HUGE))
    assert time.monotonic() - started < 1.0


def test_a_63_kb_definition_on_the_page_is_one_message(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page(PAGE, tiny_gpt2).run()
    at.text_area(key="cx_text").set_value(HUGE.decode())
    started = time.monotonic()
    at.run()
    took = time.monotonic() - started
    assert not at.exception and [e for e in texts(at.error) if "a spelling has at most 40 characters" in e]
    assert "still still" not in shown(at) and not [b for b in at.button if b.key == "cx_score"]
    assert took < 30  # the page's whole rerun, on a busy machine; the refusal itself is timed above


def test_an_upload_with_unknown_frames_names_no_server_folder(public: str, cache_dir: Path) -> None:  # noqa: F811
    at = served(PAGE, public).run()
    at.file_uploader(key="cx_upload").set_value(("fu.yaml", UNKNOWN_FRAMES, "application/x-yaml"))
    at.run()
    names_no_server_folder(at, cache_dir)
    assert [e for e in texts(at.error) if e.startswith("fu.yaml: frames:")], texts(at.error)
    assert not [folder for folder in server_folders(cache_dir) if folder in shown(at)]


def test_a_name_of_the_four_is_refused_without_quoting_it(cache_dir: Path) -> None:
    with pytest.raises(InputError, match=r"^mine\.yaml: name: the name is one of the paper's four") as refused:
        definition_from_text("mine.yaml", b"name: let_alone\nwords: still less\nlicensing: negative\nfocus2: stronger")
    assert "'let_alone'" not in str(refused.value)
