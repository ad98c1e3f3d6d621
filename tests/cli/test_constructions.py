"""Constructions as data (issue 30): the paper's four are definition files the generators read (the
shipped item files come out byte for byte), a user's folder adds more, and everything that takes a
construction takes them; a bad definition is one line and exit 2, and nothing is generated."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pfcore.cli import main
from pfcore.items import load_lexicon
from pfcore.items.constructions import BUILT_IN_DIR, EXAMPLES_DIR, constructions, read_definition
from pfcore.items.generate import generate_semantic, generate_syntax
from pfcore.probe import analyze_sentence

REPO = Path(__file__).resolve().parents[2]
GOOD = "name: still_less\nwords: still less\nlicensing: negative\nfocus2: stronger\n"


def test_the_four_built_ins_are_the_lexicons_and_the_examples_come_with_the_folder(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["constructions", "list", "--json"]) == 0
    assert [(d["name"], d["origin"]) for d in json.loads(capsys.readouterr().out)] == [
        (name, "built in") for name in load_lexicon().constructions]
    assert main(["constructions", "list", "--json", "--constructions", str(EXAMPLES_DIR)]) == 0
    listed = {d["name"]: d for d in json.loads(capsys.readouterr().out)}
    assert list(listed)[4:] == ["not_even", "or_even", "still_less"]
    assert listed["not_even"]["focus2"] == "weaker" and listed["or_even"]["licensing"] == "positive"
    assert all(len(d["sha256"]) == 64 for d in listed.values())


def test_the_built_in_definitions_give_the_lexicons_words() -> None:
    assert {n: d.connective for n, d in constructions().items()} == dict(load_lexicon().constructions)
    assert sorted(p.stem for p in BUILT_IN_DIR.glob("*.yaml")) == sorted(load_lexicon().constructions)


@pytest.mark.parametrize(("text", "construction", "foci"), [
    ("He can't read, still less write.", "still_less", ("read", "write")),
    ("She could lift a heavy box, or even a piano.", "or_even", ("a heavy box", "a piano")),
    ("He didn't lift the piano, not even the small box.", "not_even", ("the piano", "the small box"))])
def test_the_probe_finds_the_examples_with_their_foci(text: str, construction: str, foci: tuple[str, str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PFCORE_CONSTRUCTIONS", str(EXAMPLES_DIR))
    probe = analyze_sentence(text)
    assert (probe.construction, probe.focus1, probe.focus2) == (construction, *foci)


def test_the_probe_command_proposes_in_the_definitions_direction(cache_dir: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "She could lift a heavy box, or even a piano.", "--propose", "--json",
                 "--constructions", str(EXAMPLES_DIR)]) == 0
    [proposal] = json.loads(capsys.readouterr().out)["proposals"]
    assert proposal["entailed"] == "Lifting a heavy box is easier than lifting a piano."


def test_a_weaker_focus2_orders_the_aligned_context_harder_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """not even: the aligned context is the one whose reading agrees with the world."""
    items = generate_semantic(load_lexicon(), "not_even", folder=EXAMPLES_DIR)
    aligned = next(i for i in items if i.frame == "lift rock (small-large)" and i.context_order == "aligned")
    assert aligned.context == "You couldn't lift a large rock, not even a small one."
    positive = generate_semantic(load_lexicon(), "or_even", folder=EXAMPLES_DIR)[0]
    assert positive.context.startswith("You could ") and ", or even " in positive.context
    syntax = generate_syntax(load_lexicon(), "not_even", folder=EXAMPLES_DIR)
    assert {i.manipulation for i in syntax if i.construction == "not_even"} == {
        "base", "Pseudocleft", "CP Conjunction", "VP Conjunction", "VP Gap Conjunction"}  # its definition's list


def test_items_of_a_users_construction_name_their_definition(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "still_less.yaml").write_text(GOOD)
    out = tmp_path / "still_less.jsonl"
    assert main(["items", "semantic", "--construction", "still_less", "--constructions", str(folder),
                 "--out", str(out)]) == 0
    card = json.loads(out.with_name("still_less.card.json").read_text())
    [record] = card["constructions"]
    assert record == {"name": "still_less", "file": "still_less.yaml", "origin": "user-defined",
                      "sha256": read_definition(folder / "still_less.yaml").sha256}
    assert card["items"] == 13_320


def test_a_run_of_a_users_construction_gives_its_accuracies(tiny_gpt2: Path, cache_dir: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--suite", "semantic", "--construction", "still_less", "--limit-blocks", "2", "--json",
                 "--model", str(tiny_gpt2), "--constructions", str(EXAMPLES_DIR)]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["items"] == 16 and 0 <= done["accuracy"]["still_less"]["all"] <= 1
    manifest = json.loads(next((cache_dir / "runs").glob("*/manifest.json")).read_text())
    assert "still_less generated from still_less.yaml (sha256 " in manifest["items"]["source"]


BAD = {
    "without its direction": ("name: x_y\nwords: x y\nlicensing: negative\n", ": missing focus2"),
    "a field missing": ("name: x_y\nlicensing: negative\nfocus2: stronger\n", ": missing words"),
    "a connective that is also a control": ("name: or_x\nwords: or\nlicensing: positive\nfocus2: stronger\n",
                                            "words: a spelling of the construction is also one of its controls"),
    "a scale without two ends": ("name: x_y\nwords: x y\nlicensing: negative\nfocus2: middle\n",
                                 "focus2: expected one of stronger, weaker"),
    "a name that clashes with a built-in": ("name: let_alone\nwords: let alone\nlicensing: negative\n"
                                            "focus2: stronger\n", "is a built-in construction"),
    "an unknown key (not echoed)": (GOOD + "db_password: hunter2\n", "unknown key"),
    "a positive context with syntax tests": ("name: x_y\nwords: x y\nlicensing: positive\nfocus2: stronger\n"
                                             "tests: {syntax: [NPI]}\n", "tests.syntax: the syntactic manipulations"),
    "a huge file": ("# " + "x" * 70_000 + "\n" + GOOD, "larger than 64 KiB"),
    # issue 40: what items, run and the Probe need
    "a frame the lexicon lacks": (GOOD + "frames: [fly kite (small-large)]\n",
                                  "frames: 1 of its 1 frames are not the lexicon's (`pfcore constructions frames` "
                                  "lists them: sing song (beautiful-ugly);"),
    "a control that is a scalar connective": (GOOD + "controls: {semantic: let alone}\n",
                                              "controls.semantic: the control is a spelling of the construction "
                                              "let_alone (built in)"),
    "a spelling of a built-in": ("name: x_y\nwords: [x y, never mind]\nlicensing: negative\nfocus2: stronger\n",
                                 "words: 1 of its spellings belong to the construction never_mind (built in)"),
    "a bare verb after a preposition": ("name: x_of\nwords: x of\nlicensing: any\nfocus2: stronger\n"
                                        "verb_form: bare\n", "verb_form: its connective ends in a preposition"),
    "an empty spelling": ("name: x_y\nwords: ''\nlicensing: negative\nfocus2: stronger\n", "words: is empty"),
    "a look-alike pattern without words": (GOOD + "look_alike: [{reads_as: the comparative}]\n",
                                           "look_alike[0]: a look-alike pattern needs the words"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_definition_is_one_line_and_exit_2(case: str, tmp_path: Path) -> None:
    text, words = BAD[case]
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    done = subprocess.run([sys.executable, "-m", "pfcore", "constructions", "check", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and words in lines[0], done.stderr
    assert "hunter2" not in done.stderr and "middle" not in done.stderr


def test_the_frames_a_definition_may_name_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["constructions", "frames"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0] == "sing song (beautiful-ugly)" and "lift rock (small-large)" in listed
    assert listed == [f.name for f in load_lexicon().frames]


def test_a_clash_with_a_definition_of_the_folder_is_refused_by_check_and_by_items(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "still_less.yaml").write_text(GOOD)
    (folder / "other.yaml").write_text("name: other\nwords: still less\nlicensing: negative\nfocus2: stronger\n")
    assert main(["constructions", "check", str(folder / "other.yaml"), "--constructions", str(folder)]) == 2
    assert "words: 1 of its spellings belong to the construction still_less (user-defined)" in capsys.readouterr().err
    out = tmp_path / "items.jsonl"
    assert main(["items", "semantic", "--construction", "other", "--constructions", str(folder),
                 "--out", str(out)]) == 2
    assert "belong to the construction" in capsys.readouterr().err and not out.exists()


def test_the_three_worked_definitions_of_the_issue_are_valid(capsys: pytest.CaptureFixture[str]) -> None:
    folder = REPO / "tests" / "fixtures" / "constructions"
    for path in sorted(folder.glob("*.yaml")):
        assert main(["constructions", "check", str(path), "--constructions", str(folder)]) == 0
    assert capsys.readouterr().out.count("a valid definition") == 3


def test_a_bad_definition_in_a_folder_generates_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "still_less.yaml").write_text("name: still_less\nwords: still less\nlicensing: negative\n")
    out = tmp_path / "items.jsonl"
    assert main(["items", "semantic", "--construction", "still_less", "--constructions", str(folder),
                 "--out", str(out)]) == 2
    assert "missing focus2" in capsys.readouterr().err and not out.exists()


def test_a_users_construction_stands_beside_the_four_marked(tiny_gpt2: Path, cache_dir: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The Models page's table and the Trajectories page's series name it as a user's."""
    from pfcore.analysis.model_tables import side_by_side
    from pfcore.analysis.series import user_constructions
    from pfcore.analysis.trajectories import series_label
    from pfcore.store.results import load_results
    from pfcore.store.runs import list_runs

    for construction in ("let_alone", "still_less"):
        assert main(["run", "--suite", "semantic", "--construction", construction, "--limit-blocks", "1", "--json",
                     "--model", str(tiny_gpt2), "--constructions", str(EXAMPLES_DIR)]) == 0
    capsys.readouterr()
    table = side_by_side("Table 6", list_runs())
    assert "still_less (user-defined)" in table.columns and "letalone" in table.columns
    results = load_results()
    assert user_constructions(results) == {"still_less"}
    assert set(results.loc[results["construction"] == "still_less", "suite"]) == {"semantic"}
    assert series_label("still_less:aligned", user_constructions(results)) == "still_less:aligned (user-defined)"
    assert series_label("letalone:aligned", user_constructions(results)) == "letalone:aligned"


def test_the_listing_says_each_definitions_verb_form(capsys: pytest.CaptureFixture[str]) -> None:
    folder = REPO / "tests" / "fixtures" / "constructions"
    assert main(["constructions", "list", "--json", "--constructions", str(folder)]) == 0
    forms = {d["name"]: d["verb_form"] for d in json.loads(capsys.readouterr().out)}
    assert forms["to_say_nothing_of"] == forms["not_to_speak_of"] == "gerund"
    assert forms["let_alone"] == forms["if_not"] == "bare"
