"""Bounds on every field of a construction definition (issue 38): a valid 63 kB definition made `items
semantic` run for minutes at 3 GB and write an 847 MB file that `items check` then refused; `words`
took newlines and runs of spaces; and problems quoted the file's values. Now each field is bounded and
checked before anything is generated, in one line naming the field and the rule, never the value."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.items import load_lexicon
from pfcore.items.constructions import (
    MAX_FRAMES,
    MAX_NAME,
    MAX_SPELLING,
    MAX_SPELLINGS,
    MAX_TEXT,
    constructions,
    read_definition,
)
from pfcore.items.formats import ITEM_FILE, render_items
from pfcore.items.generate import GENERATORS

HEAD = "licensing: negative\nfocus2: stronger\n"
SECRET = "DB_PASSWORD=hunter2"


def folder_with(tmp_path: Path, text: str, name: str = "mine") -> Path:
    """A folder of one definition file holding `text`."""
    folder = tmp_path / "defs"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.yaml").write_text(text)
    return folder


def huge_definition() -> str:
    """A definition of 63 kB, valid but for the length of its spelling (the issue's case)."""
    return f"name: big\nwords: {' '.join(['still'] * 10_500)}\n{HEAD}"


def test_a_63_kb_definition_is_refused_in_under_a_second(tmp_path: Path, cache_dir: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    folder = folder_with(tmp_path, huge_definition())
    assert (folder / "mine.yaml").stat().st_size > 63_000
    started = time.monotonic()
    assert main(["items", "semantic", "--constructions", str(folder), "--construction", "big",
                 "--out", str(tmp_path / "big.jsonl")]) == 2
    assert time.monotonic() - started < 1.0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"a spelling has at most {MAX_SPELLING} characters" in err
    assert "still still" not in err and not (tmp_path / "big.jsonl").exists()


@pytest.mark.parametrize(("field", "text", "rule"), [
    ("words", f"name: nl\nwords: \"still\\nless\"\n{HEAD}", "separated by single spaces"),
    ("words", f"name: tab\nwords: \"still\\tless\"\n{HEAD}", "separated by single spaces"),
    ("words", f"name: sp\nwords: \"still  less\"\n{HEAD}", "separated by single spaces"),
    ("words", f"name: pw\nwords: \"{SECRET}\"\n{HEAD}", "expected lowercase words"),
    ("words", f"name: many\nwords: [{', '.join(['still less'] * (MAX_SPELLINGS + 1))}]\n{HEAD}",
     f"at most {MAX_SPELLINGS} spellings"),
    ("controls.semantic", f"name: ctl\nwords: still less\ncontrols: {{semantic: \"{SECRET}\"}}\n{HEAD}",
     "expected lowercase words"),
    ("name", f"name: {'n' * (MAX_NAME + 1)}\nwords: still less\n{HEAD}", f"at most {MAX_NAME} characters"),
    ("name", f"name: \"{SECRET}\"\nwords: still less\n{HEAD}", "expected lowercase letters"),
    ("example", f"name: ex\nwords: still less\nexample: \"a\\nb {SECRET}\"\n{HEAD}", "one line of text"),
    ("source", f"name: src\nwords: still less\nsource: \"{SECRET}\u202e\"\n{HEAD}", "bidirectional"),
    ("look_alike", f"name: la\nwords: still less\nlook_alike: {'x' * (MAX_TEXT + 1)}\n{HEAD}",
     f"at most {MAX_TEXT} characters"),
    ("frames", f"name: fr\nwords: still less\nframes: [{', '.join(['f'] * (MAX_FRAMES + 1))}]\n{HEAD}",
     f"at most {MAX_FRAMES} frames"),
])
def test_each_field_is_bounded_and_its_problem_names_the_rule_not_the_value(
        field: str, text: str, rule: str, tmp_path: Path, cache_dir: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = folder_with(tmp_path, text)
    assert main(["constructions", "check", str(folder / "mine.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f": {field}: " in err and rule in err, err
    assert "hunter2" not in err and "PASSWORD" not in err and "still\\n" not in err


def test_a_clash_with_a_built_in_name_does_not_quote_it(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, f"name: let_alone\nwords: still less\n{HEAD}")
    with pytest.raises(InputError, match="name: the name is already a built-in construction") as refused:
        constructions(folder)
    assert "'let_alone'" not in str(refused.value)


def test_the_largest_definition_the_bounds_allow_generates_an_item_set_like_the_papers(tmp_path: Path) -> None:
    """Every field at its bound: the item set is as many items as a short spelling's, its file far under
    the item file's cap (so `items check` and `run --items` read what `items` writes)."""
    spelling = " ".join(["still"] * 7)[:MAX_SPELLING - 5] + " less"
    assert len(spelling) <= MAX_SPELLING
    control = ("o" * (MAX_SPELLING - 1))[:MAX_SPELLING]
    largest = read_definition(folder_with(tmp_path, (
        f"name: {'l' * MAX_NAME}\nwords: [{', '.join([spelling] * MAX_SPELLINGS)}]\n"
        f"controls: {{semantic: {control}, syntax: a{control[1:]}}}\n{HEAD}"), "largest") / "largest.yaml")
    short = read_definition(folder_with(tmp_path, f"name: short\nwords: still less\n{HEAD}", "short") / "short.yaml")
    lexicon = load_lexicon()
    for generate in GENERATORS.values():
        big, small = generate(lexicon, [largest]), generate(lexicon, [short])
        assert len(big) == len(small)
        size = len(render_items(big, "jsonl").encode())
        assert size < ITEM_FILE.cap / 16 and size < 3 * len(render_items(small, "jsonl").encode())
