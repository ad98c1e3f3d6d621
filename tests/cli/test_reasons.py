"""The right reason for each refusal of issue 28's audit, cheaply found and without library noise:
a symbolic link that leads nowhere as --out (it said "File exists"), a score cache that is a folder
(it said "permission denied"), a stimuli CSV of bad rows (refused only after reading all of them:
900,000 rows cost 8 s of a class server's CPU), and transformers' multi-line "legacy tokenizer"
notice on the user's terminal."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.items import syntaxgym
from tests.tiny_models import build_llama

REPO = Path(__file__).resolve().parents[2]
RUN = ["run", "--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1"]


def test_a_symbolic_link_in_a_loop_as_out_is_named_with_its_remedy(tiny_gpt2: Path, cache_dir: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    loop = cache_dir.parent / "loop"
    loop.symlink_to(loop)
    assert main([*RUN, "--model", str(tiny_gpt2), "--out", str(loop)]) == 2
    err = capsys.readouterr().err
    assert "symbolic link that leads nowhere" in err and "remove the link or give another folder" in err


def test_a_score_cache_that_is_a_folder_is_called_a_folder(tiny_gpt2: Path, cache_dir: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    (cache_dir / "scores.sqlite").mkdir(parents=True)
    assert main(["score", "--sentence", "The cat sat.", "--model", str(tiny_gpt2)]) == 2
    err = capsys.readouterr().err
    assert "is a folder, not a file: move it aside" in err and "permission" not in err


def test_a_csv_of_bad_rows_is_refused_at_its_first_bad_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted in lines read, not seconds: the reader stops at line 2 of 100,000."""
    path = tmp_path / "empty-cells.csv"
    path.write_text("sentence,x\n" + ",\n" * 100_000)
    read = []
    real = syntaxgym.text_lines

    def counting(*args: object) -> object:
        for line in real(*args):  # type: ignore[arg-type]
            read.append(line)
            yield line

    monkeypatch.setattr(syntaxgym, "text_lines", counting)
    with pytest.raises(InputError, match=r"empty-cells.csv:2: the 'sentence' cell is empty"):
        syntaxgym.read_stimuli(path)
    assert len(read) < 10


def test_transformers_notices_stay_off_the_terminal(tmp_path: Path, cache_dir: Path) -> None:
    """A Llama tokenizer whose config leaves `legacy` unset: transformers printed its six-line notice
    on every load; pfcore keeps it in its log."""
    folder = build_llama(tmp_path / "llama")
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config.pop("legacy", None)
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    command = [sys.executable, "-m", "pfcore", "score", "--sentence", "the cat sat", "--model", str(folder)]
    done = subprocess.run(command, cwd=REPO, env=os.environ.copy(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "legacy" not in done.stderr and done.stderr.strip() == "", done.stderr
    shutil.rmtree(folder)
