"""A trajectory's run state (issue 19): any name (hub ids with "/", 300 characters) keeps its state;
"done" entries carry the settings and the weights that made their numbers, so anything different
runs again with the reason; one writer per name at a time; a damaged state is moved aside and
rebuilt from the run records. Real runs on the tiny checkpoint series, real processes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pfcore.cli import main
from pfcore.runs.trajectory_state import state_path
from pfcore.store.results import load_results

ROOT = Path(__file__).resolve().parents[2]
HUB_NAME = "EleutherAI/tiny-series"
LONG_NAME = "a-trajectory-named-at-length-" * 10 + "end"  # 293 characters: over any NAME_MAX


@pytest.fixture()
def series(checkpoint_series: Path, tmp_path: Path) -> Path:
    """Two checkpoints (step0, step8) copied for this test, so a weight file may change."""
    out = tmp_path / "series"
    for step in ("step0", "step8"):
        shutil.copytree(checkpoint_series / step, out / step)
    return out


def argv(series: Path, name: str, *extra: str) -> list[str]:
    """A small trajectory command line: semantic let_alone, 1 block unless `extra` says otherwise."""
    return ["trajectory", "--checkpoint-dir", str(series), "--name", name, "--suite", "semantic",
            "--construction", "let_alone", *(extra or ("--limit-blocks", "1"))]


def run_records(cache: Path) -> list[str]:
    """The run records under the cache."""
    runs = cache / "runs"
    return sorted(p.name for p in runs.iterdir()) if runs.is_dir() else []


def outcome(capsys: pytest.CaptureFixture[str]) -> tuple[list[str], str]:
    """The per-(checkpoint, suite) lines on stdout, and stderr."""
    out, err = capsys.readouterr()
    return [line for line in out.splitlines() if line.startswith("step")], err


@pytest.mark.parametrize("name", [HUB_NAME, LONG_NAME], ids=["hub-id", "300-chars"])
def test_any_name_keeps_its_state_under_a_safe_file_name(series: Path, cache_dir: Path, name: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Before: a "/" name scored step0 then exited 1 (FileNotFoundError .../ORG/NAME.tmp); a
    300-character name exited 1 before scoring (File name too long)."""
    assert main(argv(series, name)) == 0
    lines, _ = outcome(capsys)
    assert [line.split(":")[0] for line in lines] == ["step0 semantic", "step8 semantic"]
    path = state_path(name)
    assert path.parent == cache_dir / "trajectories" and len(path.name) < 100
    assert json.loads(path.read_text())["name"] == name  # the name as typed, kept inside
    table = load_results()
    assert sorted(table.loc[table["model"] == name, "revision"].unique()) == ["step0", "step8"]
    assert main(argv(series, name)) == 0
    lines, _ = outcome(capsys)
    assert lines and all(": done before" in line for line in lines)
    assert len(run_records(cache_dir)) == 2


def test_other_settings_run_again_and_say_why(series: Path, cache_dir: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Before: --limit-blocks 2 after 1 (or another --construction) printed "done before", scored
    nothing and exited 0: the old numbers stood for the new settings."""
    name = "settings"
    assert main(argv(series, name)) == 0
    capsys.readouterr()
    assert main(argv(series, name, "--limit-blocks", "2")) == 0
    lines, _ = outcome(capsys)
    assert [line for line in lines if "run again" in line] == [
        "step0 semantic: run again: limit_blocks was 1, now 2",
        "step8 semantic: run again: limit_blocks was 1, now 2"]
    assert len(run_records(cache_dir)) == 4
    assert main([*argv(series, name, "--limit-blocks", "2")[:-3], "much_less", "--limit-blocks", "2"]) == 0
    lines, _ = outcome(capsys)
    assert "step0 semantic: run again: constructions was [let_alone], now [much_less]" in lines
    # the trajectory's name now stands for the latest runs only: the earlier rows left the table
    state = json.loads(state_path(name).read_text())["done"]
    current = {f"pfcore run {Path(entry['record']).name}" for entry in state.values()}
    table = load_results()
    assert set(table.loc[table["model"] == name, "source"]) == current
    assert len(run_records(cache_dir)) == 6  # every record is kept on disk
    (cache_dir / "results" / "results.parquet").write_bytes(b"damaged")
    with pytest.warns(UserWarning, match="rebuilt it"):
        table = load_results()  # rebuilt from the records: the withdrawn rows stay out
    assert set(table.loc[table["model"] == name, "source"]) == current


def test_changed_weights_run_again(series: Path, cache_dir: Path, checkpoint_series: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Before: a checkpoint folder whose weights changed was "done before"."""
    name = "weights"
    assert main(argv(series, name)) == 0
    capsys.readouterr()
    shutil.copy(checkpoint_series / "step32" / "model.safetensors", series / "step8" / "model.safetensors")
    assert main(argv(series, name)) == 0
    lines, _ = outcome(capsys)
    assert lines[0].startswith("step0 semantic: done before")
    assert lines[1].startswith("step8 semantic: run again: weights changed")
    table = load_results()
    step8 = table[(table["model"] == name) & (table["revision"] == "step8")]
    assert step8["weights_sha256"].nunique() == 1  # only the new weights' rows stand
    assert main(argv(series, name)) == 0
    lines, _ = outcome(capsys)
    assert all(": done before" in line for line in lines)


def test_an_item_file_changed_in_place_runs_again(series: Path, cache_dir: Path, tmp_path: Path, lexicon,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The same --items path with other items in it: the item set the records hold differs."""
    from pfcore.items import generate_semantic, write_items

    items = generate_semantic(lexicon, "let_alone")[:24]  # three blocks of 8 rows
    path = tmp_path / "items.jsonl"
    write_items(items[:16], path, "jsonl")
    command = [*argv(series, "items", "--limit-blocks", "1"), "--items", str(path)]
    assert main(command) == 0
    capsys.readouterr()
    assert main(command) == 0
    assert all(": done before" in line for line in outcome(capsys)[0])
    write_items(items[8:], path, "jsonl")  # the first block is another one now
    assert main(command) == 0
    lines, _ = outcome(capsys)
    assert [line.split(" (item set")[0] for line in lines if "run again" in line] == [
        "step0 semantic: run again: the items changed", "step8 semantic: run again: the items changed"]


HOLDER = """
import sys, time
from pathlib import Path
from pfcore.cli import main
from pfcore.runs import trajectory
started, go = Path(sys.argv[1]), Path(sys.argv[2])
real = trajectory.run_suite
def held(*args, **kwargs):
    started.touch()
    while not go.exists():
        time.sleep(0.05)
    return real(*args, **kwargs)
trajectory.run_suite = held
sys.exit(main(sys.argv[3:]))
"""


def test_a_second_writer_of_one_name_is_refused_at_once(series: Path, cache_dir: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Before: two trajectories of one name shared one .tmp file; one lost its entries and a rerun
    added duplicate run records."""
    name = "together"
    started, go = tmp_path / "started", tmp_path / "go"
    env = {**os.environ, "PFCORE_CACHE": str(cache_dir), "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen([sys.executable, "-c", HOLDER, str(started), str(go), *argv(series, name)],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not started.exists():
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the first trajectory never started scoring"
            time.sleep(0.05)
        assert main(argv(series, name)) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "another process" in err and name in err
    finally:
        go.touch()
        out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert len(run_records(cache_dir)) == 2
    assert len(json.loads(state_path(name).read_text())["done"]) == 2
    assert main(argv(series, name)) == 0  # the lock is gone with its holder
    assert all(": done before" in line for line in outcome(capsys)[0])


@pytest.mark.parametrize("damage", ['{"name": "dam', "[1, 2]", '{"name": "damaged", "done": [1, 2]}'],
                         ids=["truncated", "a-list", "entries-a-list"])
def test_a_damaged_state_is_moved_aside_and_rebuilt_from_the_run_records(
        series: Path, cache_dir: Path, damage: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: a truncated state made every rerun exit 1 (JSONDecodeError); `[1,2]` exited 1 after
    scoring (TypeError)."""
    name = "damaged"
    assert main(argv(series, name)) == 0
    capsys.readouterr()
    records = run_records(cache_dir)
    path = state_path(name)
    path.write_text(damage)
    assert main(argv(series, name)) == 0
    lines, err = outcome(capsys)
    assert all(": done before" in line for line in lines) and len(lines) == 2
    assert err.startswith("warning: ") and "moved it aside" in err and "rebuilt" in err
    assert run_records(cache_dir) == records  # nothing scored again
    aside = [p for p in path.parent.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_text() == damage
    assert len(json.loads(path.read_text())["done"]) == 2


def test_a_missing_state_is_rebuilt_from_the_run_records(series: Path, cache_dir: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The run records are the truth: without a state file (deleted, or kept under an older
    name) the finished runs are found again, not run twice."""
    name = "rebuilt"
    assert main(argv(series, name)) == 0
    state_path(name).unlink()
    capsys.readouterr()
    assert main(argv(series, name, "--limit-blocks", "2")) == 0
    lines, err = outcome(capsys)
    assert [line for line in lines if "run again" in line] == [
        "step0 semantic: run again: limit_blocks was 1, now 2",
        "step8 semantic: run again: limit_blocks was 1, now 2"]
    assert "warning" not in err


def test_json_output_lists_the_finished_runs(series: Path, cache_dir: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv(series, HUB_NAME), "--json"]) == 0
    out, _ = capsys.readouterr()
    done = json.loads(out)
    assert sorted((d["checkpoint"], d["suite"]) for d in done) == [("step0", "semantic"), ("step8", "semantic")]
    assert {"record", "step", "model", "revision"} <= set(done[0])
