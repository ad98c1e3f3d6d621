"""AppTests of the Stimuli page on the tiny GPT-2: a SyntaxGym suite (regions by condition,
predictions, downloads), a plain stimuli CSV (per-word bars), the correction toggle, bad files."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from tests.app_helpers import no_errors, page, texts
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
