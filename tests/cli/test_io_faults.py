"""Issue 19's records, refusals and reads, each reproduced: a full disk, a read-only or forbidden
folder and a name too long give exit 2 and one line naming the path and the remedy, with no half
record and nothing in the cache or the results table changed; a run record's manifest is written
last and the rebuild of the table imports whole records only; a FIFO, a device or a folder given as
a file is refused at once; and no reader's message repeats the file it read."""
from __future__ import annotations

import errno
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.files import FileKind
from pfcore.items.syntaxgym import STIMULI_FILE
from pfcore.store.cache import TABLE, ScoreCache
from pfcore.store.results import load_results, results_path

REPO = Path(__file__).resolve().parents[2]
RUN = ["run", "--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "2"]
RECORD_FILES = ["decisions.csv", "manifest.json", "outputs_summary.tsv", "results.csv", "rows.csv", "summary.csv"]


# ---------------------------------------------------------------- helpers

def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Exit status and stderr of one command line through the CLI's boundary, in this process."""
    status = main(args)
    return status, capsys.readouterr().err


def one_line(err: str) -> str:
    """The one line of stderr (warnings aside), checked to be one line and no traceback."""
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("warning:")
             and "it/s]" not in line and not line.startswith("semantic [")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def cached_rows(cache: Path) -> int:
    """How many scores the cache file holds (0 when there is none)."""
    path = cache / "scores.sqlite"
    if not path.is_file():
        return 0
    with sqlite3.connect(path) as conn:
        return int(conn.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0])


def table_bytes() -> bytes:
    """The stored results table's bytes (b"" when there is none)."""
    path = results_path()
    return path.read_bytes() if path.is_file() else b""


def run_folders(cache: Path) -> list[Path]:
    """The folders under the cache's runs/."""
    runs = cache / "runs"
    return sorted(runs.iterdir()) if runs.is_dir() else []


@pytest.fixture()
def mounted(tmp_path: Path) -> Iterator[Callable[..., Path]]:
    """mount(size, read_only=False): a small tmpfs (unmounted after the test); skips where this
    machine cannot mount one (not root, or in a container that forbids it)."""
    mounts: list[Path] = []

    def mount(size: str = "4m", read_only: bool = False) -> Path:
        folder = tmp_path / f"disk{len(mounts)}"
        folder.mkdir()
        options = f"size={size}" + (",ro" if read_only else "")
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
                              capture_output=True, text=True)
        if done.returncode:
            pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or 'mount failed'}); the injected "
                        "faults below cover the same code")
        mounts.append(folder)
        return folder

    yield mount
    for folder in reversed(mounts):
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def fill(disk: Path, leave: int) -> Path:
    """Fill a tmpfs until `leave` bytes are free; the filler file's path (remove it to free them)."""
    filler = disk / "filler"
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    with filler.open("wb") as handle:
        handle.truncate(0)
        left = max(0, free - leave)
        while left > 0:
            chunk = min(left, 1 << 20)
            handle.write(b"\0" * chunk)
            left -= chunk
    return filler


# ---------------------------------------------------------------- a full disk while recording

def test_full_disk_while_recording_leaves_no_half_record(tiny_gpt2: Path, mounted: Callable[..., Path],
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case, on a real full disk: at every amount of free space around a record's
    size, `run` either finishes or exits 2 with one line naming the file; it never leaves a folder
    that counts as finished without being whole, never changes the table when it fails, and a
    rebuild of the table afterwards holds whole runs only (every run 4 metrics, full weight hash)."""
    disk = mounted("4m")
    cache = disk / "cache"
    monkeypatch.setenv("PFCORE_CACHE", str(cache))
    args = [*RUN, "--model", str(tiny_gpt2)]
    assert run_cli(args, capsys)[0] == 0  # the scores are cached: later runs only write records
    statuses = set()
    for leave in range(24 << 10, 112 << 10, 4 << 10):
        table = table_bytes()
        filler = fill(disk, leave)
        status, err = run_cli(args, capsys)
        filler.unlink()
        statuses.add(status)
        assert status in (0, 2), err
        if status == 2:
            line = one_line(err)
            assert str(cache) in line and "free some space" in line, line
            assert table_bytes() == table, f"the table changed in a failed run ({leave} bytes free)"
        for folder in run_folders(cache):
            assert sorted(p.name for p in folder.iterdir()) == RECORD_FILES, (leave, folder)
    assert statuses == {0, 2}
    results_path().write_bytes(b"damaged")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = load_results()
    per_run = table.groupby("source")
    assert per_run.size().nunique() == 1 and len(per_run) == len(run_folders(cache))
    assert (per_run["metric"].nunique() == 4).all()
    assert table["weights_sha256"].str.fullmatch("[0-9a-f]{64}").all()


def failing_nth_write(n: int, under: Path, code: int = errno.ENOSPC) -> Callable[..., Any]:
    """A stand-in for Path.write_bytes that fails with `code` on its n-th call for a file under
    `under` (a record's files are written through it: see files.write_atomic_set)."""
    real = Path.write_bytes
    calls = [0]

    def write_bytes(self: Path, data: bytes) -> int:
        if under in self.parents:
            calls[0] += 1
            if calls[0] == n:
                raise OSError(code, os.strerror(code), str(self))
        return real(self, data)

    return write_bytes


@pytest.mark.parametrize("n", range(1, len(RECORD_FILES) + 1))
def test_a_failed_write_of_any_record_file_leaves_nothing(n: int, tiny_gpt2: Path, cache_dir: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """ENOSPC injected at the n-th file of the record (portable: no mount needed): exit 2, one line
    naming that file, no run folder left, the results table as it was."""
    args = [*RUN, "--model", str(tiny_gpt2)]
    assert run_cli(args, capsys)[0] == 0
    before, table = run_folders(cache_dir), table_bytes()
    monkeypatch.setattr(Path, "write_bytes", failing_nth_write(n, cache_dir / "runs"))
    status, err = run_cli(args, capsys)
    line = one_line(err)
    assert status == 2 and "No space left on device" in line and "the disk is full" in line, line
    assert str(cache_dir / "runs") in line
    assert run_folders(cache_dir) == before and table_bytes() == table


def test_a_failed_rerun_into_out_keeps_the_earlier_record(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A second run into the same --out folder that fails while writing leaves the first record
    whole: the same files, the same bytes, its manifest still there."""
    out = tmp_path / "record"
    args = [*RUN, "--model", str(tiny_gpt2), "--out", str(out)]
    assert run_cli(args, capsys)[0] == 0
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    monkeypatch.setattr(Path, "write_bytes", failing_nth_write(3, out))
    assert run_cli(args, capsys)[0] == 2
    assert {p.name: p.read_bytes() for p in out.iterdir()} == first


# ---------------------------------------------------------------- the rebuild

def copy_record(folder: Path, name: str, cut: Callable[[bytes], bytes] | None = None,
                manifest: bool = True) -> Path:
    """A copy of a record beside it under another run id (and source), its results.csv cut by
    `cut`, with or without its manifest."""
    copy = folder.parent / name
    copy.mkdir()
    for path in folder.iterdir():
        data = path.read_bytes().replace(folder.name.encode(), name.encode())
        if path.name == "results.csv" and cut is not None:
            data = cut(data)
        if path.name != "manifest.json" or manifest:
            (copy / path.name).write_bytes(data)
    return copy


def test_rebuild_imports_whole_records_only(tiny_gpt2: Path, cache_dir: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A damaged table is rebuilt from whole records only: a folder without a manifest (an
    unfinished run), a manifest beside a results.csv cut mid-row (what the old order left on a
    full disk), or cut at a line end, are left out with one warning saying how many and why."""
    assert run_cli([*RUN, "--model", str(tiny_gpt2)], capsys)[0] == 0
    (whole,) = run_folders(cache_dir)
    rows = pd.read_csv(whole / "results.csv")
    copy_record(whole, "20000101-000000-000001-unfinished", manifest=False)
    copy_record(whole, "20000101-000000-000002-cut-mid-row", cut=lambda data: data[:len(data) // 2])
    copy_record(whole, "20000101-000000-000003-cut-at-line-end",
                cut=lambda data: b"".join(data.splitlines(keepends=True)[:20]))
    results_path().write_bytes(b"damaged")
    with pytest.warns(UserWarning) as caught:
        table = load_results()
    assert set(table["source"]) == {f"pfcore run {whole.name}"} and len(table) == len(rows)
    skipped = [str(w.message) for w in caught if "left 3 run folders out" in str(w.message)]
    assert len(skipped) == 1, [str(w.message) for w in caught]
    assert "1 without manifest.json" in skipped[0] and "2 whose results.csv" in skipped[0]


# ---------------------------------------------------------------- refusals before any scoring

def test_read_only_out_is_refused_before_scoring(tiny_gpt2: Path, cache_dir: Path, mounted: Callable[..., Path],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """An existing --out folder on a read-only file system: exit 2 naming it, and nothing scored
    (the record would have been lost after all the scoring)."""
    out = mounted("1m", read_only=True)
    status, err = run_cli([*RUN, "--model", str(tiny_gpt2), "--out", str(out)], capsys)
    line = one_line(err)
    assert status == 2 and str(out) in line and "read-only" in line, line
    assert cached_rows(cache_dir) == 0


@pytest.mark.parametrize("code, words", [(errno.EROFS, "read-only"), (errno.EACCES, "permission denied"),
                                         (errno.ENOSPC, "the disk is full")])
def test_unwritable_out_is_refused_before_scoring(code: int, words: str, tiny_gpt2: Path, cache_dir: Path,
                                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The machine refusing a file in --out (injected, as root ignores permission bits): exit 2,
    one line with the folder and the remedy, nothing scored, no record."""
    out = tmp_path / "out"
    out.mkdir()
    real = tempfile.mkstemp

    def refused(*args: Any, **kwargs: Any) -> tuple[int, str]:
        if Path(kwargs.get("dir") or "") == out:
            raise OSError(code, os.strerror(code), str(out))
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    status, err = run_cli([*RUN, "--model", str(tiny_gpt2), "--out", str(out)], capsys)
    line = one_line(err)
    assert status == 2 and str(out) in line and words in line, line
    assert cached_rows(cache_dir) == 0 and list(out.iterdir()) == []


def test_unwritable_score_out_is_refused_before_scoring(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path,
                                                        mounted: Callable[..., Path],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`score --file F --out` into a read-only folder is refused before the file is scored."""
    stimuli = tmp_path / "stimuli.csv"
    stimuli.write_text("sentence\nThe cat sat on the mat.\nThe dogs were barking.\n")
    out = mounted("1m", read_only=True) / "words.csv"
    status, err = run_cli(["score", "--file", str(stimuli), "--out", str(out), "--model", str(tiny_gpt2)], capsys)
    line = one_line(err)
    assert status == 2 and "read-only" in line and str(out.parent) in line, line
    assert cached_rows(cache_dir) == 0


def test_read_only_items_out_is_refused_before_the_items_are_built(mounted: Callable[..., Path],
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """`items --out` into a read-only folder is refused before the items are built (until 2026-12-05
    every item was generated first, seconds of work, and then the write failed)."""
    from pfcore.cli import items as items_cli

    def built(*_args: Any, **_kwargs: Any) -> list[Any]:
        raise AssertionError("the items were built for a place that cannot take them")

    monkeypatch.setattr(items_cli, "GENERATORS", dict.fromkeys(items_cli.GENERATORS, built))
    out = mounted("1m", read_only=True) / "items.jsonl"
    status, err = run_cli(["items", "semantic", "--out", str(out)], capsys)
    line = one_line(err)
    assert status == 2 and "read-only" in line and str(out.parent) in line, line


LONG = "n" * 300


@pytest.mark.parametrize("make_args", [
    lambda t, m: [*RUN, "--model", m, "--out", str(t / LONG)],
    lambda t, m: [*RUN, "--model", m, "--out", str(t / LONG / "record")],
    lambda t, m: ["score", "--file", str(t / f"{LONG}.csv"), "--model", m],
    lambda t, m: ["score", "--file", str(t / "s.csv"), "--out", str(t / f"{LONG}.csv"), "--model", m],
    lambda t, m: ["items", "semantic", "--construction", "let_alone", "--out", str(t / f"{LONG}.csv")],
    lambda t, m: ["items", "check", str(t / f"{LONG}.jsonl")],
], ids=["run --out", "run --out under it", "score --file", "score --out", "items --out", "items check"])
def test_names_too_long_are_input_errors(make_args: Callable[[Path, str], list[str]], tiny_gpt2: Path,
                                         cache_dir: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A 300-character file name is refused with exit 2 and one line, before any scoring."""
    (tmp_path / "s.csv").write_text("sentence\nThe cat sat on the mat.\n")
    status, err = run_cli(make_args(tmp_path, str(tiny_gpt2)), capsys)
    line = one_line(err)
    assert status == 2 and ("too long" in line or "File name too long" in line), line
    assert cached_rows(cache_dir) == 0


def test_cache_name_too_long_is_an_input_error(tiny_gpt2: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """PFCORE_CACHE naming a folder whose name is too long: exit 2, one line."""
    monkeypatch.setenv("PFCORE_CACHE", str(tmp_path / LONG))
    status, err = run_cli(["score", "--sentence", "The cat sat on the mat.", "--model", str(tiny_gpt2)], capsys)
    assert status == 2 and "too long" in one_line(err)


# ---------------------------------------------------------------- the score cache

class FullDiskConnection:
    """A SQLite connection whose inserts fail as SQLite's do on a full disk."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)

    def __enter__(self) -> Any:
        return self.conn.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self.conn.__exit__(*exc)

    def executemany(self, *_args: Any) -> Any:
        """Refuse, as SQLite does when the disk is full."""
        raise sqlite3.OperationalError("database or disk is full")


def test_full_disk_while_scoring_names_the_cache(tiny_gpt2: Path, cache_dir: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """SQLite's "database or disk is full" while storing scores: exit 2, one line naming the cache
    file and the remedy; the scores stored before stay, and the cache is not taken for corrupt."""
    assert run_cli([*RUN, "--model", str(tiny_gpt2)], capsys)[0] == 0
    stored = cached_rows(cache_dir)
    real = ScoreCache._connect
    monkeypatch.setattr(ScoreCache, "_connect", lambda self: FullDiskConnection(real(self)))
    status, err = run_cli([*RUN[:-1], "4", "--model", str(tiny_gpt2)], capsys)
    line = one_line(err)
    assert status == 2 and str(cache_dir / "scores.sqlite") in line and "the disk is full" in line, line
    assert cached_rows(cache_dir) == stored and not list(cache_dir.glob("scores.sqlite.corrupt-*"))


def test_a_full_disk_is_not_a_corrupt_cache(tiny_gpt2: Path, mounted: Callable[..., Path],
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """On a disk with no byte left, opening the cache fails; that is the machine's refusal (exit
    2, one line), not damage: the cache is not moved aside, its scores all stay."""
    disk = mounted("2m")
    cache = disk / "cache"
    monkeypatch.setenv("PFCORE_CACHE", str(cache))
    assert run_cli([*RUN, "--model", str(tiny_gpt2)], capsys)[0] == 0
    stored = cached_rows(cache)
    fill(disk, 0)
    for args in ([*RUN[:-1], "4"], ["score", "--sentence", "A dog barked at the mailman."]):
        status, err = run_cli([*args, "--model", str(tiny_gpt2)], capsys)
        line = one_line(err)
        assert status == 2 and str(cache) in line, line
        assert not list(cache.glob("scores.sqlite.corrupt-*")) and cached_rows(cache) == stored


# ---------------------------------------------------------------- converting the default model

class SafetensorError(Exception):
    """safetensors' error type, by name (environment_errno reads it by its words)."""


class FullDiskModel:
    """A converted model whose weights stop half-written, as safetensors does on a full disk."""

    generation_config = None

    def save_pretrained(self, folder: Path, **_kwargs: Any) -> None:
        """Write part of the weights, then fail as safetensors does."""
        (Path(folder) / "model.safetensors").write_bytes(b"\0" * 4096)
        raise SafetensorError("Error while serializing: I/O error: No space left on device (os error 28)")


def test_converting_into_a_full_cache_leaves_nothing(cache_dir: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A conversion that runs out of disk: exit 2, one line naming the models folder and the
    remedy; the half-written temporary folder is removed (the empty lock file that keeps a second
    conversion waiting stays)."""
    from pfcore.models import gguf_convert

    gguf = tmp_path / "toy.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 28)

    class Tokenizer:
        pad_token_id = 0

        def save_pretrained(self, folder: Path) -> None:
            (Path(folder) / "tokenizer.json").write_text("{}")

    monkeypatch.setattr(gguf_convert, "_read_gguf", lambda source: (Tokenizer(), FullDiskModel()))
    monkeypatch.setattr(gguf_convert, "_metadata", lambda source: {})
    status, err = run_cli(["score", "--sentence", "The cat sat on the mat.", "--model", str(gguf)], capsys)
    line = one_line(err)
    models = cache_dir / "models"
    assert status == 2 and str(models / "toy") in line and "the disk is full" in line, line
    assert [p.name for p in models.iterdir()] == ["toy.lock"]  # only the conversion's lock: an empty file
    assert (models / "toy.lock").stat().st_size == 0


# ---------------------------------------------------------------- bounded reads

def run_pfcore(args: list[str], timeout: float = 60, memory: int | None = None) -> subprocess.CompletedProcess[str]:
    """pfcore in a subprocess of this tree (a hang or a memory blow-up must not take the test
    run with it); `memory` caps its address space in bytes."""
    def limit() -> None:
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "pfcore", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, preexec_fn=limit)


@pytest.fixture()
def fifo(tmp_path: Path) -> Path:
    """A named pipe nobody writes to (opening it for reading would block forever)."""
    path = tmp_path / "stimuli.csv"
    os.mkfifo(path)
    return path


def test_score_file_on_a_fifo_is_refused_at_once(fifo: Path, tiny_gpt2: Path, cache_dir: Path) -> None:
    """`score --file` on a FIFO used to hang; now: exit 2 in well under the time limit."""
    started = time.monotonic()
    try:
        done = run_pfcore(["score", "--file", str(fifo), "--model", str(tiny_gpt2)], timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("score --file on a FIFO hangs")
    assert done.returncode == 2 and "named pipe (FIFO)" in done.stderr, done.stderr
    assert time.monotonic() - started < 60


def test_score_file_on_dev_zero_is_refused_unread(tiny_gpt2: Path, cache_dir: Path) -> None:
    """`score --file /dev/zero` used to grow until MemoryError (exit 1); now exit 2 at once, within
    a 4 GB address space."""
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero on this machine")
    try:
        done = run_pfcore(["score", "--file", "/dev/zero", "--model", str(tiny_gpt2)], timeout=120, memory=4 << 30)
    except subprocess.TimeoutExpired:
        pytest.fail("score --file /dev/zero does not stop")
    assert done.returncode == 2 and "a device, not a regular file" in done.stderr, done.stderr


def readers() -> dict[str, Callable[[Path], object]]:
    """Every reader of a user's file, by name."""
    from pfcore.items.formats import read_item_file
    from pfcore.items.lexicon import load_lexicon
    from pfcore.items.syntaxgym import read_long_csv, read_stimuli_csv, read_suite
    from pfcore.store.published_tsv import read_published_file
    from pfcore.sweep.plan import load_plan
    from pfcore.views.stimuli import read_stimuli_file

    return {"stimuli file": read_stimuli_file, "suite": read_suite, "long CSV": read_long_csv,
            "stimuli CSV": read_stimuli_csv, "item file": read_item_file, "lexicon": load_lexicon,
            "sweep plan": load_plan, "published summary": lambda p: read_published_file(p, "test")}


@pytest.mark.parametrize("reader", sorted(readers()))
def test_every_reader_refuses_a_fifo_a_device_and_a_folder(reader: str, fifo: Path, tmp_path: Path) -> None:
    """Each reader refuses what is not a regular file before reading it (a FIFO would block: the
    refusal comes from its stat, so this test cannot hang on it)."""
    targets = [fifo, tmp_path] + ([Path("/dev/zero")] if Path("/dev/zero").exists() else [])
    for target in targets:
        with pytest.raises(InputError, match="not a regular file") as caught:
            readers()[reader](target)
        assert str(target) in str(caught.value)


def test_open_regular_checks_the_opened_file_too(tmp_path: Path, fifo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A FIFO put in the place of a file between the check and the open (stat said regular) is
    opened without blocking and refused by its fstat."""
    from pfcore import files

    real_stat = os.stat
    regular = real_stat(Path(files.__file__))
    monkeypatch.setattr(files.os, "stat", lambda path, *a, **k: regular if Path(path) == fifo else real_stat(path))
    with pytest.raises(InputError, match="named pipe"):
        files.read_bounded(fifo, STIMULI_FILE)


def test_caps_refuse_larger_files_and_keep_real_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 20,000-row stimuli CSV and a 10 MB SyntaxGym suite read; a file over its kind's cap is
    refused (the cap lowered to test it), however it is read."""
    from pfcore.items import syntaxgym
    from pfcore.views.stimuli import read_stimuli_file

    stimuli = tmp_path / "stimuli.csv"
    stimuli.write_text("item,sentence\n" + "".join(f"{i},The cat number {i} sat on the mat.\n" for i in range(20_000)))
    assert len(read_stimuli_file(stimuli).texts) == 20_000
    suite = tmp_path / "big.json"
    items = [{"item_number": i, "conditions": [
        {"condition_name": name, "regions": [{"region_number": 1, "content": f"The keys {i} on the {name} table"},
                                             {"region_number": 2, "content": verb}]}
        for name, verb in (("good", "are here ."), ("bad", "is here ."))]} for i in range(1, 45_000)]
    suite.write_text(json.dumps({"meta": {"name": "big", "metric": "sum"}, "region_meta": {"1": "a", "2": "b"},
                                 "predictions": [{"type": "formula", "formula": "(2;%good%) < (2;%bad%)"}],
                                 "items": items}))
    assert suite.stat().st_size > 10_000_000
    assert len(read_stimuli_file(suite).texts) == 2 * 44_999
    monkeypatch.setattr(syntaxgym, "STIMULI_FILE", FileKind("stimuli file", 1 << 16))
    monkeypatch.setattr(syntaxgym, "SUITE_FILE", FileKind("SyntaxGym suite", 1 << 16))
    for path, kind in ((stimuli, "stimuli file"), (suite, "SyntaxGym suite")):
        with pytest.raises(InputError, match=f"the {kind} is larger than 64 KiB"):
            read_stimuli_file(path)


def test_an_upload_over_the_cap_is_refused_unwritten(monkeypatch: pytest.MonkeyPatch) -> None:
    """An uploaded stimuli file larger than its kind's cap is refused before it is written."""
    from pfcore.items import syntaxgym
    from pfcore.views import stimuli

    monkeypatch.setattr(syntaxgym, "STIMULI_FILE", FileKind("stimuli file", 1000))
    monkeypatch.setattr(stimuli, "write_atomic", lambda *a: pytest.fail("the upload was written"))
    with pytest.raises(InputError, match="mine.csv: the stimuli file is larger than"):
        stimuli.stimuli_from_upload("mine.csv", b"sentence\n" + b"A cat sat.\n" * 200)


def test_stimuli_lines_stream_with_their_line_numbers(tmp_path: Path) -> None:
    """The line stream keeps the csv module's view of a file: CR LF, a lone CR and a BOM; a line
    that is not UTF-8 is named by its number."""
    from pfcore.files import text_lines

    path = tmp_path / "s.csv"
    path.write_bytes(b"\xef\xbb\xbfsentence\r\nA cat.\rA dog.\nA b\xe9e.\n")
    lines = text_lines(path, STIMULI_FILE)
    assert [next(lines) for _ in range(3)] == ["sentence\r\n", "A cat.\r", "A dog.\n"]
    with pytest.raises(InputError, match=r"s.csv:4: not UTF-8 text"):
        next(lines)


# ---------------------------------------------------------------- messages never repeat a file

def environment_values() -> list[str]:
    """The values in /proc/self/environ long enough to be recognised in a message."""
    raw = Path("/proc/self/environ").read_bytes().decode("utf-8", "replace")
    values = [entry.partition("=")[2] for entry in raw.split("\0") if "=" in entry]
    return [v for v in values if len(v) >= 8 and v not in "/proc/self/environ"]


@pytest.fixture()
def environ() -> Path:
    """/proc/self/environ (a "regular" file of size 0), skipped where there is none."""
    path = Path("/proc/self/environ")
    if not path.is_file() or not environment_values():
        pytest.skip("no /proc/self/environ with values to look for on this machine")
    return path


@pytest.mark.parametrize("reader", sorted(readers()))
def test_no_reader_repeats_the_environment(reader: str, environ: Path) -> None:
    """Each reader on /proc/self/environ says what is wrong without quoting any of it."""
    try:
        readers()[reader](environ)
    except InputError as exc:
        leaked = [v for v in environment_values() if v in str(exc)]
        assert not leaked, f"{len(leaked)} environment values in: {str(exc)[:200]}"
    else:
        pytest.fail("the environment read as a valid file")


SECRET = "s3cr3t-t0ken-4f9a"


@pytest.mark.parametrize("name, content", [
    ("a.csv", f"{SECRET},other\n1,2\n"),
    ("b.csv", f"sentence,{SECRET}\n,x\n"),
    ("c.csv", f"item_number,condition_name,region_number,region_name,content\n{SECRET},a,1,r,x\n"),
    ("d.csv", f"item_number,condition_name,region_number,region_name,content\n1,a,1,r,x\n1,a,1,{SECRET},x\n"),
    ("e.json", json.dumps({"meta": {"name": SECRET}, "region_meta": {SECRET: 1}})),
    ("f.json", json.dumps({"meta": {"name": SECRET}, "region_meta": {"1": "r"}, "items": [],
                           "predictions": [{"type": SECRET}]})),
    ("g.json", json.dumps({"meta": {"name": SECRET}, "region_meta": {"1": "r"},
                           "predictions": [{"type": "formula", "formula": f"(1;%{SECRET}%) <"}], "items": [
                               {"item_number": 1, "conditions": [{"condition_name": SECRET, "regions": [
                                   {"region_number": 1, "content": "x"}]}]}]})),
    ("h.tsv", f"revision\tconstruction\t{SECRET}\nstep1\tletalone\t0.5\n"),
    ("i.tsv", f"revision\tconstruction\ttest_type\t{SECRET}\nstep1\tletalone\tx\tnot-a-number\n"),
    ("j.jsonl", json.dumps({"pfcore_items": {"kind": SECRET}}) + "\n" + json.dumps({SECRET: 1}) + "\n"),
    ("k.tsv", f"{SECRET}\tx\n1\t2\n"),
])
def test_messages_never_quote_a_file(name: str, content: str, tmp_path: Path) -> None:
    """Files with a secret where a header, a name, a cell or a formula would be: every reader that
    refuses them says what is wrong without the secret."""
    path = tmp_path / name
    path.write_text(content)
    refused = 0
    for reader in readers().values():
        try:
            reader(path)
        except InputError as exc:
            refused += 1
            assert SECRET not in str(exc), str(exc)
    assert refused


def test_stimuli_page_shows_nothing_of_the_environment(tiny_gpt2: Path, cache_dir: Path, environ: Path) -> None:
    """The Stimuli page's path box with /proc/self/environ: one error, none of the environment."""
    from tests.app_helpers import page, texts

    at = page("pages/6_Stimuli.py", tiny_gpt2)
    at.session_state["stimuli_path"] = str(environ)
    at.run()
    assert len(at.error) == 1 and not at.exception
    shown = " ".join(texts(at.error) + texts(at.markdown) + texts(at.info) + texts(at.caption))
    assert not [v for v in environment_values() if v in shown]


def test_cli_messages_never_repeat_the_environment(environ: Path, tiny_gpt2: Path, cache_dir: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`score --file`, `items check` and `run --items` on /proc/self/environ: exit 2 (items check:
    1, its problems found), and no environment value in anything they print."""
    for args, expected in ((["score", "--file", str(environ), "--model", str(tiny_gpt2)], 2),
                           (["items", "check", str(environ)], 1),
                           ([*RUN, "--items", str(environ), "--model", str(tiny_gpt2)], 2)):
        status = main(args)
        out, err = capsys.readouterr()
        assert status == expected, err
        assert not [v for v in environment_values() if v in out + err], args
