"""`items check`: every problem of an item file, against the schema and the lexicon."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pfcore.items.bases import Base, known_words, sentence_words
from pfcore.items.formats import ItemFile, parse_item_file
from pfcore.items.generate import manipulations
from pfcore.items.lexicon import Frame, Lexicon, Modal, Pronoun, load_lexicon
from pfcore.items.schema import (CONTEXT_ORDERS, FOLLOWUP_ORDERS, MANIPULATIONS, MASK,
                                 SYNTAX_CONTROL, AffinityItem, Item, SemanticItem, SyntaxItem,
                                 computed_ids)

SHOWN_LINES = 5


@dataclass(frozen=True)
class Finding:
    """One problem on one line; findings with the same `what` are reported together."""

    line: int
    what: str
    detail: str = ""


def check_items(path: str | Path, lexicon: Lexicon | None = None) -> list[str]:
    """Every problem of an item file, one message each ("file:line: problem"); [] when clean."""
    lexicon = lexicon or load_lexicon()
    parsed, problems = parse_item_file(path, lexicon)
    return problems + _render(str(path), find_problems(parsed, lexicon))


def find_problems(parsed: ItemFile, lexicon: Lexicon) -> list[Finding]:
    """The findings for items read from a file (ids, values, words, blocks, lexicon agreement)."""
    findings: list[Finding] = []
    vocabulary = known_words(lexicon)
    lookup = _Lookup(lexicon)
    first_line: dict[str, int] = {}
    for item, line in zip(parsed.items, parsed.lines):
        if item.item_id in first_line:
            findings.append(Finding(line, "duplicate item_id",
                                    f"{item.item_id} (first on line {first_line[item.item_id]})"))
        first_line.setdefault(item.item_id, line)
        for name, expected in computed_ids(item).items():
            if getattr(item, name) != expected:
                findings.append(Finding(line, f"{name} does not match the content",
                                        f"found {getattr(item, name)}, expected {expected}"))
        if item.repeat:
            findings.append(Finding(line, "repeats an earlier block (duplicate content)",
                                    f"repeat {item.repeat}"))
        words = {w for text in _texts(item) for w in sentence_words(text)}
        for word in sorted(w for w in words if w.lower() not in vocabulary):
            findings.append(Finding(line, f"unknown word {word!r} (not in the lexicon)"))
        findings += KIND_CHECKS[item.KIND](item, line, lexicon, lookup)
    findings += _group_checks(parsed)
    return findings


def _texts(item: Item) -> list[str]:
    """The sentences of an item."""
    return [item.context, item.followup] if isinstance(item, SemanticItem) else [item.sentence]


class _Lookup:
    """The lexicon's frames, pronouns and modals by the names items carry."""

    def __init__(self, lexicon: Lexicon) -> None:
        """Index one lexicon."""
        self.frames: dict[str, Frame] = {f.name: f for f in lexicon.frames}
        self.pronouns: dict[str, Pronoun] = {p.word: p for p in lexicon.pronouns}
        self.modals: dict[str, Modal] = {m.negative: m for m in lexicon.modals}

    def base(self, item: SemanticItem | SyntaxItem | AffinityItem, line: int,
             findings: list[Finding]) -> Base | None:
        """The base the item claims to come from, or None with findings when the lexicon lacks it."""
        parts = {"frame": self.frames.get(item.frame), "pronoun": self.pronouns.get(item.pronoun),
                 "modal": self.modals.get(item.modal)}
        for name, found in parts.items():
            if found is None:
                findings.append(Finding(line, f"{name} {getattr(item, name)!r} is not in the lexicon"))
        if None in parts.values():
            return None
        return Base(parts["frame"], parts["pronoun"], parts["modal"], item.weak_adj,
                    item.strong_adj, item.repeat)


def _expect(findings: list[Finding], line: int, what: str, found: str, expected: str) -> None:
    """A finding when a text differs from what the lexicon generates."""
    if found != expected:
        findings.append(Finding(line, f"{what} differs from what the lexicon generates",
                                f"found {found!r}, expected {expected!r}"))


def _check_semantic(item: SemanticItem, line: int, lexicon: Lexicon, lookup: _Lookup) -> list[Finding]:
    """Values, connective and texts of a semantic row."""
    findings = []
    if item.construction not in lexicon.constructions:
        findings.append(Finding(line, f"unknown construction {item.construction!r}"))
        return findings
    connective = (lexicon.constructions[item.construction] if item.is_construction
                  else lexicon.semantic_control)
    if item.connective != connective:
        findings.append(Finding(line, "connective does not fit construction and is_construction",
                                f"found {item.connective!r}, expected {connective!r}"))
    if item.context_order not in CONTEXT_ORDERS or item.followup_order not in FOLLOWUP_ORDERS:
        findings.append(Finding(line, "unknown context_order or followup_order",
                                f"{item.context_order!r}, {item.followup_order!r}"))
        return findings
    if item.followup.count(MASK) != 1:
        findings.append(Finding(line, f"the follow-up must hold exactly one {MASK}"))
    if len(item.fills) != 2 or len(set(item.fills)) != 2:
        findings.append(Finding(line, "fills must be two different words", repr(item.fills)))
    base = lookup.base(item, line, findings)
    if base is not None:
        _expect(findings, line, "context", item.context,
                base.context(item.context_order, item.connective))
        _expect(findings, line, "follow-up", item.followup, base.followup(item.followup_order))
    return findings


def _check_syntax(item: SyntaxItem, line: int, lexicon: Lexicon, lookup: _Lookup) -> list[Finding]:
    """Values and sentence of a syntactic row."""
    findings = []
    known = {**lexicon.constructions, SYNTAX_CONTROL: SYNTAX_CONTROL}
    if known.get(item.construction) != item.connective:
        findings.append(Finding(line, "unknown construction or connective",
                                f"{item.construction!r}, {item.connective!r}"))
        return findings
    if item.manipulation not in MANIPULATIONS:
        findings.append(Finding(line, f"unknown manipulation {item.manipulation!r}"))
        return findings
    base = lookup.base(item, line, findings)
    if base is not None:
        ordered = base if item.context_order == "aligned" else Base(
            base.frame, base.pronoun, base.modal, base.strong, base.weak, base.repeat)
        _expect(findings, line, "sentence", item.sentence,
                manipulations(ordered, item.connective)[item.manipulation])
    return findings


def _check_affinity(item: AffinityItem, line: int, lexicon: Lexicon, lookup: _Lookup) -> list[Finding]:
    """Spans must point at the fixed words, which must be the construction's."""
    findings = []
    connective = lexicon.constructions.get(item.construction, "")
    words = connective.split()
    if not item.words or not set(item.words) <= set(words):
        findings.append(Finding(line, "words are not the construction's fixed words",
                                f"{item.words!r} for {item.construction!r}"))
    if len(item.spans) != len(item.words) or any(
            item.sentence[start:end] != word for word, (start, end) in zip(item.words, item.spans)):
        findings.append(Finding(line, "spans do not point at the words",
                                f"{item.spans!r} in {item.sentence!r}"))
    base = lookup.base(item, line, findings)
    if base is not None and item.context_order in CONTEXT_ORDERS:
        _expect(findings, line, "sentence", item.sentence,
                base.context(item.context_order, connective))
    return findings


KIND_CHECKS: dict[str, Callable[..., list[Finding]]] = {
    "semantic": _check_semantic, "syntax": _check_syntax, "affinity": _check_affinity}


def _group_checks(parsed: ItemFile) -> list[Finding]:
    """Completeness: each semantic block has its 8 rows; each syntactic base has every manipulation
    for every connective the file uses."""
    findings = []
    groups: dict[str, list[tuple[int, Item]]] = defaultdict(list)
    if parsed.kind == "semantic":
        for item, line in zip(parsed.items, parsed.lines):
            groups[item.block_id].append((line, item))
        full = {(c, o, f) for c in (True, False) for o in CONTEXT_ORDERS for f in FOLLOWUP_ORDERS}
        for block_id, rows in groups.items():
            cells = [(i.is_construction, i.context_order, i.followup_order) for _, i in rows]
            if sorted(cells) != sorted(full):
                missing = sorted(full - set(cells))
                findings.append(Finding(rows[0][0], "incomplete block (a block has 8 rows: "
                                        "construction/or x context order x follow-up order)",
                                        f"block {block_id}: {len(rows)} rows, missing {missing}"))
    elif parsed.kind == "syntax":
        connectives = sorted({i.connective for i in parsed.items})
        for item, line in zip(parsed.items, parsed.lines):
            groups[item.base_id].append((line, item))
        for rows in groups.values():
            present = {(i.connective, i.manipulation) for _, i in rows}
            missing = [m for m in MANIPULATIONS if any((c, m) not in present for c in connectives)]
            if missing:
                findings.append(Finding(rows[0][0], "base sentence lacks manipulations",
                                        ", ".join(missing)))
    return findings


def _render(path: str, findings: Sequence[Finding]) -> list[str]:
    """One message per kind of problem: the first line in full, then how many more and where."""
    grouped: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        grouped[finding.what].append(finding)
    messages = []
    for what, group in grouped.items():
        first = group[0]
        text = f"{path}:{first.line}: {what}" + (f": {first.detail}" if first.detail else "")
        if len(group) > 1:
            lines = ", ".join(str(f.line) for f in group[1:SHOWN_LINES + 1])
            text += f" (and {len(group) - 1} more rows: lines {lines}"
            text += ", ...)" if len(group) > SHOWN_LINES + 1 else ")"
        messages.append(text)
    return messages
