"""SyntaxGym prediction formulas: a pyparsing grammar, a small syntax tree and its evaluator.

A formula compares region surprisals, e.g. `[(6;%match%) < (6;%mismatch%)] & [(7;%a%) > 0]`.
Atoms are region references `(N;%condition%)` (N may be `*`: every region of the condition
summed) and numbers. Brackets `( )` and `[ ]` group. Precedence, tightest first, each level
left-associative: `+ -`, then `< > =`, then `& |`. `=` is numpy.isclose with SyntaxGym's
tolerances.
"""
from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np
import pyparsing as pp

from pfcore.errors import InputError

EQUALITY_RTOL = 1e-5
EQUALITY_ATOL = 1e-3

ARITHMETIC, COMPARISON, LOGICAL = 0, 1, 2  # precedence levels, tightest first
LEVEL_OPERATORS = {ARITHMETIC: "+ -", COMPARISON: "< > =", LOGICAL: "& |"}

REGION_PATTERN = r"\(\s*(?P<number>\d{1,9}|\*)\s*;%(?P<condition>[A-Za-z0-9_-]+)%\s*\)"
MAX_QUOTED = 200  # characters of a formula quoted in an error message
NUMBER_PATTERN = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"

Value: TypeAlias = bool | float


def _isclose(a: Value, b: Value) -> bool:
    """SyntaxGym's `=`: equal within EQUALITY_RTOL (of b) and EQUALITY_ATOL."""
    return bool(np.isclose(a, b, rtol=EQUALITY_RTOL, atol=EQUALITY_ATOL))


OPERATIONS: dict[str, Callable[[Value, Value], Value]] = {
    "+": operator.add,
    "-": operator.sub,
    "<": operator.lt,
    ">": operator.gt,
    "=": _isclose,
    "&": lambda a, b: bool(a) and bool(b),
    "|": lambda a, b: bool(a) or bool(b),
}


@dataclass(frozen=True)
class RegionRef:
    """A reference to one region of a condition, or (number None) to all its regions summed."""

    condition: str
    number: int | None

    def evaluate(self, values: Mapping[tuple[str, int], float]) -> float:
        """The region's value, or the sum over the condition's regions for `*`."""
        if self.number is None:
            found = [v for (cond, _), v in values.items() if cond == self.condition]
            if not found:
                raise InputError(f"no region values for condition {self.condition!r} (needed by {self})")
            return float(sum(found))
        try:
            return float(values[self.condition, self.number])
        except KeyError:
            raise InputError(f"no value for region {self.number} of condition "
                             f"{self.condition!r} (needed by {self})") from None

    def __str__(self) -> str:
        """The reference as written in formulas."""
        return f"({'*' if self.number is None else self.number};%{self.condition}%)"


@dataclass(frozen=True)
class Number:
    """A literal number."""

    value: float

    def evaluate(self, values: Mapping[tuple[str, int], float]) -> float:
        """The number itself (values are not needed)."""
        return self.value

    def __str__(self) -> str:
        """Whole numbers without a fraction, others as Python writes floats."""
        return str(int(self.value)) if self.value.is_integer() and abs(self.value) < 1e15 else repr(self.value)


@dataclass(frozen=True)
class Chain:
    """Operands joined by operators of one precedence level, folded from the left."""

    level: int
    first: Node
    rest: tuple[tuple[str, Node], ...]

    def evaluate(self, values: Mapping[tuple[str, int], float]) -> Value:
        """Evaluate every operand, then fold left to right."""
        result = self.first.evaluate(values)
        rights = [node.evaluate(values) for _, node in self.rest]
        for (symbol, _), right in zip(self.rest, rights):
            result = OPERATIONS[symbol](result, right)
        return result if isinstance(result, bool) else float(result)

    def __str__(self) -> str:
        """Operands and operators with single spaces; operands that are chains in brackets."""
        parts = [_operand_text(self.first)]
        for symbol, node in self.rest:
            parts += [symbol, _operand_text(node)]
        return " ".join(parts)


Node: TypeAlias = RegionRef | Number | Chain


@dataclass(frozen=True)
class Formula:
    """A parsed prediction formula; equal formulas have equal trees, whatever their spacing."""

    root: Node
    source: str = field(default="", compare=False)

    def evaluate(self, values: Mapping[tuple[str, int], float]) -> bool | float:
        """The formula's value given (condition, region number) -> aggregated surprisal."""
        return self.root.evaluate(values)

    @property
    def regions(self) -> frozenset[tuple[str, int | None]]:
        """Every (condition, region number) the formula reads; None stands for `*`."""
        return frozenset((ref.condition, ref.number) for ref in _region_refs(self.root))

    def __str__(self) -> str:
        """The canonical text: single spaces, square brackets around every inner chain."""
        return str(self.root)


def _operand_text(node: Node) -> str:
    """An operand's text; a chain inside a chain always gets square brackets, for readability."""
    return f"[{node}]" if isinstance(node, Chain) else str(node)


def _region_refs(node: Node) -> list[RegionRef]:
    """Every region reference in the tree, left to right."""
    if isinstance(node, RegionRef):
        return [node]
    if isinstance(node, Number):
        return []
    children = (node.first, *(child for _, child in node.rest))
    return [ref for child in children for ref in _region_refs(child)]


def _region_action(tokens: pp.ParseResults) -> RegionRef:
    """Build a RegionRef from the region regex's named groups."""
    number = tokens["number"]
    return RegionRef(tokens["condition"], None if number == "*" else int(number))


def _number_action(text: str, location: int, tokens: pp.ParseResults) -> Number:
    """Build a Number; infinite values (too many digits) stop the parse."""
    value = float(tokens[0])
    if not math.isfinite(value):
        raise pp.ParseFatalException(text, location, f"the number {tokens[0][:20]!r} is too large")
    return Number(value)


def _chain_action(level: int) -> Callable[[pp.ParseResults], Node]:
    """A parse action folding `operand (op operand)*` into a Chain of `level`."""
    def build(tokens: pp.ParseResults) -> Node:
        """A lone operand stays itself; a leading chain of the same level is merged in."""
        items = list(tokens)
        first, rest = items[0], tuple(zip(items[1::2], items[2::2]))
        if not rest:
            return first
        if isinstance(first, Chain) and first.level == level:
            return Chain(level, first.first, first.rest + rest)
        return Chain(level, first, rest)
    return build


def _grammar() -> pp.ParserElement:
    """The formula grammar; each precedence level is `operand (operator operand)*`."""
    expression = pp.Forward()
    operand = (pp.Regex(REGION_PATTERN).set_parse_action(_region_action).set_name("region")
               | pp.Regex(NUMBER_PATTERN).set_parse_action(_number_action).set_name("number")
               | pp.Suppress("(") + expression + pp.Suppress(")")
               | pp.Suppress("[") + expression + pp.Suppress("]"))
    operand.set_name("region, number or bracketed expression")
    level = operand
    for precedence, symbols in LEVEL_OPERATORS.items():
        level = (level + pp.ZeroOrMore(pp.one_of(symbols) + level)).set_parse_action(_chain_action(precedence))
    expression <<= level
    return expression


GRAMMAR = _grammar()


class FormulaError(InputError):
    """A formula that cannot be parsed: the message quotes it; `problem` says what is wrong and at
    which column without quoting it (for messages about a file, which never repeat its text)."""

    def __init__(self, message: str, problem: str) -> None:
        super().__init__(message)
        self.problem = problem


def parse_formula(text: str) -> Formula:
    """Parse a prediction formula; FormulaError naming the formula and the place it goes wrong."""
    if not text.strip():
        raise FormulaError(f"the prediction formula {_quote(text)} is empty", "the formula is empty")
    try:
        root = GRAMMAR.parse_string(text, parse_all=True)[0]
    except pp.ParseBaseException as exc:
        raise FormulaError(f"cannot parse the prediction formula {_quote(text)}: {_explain(exc, shown=True)}",
                           f"cannot parse the formula: {_explain(exc, shown=False)}") from None
    except RecursionError:
        raise FormulaError(f"the prediction formula {_quote(text)} is nested too deeply",
                           "the formula is nested too deeply") from None
    return Formula(root, text)


def _quote(text: str) -> str:
    """The formula quoted for a message, cut short when very long."""
    return repr(text) if len(text) <= MAX_QUOTED else repr(text[:MAX_QUOTED]) + "..."


def _explain(exc: pp.ParseBaseException, *, shown: bool) -> str:
    """Say what went wrong and at which column, with the text found there when `shown`."""
    rest = exc.pstr[exc.loc:]
    if rest.strip() in OPERATIONS:
        return f"the operator {rest.strip()!r} at column {exc.col} has nothing after it"
    found = (f" ({rest[:12]!r})" if rest else " (the end of the formula)") if shown else ""
    where = f"at column {exc.col}{found} "
    message = re.sub(r",? found .*$", "", exc.msg)
    if message == "Expected end of text":
        return f"unexpected text {where.rstrip()}; operators are + - < > = & | and brackets ( ) [ ]"
    return f"{message} {where.rstrip()}"
