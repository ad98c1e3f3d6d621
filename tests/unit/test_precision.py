"""A run in bfloat16 or float16 is marked where its results are read (the CLI summary, the record,
the tables the pages show and download), with the measured effect; mixed precisions are said."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from pfcore.analysis.precision import PRECISION, precision_notes, with_precision
from pfcore.cli import main
from pfcore.models.precision import mixed_note, precision_note

ARGS = ["run", "--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1"]


def test_the_note_says_what_bfloat16_was_measured_to_change() -> None:
    assert precision_note("float32") == ""
    note = precision_note("bfloat16")
    assert note.startswith("bfloat16: not the paper's precision") and "6% of decisions" in note
    assert "measured on one H200, 2026-12-04" in note
    assert "not measured" in precision_note("float16")
    assert mixed_note(["float32", "float32"]) == ""
    assert "mix precisions (bfloat16, float32)" in mixed_note(["float32", "bfloat16"])


def test_a_bfloat16_run_is_marked_in_the_cli_summary_and_its_record(tiny_gpt2: Path, cache_dir: Path,
                                                                     capsys) -> None:
    assert main([*ARGS, "--model", str(tiny_gpt2), "--dtype", "bfloat16"]) == 0
    out = capsys.readouterr().out
    assert "(causal, bfloat16 on cpu)" in out and f"note: {precision_note('bfloat16')}" in out
    assert main([*ARGS, "--model", str(tiny_gpt2), "--dtype", "bfloat16", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["dtype"] == "bfloat16" and summary["precision_note"] == precision_note("bfloat16")
    manifest = json.loads((Path(summary["record"]) / "manifest.json").read_text())
    assert manifest["settings"]["precision"] == precision_note("bfloat16")
    assert main([*ARGS, "--model", str(tiny_gpt2)]) == 0  # float32: no note
    assert "note:" not in capsys.readouterr().out


def test_tables_get_each_runs_precision_and_the_notes(tiny_gpt2: Path, cache_dir: Path, capsys) -> None:
    sources = {}
    for dtype in ("bfloat16", "float32"):
        assert main([*ARGS, "--model", str(tiny_gpt2), "--dtype", dtype, "--json"]) == 0
        sources[dtype] = "pfcore run " + json.loads(capsys.readouterr().out)["run_id"]
    table = pd.DataFrame({"value": [1.0, 2.0, 3.0], "source": [sources["bfloat16"], sources["float32"], "Table 6"]})
    marked = with_precision(table)
    assert marked[PRECISION].tolist() == ["bfloat16", "float32", ""]
    assert precision_notes(marked) == [precision_note("bfloat16"), mixed_note(["bfloat16", "float32"])]
    assert precision_notes(marked.iloc[1:]) == []  # float32 beside the paper's values: nothing to say
    assert precision_notes(with_precision(table.iloc[[0]])) == [precision_note("bfloat16")]
    joined = "; ".join(sources.values())  # a chart's point drawn from several runs
    odd = table.assign(source=[joined, "pfcore run nothere", "pfcore run ../x"])
    assert with_precision(odd)[PRECISION].tolist() == ["bfloat16, float32", "", ""]
    long = table.assign(source=["; ".join([sources["bfloat16"]] * 40)] * 3)  # not one file name
    assert with_precision(long)[PRECISION].tolist() == ["bfloat16"] * 3
