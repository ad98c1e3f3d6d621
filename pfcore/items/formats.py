"""Item files: the published TSV layouts, and our own CSV and JSONL (optionally gzipped).

Reading collects every problem with its line; `read_item_file` raises them as one InputError.
Writing goes through `files.write_atomic`, so a failed write leaves nothing behind.
"""
from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from functools import cache
from itertools import chain
from pathlib import Path
from typing import Any, cast

from pfcore.errors import InputError
from pfcore.files import MIB, FileKind, ReadRefused, read_bounded, write_output
from pfcore.items.generate import PAPER_MANIPULATIONS
from pfcore.items.lexicon import Lexicon, frame_name, load_lexicon
from pfcore.items.schema import FILLS, ITEM_TYPES, SYNTAX_CONTROL, Item, SemanticItem, SyntaxItem, build, field_names
from pfcore.names import SuiteName

ITEM_FILE = FileKind("item file", 256 * MIB)  # the shipped item files hold under 40 MiB

FORMATS = ("paper-tsv", "csv", "jsonl")
PAPER_SEMANTIC_COLUMNS = ["Swapped_Condition", "Swapped_Stimulus", "Let-Alone", "Sentence",
                          "Plain Verb", "Noun", "Pronoun", "Modal"]
PAPER_SYNTAX_COLUMNS = ["Cxn", *PAPER_SEMANTIC_COLUMNS, "manipulation"]
PAPER_SYNTAX_OPTIONAL = ["old_index"]  # the archive's row number in the authors' first pass
META_KEY = "pfcore_items"
MAX_REPORTED = 20
CONVERSION_ERRORS = (ValueError, TypeError, OverflowError)  # a value that is not of a field's type
TO_PAPER_MANIPULATION = {ours: paper for paper, ours in PAPER_MANIPULATIONS.items()}


@dataclass
class ItemFile:
    """What a file held: the suite its items belong to (None when no suite's), its format, the
    items with their source lines, and metadata."""

    path: str
    suite: SuiteName | None
    format: str
    items: list[Item] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


class _Problems(list[str]):
    """Problems found while reading one file, each as "path:line: message"."""

    def __init__(self, path: Path) -> None:
        """Start empty for `path`."""
        super().__init__()
        self.path = path

    def add(self, line: int, message: str) -> None:
        """Record one problem."""
        self.append(f"{self.path}:{line}: {message}")


def format_for(path: str | Path, fmt: str | None = None) -> str:
    """The format to use: the one given, else the one the file name suggests (jsonl otherwise)."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise InputError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
        return fmt
    name = str(path).lower().removesuffix(".gz")
    return "paper-tsv" if name.endswith(".tsv") else "csv" if name.endswith(".csv") else "jsonl"


# ---------------------------------------------------------------- writing

def write_items(items: Sequence[Item], path: str | Path, format: str | None = None,
                meta: dict[str, Any] | None = None) -> None:
    """Write items (all of one suite's) to `path`; ".gz" compresses. Paper TSVs carry no metadata."""
    write_output(Path(path), render_items(items, format_for(path, format), meta), "the item file")


def render_items(items: Sequence[Item], fmt: str, meta: dict[str, Any] | None = None) -> str:
    """The file text for items in one format."""
    suites = {item.SUITE for item in items}
    if len(suites) != 1:
        raise InputError("nothing to write" if not suites else
                         f"cannot write items of several suites together ({', '.join(sorted(suites))})")
    suite = suites.pop()
    header = {"kind": suite, "count": len(items), **(meta or {})}  # "kind": the files' key for the suite
    if fmt == "paper-tsv":
        return _paper_text(items, suite)
    names = field_names(suite)
    if fmt == "csv":
        out = io.StringIO()
        out.write("# " + json.dumps({META_KEY: header}, ensure_ascii=False) + "\n")
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(names)
        for item in items:
            writer.writerow(_cell(getattr(item, n)) for n in names)
        return out.getvalue()
    lines = [json.dumps({META_KEY: header}, ensure_ascii=False)]
    lines += [json.dumps({n: getattr(item, n) for n in names}, ensure_ascii=False)
              for item in items]
    return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    """A CSV cell: booleans as true/false, tuples joined by "|", spans as start:end."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "|".join(f"{v[0]}:{v[1]}" if isinstance(v, tuple) else str(v) for v in value)
    return str(value)


def _paper_text(items: Sequence[Item], suite: SuiteName) -> str:
    """The published TSV layout: semantic (one construction per file) or syntactic."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    if suite == SuiteName.SEMANTIC:
        constructions = {item.construction for item in items}
        if len(constructions) > 1:
            raise InputError("a paper TSV holds one construction; choose one with --construction "
                             "or write csv/jsonl")
        writer.writerow(PAPER_SEMANTIC_COLUMNS)
        for it in cast(Sequence[SemanticItem], items):
            writer.writerow([int(it.context_order == "misaligned"),
                             int(it.followup_order == "reversed"), int(it.is_construction),
                             it.sentence, it.verb, it.noun, it.pronoun, it.modal])
    elif suite == SuiteName.SYNTAX:
        writer.writerow(PAPER_SYNTAX_COLUMNS)
        for row in cast(Sequence[SyntaxItem], items):
            writer.writerow([row.connective, int(row.context_order == "misaligned"), 0, 1,
                             row.sentence, row.verb, row.noun, row.pronoun, row.modal,
                             TO_PAPER_MANIPULATION[row.manipulation]])
    else:
        raise InputError(f"{suite} items have no published TSV layout; write csv or jsonl")
    return out.getvalue()


# ---------------------------------------------------------------- reading

def read_items(path: str | Path, lexicon: Lexicon | None = None) -> list[Item]:
    """The items of any item file (paper TSV, archive syntactic TSV, CSV, JSONL; .gz too)."""
    return read_item_file(path, lexicon).items


def read_item_file(path: str | Path, lexicon: Lexicon | None = None) -> ItemFile:
    """The whole item file; InputError naming file, line and problem when it cannot be read."""
    parsed, problems = parse_item_file(path, lexicon)
    if problems:
        raise problems_error("cannot read the item file", problems)
    return parsed


def problems_error(title: str, problems: Sequence[str]) -> InputError:
    """One InputError: the title, then at most MAX_REPORTED problems and how many more."""
    more = f"\n... and {len(problems) - MAX_REPORTED} more" if len(problems) > MAX_REPORTED else ""
    return InputError(f"{title}:\n" + "\n".join(problems[:MAX_REPORTED]) + more)


def parse_item_file(path: str | Path, lexicon: Lexicon | None = None) -> tuple[ItemFile, list[str]]:
    """The items that could be read, and a problem for each line that could not."""
    path = Path(path)
    problems = _Problems(path)
    text = _read_text(path, problems)
    if text is None:
        return ItemFile(str(path), None, ""), problems
    first = text.partition("\n")[0]
    if not text.strip():
        problems.add(1, "the file is empty")
        parsed = ItemFile(str(path), None, "")
    elif first.startswith("{"):
        parsed = _read_jsonl(path, text, problems)
    elif "\t" in first:
        parsed = _read_paper(path, text, lexicon or load_lexicon(), problems)
    else:
        parsed = _read_csv(path, text, problems)
    return parsed, problems


def _read_text(path: Path, problems: _Problems) -> str | None:
    """The file's text, or None and a problem: unreadable, not a file, broken gzip, over the item
    file's cap (counted after decompression, see `files.read_bounded`), not UTF-8."""
    try:
        raw = read_bounded(path, ITEM_FILE, gunzip=True)
    except ReadRefused as exc:
        problems.add(exc.line or 1, exc.reason)
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.add(raw.count(b"\n", 0, exc.start) + 1, f"not UTF-8 text ({exc.reason})")
        return None


def _parse_json(line: str) -> tuple[Any, str]:
    """A line's JSON value and "", or None and why it cannot be used: not JSON (nesting or a
    number Python cannot hold included), or text with an unpaired surrogate, which no file
    or hash can encode."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError) as exc:
        return None, f"not valid JSON ({getattr(exc, 'msg', exc)})"
    if "\\" in line and not _encodable(value):
        return None, "text holds an unpaired surrogate"
    return value, ""


def _encodable(value: Any) -> bool:
    """Whether a JSON value's text encodes as UTF-8 (half a surrogate pair, escaped, does not)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _meta_line(line: str, lineno: int, problems: _Problems) -> dict[str, Any]:
    """The metadata object of a first line, or {} and a problem."""
    value, why = _parse_json(line)
    meta = value.get(META_KEY) if isinstance(value, dict) else None
    if isinstance(meta, dict):
        return meta
    problems.add(lineno, f"expected the metadata line {{\"{META_KEY}\": {{...}}}}"
                         + (f": {why}" if why else ""))
    return {}


def _suite_of(meta: dict[str, Any], columns: Sequence[str], lineno: int, problems: _Problems) -> SuiteName | None:
    """The suite the metadata names (under "kind") or, failing that, the one whose item fields these
    columns are."""
    named = meta.get("kind")
    if isinstance(named, str) and named in ITEM_TYPES:
        return SuiteName(named)
    for suite in ITEM_TYPES:
        if set(columns) == set(field_names(suite)):
            return suite
    problems.add(lineno, f"the metadata names no item kind and the {len(columns)} columns are not the fields of "
                         f"one (of {', '.join(ITEM_TYPES)})")
    return None


def _read_jsonl(path: Path, text: str, problems: _Problems) -> ItemFile:
    """Our JSONL: a metadata line, then one JSON object per item."""
    lines = text.split("\n")
    has_meta = META_KEY in lines[0]
    meta = _meta_line(lines[0], 1, problems) if has_meta else {}
    records = []
    for lineno, line in enumerate(lines[1:] if has_meta else lines, start=2 if has_meta else 1):
        if not line.strip():
            continue
        record, why = _parse_json(line)
        if why:
            problems.add(lineno, why)
            continue
        if not isinstance(record, dict):
            problems.add(lineno, "expected a JSON object")
            continue
        records.append((lineno, record))
    columns = list(records[0][1]) if records else []
    suite = _suite_of(meta, columns, records[0][0] if records else 1, problems)
    out = ItemFile(str(path), suite, "jsonl", meta=meta)
    if suite is None:
        return out
    items = _all_at_once(suite, [record for _, record in records])
    if items is not None:
        out.items.extend(items)
        out.lines.extend(lineno for lineno, _ in records)
        return out
    converters = _converters(suite, from_text=False)
    for lineno, record in records:
        _add(out, lineno, record, problems, converters)
    return out


JSON_TYPES: dict[str, type] = {"str": str, "bool": bool, "int": int}


def _all_at_once(suite: SuiteName, records: list[dict[str, Any]]) -> list[Item] | None:
    """All records as items, checked a field at a time across the file (the shipped files read
    twice as fast this way); None when any record is off, so that the record-by-record reader
    names each bad line. Span fields (affinity items) always take that reader."""
    cls = ITEM_TYPES[suite]
    names = {f.name for f in fields(cls)}
    if any(record.keys() != names for record in records):
        return None
    columns = []
    for f in fields(cls):
        column = [record[f.name] for record in records]
        type_name = str(f.type)
        if type_name in JSON_TYPES:
            if set(map(type, column)) - {JSON_TYPES[type_name]}:
                return None
        elif type_name.startswith("tuple[str"):
            if set(map(type, column)) - {list} or set(map(type, chain.from_iterable(column))) - {str}:
                return None
            column = list(map(tuple, column))
        else:
            return None
        columns.append(column)
    return [cls(*values) for values in zip(*columns)]


def _read_csv(path: Path, text: str, problems: _Problems) -> ItemFile:
    """Our CSV: an optional "# {metadata}" line, a header of field names, one row per item."""
    first, _, rest = text.partition("\n")
    meta, start, body = {}, 1, text
    if first.startswith("#"):
        meta, start, body = _meta_line(first[1:].strip(), 1, problems), 2, rest
    rows = _csv_rows(body, start, problems, ",")
    header = next(rows, (start, []))[1]
    suite = _suite_of(meta, header, start, problems)
    out = ItemFile(str(path), suite, "csv", meta=meta)
    if suite is None:
        return out
    converters = _converters(suite, from_text=True)
    for lineno, row in rows:
        if not row:
            continue
        if len(row) != len(header):
            problems.add(lineno, f"expected {len(header)} cells, found {len(row)}")
            continue
        _add(out, lineno, dict(zip(header, row)), problems, converters)
    return out


def _csv_rows(text: str, first_line: int, problems: _Problems, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """Each row of CSV text with the line it starts on; a row the csv module refuses (a cell over
    its size limit, a stray carriage return) is a problem on its line, and reading goes on."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    while True:
        lineno = first_line + reader.line_num
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            problems.add(lineno, f"cannot read the row ({exc})")
            continue
        yield lineno, row


Converter = Callable[[Any], Any]


def _add(out: ItemFile, lineno: int, record: dict[str, Any], problems: _Problems,
         converters: list[tuple[str, str, Converter]]) -> None:
    """Convert one record to an item of the file's suite, or record why it cannot be."""
    names = [name for name, _, _ in converters]
    if record.keys() != set(names):
        missing = [n for n in names if n not in record]
        extra = [k for k in record if k not in names]
        parts = [f"missing fields {', '.join(missing)}"] if missing else []
        parts += [f"{len(extra)} fields that {out.suite} items do not have"] if extra else []
        problems.add(lineno, "; ".join(parts))
        return
    try:
        values = {name: convert(record[name]) for name, _, convert in converters}
    except CONVERSION_ERRORS:
        name, type_name = next((n, t) for n, t, c in converters if not _converts(c, record[n]))
        problems.add(lineno, f"field {name}: the value is not of type {type_name}")
        return
    out.items.append(ITEM_TYPES[cast(SuiteName, out.suite)](**values))
    out.lines.append(lineno)


def _converts(convert: Converter, value: Any) -> bool:
    """Whether a converter accepts a value (to name the field that failed)."""
    try:
        convert(value)
    except CONVERSION_ERRORS:
        return False
    return True


def _converters(suite: SuiteName, from_text: bool) -> list[tuple[str, str, Converter]]:
    """(field, type, converter) for each field of a suite's items, reading CSV text or JSON values."""
    return [(f.name, str(f.type), _converter(str(f.type), from_text))
            for f in fields(ITEM_TYPES[suite])]


def _exactly(expected: type) -> Converter:
    """A JSON value of exactly this type, unchanged (so true is not read as the integer 1)."""
    def convert(value: Any) -> Any:
        if type(value) is not expected:
            raise TypeError(value)
        return value
    return convert


def _converter(type_name: str, from_text: bool) -> Converter:
    """A function turning a CSV cell (text) or a JSON value into a field of the schema's type."""
    text = _exactly(str)

    def boolean(value: Any) -> bool:
        if value not in ("true", "false"):
            raise ValueError(value)
        return value == "true"

    def strings(value: Any) -> tuple[str, ...]:
        parts = (value.split("|") if value else []) if from_text else _exactly(list)(value)
        return tuple(text(p) for p in parts)

    def spans(value: Any) -> tuple[tuple[int, int], ...]:
        pairs = ([p.split(":") for p in value.split("|")] if value else []) if from_text else value
        return tuple((int(a), int(b)) for a, b in pairs)

    if from_text and type_name in ("bool", "int"):
        return boolean if type_name == "bool" else int
    if type_name in JSON_TYPES:
        return _exactly(JSON_TYPES[type_name])
    if type_name.startswith("tuple[tuple[int, int]"):
        return spans
    if type_name.startswith("tuple[str"):
        return strings
    raise TypeError(f"no reader for field type {type_name}")


# ---------------------------------------------------------------- the published TSVs

def _read_paper(path: Path, text: str, lexicon: Lexicon, problems: _Problems) -> ItemFile:
    """A published TSV: the semantic layout (8 columns) or the syntactic one (Cxn ... manipulation)."""
    rows = list(_csv_rows(text, 1, problems, "\t"))
    header = rows[0][1] if rows else []
    if header == PAPER_SEMANTIC_COLUMNS:
        return _read_paper_semantic(path, rows[1:], lexicon, problems)
    if header[:len(PAPER_SYNTAX_COLUMNS)] == PAPER_SYNTAX_COLUMNS and \
            header[len(PAPER_SYNTAX_COLUMNS):] in ([], PAPER_SYNTAX_OPTIONAL):
        return _read_paper_syntax(path, rows[1:], lexicon, problems)
    problems.add(1, f"unknown TSV header ({len(header)} columns); expected {PAPER_SEMANTIC_COLUMNS} "
                    f"or {PAPER_SYNTAX_COLUMNS} [+ old_index]")
    return ItemFile(str(path), None, "paper-tsv")


def _paper_rows(rows: list[tuple[int, list[str]]], width: int,
                problems: _Problems) -> Iterator[tuple[int, list[str]]]:
    """The numbered data rows of the right width; others become problems."""
    for lineno, row in rows:
        if not row:
            continue
        if len(row) < width:
            problems.add(lineno, f"expected {width} columns, found {len(row)}")
            continue
        yield lineno, row


def _flag(value: str, name: str) -> int:
    """A 0/1 column value."""
    if value not in ("0", "1"):
        raise ValueError(f"{name} must be 0 or 1")
    return int(value)


def _read_paper_semantic(path: Path, rows: list[tuple[int, list[str]]], lexicon: Lexicon,
                         problems: _Problems) -> ItemFile:
    """Semantic rows; the construction is read off the sentences (one per file)."""
    names = {words: name for name, words in lexicon.constructions.items()}
    parsed = []
    for lineno, row in _paper_rows(rows, len(PAPER_SEMANTIC_COLUMNS), problems):
        swapped, reversed_, is_cxn, sentence, verb, noun, pronoun, modal = row[:8]
        try:
            flags = (_flag(swapped, "Swapped_Condition"), _flag(reversed_, "Swapped_Stimulus"),
                     _flag(is_cxn, "Let-Alone"))
        except ValueError as exc:
            problems.add(lineno, str(exc))
            continue
        context, sep, followup = sentence.partition(" one. ")
        pattern = (rf"^{re.escape(pronoun)} {re.escape(modal)} {re.escape(verb)} an? (\S+) "
                   rf"{re.escape(noun)}, (.+) an? (\S+)$")
        match = re.match(pattern, context) if sep else None
        if match is None:
            problems.add(lineno, "the Sentence does not read as 'PRONOUN MODAL VERB a ADJ NOUN, CONNECTIVE a ADJ "
                                 "one. FOLLOW-UP' with the row's Pronoun, Modal, Plain Verb and Noun")
            continue
        first, connective, second = match.groups()
        if (connective in names) != bool(flags[2]):
            problems.add(lineno, f"Let-Alone is {flags[2]} but the sentence's connective is "
                                 f"{'a construction' if connective in names else 'not a construction'}")
            continue
        parsed.append((lineno, flags, context + " one.", followup, connective,
                       (verb, noun, pronoun, modal), (first, second)))
    found = sorted({names[p[4]] for p in parsed if p[4] in names})
    out = ItemFile(str(path), SuiteName.SEMANTIC, "paper-tsv")
    if len(found) != 1:
        problems.add(2, f"a paper TSV holds one construction; found {found or 'none'}")
        return out
    repeats: Counter[tuple[Any, ...]] = Counter()
    scales = cache(lexicon.scale_of)  # each (verb, noun, adjectives) looked up once
    for lineno, flags, context, followup, connective, (verb, noun, pronoun, modal), adjs in parsed:
        weak, strong = adjs if flags[0] == 0 else adjs[::-1]
        scale = scales(verb, noun, (weak, strong))
        key = (context, followup, connective)
        out.items.append(build(
            SemanticItem, construction=found[0], connective=connective,
            is_construction=bool(flags[2]),
            context_order="misaligned" if flags[0] else "aligned",
            followup_order="reversed" if flags[1] else "same", context=context, followup=followup,
            frame=frame_name(verb, noun, scale), verb=verb, noun=noun, scale=scale,
            weak_adj=weak, strong_adj=strong, pronoun=pronoun, modal=modal, fills=FILLS,
            repeat=repeats[key]))
        out.lines.append(lineno)
        repeats[key] += 1
    return out


def _read_paper_syntax(path: Path, rows: list[tuple[int, list[str]]], lexicon: Lexicon,
                       problems: _Problems) -> ItemFile:
    """Syntactic rows (the authors' combined layout, or the archive's with old_index)."""
    names = {words: name for name, words in lexicon.constructions.items()}
    names[SYNTAX_CONTROL] = SYNTAX_CONTROL
    out = ItemFile(str(path), SuiteName.SYNTAX, "paper-tsv")
    repeats: Counter[tuple[Any, ...]] = Counter()
    scales = cache(lexicon.scale_of)  # each (verb, noun, adjectives) looked up once
    for lineno, row in _paper_rows(rows, len(PAPER_SYNTAX_COLUMNS), problems):
        cxn, swapped, _, _, sentence, verb, noun, pronoun, modal, manipulation = row[:10]
        if cxn not in names:
            problems.add(lineno, f"unknown Cxn (known: {', '.join(names)})")
            continue
        if manipulation not in PAPER_MANIPULATIONS:
            problems.add(lineno, f"unknown manipulation (known: {', '.join(PAPER_MANIPULATIONS)})")
            continue
        first = re.search(rf"\b[Aa]n? (\S+) {re.escape(noun)}\b", sentence)
        second = re.search(r"\ban? (\S+) one\b", sentence)
        if swapped not in ("0", "1") or first is None or second is None:
            problems.add(lineno, "cannot find 'a ADJ NOUN' (with the row's Noun) and 'a ADJ one' in the Sentence "
                                 "(or Swapped_Condition is not 0/1)")
            continue
        weak, strong = (first[1], second[1]) if swapped == "0" else (second[1], first[1])
        scale = scales(verb, noun, (weak, strong))
        ours = PAPER_MANIPULATIONS[manipulation]
        key = (cxn, ours, sentence)
        out.items.append(build(
            SyntaxItem, construction=names[cxn], connective=cxn, manipulation=ours,
            sentence=sentence, frame=frame_name(verb, noun, scale), verb=verb, noun=noun,
            scale=scale, weak_adj=weak, strong_adj=strong, pronoun=pronoun, modal=modal,
            context_order="misaligned" if swapped == "1" else "aligned", repeat=repeats[key]))
        out.lines.append(lineno)
        repeats[key] += 1
    return out

