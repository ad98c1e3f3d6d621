"""AppTests of the Stimuli page on the tiny GPT-2: a SyntaxGym suite (regions by condition,
predictions, downloads), a plain stimuli CSV (per-word bars), the correction toggle, bad files; an
uploaded suite with an uploaded surprisal file (numbers from the file, said so); lm-eval's sample logs sent
to the Models page, which reads them."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import pytest

from pfcore.scoring.kinds.fake import ENABLE_VAR, FAKE_MODEL
from tests.app_helpers import frame_with, no_errors, page, texts
from tests.unit.test_lmzoo import gym_suite, lmzoo_file
from tests.unit.test_syntaxgym_suite import suite_data, write_suite

PAGE = "pages/6_Stimuli.py"


def test_suite_regions_predictions_and_downloads(tiny_gpt2: Path, tmp_path: Path, cache_dir: Path) -> None:
    path = write_suite(tmp_path, suite_data())
    at = page(PAGE, tiny_gpt2)
    at.session_state["stimuli_path"] = str(path)
    at.run()
    no_errors(at)
    assert len(at.get("plotly_chart")) == 1
    predictions, regions, words = (frame.value for frame in at.dataframe)
    assert predictions["suite"].tolist() == ["handmade"]
    assert predictions["prediction"].tolist() == ["prediction 1: (2;%good%) < (2;%bad%)"]
    assert 0 <= predictions["accuracy"].iloc[0] <= 1 and predictions["n"].iloc[0] == 3
    assert len(regions) == 3 * 2 * 3 and "region" in regions.columns
    assert {"word", "surprisal_bits", "surprisal_bits_uncorrected"} <= set(words.columns)
    labels = [button.proto.label for button in at.get("download_button")]
    assert "Download the regions (CSV)" in labels and "Download the words (CSV)" in labels
    assert any(c.startswith("6 sentences scored") for c in texts(at.caption))


def test_correction_toggle_changes_the_words(tiny_gpt2: Path, tmp_path: Path, cache_dir: Path) -> None:
    path = write_suite(tmp_path, suite_data())
    at = page(PAGE, tiny_gpt2)
    at.session_state["stimuli_path"] = str(path)
    at.run()
    corrected = at.dataframe[-1].value
    at.toggle(key="stimuli_corrected").set_value(False).run()
    no_errors(at)
    plain = at.dataframe[-1].value
    pd.testing.assert_series_equal(plain["surprisal_bits"], plain["surprisal_bits_uncorrected"], check_names=False)
    assert not corrected["surprisal_bits"].equals(corrected["surprisal_bits_uncorrected"])


def test_plain_stimuli_show_word_bars(tiny_gpt2: Path, tmp_path: Path, cache_dir: Path) -> None:
    path = tmp_path / "mine.csv"
    path.write_text("item,sentence\n1,The keys are here.\n2,The key is here.\n3,Keys here.\n")
    at = page(PAGE, tiny_gpt2)
    at.session_state["stimuli_path"] = str(path)
    at.run()
    no_errors(at)
    assert at.multiselect(key="stimuli_sentences").value == ["The keys are here.", "The key is here."]
    assert len(at.get("plotly_chart")) == 1
    words = at.dataframe[0].value
    assert words["word"].tolist()[:4] == ["The", "keys", "are", "here."] and "item" in words.columns


def test_no_file_and_bad_file(tiny_gpt2: Path, tmp_path: Path, cache_dir: Path) -> None:
    at = page(PAGE, tiny_gpt2).run()
    no_errors(at)
    assert any("Upload a stimuli file" in i for i in texts(at.info))
    path = tmp_path / "bad.csv"
    path.write_text("item,text\n1,hello\n")
    at.text_input(key="stimuli_path").input(str(path)).run()
    assert not at.exception
    assert any("no 'sentence' column" in e for e in texts(at.error))


def test_uploaded_suite_with_its_surprisal_file(tiny_gpt2: Path, tmp_path: Path, cache_dir: Path) -> None:
    """An uploaded suite and an uploaded lm-zoo file: the region chart, the predictions and the tables come
    from the file (region 2 holds 3 bits in condition a, 5 in b, as the file gives them), and the page says
    so with the file's name and sha256, naming no model."""
    suite = gym_suite(tmp_path, [["The dog", "barks"], ["The dog", "bark"]], formulas=["(2;%a%) < (2;%b%)"])
    rows = [[("The", 0.0), ("Ġdog", 1.0), ("Ġbar", 2.0), ("ks", 1.0)], [("The", 0.0), ("Ġdog", 1.0), ("Ġbark", 5.0)]]
    data = lmzoo_file(tmp_path, rows).read_bytes()
    at = page(PAGE, tiny_gpt2)
    at.run()
    at.file_uploader(key="stimuli_upload").set_value(("hand.json", suite.read_bytes(), "application/json")).run()
    at.file_uploader(key="stimuli_surprisals").set_value(("scores.tsv", data, "text/tab-separated-values")).run()
    no_errors(at)
    assert at.file_uploader(key="stimuli_surprisals").proto.max_upload_size_mb == 128  # its cap, not "200MB"
    captions = " ".join(texts(at.main.caption))
    assert f"surprisals read from a file, scores.tsv (sha256 {hashlib.sha256(data).hexdigest()})" in captions
    assert "scored by" not in captions and str(tiny_gpt2) not in captions
    assert len(at.get("plotly_chart")) == 1
    predictions, regions = frame_with(at, "accuracy"), frame_with(at, "region_name")
    assert predictions["prediction"].tolist() == ["prediction 1: (2;%a%) < (2;%b%)"]
    assert predictions["accuracy"].tolist() == [1.0] and predictions["n"].tolist() == [1]
    assert regions["surprisal_bits"].tolist() == pytest.approx([1.0, 3.0, 1.0, 5.0])
    tokens = frame_with(at, "token")
    assert tokens["token"].tolist() == ["The", "Ġdog", "Ġbar", "ks", "The", "Ġdog", "Ġbark"]
    assert "Download the tokens (CSV)" in [button.proto.label for button in at.get("download_button")]


def test_a_surprisal_file_that_does_not_fit_is_one_error(tiny_gpt2: Path, tmp_path: Path, cache_dir: Path) -> None:
    suite = gym_suite(tmp_path, [["The dog", "barks"]])
    at = page(PAGE, tiny_gpt2)
    at.run()
    at.file_uploader(key="stimuli_upload").set_value(("hand.json", suite.read_bytes(), "application/json")).run()
    bad = lmzoo_file(tmp_path, [[("The", 0.0), ("cat", 1.0), ("barks", 2.0)]]).read_bytes()
    at.file_uploader(key="stimuli_surprisals").set_value(("scores.tsv", bad, "text/plain")).run()
    assert not at.exception
    errors = texts(at.error)
    assert len(errors) == 1 and errors[0].startswith("scores.tsv:3: sentence 1 (item 1, condition 1 'a'), region 1")
    assert "/tmp" not in errors[0]


def test_the_page_says_lm_eval_logs_are_read_on_the_models_page(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page(PAGE, tiny_gpt2).run()
    no_errors(at)
    [note] = [c for c in texts(at.main.caption) if "lm-evaluation-harness" in c]
    assert note.startswith("lm-evaluation-harness sample logs (`lm_eval --log_samples`) are not read here")
    assert note.endswith("Read it as a run on the Models page (\"Add a run from lm-evaluation-harness sample logs\").")


def test_in_public_mode_it_names_the_command_not_the_models_page(monkeypatch: pytest.MonkeyPatch,
                                                                  cache_dir: Path) -> None:
    """A public server's Models page takes no lm-eval logs, so the note names the command instead."""
    monkeypatch.setenv(ENABLE_VAR, "1")
    monkeypatch.setenv("PFCORE_PUBLIC", "1")
    monkeypatch.setenv("PFCORE_MODELS_ALLOWED", f"{FAKE_MODEL}:fake")
    at = page(PAGE, FAKE_MODEL).run()
    no_errors(at)
    [note] = [c for c in texts(at.main.caption) if "lm-evaluation-harness" in c]
    assert "`pfcore run --suite SUITE --scores LOG` on your own machine" in note and "Models page" not in note


def test_an_lm_eval_sample_log_as_surprisals_is_one_error_naming_the_models_page(
        tiny_gpt2: Path, tmp_path: Path, cache_dir: Path) -> None:
    """A real sample log of an exported task, given where a suite's token surprisals go: one line that says
    what the log holds and where it is read, no table or chart made of it."""
    from pfcore.cli import main
    from tests.cli.test_lm_eval import write_log

    assert main(["export", "lm-eval", str(tmp_path / "tasks"), "--suite", "syntax", "--construction", "let_alone",
                 "--limit-blocks", "1"]) == 0
    (tmp_path / "out").mkdir()
    log = write_log(tmp_path / "tasks", tmp_path / "out", tiny_gpt2, "syntax", bos=True)[0]
    suite = gym_suite(tmp_path, [["The dog", "barks"], ["The dog", "bark"]], formulas=["(2;%a%) < (2;%b%)"])
    at = page(PAGE, tiny_gpt2)
    at.run()
    at.file_uploader(key="stimuli_upload").set_value(("hand.json", suite.read_bytes(), "application/json")).run()
    at.file_uploader(key="stimuli_surprisals").set_value((log.name, log.read_bytes(), "application/jsonl")).run()
    assert not at.exception
    [error] = texts(at.error)
    assert error.startswith(f"{log.name} is an lm-evaluation-harness sample log: it holds one log-likelihood")
    assert "Read it as a run on the Models page (\"Add a run from lm-evaluation-harness sample logs\")" in error
    assert not at.get("plotly_chart") and not at.dataframe
