"""SyntaxGym suites as data: the 34 real suites, a hand-made suite, every bad suite, CSV layouts."""
from __future__ import annotations

import copy
import csv
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pfcore.errors import InputError
from pfcore.items.syntaxgym import (
    LONG_COLUMNS,
    MAX_CELL,
    GymSuite,
    Stimulus,
    build_condition,
    read_long_csv,
    read_stimuli,
    read_stimuli_csv,
    read_suite,
    write_long_csv,
)
from tests.conftest import skip_missing

REPO = Path(__file__).resolve().parents[2]
FORMULA = "[(2;%good%) < (2;%bad%)] & [(*;%good%) < (*;%bad%)]"


@pytest.fixture(scope="module")
def real_suites(shared_data: Path) -> list[Path]:
    """The real SyntaxGym suite files; skips where the reference data lacks them."""
    paths = sorted((shared_data / "syntaxgym" / "suites").glob("*.json"))
    if not paths:
        skip_missing(f"no SyntaxGym suites under {shared_data / 'syntaxgym' / 'suites'}")
    return paths


def suite_dict() -> dict[str, Any]:
    """A small valid suite: two items, two conditions, an empty region and leading spaces."""
    def condition(name: str, words: list[str]) -> dict[str, Any]:
        """One condition with regions numbered from 1."""
        return {"condition_name": name, "regions": [
            {"region_number": number, "content": content}
            for number, content in enumerate(words, start=1)]}
    return {
        "meta": {"name": "handmade", "metric": "mean", "comment": "made by the test"},
        "region_meta": {"1": "subject", "2": "verb", "3": "adverb", "4": "end"},
        "predictions": [{"type": "formula", "formula": FORMULA}],
        "items": [
            {"item_number": 1, "conditions": [
                condition("good", ["The keys", " are", "", "  here ."]),
                condition("bad", ["The keys", " is", "", "  here ."])]},
            {"item_number": 2, "conditions": [
                condition("good", ["", "Dogs bark", " loudly", "."]),
                condition("bad", ["", "Dogs barks", " loudly", "."])]},
        ],
    }


def write_json(folder: Path, data: Any, name: str = "suite.json") -> Path:
    """Write `data` as JSON into `folder` and return the path."""
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_real_suites_parse_and_validate(real_suites: list[Path]) -> None:
    """All 34 SyntaxGym suites read; spans cut the sentence back into the regions' text."""
    assert len(real_suites) == 34
    for path in real_suites:
        suite = read_suite(path)
        assert suite.name == json.loads(path.read_text())["meta"]["name"]
        assert suite.predictions and suite.items
        for item in suite.items:
            assert sorted(c.name for c in item.conditions) == sorted(suite.conditions)
            for condition in item.conditions:
                assert condition.sentence == " ".join(
                    r.content.lstrip() for r in condition.regions if r.content.strip())
                for region in condition.regions:
                    start, end = region.span
                    assert condition.sentence[start:end] == region.content.lstrip()
            values = {(c.name, r.number): float(r.number) for c in item.conditions
                      for r in c.regions}
            for formula in suite.predictions:
                assert isinstance(formula.evaluate(values), bool)


def test_real_suite_known_sentence(real_suites: list[Path]) -> None:
    """number_prep item 1 reads as SyntaxGym builds it."""
    path = next(p for p in real_suites if p.stem == "number_prep")
    suite = read_suite(path)
    condition = suite.items[0].condition("match_sing")
    assert condition.sentence == "The author next to the senators is good"
    assert condition.region(6).span == (32, 34)
    assert suite.region_names[6] == "matrix_v"
    assert suite.metric == "sum"


def test_handmade_suite_sentences_and_spans(tmp_path: Path) -> None:
    """Leading spaces are dropped, empty regions vanish and get an empty span where they sit."""
    suite = read_suite(write_json(tmp_path, suite_dict()))
    assert isinstance(suite, GymSuite)
    assert (suite.name, suite.metric) == ("handmade", "mean")
    assert suite.region_names == {1: "subject", 2: "verb", 3: "adverb", 4: "end"}
    assert suite.conditions == ("good", "bad")
    assert [str(f) for f in suite.predictions] == [FORMULA]
    good = suite.items[0].condition("good")
    assert good.sentence == "The keys are here ."
    assert good.spans == [(0, 8), (9, 12), (12, 12), (13, 19)]
    assert [r.content for r in good.regions] == ["The keys", " are", "", "  here ."]
    first_empty = suite.items[1].condition("bad")
    assert first_empty.sentence == "Dogs barks loudly ."
    assert first_empty.spans == [(0, 0), (0, 10), (11, 17), (18, 19)]


@pytest.mark.parametrize("regions, sentence, spans", [
    ([(1, "a"), (2, "b")], "a b", [(0, 1), (2, 3)]),
    ([(1, "  a"), (2, " b ")], "a b ", [(0, 1), (2, 4)]),
    ([(1, ""), (2, "")], "", [(0, 0), (0, 0)]),
    ([(1, "a"), (2, "   "), (3, "b")], "a b", [(0, 1), (1, 1), (2, 3)]),
    ([(1, "a"), (2, "")], "a", [(0, 1), (1, 1)]),
])
def test_build_condition(regions: list[tuple[int, str]], sentence: str,
                         spans: list[tuple[int, int]]) -> None:
    """Sentences join left-stripped non-empty regions with one space; spans follow."""
    condition = build_condition("c", regions)
    assert condition.sentence == sentence
    assert condition.spans == spans


def test_suite_name_falls_back_to_file_and_metric_to_sum(tmp_path: Path) -> None:
    """Without meta.name the file names the suite; without meta.metric it is sum."""
    data = suite_dict()
    data["meta"] = {}
    suite = read_suite(write_json(tmp_path, data, "fallback.json"))
    assert (suite.name, suite.metric) == ("fallback", "sum")


@pytest.mark.parametrize("metric, read, every", [
    ("all", "sum", ("sum", "mean", "median", "range", "max", "min")),
    (["mean", "max"], "mean", ("mean", "max")),
    (["max", "sum"], "sum", ("max", "sum")),
    ("median", "median", ("median",)),
])
def test_metric_all_or_a_list(tmp_path: Path, metric: Any, read: str, every: tuple[str, ...]) -> None:
    """syntaxgym-core's meta.metric: one name, "all" or a list; predictions read the sum where it is
    asked for (as syntaxgym-core's do), else the first."""
    data = suite_dict()
    data["meta"]["metric"] = metric
    suite = read_suite(write_json(tmp_path, data))
    assert (suite.metric, suite.all_metrics) == (read, every)


@pytest.mark.parametrize("relation, formula", [("greaterthan", "(2;%good%) > (2;%bad%)"),
                                               ("lessthan", "(2;%good%) < (2;%bad%)")])
def test_v1_relation_predictions_are_formulas(tmp_path: Path, relation: str, formula: str) -> None:
    """SyntaxGym's first prediction form compares one region of two conditions."""
    data = suite_dict()
    data["predictions"] = [{"relation": relation, "region_number": 2, "l_operand": "good", "r_operand": "bad"}]
    suite = read_suite(write_json(tmp_path, data))
    assert [f.source for f in suite.predictions] == [formula]
    assert suite.predictions[0] == read_suite(write_json(tmp_path, {**data, "predictions": [
        {"type": "formula", "formula": formula}]})).predictions[0]


def _set(path: list[Any], new: Any) -> Callable[[dict[str, Any]], None]:
    """A change that puts `new` at `path` inside the suite."""
    def change(data: dict[str, Any]) -> None:
        """Apply the change in place."""
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = new
    return change


def _delete(path: list[Any]) -> Callable[[dict[str, Any]], None]:
    """A change that removes the key or list element at `path`."""
    def change(data: dict[str, Any]) -> None:
        """Apply the change in place."""
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return change


def _formula(text: str) -> Callable[[dict[str, Any]], None]:
    """A change that replaces the prediction formula."""
    return _set(["predictions", 0, "formula"], text)


BAD_SUITES = {
    "prediction of another type": (_set(["predictions", 0, "type"], "regex"),
                                   ["suite.json", "prediction 1", "unknown prediction type"]),
    "formula does not parse": (_formula("(2;%good%) <"), ["suite.json", "prediction 1", "column 12"]),
    "formula with an unknown condition": (
        _formula("(2;%good%) < (2;%ugly%)"),
        ["suite.json", "item 1", "prediction 1", "condition this item lacks", "no item"]),
    "formula with a region not in region_meta": (
        _formula("(9;%good%) < (2;%bad%)"),
        ["suite.json", "item 1", "prediction 1", "region 9", "region_meta"]),
    "formula with a region the condition lacks": (
        _delete(["items", 1, "conditions", 1, "regions", 1]),
        ["suite.json", "item 2", "prediction 1", "region 2 of condition 2"]),
    "item missing a condition the predictions use": (
        _delete(["items", 1, "conditions", 1]),
        ["suite.json", "item 2", "prediction 1", "another item"]),
    "item missing a condition other items use": (
        lambda d: d["items"][0]["conditions"].append(
            {"condition_name": "extra", "regions": [{"region_number": 1, "content": "x"}]}),
        ["suite.json", "item 2", "1 of the suite's 3 conditions", "missing"]),
    "region not in region_meta": (_set(["items", 0, "conditions", 0, "regions", 0,
                                        "region_number"], 7),
                                  ["suite.json", "item 1", "condition 1", "region 7"]),
    "unknown metric": (_set(["meta", "metric"], "mode"), ["suite.json", "unknown metric"]),
    "unknown metric in a list": (_set(["meta", "metric"], ["sum", "mode"]), ["suite.json", "unknown metric"]),
    "metric of another type": (_set(["meta", "metric"], 3), ["suite.json", "'metric' must be", "not a whole number"]),
    "unknown relation": (_set(["predictions", 0], {"relation": "equal", "region_number": 2, "l_operand": "good",
                                                   "r_operand": "bad"}),
                         ["suite.json", "prediction 1", "unknown relation"]),
    "relation without its region": (_set(["predictions", 0], {"relation": "lessthan", "l_operand": "good",
                                                              "r_operand": "bad"}),
                                    ["suite.json", "prediction 1", "'region_number'"]),
    "no items": (_set(["items"], []), ["suite.json", "no items"]),
    "item number twice": (_set(["items", 1, "item_number"], 1),
                          ["suite.json", "item number 1", "twice"]),
    "condition twice": (_set(["items", 0, "conditions", 1, "condition_name"], "good"),
                        ["suite.json", "item 1", "condition names at places 1 and 2"]),
    "region twice": (_set(["items", 0, "conditions", 0, "regions", 1, "region_number"], 1),
                     ["suite.json", "item 1", "condition 1", "region number 1", "twice"]),
    "condition without text": (_set(["items", 1, "conditions", 0, "regions"], []),
                               ["suite.json", "item 2", "condition 1", "no sentence"]),
    "item with no conditions": (_set(["items", 0, "conditions"], []),
                                ["suite.json", "item 1", "no conditions"]),
    "missing meta": (_delete(["meta"]), ["suite.json", "'meta'"]),
    "missing region_meta": (_delete(["region_meta"]), ["suite.json", "'region_meta'"]),
    "missing predictions": (_delete(["predictions"]), ["suite.json", "'predictions'"]),
    "missing items": (_delete(["items"]), ["suite.json", "'items'"]),
    "missing item_number": (_delete(["items", 0, "item_number"]),
                            ["suite.json", "item at position 1", "'item_number'"]),
    "missing formula": (_delete(["predictions", 0, "formula"]),
                        ["suite.json", "prediction 1", "'formula'"]),
    "missing content": (_delete(["items", 1, "conditions", 0, "regions", 0, "content"]),
                        ["suite.json", "item 2", "condition 1", "'content'"]),
    "item_number as text": (_set(["items", 0, "item_number"], "1"),
                            ["suite.json", "'item_number'", "whole number"]),
    "item_number true": (_set(["items", 0, "item_number"], True),
                         ["'item_number'", "not true/false"]),
    "content as number": (_set(["items", 0, "conditions", 0, "regions", 0, "content"], 3),
                          ["suite.json", "item 1", "condition 1", "'content'", "text"]),
    "region_meta key not a number": (_set(["region_meta", "first"], "x"),
                                     ["suite.json", "region_meta", "entry 5"]),
    "items not a list": (_set(["items"], {"1": {}}), ["suite.json", "'items'", "a list"]),
    "prediction not an object": (_set(["predictions", 0], "formula"),
                                 ["suite.json", "prediction 1"]),
}
# the suite's own text, which no message may repeat (a wrong path must not show another file)
SUITE_TEXT = ("handmade", "'good'", "'bad'", "%good%", "%ugly%", "'regex'", "'mode'", "'extra'", "first",
              "The keys", "Dogs", "subject", "made by the test")


@pytest.mark.parametrize("case", sorted(BAD_SUITES))
def test_bad_suite_input_error_names_suite_item_formula(tmp_path: Path, case: str) -> None:
    """Each bad suite is an InputError whose message names what is wrong and where (file, item,
    condition and prediction by number), and repeats none of the suite's text."""
    change, expected = BAD_SUITES[case]
    data = suite_dict()
    change(data)
    with pytest.raises(InputError) as caught:
        read_suite(write_json(tmp_path, data))
    for text in expected:
        assert text in str(caught.value), (text, str(caught.value))
    assert not [text for text in SUITE_TEXT if text in str(caught.value)], str(caught.value)


@pytest.mark.parametrize("content, expected", [
    (b"{not json", "not valid JSON, line 1"),
    (b"[1, 2]", "must be a JSON object"),
    (b'"text"', "must be a JSON object"),
    (b"", "not valid JSON"),
    (b'{"meta": \xff}', "not UTF-8"),
    (b"[" * 100_000 + b"]" * 100_000, "suite.json"),
    (b'{"items": ' + b"9" * 5000 + b"}", "suite.json"),
])
def test_unreadable_suite_files(tmp_path: Path, content: bytes, expected: str) -> None:
    """Files that are not a JSON object give an InputError naming the file."""
    path = tmp_path / "suite.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=expected):
        read_suite(path)


def test_missing_suite_file(tmp_path: Path) -> None:
    """A file that is not there is an InputError, not an OSError."""
    with pytest.raises(InputError, match="cannot read"):
        read_suite(tmp_path / "absent.json")


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key path inside a JSON value."""
    children = (value.items() if isinstance(value, dict)
                else enumerate(value) if isinstance(value, list) else [])
    for key, child in children:
        yield (*prefix, key)
        yield from _paths(child, (*prefix, key))


@pytest.mark.parametrize("wrong", [None, True, -1, 2.5, "x", [], {}, [1], {"a": 1}])
def test_any_wrong_value_anywhere_is_an_input_error(tmp_path: Path, wrong: Any) -> None:
    """Replacing any part of a good suite by any JSON value never gives a traceback."""
    for path in _paths(suite_dict()):
        data = copy.deepcopy(suite_dict())
        _set(list(path), wrong)(data)
        try:
            read_suite(write_json(tmp_path, data))
        except InputError:
            pass


# ---------------------------------------------------------------- long CSV

LONG_CSV = """item_number,condition_name,region_number,region_name,content
1,good,1,subject,The keys
1,good,2,verb, are
1,good,3,adverb,
1,good,4,end,"here, ""now"" ."
1,bad,1,subject,The keys
1,bad,2,verb, is
1,bad,3,adverb,
1,bad,4,end,"here, ""now"" ."
2,good,1,subject,Dogs
2,good,2,verb,bark
2,good,3,adverb,loudly
2,good,4,end,.
2,bad,1,subject,Dogs
2,bad,2,verb,barks
2,bad,3,adverb,loudly
2,bad,4,end,.
"""


def test_long_csv_reads_as_a_suite(tmp_path: Path) -> None:
    """The long layout gives the same dataclasses: name from the file, sum, no predictions."""
    path = tmp_path / "agreement.csv"
    path.write_text(LONG_CSV, encoding="utf-8")
    suite = read_long_csv(path)
    assert (suite.name, suite.metric, suite.predictions) == ("agreement", "sum", ())
    assert suite.region_names == {1: "subject", 2: "verb", 3: "adverb", 4: "end"}
    assert suite.items[0].condition("good").sentence == 'The keys are here, "now" .'
    assert suite.items[1].condition("bad").sentence == "Dogs barks loudly ."


def test_long_csv_round_trip(tmp_path: Path) -> None:
    """Long CSV -> suite -> long CSV gives the same text."""
    source = tmp_path / "agreement.csv"
    source.write_text(LONG_CSV, encoding="utf-8")
    again = tmp_path / "again.csv"
    write_long_csv(read_long_csv(source), again)
    assert again.read_text(encoding="utf-8") == LONG_CSV


def test_json_suite_to_long_csv_and_back(tmp_path: Path) -> None:
    """A JSON suite written as long CSV reads back with the same items and region names."""
    suite = read_suite(write_json(tmp_path, suite_dict()))
    path = tmp_path / "handmade.csv"
    write_long_csv(suite, path)
    back = read_long_csv(path)
    assert back.items == suite.items
    assert back.region_names == suite.region_names
    with path.open(newline="", encoding="utf-8") as handle:
        assert tuple(next(csv.reader(handle))) == LONG_COLUMNS


@pytest.mark.parametrize("change, expected", [
    (lambda t: t.replace("2,good,1,subject", "two,good,1,subject"), r":10: item_number"),
    (lambda t: t.replace("2,bad,3,adverb", "2,bad,x,adverb"), r":16: region_number"),
    (lambda t: t.replace("2,bad,3,adverb", "2,bad,3,manner"), r":16: region 3 has another region_name"),
    (lambda t: t.replace("region_name", "name", 1), "region_name missing"),
    (lambda t: "".join(line for line in t.splitlines(keepends=True)
                       if not line.startswith("2,bad")), "item 2: 1 of the suite's 2 conditions are missing"),
])
def test_bad_long_csv(tmp_path: Path, change: Callable[[str], str], expected: str) -> None:
    """Bad long CSVs give an InputError with the line (or item) at fault."""
    path = tmp_path / "agreement.csv"
    path.write_text(change(LONG_CSV), encoding="utf-8")
    with pytest.raises(InputError, match=expected):
        read_long_csv(path)


# ---------------------------------------------------------------- stimuli CSV

def test_stimuli_csv_keeps_other_columns_as_text(tmp_path: Path) -> None:
    """Every column but sentence is carried through as a string."""
    path = tmp_path / "stimuli.csv"
    path.write_text("id,sentence,condition\n1,The dog barks.,good\n\n2,\"Dogs, cats.\",bad\n",
                    encoding="utf-8")
    assert read_stimuli_csv(path) == [
        Stimulus("The dog barks.", {"id": "1", "condition": "good"}),
        Stimulus("Dogs, cats.", {"id": "2", "condition": "bad"}),
    ]


def test_stimuli_csv_with_byte_order_mark(tmp_path: Path) -> None:
    """A UTF-8 byte order mark (as Excel writes) does not hide the sentence column."""
    path = tmp_path / "stimuli.csv"
    path.write_bytes("\ufeffsentence\nA cat.\n".encode())
    assert read_stimuli_csv(path) == [Stimulus("A cat.", {})]


@pytest.mark.parametrize("content, expected", [
    (b"sentence,id\nA cat.,1\n ,2\n", r"stimuli.csv:3: the 'sentence' cell is empty"),
    (b"text,id\nA cat.,1\n", r"no 'sentence' column in the header row"),
    (b"sentence\nA cat.\nA caf\xe9.\n", r"stimuli.csv:3: not UTF-8"),
    (b"sentence,id\n\"two\nlines\",1\nA cat.\n", r"stimuli.csv:4: 1 cells"),
    (b"sentence,sentence\na,b\n", r"stimuli.csv:1: the columns at places 1 and 2 are the same"),
    (b"", r"empty"),
    (b"\n\n", r"empty"),
])
def test_bad_stimuli_csv(tmp_path: Path, content: bytes, expected: str) -> None:
    """Bad stimuli CSVs give an InputError with the line at fault."""
    path = tmp_path / "stimuli.csv"
    path.write_bytes(content)
    with pytest.raises(InputError, match=expected):
        read_stimuli_csv(path)


def test_cell_at_the_limit_is_read(tmp_path: Path) -> None:
    """A cell of exactly MAX_CELL characters is fine."""
    path = tmp_path / "stimuli.csv"
    path.write_text(f"sentence\n{'a' * MAX_CELL}\n", encoding="utf-8")
    assert read_stimuli_csv(path)[0].sentence == "a" * MAX_CELL


@pytest.mark.parametrize("limit", [None, 10 * MAX_CELL])
def test_too_long_cell_is_an_input_error(tmp_path: Path, limit: int | None) -> None:
    """A cell over 131,072 characters is refused with its line, whatever csv's global limit."""
    path = tmp_path / "stimuli.csv"
    path.write_text(f"sentence,id\nshort,1\n{'a' * (MAX_CELL + 1)},2\n", encoding="utf-8")
    old = csv.field_size_limit()
    try:
        if limit is not None:
            csv.field_size_limit(limit)
        with pytest.raises(InputError, match=r"stimuli.csv:3: a cell is longer than 131,072"):
            read_stimuli_csv(path)
    finally:
        csv.field_size_limit(old)


def test_read_stimuli_dispatches_on_file_kind(tmp_path: Path) -> None:
    """.json is a suite, a long-format .csv is a suite, any other CSV is stimuli."""
    assert isinstance(read_stimuli(write_json(tmp_path, suite_dict())), GymSuite)
    long_csv = tmp_path / "long.csv"
    long_csv.write_text(LONG_CSV, encoding="utf-8")
    assert isinstance(read_stimuli(long_csv), GymSuite)
    plain = tmp_path / "plain.csv"
    plain.write_text("sentence\nA cat.\n", encoding="utf-8")
    assert read_stimuli(plain) == [Stimulus("A cat.", {})]
    other = tmp_path / "plain.txt"
    other.write_text("sentence\nA dog.\n", encoding="utf-8")
    assert read_stimuli(other) == [Stimulus("A dog.", {})]


def test_items_modules_import_light() -> None:
    """The suite and formula modules load without torch, transformers, streamlit or suites."""
    code = ("import sys, pfcore.items.syntaxgym, pfcore.items.formula; "
            "print(sorted(m for m in ('torch', 'transformers', 'streamlit', 'pfcore.suites') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, check=True)
    assert out.stdout.strip() == "[]"
