"""Bad input to the lexicon and item readers: a clear InputError or problem, never a traceback."""
from __future__ import annotations

import gzip
import re
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest

from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.files import FileKind
from pfcore.items import (
    MASK,
    SemanticItem,
    check_items,
    formats,
    generate_affinity,
    generate_semantic,
    load_lexicon,
    read_item_file,
    write_items,
)
from pfcore.items.check import checked_items
from pfcore.items.lexicon import DEFAULT_LEXICON, LEXICON_FILE, Lexicon

LONG_CELL = "x" * 200_000  # over the csv module's field limit (131,072 characters)


def write_lexicon(tmp_path: Path, text: str) -> Path:
    """A lexicon file holding `text`."""
    path = tmp_path / "lexicon.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def billion_laughs(levels: int = 9, references: int = 9) -> str:
    """The "billion laughs" YAML: each level's anchor lists the previous level's alias 9 times."""
    lines = ['lol0: &lol0 "lol"']
    for level in range(1, levels + 1):
        lines.append(f"lol{level}: &lol{level} [" + ", ".join([f"*lol{level - 1}"] * references) + "]")
    return "\n".join(lines) + "\n"


def semantic_lines(tmp_path: Path, lexicon: Lexicon, name: str = "items.jsonl") -> tuple[Path, list[str]]:
    """A small semantic item file and its lines (line 1 is the metadata)."""
    path = tmp_path / name
    write_items(generate_semantic(lexicon, "let_alone")[:16], path)
    return path, path.read_text(encoding="utf-8").splitlines()


def rewrite(path: Path, lines: list[str]) -> Path:
    """Write lines back to an item file."""
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------- the lexicon YAML

def test_billion_laughs_is_refused_at_once(tmp_path: Path) -> None:
    path = write_lexicon(tmp_path, billion_laughs())
    start = time.perf_counter()
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:1: .*anchors and aliases"):
        load_lexicon(path)
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize("text, line", [
    ("version: 1\nscales: &s {}\nframes: *s\n", 2),
    ("version: 1\nframes: [*nowhere]\n", 2),
    ("a: &a [*a]\n", 1),
    ("version: 1\nbase: {x: 1}\nother:\n  <<: *base\n", 4),
])
def test_anchors_and_aliases_are_refused(tmp_path: Path, text: str, line: int) -> None:
    path = write_lexicon(tmp_path, text)
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:{line}: .*anchors and aliases"):
        load_lexicon(path)


def test_nul_character_names_its_line(tmp_path: Path) -> None:
    path = write_lexicon(tmp_path, "version: 1\nconstructions:\n  let_alone: let\0alone\n")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:3: .*character #x0000"):
        load_lexicon(path)


@pytest.mark.parametrize("key, shown", [  # the key's kind, never the key itself (a file's keys stay unsaid)
    ("? [a, b]\n  : let alone", "a list"), ("? {a: b}\n  : let alone", "a mapping"),
    ("1: let alone", "a whole number (quote it)"), ("null: let alone", "nothing (quote it)"),
    ("true: let alone", "true/false (quote it)"),
    ("2024-01-01: let alone", "a date (quote it)"),
])
def test_keys_must_be_text(tmp_path: Path, key: str, shown: str) -> None:
    text = DEFAULT_LEXICON.read_text(encoding="utf-8").replace(
        "constructions:\n", f"constructions:\n  {key}\n", 1)
    path = write_lexicon(tmp_path, text)
    line = text[:text.index(key)].count("\n") + 1
    with pytest.raises(InputError) as caught:
        load_lexicon(path)
    assert f"{path}:{line}: constructions: a key must be text, found {shown}" in str(caught.value)


@pytest.mark.parametrize("value, problem", [  # what is wrong, never the value itself
    ("2024-13-45", "cannot read the value (not a valid timestamp)"),
    ("!!binary a", "cannot read the value (failed to decode base64 data"),
    ("!custom 1", "cannot read the value (could not determine a constructor for the tag '!custom')"),
    ("0b_", "cannot read the value (not a valid int)"), ("!!int ''", "cannot read the value (not a valid int)"),
    ("!!bool maybe", "cannot read the value (not a valid bool)"),
    ("!!timestamp x", "cannot read the value (not a valid timestamp)"),
])
def test_unreadable_scalars_are_problems(tmp_path: Path, value: str, problem: str) -> None:
    text = re.sub(r"(?m)^version: .*$", f"version: {value}", DEFAULT_LEXICON.read_text(encoding="utf-8"))
    path = write_lexicon(tmp_path, text)
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:\d+: version: {re.escape(problem)}"):
        load_lexicon(path)


def test_deep_nesting_is_refused(tmp_path: Path) -> None:
    path = write_lexicon(tmp_path, "version: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:1: .*nested deeper than"):
        load_lexicon(path)


def test_oversized_lexicon_is_refused_unread(tmp_path: Path) -> None:
    path = write_lexicon(tmp_path, "# padding\n" * (LEXICON_FILE.cap // 10 + 1))
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}: the lexicon is larger than 1 MiB"):
        load_lexicon(path)
    if Path("/dev/zero").exists():
        with pytest.raises(InputError, match="it is a device, not a regular file"):
            load_lexicon("/dev/zero")


@pytest.mark.parametrize("name, problem", [
    ("missing.yaml", "No such file or directory"), (".", "it is a folder, not a regular file")])
def test_unreadable_lexicon_paths(tmp_path: Path, name: str, problem: str) -> None:
    with pytest.raises(InputError, match=f"cannot read the lexicon \\({problem}\\)"):
        load_lexicon(tmp_path / name)


# ---------------------------------------------------------------- item files

def test_csv_cell_over_the_field_limit_is_a_problem_on_its_line(tmp_path: Path,
                                                                lexicon: Lexicon) -> None:
    path = tmp_path / "items.csv"
    write_items(generate_semantic(lexicon, "let_alone")[:8], path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace("let alone", LONG_CELL, 1)
    rewrite(path, lines)
    with pytest.raises(InputError, match=r"items.csv:4: cannot read the row \(field larger than"):
        read_item_file(path, lexicon)
    parsed, problems = formats.parse_item_file(path, lexicon)
    assert len(parsed.items) == 7 and len(problems) == 1


def test_paper_tsv_cell_over_the_field_limit_is_a_problem_on_its_line(tmp_path: Path,
                                                                      lexicon: Lexicon) -> None:
    path = tmp_path / "items.tsv"
    write_items(generate_semantic(lexicon, "let_alone", paper_compatible=True)[:8], path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[5] = lines[5].replace("\tsing\t", f"\t{LONG_CELL}\t")
    rewrite(path, lines)
    with pytest.raises(InputError, match=r"items.tsv:6: cannot read the row \(field larger than"):
        read_item_file(path, lexicon)


def test_lone_surrogate_is_refused_on_its_line(tmp_path: Path, lexicon: Lexicon) -> None:
    path, lines = semantic_lines(tmp_path, lexicon)
    lines[2] = lines[2].replace('"context": "', '"context": "\\ud800')
    rewrite(path, lines)
    with pytest.raises(InputError, match=r"items.jsonl:3: text holds an unpaired surrogate"):
        read_item_file(path, lexicon)
    assert "items.jsonl:3: text holds an unpaired surrogate" in "\n".join(check_items(path, lexicon))


def test_lone_surrogate_in_the_metadata_is_refused(tmp_path: Path, lexicon: Lexicon) -> None:
    path, lines = semantic_lines(tmp_path, lexicon)
    lines[0] = lines[0].replace('"kind"', '"\\udfff": 1, "kind"')
    rewrite(path, lines)
    with pytest.raises(InputError, match=r"items.jsonl:1: .*: text holds an unpaired surrogate"):
        read_item_file(path, lexicon)


def test_paired_surrogate_escapes_are_ordinary_text(tmp_path: Path, lexicon: Lexicon) -> None:
    path, lines = semantic_lines(tmp_path, lexicon)
    lines[2] = lines[2].replace('"context": "', '"context": "\\ud83d\\ude00')
    rewrite(path, lines)
    item = read_item_file(path, lexicon).items[1]
    assert isinstance(item, SemanticItem) and item.context.startswith("\U0001f600You")


def test_followup_without_the_blank_reads_and_fails_the_check(tmp_path: Path,
                                                             lexicon: Lexicon) -> None:
    path, lines = semantic_lines(tmp_path, lexicon)
    lines[2] = lines[2].replace(MASK, "easier", 1)
    rewrite(path, lines)
    item = read_item_file(path, lexicon).items[1]
    assert isinstance(item, SemanticItem) and MASK not in item.followup
    assert any(f"items.jsonl:3: the follow-up must hold exactly one {MASK}" in p
               for p in check_items(path, lexicon))
    with pytest.raises(InputError, match=f"the follow-up must hold exactly one {MASK}"):
        checked_items(path, lexicon)


@pytest.mark.parametrize("line, problem", [
    ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "not valid JSON"),
    ('{"a": ' + "9" * 5000 + "}", "not valid JSON"),
])
def test_json_that_python_cannot_hold_is_a_problem(tmp_path: Path, lexicon: Lexicon, line: str,
                                                   problem: str) -> None:
    path, lines = semantic_lines(tmp_path, lexicon)
    rewrite(path, [*lines[:3], line, *lines[3:]])
    with pytest.raises(InputError, match=f"items.jsonl:4: {problem}"):
        read_item_file(path, lexicon)


def test_out_of_range_span_is_a_problem(tmp_path: Path, lexicon: Lexicon) -> None:
    path = tmp_path / "affinity.jsonl"
    write_items(generate_affinity(lexicon, "let_alone")[:4], path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[2] = re.sub(r'"spans": \[\[\d+', '"spans": [[1e400', lines[2])
    rewrite(path, lines)
    with pytest.raises(InputError, match=r"affinity.jsonl:3: field spans: the value is not of type"):
        read_item_file(path, lexicon)


def test_unhashable_kind_in_the_metadata_is_a_problem(tmp_path: Path, lexicon: Lexicon) -> None:
    path, lines = semantic_lines(tmp_path, lexicon)
    lines[0] = lines[0].replace('"kind": "semantic"', '"kind": []')
    rewrite(path, lines)
    parsed, problems = formats.parse_item_file(path, lexicon)
    assert parsed.suite == "semantic" and problems == []


def test_gzip_bomb_stops_at_the_cap(tmp_path: Path, lexicon: Lexicon,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(formats, "ITEM_FILE", FileKind("item file", 1 << 20))
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b"{}\n" * (1 << 18)
    bomb = b"".join(packer.compress(chunk) for _ in range(100)) + packer.flush()
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(bomb)
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=r"bomb.jsonl.gz:1: the item file is larger than 1 MiB"):
            read_item_file(path, lexicon)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20


def test_the_cap_holds_for_plain_files_too(tmp_path: Path, lexicon: Lexicon,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(formats, "ITEM_FILE", FileKind("item file", 1 << 20))
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"{}\n" * (1 << 19))
    with pytest.raises(InputError, match="big.jsonl:1: the item file is larger than 1 MiB"):
        read_item_file(path, lexicon)


@pytest.mark.parametrize("name, content, problem", [
    ("empty.jsonl", b"", "1: the file is empty"),
    ("blank.csv", b" \n\t\r\n  \n", "1: the file is empty"),
    ("garbage.tsv", bytes(range(256)) * 4, r"2: not UTF-8 text \(invalid start byte\)"),
    ("garbage.csv", b"\x00\x01\x02,\x03\r\x04\n\x05", r"1: cannot read the row \(new-line character"),
    ("garbage.jsonl.gz", b"\x1f\x8b\x08\x00" + b"\xff" * 64,
     r"1: cannot read the item file \(broken gzip data: Error -3"),
    ("garbage.csv.gz", gzip.compress(b"ok\n" * 10, mtime=0)[:-5], r"1: cannot read the item file \(broken gzip"),
    ("latin1.csv", "item_id\ncaf\u00e9\n".encode("latin-1"), "2: not UTF-8 text"),
])
def test_garbage_files_are_problems(tmp_path: Path, lexicon: Lexicon, name: str, content: bytes,
                                    problem: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError, match=f"{re.escape(name)}:{problem}"):
        read_item_file(path, lexicon)
    assert check_items(path, lexicon)


@pytest.mark.parametrize("name, problem", [
    ("missing.jsonl", "No such file or directory)"), ("folder", "it is a folder, not a regular file); give the path "
                                                      "of a file")])
def test_paths_that_are_no_file(tmp_path: Path, lexicon: Lexicon, name: str, problem: str) -> None:
    (tmp_path / "folder").mkdir()
    expected = f"{tmp_path / name}:1: cannot read the item file ({problem}"
    with pytest.raises(InputError, match=re.escape(expected)):
        read_item_file(tmp_path / name, lexicon)
    assert check_items(tmp_path / name, lexicon) == [expected]


# ---------------------------------------------------------------- checked_items

def test_checked_items_returns_a_clean_files_items(tmp_path: Path, lexicon: Lexicon) -> None:
    path, _ = semantic_lines(tmp_path, lexicon)
    assert checked_items(path, lexicon) == generate_semantic(lexicon, "let_alone")[:16]


def test_checked_items_refuses_duplicate_ids(tmp_path: Path, lexicon: Lexicon) -> None:
    path, lines = semantic_lines(tmp_path, lexicon)
    rewrite(path, [*lines, lines[1]])
    with pytest.raises(InputError) as caught:
        checked_items(path, lexicon)
    message = str(caught.value)
    assert message.startswith(f"{path} fails the item check")
    assert f"{path}:18: duplicate item_id" in message


def test_checked_items_lists_at_most_twenty_problems(tmp_path: Path, lexicon: Lexicon) -> None:
    path = tmp_path / "items.csv"
    write_items(generate_semantic(lexicon, "let_alone")[:32], path)
    lines = path.read_text(encoding="utf-8").splitlines()
    rewrite(path, lines[:2] + [line.replace(",true,", ",maybe,").replace(",false,", ",maybe,")
                               for line in lines[2:]])
    with pytest.raises(InputError) as caught:
        checked_items(path, lexicon)
    listed = str(caught.value).splitlines()
    assert len(listed) == 1 + formats.MAX_REPORTED + 1
    assert listed[-1] == "... and 12 more"


# ---------------------------------------------------------------- writing

def unwritable_paths(tmp_path: Path) -> list[tuple[Path, str]]:
    """Output paths that cannot be written, with the message's start: the path (or the folder in
    the way) and the reason."""
    (tmp_path / "a_file").write_text("x", encoding="utf-8")
    paths = [(Path("/proc/x/y.jsonl"), "cannot use /proc/x as the folder of the item file: No such file or directory"),
             (tmp_path / "a_file" / "y.jsonl",
              f"cannot use {tmp_path / 'a_file'} as the folder of the item file: it is a file, not a folder"),
             (tmp_path / "a_file" / "x" / "y.jsonl",
              f"cannot use {tmp_path / 'a_file' / 'x'} as the folder of the item file: Not a directory")]
    if Path("/sys").is_dir():
        paths.append((Path("/sys/y.jsonl"), "cannot write the folder of the item file /sys (Permission denied): "
                                            "permission denied: choose a folder you can write to"))
    return paths


def test_unwritable_out_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for out, message in unwritable_paths(tmp_path):
        assert main(["items", "affinity", "--construction", "let_alone", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {message}") and err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_unwritable_output_folder_keeps_nothing_behind(tmp_path: Path, lexicon: Lexicon) -> None:
    (tmp_path / "a_file").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="cannot use .* as the folder of the item file: Not a directory"):
        write_items(generate_semantic(lexicon, "let_alone")[:8], tmp_path / "a_file" / "x" / "y.csv")
