"""`--model` with `--scores` names a model pfcore does not load, so nothing checked it (issue 38): an
empty, blank, newline or U+202E name was recorded, the U+202E one reached the public Models page, and
a 5,000-character name gave a misleading "cannot write ... (File name too long)". Now the name is
checked as a name before the file is read: one line, exit 2, the name never quoted."""
from __future__ import annotations

from pathlib import Path

import pytest

from pfcore.cli import main
from pfcore.store.results import load_results
from tests.cli.test_scores_file import BLOCKS

NAMES = {"empty": ("", "empty or blank"), "blank": ("   ", "empty or blank"),
         "a newline": ("gpt2\nxl", "control character"), "a tab": ("gpt2\txl", "control character"),
         "U+202E": ("gpt2\u202elx-", "bidirectional control"), "5,000 characters": ("m" * 5000, "5,000 characters"),
         "a space at its end": ("gpt2 ", "starts or ends with a space")}


@pytest.mark.parametrize("case", list(NAMES))
def test_a_scores_runs_model_name_is_checked_as_a_name(case: str, cache_dir: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    name, words = NAMES[case]
    scores = tmp_path / "scores.tsv"
    scores.write_text("id\tlogprob\tn_tokens\nabc\t-1.5\t2\n")
    out = tmp_path / "out"
    assert main(["run", "--suite", "semantic", *BLOCKS, "--scores", str(scores), "--model", name,
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "cannot write" not in err
    assert (name.strip() == "" or name.strip() not in err) and "\u202e" not in err
    assert not out.exists() and load_results().empty
