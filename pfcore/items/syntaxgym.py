"""SyntaxGym test suites as frozen data: JSON suites, the long CSV layout, and plain stimuli CSVs.

A condition's sentence is built as SyntaxGym builds it: the regions with text, each stripped on
the left, joined by one space. Each region keeps its character span in that sentence, so scores
of tokens can be gathered per region (see pfcore.scoring.align).
Every problem in a file is an InputError naming the file, the line or the item, condition and
prediction by number, and what is wrong; no message repeats the file's text (a wrong path must not
show what another file holds). Files are read through `files`' bounded reader.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pfcore.errors import InputError, expected_name, type_name
from pfcore.files import MIB, FileKind, read_bounded, text_lines, write_output
from pfcore.items.formula import Formula, FormulaError, parse_formula
from pfcore.scoring.align import METRICS

STIMULI_FILE = FileKind("stimuli file", 64 * MIB)  # a CSV of 20,000 rows is about 2 MiB
SUITE_FILE = FileKind("SyntaxGym suite", 64 * MIB)  # the largest suites are about 10 MB

LONG_COLUMNS = ("item_number", "condition_name", "region_number", "region_name", "content")
SENTENCE_COLUMN = "sentence"
MAX_CELL = 131_072  # characters; the csv module's default field limit
SUITE_KEYS = ("meta", "region_meta", "predictions", "items")


def stimuli_kind(name: str) -> FileKind:
    """The kind of stimuli file a name is read as: a JSON SyntaxGym suite, or a CSV."""
    return SUITE_FILE if Path(name).suffix.lower() == ".json" else STIMULI_FILE


Span = tuple[int, int]
RawCondition = tuple[str, list[tuple[int, str]]]  # name, (region number, content) in order
RawItem = tuple[int, list[RawCondition]]


@dataclass(frozen=True)
class Region:
    """One region of a condition: its number, its content as in the file, its sentence span."""

    number: int
    content: str
    span: Span


@dataclass(frozen=True)
class Condition:
    """One condition of an item: the regions in order and the sentence they make."""

    name: str
    regions: tuple[Region, ...]
    sentence: str

    @property
    def spans(self) -> list[Span]:
        """The regions' character spans in the sentence, in region order."""
        return [region.span for region in self.regions]

    def region(self, number: int) -> Region:
        """The region with this number; InputError when the condition has none."""
        for region in self.regions:
            if region.number == number:
                return region
        raise InputError(f"condition {self.name!r} has no region {number}")


@dataclass(frozen=True)
class Item:
    """One item: the same frame in each condition."""

    number: int
    conditions: tuple[Condition, ...]

    def condition(self, name: str) -> Condition:
        """The condition with this name; InputError when the item has none."""
        for condition in self.conditions:
            if condition.name == name:
                return condition
        raise InputError(f"item {self.number} has no condition {name!r}")


@dataclass(frozen=True)
class GymSuite:
    """A SyntaxGym suite: its metric (the one its predictions read), region names, prediction
    formulas and items; `metrics` are every metric the file asks for ("all" or a list in meta.metric;
    the metric alone when empty)."""

    name: str
    metric: str
    region_names: dict[int, str] = field(hash=False)
    predictions: tuple[Formula, ...]
    items: tuple[Item, ...]
    metrics: tuple[str, ...] = ()

    @property
    def all_metrics(self) -> tuple[str, ...]:
        """Every metric the suite's file asks for, in the order it gives them."""
        return self.metrics or (self.metric,)

    @property
    def conditions(self) -> tuple[str, ...]:
        """Every condition name, in the order the items first give them."""
        return tuple(dict.fromkeys(c.name for item in self.items for c in item.conditions))


@dataclass(frozen=True)
class Stimulus:
    """One row of a stimuli CSV: the sentence and the other cells, as text."""

    sentence: str
    extra: dict[str, str] = field(default_factory=dict, hash=False)


# ---------------------------------------------------------------- building and checking

def build_condition(name: str, regions: Iterable[tuple[int, str]]) -> Condition:
    """The condition with its sentence and spans; a region without text gets an empty span
    at the end of the text before it."""
    pieces: list[str] = []
    built: list[Region] = []
    position = 0
    for number, content in regions:
        text = content.lstrip()
        start = position
        if text:
            start = position + 1 if pieces else 0
            pieces.append(text)
            position = start + len(text)
        built.append(Region(number, content, (start, position)))
    return Condition(name, tuple(built), " ".join(pieces))


def build_suite(label: str, name: str, metric: str, region_names: dict[int, str],
                formulas: list[str], items: list[RawItem], metrics: tuple[str, ...] = ()) -> GymSuite:
    """A checked GymSuite; `label` names the suite (and file) in every InputError."""
    if metric not in METRICS or not set(metrics) <= set(METRICS):
        raise InputError(f"{label}: unknown metric (choose from {', '.join(METRICS)}, all, or a list of them)")
    if not items:
        raise InputError(f"{label}: the suite has no items")
    predictions = tuple(_parse_prediction(label, index, text) for index, text in enumerate(formulas, start=1))
    built = tuple(_build_item(label, region_names, raw) for raw in items)
    _check_unique(label, [item.number for item in built], "item number")
    all_conditions = tuple(dict.fromkeys(c.name for item in built for c in item.conditions))
    for item in built:
        _check_predictions(label, item, predictions, region_names, all_conditions)
        _check_conditions(label, item, all_conditions)
    return GymSuite(name, metric, region_names, predictions, built, metrics)


def _parse_prediction(label: str, index: int, text: str) -> Formula:
    """The parsed formula of prediction `index` (from 1); InputError naming suite and formula."""
    try:
        return parse_formula(text)
    except FormulaError as exc:
        raise InputError(f"{label}, prediction {index}: {exc.problem}") from None


def _build_item(label: str, region_names: Mapping[int, str], raw: RawItem) -> Item:
    """One item, its conditions and regions checked against each other and region_meta."""
    number, conditions = raw
    where = f"{label}, item {number}"
    if not conditions:
        raise InputError(f"{where}: the item has no conditions")
    _check_unique(where, [name for name, _ in conditions], "condition name")
    for position, (_, regions) in enumerate(conditions, start=1):
        numbers = [region for region, _ in regions]
        _check_unique(f"{where}, condition {position}", numbers, "region number")
        unknown = sorted(set(numbers) - set(region_names))
        if unknown:
            raise InputError(f"{where}, condition {position}: region {unknown[0]} is not in "
                             f"region_meta (which has {_listing(region_names)})")
    built = tuple(build_condition(name, regions) for name, regions in conditions)
    for position, condition in enumerate(built, start=1):
        if not condition.sentence:
            raise InputError(f"{where}, condition {position}: no region has text, "
                             f"so there is no sentence to score")
    return Item(number, built)


def _check_unique(where: str, values: list[Any], what: str) -> None:
    """InputError when a value repeats: a number is named, a text by its places (never quoted)."""
    seen: dict[Any, int] = {}
    for position, value in enumerate(values, start=1):
        if value in seen:
            if isinstance(value, int):
                raise InputError(f"{where}: {what} {value} appears twice")
            raise InputError(f"{where}: the {what}s at places {seen[value]} and {position} are the same")
        seen[value] = position


def _check_predictions(label: str, item: Item, predictions: tuple[Formula, ...],
                       region_names: Mapping[int, str], all_conditions: tuple[str, ...]) -> None:
    """Every region a formula reads must exist in this item; InputError naming item and formula."""
    names = {condition.name: condition for condition in item.conditions}
    for index, formula in enumerate(predictions, start=1):
        where = f"{label}, item {item.number}, prediction {index}"
        for condition, number in sorted(formula.regions, key=lambda ref: (ref[0], ref[1] or 0)):
            if condition not in names:
                known = "another item has it" if condition in all_conditions else "no item has it"
                raise InputError(f"{where}: the formula reads a condition this item lacks ({known}; "
                                 f"this item has {len(names)} conditions)")
            if number is None:
                continue
            if number not in region_names:
                raise InputError(f"{where}: region {number} is not in region_meta (which has "
                                 f"{_listing(region_names)})")
            if number not in {region.number for region in names[condition].regions}:
                place = list(names).index(condition) + 1
                raise InputError(f"{where}: the formula reads region {number} of condition {place}, "
                                 "which has no such region")


def _check_conditions(label: str, item: Item, all_conditions: tuple[str, ...]) -> None:
    """Each item must have every condition some item has."""
    have = {condition.name for condition in item.conditions}
    missing = [name for name in all_conditions if name not in have]
    if missing:
        raise InputError(f"{label}, item {item.number}: {len(missing)} of the suite's {len(all_conditions)} "
                         "conditions are missing (other items have them)")


def _listing(values: Iterable[Any]) -> str:
    """Values as a short comma-separated list for messages."""
    return ", ".join(str(value) for value in values) or "none"


# ---------------------------------------------------------------- JSON suites

def read_suite(path: str | Path) -> GymSuite:
    """A SyntaxGym JSON suite, checked; InputError naming suite, item and formula otherwise."""
    return read_suite_json(path)[0]


def read_suite_json(path: str | Path) -> tuple[GymSuite, dict[str, Any]]:
    """A SyntaxGym JSON suite, checked, with the JSON object it was read from (for writing the suite
    back with values added, as syntaxgym-core's output files are)."""
    path = Path(path)
    data = _load_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: a suite must be a JSON object, not {type_name(data, json=True)}")
    name = _suite_name(data, path)
    label = str(path)
    missing = [key for key in SUITE_KEYS if key not in data]
    if missing:
        raise InputError(f"{label}: the suite lacks {', '.join(map(repr, missing))}")
    meta = _typed(data, "meta", dict, label)
    metric, metrics = _metrics(meta.get("metric", "sum"), label)
    region_names = _region_meta(_typed(data, "region_meta", dict, label), label)
    formulas = [_formula_text(p, index, label) for index, p in
                enumerate(_typed(data, "predictions", list, label), start=1)]
    items = [_raw_item(raw, index, label) for index, raw in
             enumerate(_typed(data, "items", list, label), start=1)]
    return build_suite(label, name, metric, region_names, formulas, items, metrics), data


def _metrics(raw: Any, label: str) -> tuple[str, tuple[str, ...]]:
    """(the metric predictions read, every metric asked for) from meta.metric: one name, "all" or a
    list of names, as syntaxgym-core reads it; with several, predictions read the sum (as syntaxgym-core's
    do) or, without it, the first."""
    if raw == "all":
        return "sum", METRICS
    if isinstance(raw, str):
        return raw, ()
    if not isinstance(raw, list) or not raw or not all(isinstance(m, str) for m in raw):
        raise InputError(f"{label}, meta: 'metric' must be a metric's name, \"all\" or a list of names, "
                         f"not {type_name(raw, json=True)}")
    names = tuple(dict.fromkeys(raw))
    return ("sum" if "sum" in names else names[0]), names


def _suite_name(data: dict[str, Any], path: Path) -> str:
    """meta.name where it is a non-empty text, else the file name without its suffix."""
    meta = data.get("meta")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) and name else path.stem


def _load_json(path: Path) -> Any:
    """The parsed JSON of a file (read within the suite's cap); InputError saying why it cannot be."""
    raw = read_bounded(path, SUITE_FILE)
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON, line {exc.lineno} column {exc.colno}: "
                         f"{exc.msg}") from None
    except ValueError:  # e.g. an integer with more digits than Python converts
        raise InputError(f"{path}: not usable JSON (a number too large to read)") from None
    except RecursionError:
        raise InputError(f"{path}: the JSON is nested too deeply") from None


def _typed(obj: Mapping[str, Any], key: str, expected: type, where: str) -> Any:
    """obj[key], which must be there and of the `expected` type; InputError naming `where` otherwise."""
    if key not in obj:
        raise InputError(f"{where}: {key!r} is missing")
    value = obj[key]
    if not isinstance(value, expected) or isinstance(value, bool):
        raise InputError(f"{where}: {key!r} must be {expected_name(expected, json=True)}, "
                         f"not {type_name(value, json=True)}")
    return value


def _region_meta(raw: dict[str, Any], label: str) -> dict[int, str]:
    """region_meta as region number -> region name."""
    names: dict[int, str] = {}
    for key, value in raw.items():
        number = _as_number(key)
        if number is None or not isinstance(value, str):
            raise InputError(f"{label}: region_meta must map region numbers to names (text); "
                             f"its entry {len(names) + 1} does not")
        names[number] = value
    return names


def _as_number(text: str) -> int | None:
    """A whole number written in text (at most 9 digits), or None."""
    text = text.strip()
    return int(text) if text.isdecimal() and len(text) <= 9 else None


RELATIONS = {"greaterthan": ">", "lessthan": "<"}  # SyntaxGym's first (v1) predictions: one region compared


def _formula_text(prediction: Any, index: int, label: str) -> str:
    """The formula text of one prediction: the type "formula", or a v1 `relation` prediction
    ({"relation": "greaterthan", "region_number": 3, "l_operand": "that", "r_operand": "what"} is
    "(3;%that%) > (3;%what%)")."""
    where = f"{label}, prediction {index}"
    if not isinstance(prediction, dict):
        raise InputError(f"{where}: must be an object, not {type_name(prediction, json=True)}")
    if "type" not in prediction and "relation" in prediction:
        return _relation_text(prediction, where)
    if prediction.get("type") != "formula":
        raise InputError(f"{where}: unknown prediction type (known: the type 'formula', and v1 predictions "
                         f"with a 'relation' of {' or '.join(RELATIONS)})")
    return str(_typed(prediction, "formula", str, where))


def _relation_text(prediction: dict[str, Any], where: str) -> str:
    """A v1 relation prediction as the formula it stands for."""
    relation = _typed(prediction, "relation", str, where)
    if relation not in RELATIONS:
        raise InputError(f"{where}: unknown relation (known: {', '.join(RELATIONS)})")
    number = _typed(prediction, "region_number", int, where)
    left, right = (_typed(prediction, key, str, where) for key in ("l_operand", "r_operand"))
    return f"({number};%{left}%) {RELATIONS[relation]} ({number};%{right}%)"


def _raw_item(raw: Any, index: int, label: str) -> RawItem:
    """(item number, conditions) of one JSON item, with every field's type checked."""
    where = f"{label}, item at position {index}"
    if not isinstance(raw, dict):
        raise InputError(f"{where}: must be an object, not {type_name(raw, json=True)}")
    number: int = _typed(raw, "item_number", int, where)
    where = f"{label}, item {number}"
    conditions = []
    for position, condition in enumerate(_typed(raw, "conditions", list, where), start=1):
        if not isinstance(condition, dict):
            raise InputError(f"{where}: each condition must be an object, not {type_name(condition, json=True)}")
        name: str = _typed(condition, "condition_name", str, f"{where}, condition {position}")
        regions = [_raw_region(region, f"{where}, condition {position}")
                   for region in _typed(condition, "regions", list, f"{where}, condition {position}")]
        conditions.append((name, regions))
    return number, conditions


def _raw_region(raw: Any, where: str) -> tuple[int, str]:
    """(region number, content) of one JSON region."""
    if not isinstance(raw, dict):
        raise InputError(f"{where}: each region must be an object, not {type_name(raw, json=True)}")
    return _typed(raw, "region_number", int, where), _typed(raw, "content", str, where)


# ---------------------------------------------------------------- CSV files

def read_long_csv(path: str | Path) -> GymSuite:
    """A suite from SyntaxGym's long CSV (one row per region); no predictions, metric sum.
    Columns other than LONG_COLUMNS are ignored."""
    path = Path(path)
    return _suite_from_rows(path, *_read_csv(path))


def read_stimuli_csv(path: str | Path) -> list[Stimulus]:
    """The rows of a CSV with a `sentence` column; the other columns are kept as text."""
    path = Path(path)
    return _stimuli_from_rows(path, *_read_csv(path))


def read_stimuli(path: str | Path) -> GymSuite | list[Stimulus]:
    """A suite for .json files and long-format CSVs; otherwise the rows of a stimuli CSV."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        return read_suite(path)
    header, rows = _read_csv(path)
    if path.suffix.lower() == ".csv" and set(LONG_COLUMNS) <= set(header):
        return _suite_from_rows(path, header, rows)
    return _stimuli_from_rows(path, header, rows)


def write_long_csv(suite: GymSuite, path: str | Path) -> None:
    """Write the suite in SyntaxGym's long CSV layout (predictions are not part of it)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(LONG_COLUMNS)
    for item in suite.items:
        for condition in item.conditions:
            for region in condition.regions:
                writer.writerow([item.number, condition.name, region.number,
                                 suite.region_names[region.number], region.content])
    write_output(Path(path), out.getvalue(), "the file")


Row = tuple[int, dict[str, str]]  # line number, cells by column


def _read_csv(path: Path) -> tuple[list[str], Iterator[Row]]:
    """The header and a stream of the non-blank rows of a UTF-8 CSV, read as a bounded stream of
    lines (`files.text_lines`), so the first bad row is refused without reading the rest; InputError
    with the line otherwise."""
    records = _records(path, text_lines(path, STIMULI_FILE))
    first = next(records, None)
    if first is None:
        raise InputError(f"{path}: the file is empty; it needs a header row")
    header = first[1]
    _check_unique(f"{path}:1", header, "column")
    return header, _rows(path, header, records)


def _rows(path: Path, header: list[str], records: Iterator[tuple[int, list[str]]]) -> Iterator[Row]:
    """Each record's cells by column, refused at the first record whose count differs from the header's."""
    for line, cells in records:
        if len(cells) != len(header):
            raise InputError(f"{path}:{line}: {len(cells)} cells, but the header has "
                             f"{len(header)} columns")
        yield line, dict(zip(header, cells))


def _records(path: Path, lines: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    """Each non-blank CSV record with the line it starts on; cells over MAX_CELL are refused."""
    reader = csv.reader(lines)
    line = 1
    try:
        for cells in reader:
            if any(len(cell) > MAX_CELL for cell in cells):
                raise csv.Error("field larger than field limit")
            if cells:
                yield line, cells
            line = reader.line_num + 1
    except csv.Error as exc:
        why = (f"a cell is longer than {MAX_CELL:,} characters" if "field limit" in str(exc)
               else f"not a readable CSV row ({exc})")
        raise InputError(f"{path}:{line}: {why}") from None


def _stimuli_from_rows(path: Path, header: list[str], rows: Iterable[Row]) -> list[Stimulus]:
    """Stimuli from CSV rows; the sentence column must be there and filled in."""
    if SENTENCE_COLUMN not in header:
        raise InputError(f"{path}: no {SENTENCE_COLUMN!r} column in the header row; name the column of "
                         f"sentences {SENTENCE_COLUMN!r}")
    stimuli = []
    for line, cells in rows:
        sentence = cells.pop(SENTENCE_COLUMN)
        if not sentence.strip():
            raise InputError(f"{path}:{line}: the {SENTENCE_COLUMN!r} cell is empty")
        stimuli.append(Stimulus(sentence, cells))
    return stimuli


def _suite_from_rows(path: Path, header: list[str], rows: Iterable[Row]) -> GymSuite:
    """A suite from long-CSV rows, grouped by item then condition in the order first seen."""
    missing = [column for column in LONG_COLUMNS if column not in header]
    if missing:
        raise InputError(f"{path}: a long SyntaxGym CSV needs the columns "
                         f"{_listing(LONG_COLUMNS)}; {_listing(missing)} missing")
    region_names: dict[int, str] = {}
    items: dict[int, dict[str, list[tuple[int, str]]]] = {}
    for line, cells in rows:
        item = _whole_number(cells, "item_number", f"{path}:{line}")
        region = _whole_number(cells, "region_number", f"{path}:{line}")
        if region_names.setdefault(region, cells["region_name"]) != cells["region_name"]:
            raise InputError(f"{path}:{line}: region {region} has another region_name here than on an "
                             "earlier line")
        conditions = items.setdefault(item, {})
        conditions.setdefault(cells["condition_name"], []).append((region, cells["content"]))
    raw = [(number, list(conditions.items())) for number, conditions in items.items()]
    return build_suite(str(path), path.stem, "sum", region_names, [], raw)


def _whole_number(cells: Mapping[str, str], column: str, where: str) -> int:
    """The cell as a whole number; InputError naming the line and column otherwise."""
    number = _as_number(cells[column])
    if number is None:
        raise InputError(f"{where}: {column} must be a whole number (at most 9 digits)")
    return number
