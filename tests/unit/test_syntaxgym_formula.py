"""SyntaxGym prediction formulas: grammar, precedence, evaluation, canonical text and bad input."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pfcore.errors import InputError
from pfcore.items.formula import EQUALITY_ATOL, EQUALITY_RTOL, Formula, parse_formula

VALUES = {("a", 1): 1.0, ("a", 2): 2.0, ("a", 3): 4.0, ("b", 1): 10.0, ("b", 2): 20.0}


def value(text: str, values: dict[tuple[str, int], float] | None = None) -> bool | float:
    """Parse and evaluate `text` against VALUES (or `values`)."""
    return parse_formula(text).evaluate(VALUES if values is None else values)


@pytest.mark.parametrize("text, expected", [
    ("(1;%a%) + (2;%a%)", 3.0),
    ("(2;%a%) - (1;%a%)", 1.0),
    ("(1;%a%) < (2;%a%)", True),
    ("(2;%a%) < (1;%a%)", False),
    ("(2;%a%) > (1;%a%)", True),
    ("(1;%a%) > (2;%a%)", False),
    ("(1;%a%) = 1", True),
    ("(1;%a%) = (2;%a%)", False),
    ("[(1;%a%) < 2] & [(2;%a%) < 3]", True),
    ("[(1;%a%) < 2] & [(2;%a%) > 3]", False),
    ("[(1;%a%) > 2] | [(2;%a%) < 3]", True),
    ("[(1;%a%) > 2] | [(2;%a%) > 3]", False),
])
def test_every_operator(text: str, expected: bool | float) -> None:
    """Each of + - < > = & | computes what it says."""
    result = value(text)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize("text, expected", [
    ("1 - 2 + 3", 2.0),  # (1 - 2) + 3, not 1 - (2 + 3)
    ("10 - 2 - 3", 5.0),  # left-associative
    ("1 + 2 < 4", True),  # + before <: (1 + 2) < 4
    ("4 < 1 + 2", False),
    ("1 < 2 & 3 < 4", True),  # < before &
    ("1 < 2 & 4 < 3", False),
    ("1 < 2 | 4 < 3 & 4 < 3", False),  # & and | share a level: (T | F) & F
    ("4 < 3 & 4 < 3 | 1 < 2", True),  # (F & F) | T
    ("3 > 2 > 1", False),  # (3 > 2) > 1 is True > 1
    ("1 + 1 = 2 & 2 - 1 = 1", True),
])
def test_precedence_and_associativity(text: str, expected: bool | float) -> None:
    """+ - bind tightest, then < > =, then & |; every level folds from the left."""
    assert value(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("1 - (2 + 3)", -4.0),
    ("1 - [2 + 3]", -4.0),
    ("[1 - 2] + 3", 2.0),
    ("(1 + 2) < 4", True),
    ("[[(2;%a%) - (1;%a%)] - [(3;%a%) - (2;%a%)]] < 0", True),
    ("(((1;%a%)))", 1.0),
    ("[ [ [ (1;%a%) ] ] ]", 1.0),
    ("[(1;%a%) < 2] & ([(2;%a%) < 3] | [1 > 2])", True),
])
def test_brackets_both_kinds_and_nesting(text: str, expected: bool | float) -> None:
    """Round and square brackets both group, to any depth."""
    assert value(text) == expected


def test_real_suite_formula() -> None:
    """The number-agreement formula from the real suites."""
    text = "[(7;%match_sing%) < (7;%mismatch_sing%)] & [(7;%match_plural%) < (7;%mismatch_plural%)]"
    formula = parse_formula(text)
    good = {("match_sing", 7): 1.0, ("mismatch_sing", 7): 2.0,
            ("match_plural", 7): 3.0, ("mismatch_plural", 7): 4.0}
    assert formula.evaluate(good) is True
    assert formula.evaluate({**good, ("mismatch_plural", 7): 2.0}) is False
    assert formula.regions == frozenset({("match_sing", 7), ("mismatch_sing", 7),
                                         ("match_plural", 7), ("mismatch_plural", 7)})


def test_star_sums_every_region_of_the_condition() -> None:
    """(*;%a%) is the sum over all regions of condition a, and shows as None in regions."""
    assert value("(*;%a%)") == 7.0
    assert value("(*;%b%) - (*;%a%)") == 23.0
    assert parse_formula("(*;%a%) < (2;%b%)").regions == frozenset({("a", None), ("b", 2)})


@pytest.mark.parametrize("text, expected", [
    ("5", 5.0), ("-5", -5.0), ("+5", 5.0), ("2.5", 2.5), (".5", 0.5), ("5.", 5.0),
    ("1e3", 1000.0), ("1E-3", 0.001), ("-2.5e+2", -250.0), ("(1;%a%) - -5", 6.0),
    ("(1;%a%)-5", -4.0), ("0 < -1e-9", False),
])
def test_numbers(text: str, expected: bool | float) -> None:
    """Integers and floats, signed, with exponents; a lone number evaluates to itself."""
    assert value(text) == expected


def test_region_names_and_spacing() -> None:
    """Condition names take letters, digits, _ and -; spaces around tokens do not matter."""
    formula = parse_formula("( 6 ;%no-obj_no-comma2%)>0")
    assert formula.regions == frozenset({("no-obj_no-comma2", 6)})
    assert formula == parse_formula("(6;%no-obj_no-comma2%) > 0")


def test_equality_tolerance_constants() -> None:
    """SyntaxGym's tolerances."""
    assert (EQUALITY_RTOL, EQUALITY_ATOL) == (1e-5, 1e-3)


@pytest.mark.parametrize("left, right, expected", [
    (0.0, 0.0, True),
    (0.0, 0.0009, True),
    (0.0, 0.00099, True),
    (0.0, -0.00099, True),
    (0.0, 0.0011, False),
    (0.0, -0.0011, False),
    (1000.0, 1000.0105, True),  # within atol + rtol * 1000.0105 = 0.0110...
    (1000.0, 1000.012, False),
    (1e6, 1e6 + 10.0, True),  # rtol dominates: 1e-3 + 1e-5 * 1000010 = 10.0011
    (1e6, 1e6 + 10.01, False),
])
def test_equality_tolerance(left: float, right: float, expected: bool) -> None:
    """`=` is numpy.isclose(a, b, rtol=1e-5, atol=1e-3)."""
    values = {("x", 1): left, ("y", 1): right}
    assert parse_formula("(1;%x%) = (1;%y%)").evaluate(values) is expected


@pytest.mark.parametrize("text, canonical", [
    ("[(6;%a%)>(6;%b%)]&[(7;%a%)<(7;%b%)]", "[(6;%a%) > (6;%b%)] & [(7;%a%) < (7;%b%)]"),
    ("1 - 2 + 3", "1 - 2 + 3"),
    ("[1 - 2] + 3", "1 - 2 + 3"),
    ("1 - (2 + 3)", "1 - [2 + 3]"),
    ("(1;%a%) + 2 < 4", "[(1;%a%) + 2] < 4"),
    ("((7))", "7"),
    ("2.50", "2.5"),
    ("1e-5", "1e-05"),
    ("(*;%a%) = 0", "(*;%a%) = 0"),
])
def test_canonical_text(text: str, canonical: str) -> None:
    """str() gives single spaces and square brackets; it parses back to the same formula."""
    formula = parse_formula(text)
    assert str(formula) == canonical
    assert parse_formula(canonical) == formula
    assert formula.source == text


def test_formula_is_frozen_and_hashable() -> None:
    """Formulas can be dictionary keys; spacing does not make them differ."""
    formula = parse_formula("1 < 2")
    assert isinstance(formula, Formula)
    assert {formula: 1}[parse_formula(" 1<2 ")] == 1


@pytest.mark.parametrize("text", [
    "", "   ", "[(1;%a%) < 2", "(1;%a%) < 2]", "((1;%a%) < 2", "[1)", "(1]", "[]", "()",
    "(1;%a%) * 2", "(1;%a%) / 2", "(1;%a%) <= 2", "(1;%a%) == 2", "!(1;%a%)", "(1;%a%) ^ 2",
    "(1;%a%) <", "< (1;%a%)", "1 +", "& 1", "1 2", "(1;%a%)(2;%a%)", "(1;a)", "(1;%a b%)",
    "(x;%a%)", "(1;%%)", "(1.5;%a%)", "(-1;%a%)", "1e999", "9" * 400, "abc", "nan", "inf",
    "[" * 5000 + "1" + "]" * 5000, "(1;%a%) & & (2;%a%)", "1 < 2 >", "#", "1,5",
])
def test_bad_formulas_raise_input_error_naming_the_formula(text: str) -> None:
    """Everything that is not a formula is an InputError that quotes it."""
    with pytest.raises(InputError) as caught:
        parse_formula(text)
    assert repr(text[:50])[:-1] in str(caught.value)


def test_bad_formula_message_says_where() -> None:
    """The message gives the column and what was found there."""
    with pytest.raises(InputError, match=r"column 9 \('\* 2'\)"):
        parse_formula("(1;%a%) * 2")
    with pytest.raises(InputError, match="operator '<' at column 9 has nothing after it"):
        parse_formula("(1;%a%) <")


def test_missing_value_names_condition_and_region() -> None:
    """Evaluating without a region's value is an InputError naming both."""
    with pytest.raises(InputError, match=r"region 3 of condition 'b'"):
        value("(1;%a%) < (3;%b%)")
    with pytest.raises(InputError, match="condition 'c'"):
        value("(*;%c%) > 0")


def test_long_chains_do_not_recurse() -> None:
    """A chain of thousands of terms parses, evaluates and prints."""
    formula = parse_formula(" + ".join(["1"] * 3000))
    assert formula.evaluate({}) == 3000.0
    assert str(formula).count("+") == 2999


@settings(max_examples=400, deadline=None, database=None)
@given(st.one_of(st.text(), st.text(alphabet="()[];%*0123456789.eE+-<>=&|! abc_", max_size=40)))
def test_any_text_parses_or_raises_input_error(text: str) -> None:
    """Arbitrary text never makes parse_formula raise anything but InputError."""
    try:
        formula = parse_formula(text)
    except InputError:
        return
    assert parse_formula(str(formula)) == formula


ATOMS = st.one_of(
    st.builds(lambda n, c: f"({n};%{c}%)", st.one_of(st.integers(0, 99).map(str), st.just("*")),
              st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True)),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.integers(-1000, 1000).map(str),
)
FORMULAS = st.recursive(ATOMS, lambda inner: st.one_of(
    st.builds(lambda a, op, b: f"{a} {op} {b}", inner, st.sampled_from("+-<>=&|"), inner),
    inner.map(lambda f: f"[{f}]"),
    inner.map(lambda f: f"({f})"),
), max_leaves=12)


@settings(max_examples=200, deadline=None, database=None)
@given(FORMULAS)
def test_generated_formulas_round_trip(text: str) -> None:
    """Well-formed formulas parse, and their canonical text parses to the same tree."""
    formula = parse_formula(text)
    assert parse_formula(str(formula)) == formula
    assert str(parse_formula(str(formula))) == str(formula)
