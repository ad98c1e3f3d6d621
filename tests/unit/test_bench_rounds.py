"""The benchmarks' timing in rounds (benchmarks/rounds.py): the sides take turns in mirrored order,
the report is each side's median and the median per-round ratio with its range; and the scoring,
host-side and words benchmarks run end to end on the tiny GPT-2 (one Python runs the three), each
ending with its JSON line (old keys and new)."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.rounds import Rounds, alternate, order, rounds_option

ROOT = Path(__file__).resolve().parents[2]
RATIO_KEYS = {"ratio", "ratio_min", "ratio_max", "ratios", "rounds"}


def test_sides_take_turns_in_mirrored_order() -> None:
    assert order(["a", "b"], 4) == [["a", "b"], ["b", "a"], ["a", "b"], ["b", "a"]]
    calls: list[str] = []
    timed = alternate({"a": lambda: calls.append("a") or 1, "b": lambda: calls.append("b") or 2}, 3)
    assert calls == ["a", "b", "b", "a", "a", "b"]
    assert [len(timed.seconds[s]) for s in "ab"] == [3, 3] and timed.first == {"a": 1, "b": 2}


def test_a_warm_up_call_is_not_timed() -> None:
    calls: list[str] = []
    timed = alternate({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 3, warm_up=True)
    assert calls == ["a", "b", "a", "b", "b", "a", "a", "b"] and len(timed.seconds["a"]) == 3


def test_the_ratio_is_the_median_of_each_rounds_ratio_with_its_range() -> None:
    timed = Rounds({"slow": [4.0, 9.0, 6.0], "fast": [2.0, 3.0, 1.0]}, {})
    assert timed.ratios("slow", "fast") == [2.0, 3.0, 6.0]
    assert timed.ratio("slow", "fast") == {"ratio": 3.0, "ratio_min": 2.0, "ratio_max": 6.0,
                                           "ratios": [2.0, 3.0, 6.0], "rounds": 3}
    assert timed.median("slow") == 6.0 and timed.rates("fast", 6) == [3.0, 2.0, 6.0]


def test_fewer_than_three_rounds_are_refused() -> None:
    parser = argparse.ArgumentParser()
    rounds_option(parser)
    assert parser.parse_args([]).rounds == 3 and parser.parse_args(["--rounds", "5"]).rounds == 5
    with pytest.raises(SystemExit):
        parser.parse_args(["--rounds", "2"])


# Each benchmark with tiny settings (the tiny GPT-2's path is added as --model).
RUNS = {"bench_scoring.py": ["--blocks", "1", "--threads", "1"],
        "bench_host_side.py": ["--blocks", "1", "--repeats", "3"],
        "bench_words.py": ["--sentences", "20", "--threads", "1"]}
# One Python runs the three scripts in turn, as `python benchmarks/SCRIPT ...` would (runpy, __main__),
# each output after a line naming it: the start and the imports of torch and minicons (some 5 s) once.
RUN_ALL = """import runpy, sys
sys.path.insert(0, {folder!r})  # as a script's own folder is, for its imports of benchmarks/rounds.py
for script, args in {runs!r}.items():
    print("=== " + script, flush=True)
    sys.argv = [script, *args]
    runpy.run_path({folder!r} + "/" + script, run_name="__main__")
"""


@pytest.fixture(scope="module")
def last_lines(tiny_gpt2: Path) -> dict[str, dict[str, object]]:
    """Each benchmark's last line, parsed, from one run of all three end to end."""
    runs = {script: [*args, "--model", str(tiny_gpt2)] for script, args in RUNS.items()}
    done = subprocess.run([sys.executable, "-c", RUN_ALL.format(runs=runs, folder=str(ROOT / "benchmarks"))],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    sections = done.stdout.split("=== ")[1:]
    return {section.split("\n", 1)[0]: json.loads(section.strip().splitlines()[-1]) for section in sections}


def check_ratio(found: dict[str, object]) -> None:
    """The ratio fields: the median within its range, one ratio per round."""
    assert RATIO_KEYS <= set(found)
    ratios = found["ratios"]
    assert isinstance(ratios, list) and len(ratios) == found["rounds"] == 3
    assert found["ratio_min"] <= found["ratio"] <= found["ratio_max"]


@pytest.mark.slow  # a subprocess importing torch and minicons, three rounds of each scorer
def test_the_scoring_benchmark_reports_medians_and_the_ratios_range(last_lines: dict[str, dict[str, object]]) -> None:
    found = last_lines["bench_scoring.py"]
    check_ratio(found)
    assert {"pfcore_items_per_s", "minicons_items_per_s", "max_abs_diff", "items"} <= set(found)
    assert len(found["pfcore_items_per_s_rounds"]) == len(found["minicons_items_per_s_rounds"]) == 3
    assert found["max_abs_diff"] < 1e-4
    assert found["device"] == "cpu"  # --device auto where torch sees no GPU


@pytest.mark.slow  # the same subprocess
def test_the_host_side_benchmark_reports_microseconds_per_request(last_lines: dict[str, dict[str, object]]) -> None:
    found = last_lines["bench_host_side.py"]
    assert found["requests"] > 0 and len(found["us_per_request"]) == 3
    assert 0 < found["us_per_request_min"] <= found["us_per_request_median"]
    assert abs(sum(found["stage_shares"].values()) - 1) < 1e-9


@pytest.mark.slow  # the same subprocess, three rounds of each
def test_the_words_benchmark_reports_medians_and_the_ratios_range(last_lines: dict[str, dict[str, object]]) -> None:
    found = last_lines["bench_words.py"]
    check_ratio(found)
    assert {"tokens_s", "words_s", "setup_s", "max_abs_diff", "tokens_s_rounds", "words_s_rounds"} <= set(found)
