"""`items check`: every problem of an item file, against the schema and the lexicon."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from pfcore.items.bases import Base, known_words, sentence_words
from pfcore.items.constructions import constructions
from pfcore.items.formats import ItemFile, parse_item_file, problems_error
from pfcore.items.generate import manipulations
from pfcore.items.lexicon import Frame, Lexicon, Modal, Pronoun, load_lexicon
from pfcore.items.schema import (
    CONTEXT_ORDERS,
    FOLLOWUP_ORDERS,
    MANIPULATIONS,
    MASK,
    SYNTAX_CONTROL,
    AffinityItem,
    Item,
    SemanticItem,
    SyntaxItem,
    computed_ids,
)
from pfcore.names import SuiteName

SHOWN_LINES = 5


@dataclass(frozen=True)
class Finding:
    """One problem on one line; findings with the same `what` are reported together. A finding
    that is not `fatal` (a spelling outside the lexicon, a repeated block, content the lexicon
    would word differently) leaves the items well-formed: `run` accepts them, `items check` lists it."""

    line: int
    what: str
    detail: str = ""
    fatal: bool = True


def check_items(path: str | Path, lexicon: Lexicon | None = None) -> list[str]:
    """Every problem of an item file, one message each ("file:line: problem"); [] when clean."""
    return _checked(path, lexicon)[1]


def checked_items(path: str | Path, lexicon: Lexicon | None = None) -> list[Item]:
    """The items of a file without fatal problems, else one InputError listing them: what the
    check rejects as malformed (duplicate ids, follow-ups without the blank) is not run either."""
    parsed, problems = _checked(path, lexicon, fatal_only=True)
    if problems:
        raise problems_error(f"{path} fails the item check (`python -m pfcore items check` "
                             "lists every problem)", problems)
    return parsed.items


def _checked(path: str | Path, lexicon: Lexicon | None, fatal_only: bool = False) -> tuple[ItemFile, list[str]]:
    """What a file holds and its problems (reading, then the items' own checks; only the fatal
    ones when asked)."""
    lexicon = lexicon or load_lexicon()
    parsed, problems = parse_item_file(path, lexicon)
    findings = [f for f in find_problems(parsed, lexicon) if f.fatal or not fatal_only]
    return parsed, problems + _render(str(path), findings)


def find_problems(parsed: ItemFile, lexicon: Lexicon) -> list[Finding]:
    """The findings for items read from a file (ids, values, words, blocks, lexicon agreement)."""
    findings: list[Finding] = []
    defined = constructions()
    vocabulary = known_words(lexicon) | {w for d in defined.values()
                                         for w in " ".join((*d.words, d.semantic_control, d.syntax_control)).split()}
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
                                    f"repeat {item.repeat}", fatal=False))
        texts = [item.context, item.followup] if isinstance(item, SemanticItem) else [item.sentence]
        words = {w for text in texts for w in sentence_words(text)}
        for word in sorted(w for w in words if w.lower() not in vocabulary):
            findings.append(Finding(line, f"unknown word {word!r} (not in the lexicon)", fatal=False))
        findings += SUITE_CHECKS[item.SUITE](item, line, lexicon, lookup)
    findings += _group_checks(parsed)
    return findings


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
        frame, pronoun = self.frames.get(item.frame), self.pronouns.get(item.pronoun)
        modal = self.modals.get(item.modal)
        for name, found in (("frame", frame), ("pronoun", pronoun), ("modal", modal)):
            if found is None:
                findings.append(Finding(line, f"{name} {getattr(item, name)!r} is not in the lexicon", fatal=False))
        if frame is None or pronoun is None or modal is None:
            return None
        return Base(frame, pronoun, modal, item.weak_adj, item.strong_adj, item.repeat)


def _expect(findings: list[Finding], line: int, what: str, found: str, expected: str) -> None:
    """A finding when a text differs from what the lexicon generates."""
    if found != expected:
        findings.append(Finding(line, f"{what} differs from what the lexicon generates",
                                f"found {found!r}, expected {expected!r}", fatal=False))


def _check_semantic(item: SemanticItem, line: int, lexicon: Lexicon, lookup: _Lookup) -> list[Finding]:
    """Values, connective and texts of a semantic row."""
    definition = constructions().get(item.construction)
    if definition is None:
        return [Finding(line, f"unknown construction {item.construction!r} (a definition of your own: "
                              "--constructions DIR)")]
    findings = []
    connective = definition.connective if item.is_construction else definition.semantic_control
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
                base.context(item.context_order, item.connective, weaker=definition.weaker,
                             positive=definition.positive))
        _expect(findings, line, "follow-up", item.followup, base.followup(item.followup_order))
    return findings


def _check_syntax(item: SyntaxItem, line: int, lexicon: Lexicon, lookup: _Lookup) -> list[Finding]:
    """Values and sentence of a syntactic row."""
    known = {**{n: d.connective for n, d in constructions().items()}, SYNTAX_CONTROL: SYNTAX_CONTROL}
    if known.get(item.construction) != item.connective:
        return [Finding(line, "unknown construction or connective", f"{item.construction!r}, {item.connective!r}")]
    if item.manipulation not in MANIPULATIONS:
        return [Finding(line, f"unknown manipulation {item.manipulation!r}")]
    findings: list[Finding] = []
    base = lookup.base(item, line, findings)
    if base is not None:
        ordered = base if item.context_order == "aligned" else replace(base, weak=base.strong, strong=base.weak)
        definition = constructions().get(item.construction)
        gerund = definition is not None and definition.gerund_foci
        _expect(findings, line, "sentence", item.sentence,
                manipulations(ordered, item.connective, gerund=gerund)[item.manipulation])
    return findings


def _check_affinity(item: AffinityItem, line: int, lexicon: Lexicon, lookup: _Lookup) -> list[Finding]:
    """Spans must point at the fixed words, which must be the construction's."""
    findings = []
    definition = constructions().get(item.construction)
    connective = definition.connective if definition is not None else ""
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


SUITE_CHECKS: dict[SuiteName, Callable[..., list[Finding]]] = {
    SuiteName.SEMANTIC: _check_semantic, SuiteName.SYNTAX: _check_syntax, SuiteName.AFFINITY: _check_affinity}


def _group_checks(parsed: ItemFile) -> list[Finding]:
    """Completeness: each semantic block has its 8 rows; each syntactic base has every manipulation
    for every connective the file uses."""
    if parsed.suite == SuiteName.SEMANTIC:
        return _block_checks(cast(list[SemanticItem], parsed.items), parsed.lines)
    if parsed.suite == SuiteName.SYNTAX:
        return _base_checks(cast(list[SyntaxItem], parsed.items), parsed.lines)
    return []


def _block_checks(items: list[SemanticItem], lines: list[int]) -> list[Finding]:
    """A finding for each semantic block that lacks some of its 8 rows."""
    findings = []
    blocks: dict[str, list[tuple[int, SemanticItem]]] = defaultdict(list)
    for item, line in zip(items, lines):
        blocks[item.block_id].append((line, item))
    full = {(c, o, f) for c in (True, False) for o in CONTEXT_ORDERS for f in FOLLOWUP_ORDERS}
    for block_id, rows in blocks.items():
        cells = [(i.is_construction, i.context_order, i.followup_order) for _, i in rows]
        if sorted(cells) != sorted(full):
            missing = sorted(full - set(cells))
            findings.append(Finding(rows[0][0], "incomplete block (a block has 8 rows: "
                                    "construction/or x context order x follow-up order)",
                                    f"block {block_id}: {len(rows)} rows, missing {missing}"))
    return findings


def _base_checks(items: list[SyntaxItem], lines: list[int]) -> list[Finding]:
    """A finding for each syntactic base that lacks a manipulation for a connective the file uses."""
    findings = []
    connectives = sorted({i.connective for i in items})
    bases: dict[str, list[tuple[int, SyntaxItem]]] = defaultdict(list)
    for item, line in zip(items, lines):
        bases[item.base_id].append((line, item))
    for rows in bases.values():
        present = {(i.connective, i.manipulation) for _, i in rows}
        missing = [m for m in MANIPULATIONS if any((c, m) not in present for c in connectives)]
        if missing:
            findings.append(Finding(rows[0][0], "base sentence lacks manipulations", ", ".join(missing)))
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
