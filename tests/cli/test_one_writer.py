"""One writer per record folder (issue 28): two runs into one --out, started together, both exited 0
and printed `record: D`, while D held one record, and a rebuild of the results table from the
records lost the other's rows. Now a second writer is refused at once (exit 2, naming the holder),
a folder holding another suite's record is refused before anything is scored, and what survives a
rebuild is what the commands said they saved."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pfcore.cli import main
from pfcore.files import locked
from pfcore.runs.runner import record_lock
from pfcore.store.results import load_results, results_path

REPO = Path(__file__).resolve().parents[2]


def run(suite: str, model: Path, out: Path) -> subprocess.Popen[str]:
    """`pfcore run --suite SUITE ... --out OUT` in a process of its own."""
    return subprocess.Popen([sys.executable, "-m", "pfcore", "run", "--suite", suite, "--construction", "let_alone",
                             "--limit-blocks", "2", "--model", str(model), "--out", str(out)],
                            cwd=REPO, env=os.environ.copy(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_runs_into_one_out_lose_nothing(tiny_gpt2: Path, cache_dir: Path) -> None:
    out = cache_dir.parent / "D"
    first, second = run("semantic", tiny_gpt2, out), run("syntax", tiny_gpt2, out)
    done = [(p.wait(300), *p.communicate()) for p in (first, second)]
    saved = {suite for suite, (code, stdout, _err) in zip(("semantic", "syntax"), done) if code == 0}
    refused = [err for code, _out, err in done if code != 0]
    assert all(code in (0, 2) for code, *_ in done), done
    assert len(saved) == 1 and len(refused) == 1, done  # the one that came second was refused, whichever it was
    assert "error:" in refused[0] and str(out) in refused[0]
    manifest = json.loads((out / "manifest.json").read_text())
    assert {manifest["suite"]} == saved
    results_path().write_bytes(b"damaged")  # the table rebuilt from the records: what was saved is there
    with pytest.warns(UserWarning, match="rebuilt"):
        table = load_results()
    assert set(table["suite"]) == saved


def test_a_second_writer_is_refused_at_once_naming_the_holder(tiny_gpt2: Path, cache_dir: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = cache_dir.parent / "held"
    out.mkdir()
    started = time.monotonic()
    with locked(record_lock(out), wait=False, holder="pfcore run --suite semantic (a test)"):
        assert main(["run", "--suite", "syntax", "--construction", "let_alone", "--limit-blocks", "1",
                     "--model", str(tiny_gpt2), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "is being written by another pfcore command" in err and "pfcore run --suite semantic (a test)" in err
    assert f"pid {os.getpid()}" in err and time.monotonic() - started < 30
    assert not (out / "manifest.json").exists()


def test_a_folder_holding_another_suites_record_is_refused_before_scoring(tiny_gpt2: Path, cache_dir: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = cache_dir.parent / "one-record"
    argv = ["--construction", "let_alone", "--limit-blocks", "1", "--model", str(tiny_gpt2), "--out", str(out)]
    assert main(["run", "--suite", "semantic", *argv]) == 0
    before = (out / "manifest.json").read_bytes()
    assert main(["run", "--suite", "syntax", *argv]) == 2
    err = capsys.readouterr().err
    assert "holds the record of another run" in err and "semantic" in err and "give another --out" in err
    assert (out / "manifest.json").read_bytes() == before


def test_a_rerun_of_the_same_suite_replaces_its_record_and_its_rows(tiny_gpt2: Path, cache_dir: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The same suite and model into its own --out again is a rerun: the record is replaced, and the
    earlier run's rows leave the table with it, so the table is what a rebuild from the records gives."""
    out = cache_dir.parent / "rerun"
    argv = ["run", "--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1",
            "--model", str(tiny_gpt2), "--out", str(out)]
    assert main(argv) == 0 and main(argv) == 0
    now = json.loads((out / "manifest.json").read_text())["run_id"]
    assert set(load_results()["source"]) == {f"pfcore run {now}"}


def test_two_runs_into_one_folder_through_a_symlink_lose_nothing(tiny_gpt2: Path, cache_dir: Path) -> None:
    """Issue 38: the lock was keyed by the path as typed, so a second run whose --out was a link to the
    first's folder went ahead; both exited 0 and a rebuild of the table lost one run's rows."""
    out = cache_dir.parent / "D"
    out.mkdir()
    link = cache_dir.parent / "L"
    link.symlink_to(out, target_is_directory=True)
    first, second = run("semantic", tiny_gpt2, out), run("syntax", tiny_gpt2, link)
    done = [(p.wait(300), *p.communicate()) for p in (first, second)]
    assert all(code in (0, 2) for code, *_ in done), done
    saved = {suite for suite, (code, _out, _err) in zip(("semantic", "syntax"), done) if code == 0}
    assert len(saved) == 1, done  # one was refused (the lock, or the other suite's record), whichever came second
    assert {json.loads((out / "manifest.json").read_text())["suite"]} == saved
    results_path().write_bytes(b"damaged")
    with pytest.warns(UserWarning, match="rebuilt"):
        table = load_results()
    assert set(table["suite"]) == saved  # what the table holds is what a rebuild finds: nothing said saved is lost


@pytest.mark.parametrize("alias", ["link", "D/../D", "D/."])
def test_a_writer_through_another_name_of_the_folder_is_refused(alias: str, tiny_gpt2: Path, cache_dir: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The lock is the folder's, whatever name reaches it: a symbolic link to it, `D/../D`, `D/.`."""
    out = cache_dir.parent / "D"
    out.mkdir()
    (cache_dir.parent / "link").symlink_to(out, target_is_directory=True)
    with locked(record_lock(out), wait=False, holder="pfcore run --suite semantic (a test)"):
        assert main(["run", "--suite", "syntax", "--construction", "let_alone", "--limit-blocks", "1",
                     "--model", str(tiny_gpt2), "--out", str(cache_dir.parent / alias)]) == 2
    assert "is being written by another pfcore command" in capsys.readouterr().err
    assert not (out / "manifest.json").exists()


def test_a_link_planted_at_the_locks_name_is_not_followed(tiny_gpt2: Path, cache_dir: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A link planted at the lock's (predictable) name, in a shared folder, made pfcore truncate the
    link's target and write its "pid ..." line there; now the lock is never opened through a link:
    the run is refused with one line, and the target keeps every byte."""
    out = cache_dir.parent / "D"
    victim = cache_dir.parent / "victim.txt"
    victim.write_text("precious\n")
    record_lock(out).symlink_to(victim)
    assert main(["run", "--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1",
                 "--model", str(tiny_gpt2), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "symbolic link" in err and err.count("\n") == 1
    assert victim.read_text() == "precious\n"
    assert not (out / "manifest.json").exists()
