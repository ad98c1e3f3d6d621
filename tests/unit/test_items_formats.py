"""Item files: round trips, corrupt input, `items check`, the shipped defaults and the CLI."""
from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import pytest

from pfcore.cli.items import register
from pfcore.errors import InputError
from pfcore.items import (
    check_items,
    default_item_path,
    default_items,
    generate_affinity,
    generate_semantic,
    generate_syntax,
    read_item_file,
    read_items,
    write_items,
)
from pfcore.items.card import card_paths
from pfcore.items.lexicon import Lexicon

PUBLISHED = Path("meaning_alone") / "data"
GENERATORS = {"semantic": generate_semantic, "syntax": generate_syntax,
              "affinity": generate_affinity}


def run_items(*argv: str) -> int:
    """Run `python -m pfcore items ...` through the items parser only (no model imports)."""
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["items", *argv])
    return args.func(args)


@pytest.mark.parametrize("suite", sorted(GENERATORS))
@pytest.mark.parametrize("name", ["items.csv", "items.jsonl", "items.jsonl.gz", "items.csv.gz"])
def test_csv_and_jsonl_round_trips_are_exact(tmp_path: Path, lexicon: Lexicon, suite: str,
                                             name: str) -> None:
    items = GENERATORS[suite](lexicon, "not_to_mention", paper_compatible=True)[:1500]
    write_items(items, tmp_path / name, meta={"lexicon_version": lexicon.version})
    parsed = read_item_file(tmp_path / name, lexicon)
    assert parsed.items == items
    assert (parsed.suite, parsed.meta["lexicon_version"]) == (suite, lexicon.version)


def test_published_tsv_round_trips_byte_for_byte(shared_data: Path, tmp_path: Path,
                                                 lexicon: Lexicon) -> None:
    source = shared_data / PUBLISHED / "much_less.tsv"
    write_items(read_items(source, lexicon), tmp_path / "again.tsv")
    assert (tmp_path / "again.tsv").read_bytes() == source.read_bytes()


def test_syntax_paper_tsv_round_trip(tmp_path: Path, lexicon: Lexicon) -> None:
    items = generate_syntax(lexicon, "let_alone", paper_compatible=True)[:3000]
    write_items(items, tmp_path / "syntax.tsv")
    assert read_items(tmp_path / "syntax.tsv", lexicon) == items
    assert "\tPsuedocleft\n" in (tmp_path / "syntax.tsv").read_text(encoding="utf-8")


def test_archive_syntactic_tsv_is_readable(shared_data: Path, lexicon: Lexicon) -> None:
    items = read_items(shared_data / PUBLISHED / "archive" / "syntactic_test_fix.tsv", lexicon)
    assert len(items) == 11_820
    assert {i.manipulation for i in items} == {"NPI", "VP Conjunction"}
    assert {i.construction for i in items} == {"let_alone", "much_less", "not_to_mention",
                                               "never_mind", "and"}


def test_formats_without_a_layout_refuse_before_writing(tmp_path: Path, lexicon: Lexicon) -> None:
    with pytest.raises(InputError, match="one construction"):
        write_items(generate_semantic(lexicon, ["let_alone", "much_less"]), tmp_path / "x.tsv")
    with pytest.raises(InputError, match="no published TSV layout"):
        write_items(generate_affinity(lexicon, "let_alone"), tmp_path / "y.tsv")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name, text, problem", [
    ("bad.jsonl", '{"pfcore_items": {"kind": "semantic"}}\n{"item_id": \n', "bad.jsonl:2: not valid JSON"),
    ("bad.csv", "item_id,construction\nabc,let_alone\n", "bad.csv:1: the metadata names no item kind"),
    ("bad.tsv", "Sentence\tNoun\nx\ty\n", "bad.tsv:1: unknown TSV header"),
    ("empty.csv", "", "empty.csv:1: the file is empty"),
])
def test_corrupt_item_files_name_file_line_and_problem(tmp_path: Path, lexicon: Lexicon, name: str,
                                                      text: str, problem: str) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=problem):
        read_items(tmp_path / name, lexicon)


def test_bad_cells_are_reported_per_line(tmp_path: Path, lexicon: Lexicon) -> None:
    path = tmp_path / "items.csv"
    write_items(generate_semantic(lexicon, "let_alone")[:10], path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[4] = lines[4].replace(",true,", ",maybe,")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"items.csv:5: field is_construction: the value is not of type bool"):
        read_items(path, lexicon)
    gz = tmp_path / "cut.jsonl.gz"
    gz.write_bytes(gzip.compress(b'{"a": 1}\n' * 100)[:30])
    with pytest.raises(InputError, match="cut.jsonl.gz:1: cannot read the item file"):
        read_items(gz, lexicon)


def test_check_lists_the_published_defects(shared_data: Path, lexicon: Lexicon) -> None:
    problems = check_items(shared_data / PUBLISHED / "let_alone.tsv", lexicon)
    assert len(problems) == 2
    assert "unknown word 'georgeous'" in problems[0] and "575 more rows" in problems[0]
    assert "repeats an earlier block" in problems[1] and "863 more rows" in problems[1]


def test_check_finds_hand_edits(tmp_path: Path, lexicon: Lexicon) -> None:
    path = tmp_path / "items.jsonl"
    items = generate_syntax(lexicon, "let_alone")[:24]
    write_items(items, path)
    assert check_items(path, lexicon) == []
    text = path.read_text(encoding="utf-8").replace("let alone a beautiful one, you",
                                                    "let alone a beatiful one, you", 1)
    path.write_text(text, encoding="utf-8")
    problems = "\n".join(check_items(path, lexicon))
    assert "items.jsonl:4: item_id does not match the content" in problems
    assert "items.jsonl:4: unknown word 'beatiful'" in problems
    assert "items.jsonl:4: sentence differs from what the lexicon generates" in problems


def test_check_reports_incomplete_blocks(tmp_path: Path, lexicon: Lexicon) -> None:
    path = tmp_path / "items.csv"
    write_items(generate_semantic(lexicon, "let_alone")[:15], path)
    problems = check_items(path, lexicon)
    assert len(problems) == 1 and "items.csv:11: incomplete block" in problems[0]


@pytest.mark.parametrize("kind", sorted(GENERATORS))
def test_shipped_defaults_are_the_generators_output(lexicon: Lexicon, kind: str) -> None:
    parsed = read_item_file(default_item_path(kind), lexicon)
    assert parsed.meta["lexicon_sha256"] == lexicon.sha256, "regenerate data/items (README, Items)"
    assert parsed.items == GENERATORS[kind](lexicon)
    card = json.loads(card_paths(default_item_path(kind))[1].read_text(encoding="utf-8"))
    assert card["items"] == len(parsed.items) and card["lexicon"]["sha256"] == lexicon.sha256


def test_default_items_filter_by_construction() -> None:
    items = default_items("syntax", ["much_less"])
    assert {i.construction for i in items} == {"much_less", "and"}
    assert {i.construction for i in default_items("semantic", "never_mind")} == {"never_mind"}
    with pytest.raises(InputError, match="unknown construction still_less"):
        default_items("semantic", "still_less")


def test_cli_paper_compatible_tsv_equals_the_published_file(shared_data: Path,
                                                            tmp_path: Path) -> None:
    out = tmp_path / "let_alone.tsv"
    assert run_items("semantic", "--construction", "let_alone", "--paper-compatible",
                     "--format", "paper-tsv", "--out", str(out)) == 0
    assert out.read_bytes() == (shared_data / PUBLISHED / "let_alone.tsv").read_bytes()
    assert not card_paths(out)[0].exists()


def test_cli_default_mode_writes_items_and_card(shared_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "syntax.csv"
    assert run_items("syntax", "--construction", "never_mind", "--reference",
                     str(shared_data / PUBLISHED), "--out", str(out)) == 0
    markdown, data = (p.read_text(encoding="utf-8") for p in card_paths(out))
    assert "Compared with the archived syntactic set" in markdown
    assert "| VP Gap Conjunction | You couldn't sing an ugly song, never mind me a beautiful one." in markdown
    assert json.loads(data)["counts"]["construction"] == {"never_mind": 9_990, "and": 9_990}
    assert run_items("check", str(out)) == 0


def test_cli_errors_write_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pfcore.cli import main

    bad = tmp_path / "lexicon.yaml"
    bad.write_text("version: 1\nscales: []\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["items", "semantic", "--lexicon", str(bad), "--out", str(out)]) == 2
    assert f"{bad}:1: (top): missing constructions" in capsys.readouterr().err
    assert main(["items", "affinity", "--construction", "let_aloan", "--out", str(out)]) == 2
    assert "unknown construction let_aloan" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [bad]
