"""The names pfcore's data is keyed by, each spelled once: model kinds, suites, constructions and
sentence-score reductions. They are StrEnums, so a member equals its value ("causal") and reads and
writes as that text in manifests, tables and cache keys; code compares members, never literals."""
from __future__ import annotations

import unicodedata
from collections.abc import Callable
from enum import StrEnum
from typing import TypeVar

from pfcore.errors import InputError

E = TypeVar("E", bound=StrEnum)
# The embedded default model's name: SmolLM2-135M-Instruct, 4-bit Q4_1 GGUF (see models.spec).
DEFAULT_MODEL = "smollm2-135m-instruct-q4_1"
DTYPES = ("float32", "bfloat16", "float16")  # the precisions a model loads in, the default first
# Bidirectional controls: shown as nothing, they reorder the text around them (U+202E turns "fpg.exe" around).
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def odd_character(text: str) -> str | None:
    """The first character of a text not shown as itself on one line: a control (a newline, a tab,
    NUL), a lone surrogate, or a bidirectional control; None when there is none."""
    return next((ch for ch in text if ch in BIDI or unicodedata.category(ch) in ("Cc", "Cs")), None)


def unprintable(text: str) -> bool:
    """Whether a text holds a character not shown as itself on one line (see `odd_character`)."""
    return odd_character(text) is not None


MAX_NAME_CHARS = 300  # of a name a user gives (a model's, as a link's model name)


def checked_name(text: str, what: str, chars: int = MAX_NAME_CHARS) -> str:
    """A name a user gives that pfcore records and shows (a model's with --scores): not blank, at most
    `chars` characters, no space at either end, every character printable on one line (see
    `unprintable`); InputError saying which rule it breaks, never quoting it, otherwise."""
    if not text.strip():
        raise InputError(f"{what} is empty or blank; give a name")
    if len(text) > chars:
        raise InputError(f"{what} is {len(text):,} characters long; a name has at most {chars:,}")
    if unprintable(text):
        raise InputError(f"{what} holds a control character (a newline, a tab) or a bidirectional control, "
                         "which would hide or reorder what is shown; give a name of printable characters")
    if text != text.strip():
        raise InputError(f"{what} starts or ends with a space; give the name without it")
    return text


def named(names: type[E], text: str, what: str) -> E:
    """The member of `names` a text spells ("masked" -> ModelKind.MASKED); InputError listing them otherwise."""
    try:
        return names(text)
    except ValueError:
        raise InputError(f"unknown {what} {text!r}; choose one of {', '.join(names)}") from None


class ModelKind(StrEnum):
    """What a model predicts: the next token (causal, GPT-style) or a masked one (BERT-style)."""

    CAUSAL = "causal"
    MASKED = "masked"


class SuiteName(StrEnum):
    """The suites pfcore runs: the paper's three, the comparison benchmarks, and SyntaxGym's."""

    SEMANTIC = "semantic"
    SYNTAX = "syntax"
    AFFINITY = "affinity"
    BLIMP = "blimp"
    COMPS = "comps"
    EWOK = "ewok"
    SYNTAXGYM = "syntaxgym"


class Reduction(StrEnum):
    """How a text's token log-probabilities become one score: their mean (the paper's code) or sum."""

    MEAN = "mean"
    SUM = "sum"

    @property
    def unit(self) -> str:
        """The unit of a surprisal reduced this way: bits per token (mean) or bits (sum)."""
        return "bits per token" if self is Reduction.MEAN else "bits"


class Construction(StrEnum):
    """The four Paired-Focus constructions, by the name every table of pfcore's uses; `words` is how
    a sentence writes them, `published` how the paper's semantic result files do ("letalone")."""

    LET_ALONE = "let_alone"
    MUCH_LESS = "much_less"
    NOT_TO_MENTION = "not_to_mention"
    NEVER_MIND = "never_mind"

    @property
    def words(self) -> str:
        """The construction's fixed words ("let alone")."""
        return self.value.replace("_", " ")

    @property
    def published(self) -> str:
        """The name in the paper's published semantic summaries ("letalone")."""
        return self.value.replace("_", "")

    @property
    def heading(self) -> str:
        """The name a figure's title gives it ("Let alone"); `title` would shadow str.title."""
        return self.words.capitalize()

    @classmethod
    def parse(cls, text: str) -> Construction | None:
        """The construction any of its three spellings names ("let_alone", "let alone",
        "letalone", any case), or None."""
        key = "".join(text.lower().split()).replace("_", "")
        return next((c for c in cls if c.published == key), None)


def construction_name(label: str) -> str:
    """A construction column's label as pfcore's tables name it ("letalone", "let alone" -> "let_alone"),
    so that rows written or published in another spelling key as its own runs' rows do."""
    return _respelled(label, lambda c: c.value)


def construction_words(label: str) -> str:
    """A construction column's label as a sentence writes it ("letalone" -> "let alone"); see `_respelled`."""
    return _respelled(label, lambda c: c.words)


def published_name(label: str) -> str:
    """A construction column's label as the paper's layout spells it ("let_alone" -> "letalone"), for the
    files that reproduce the paper's own (its semantic summaries, its Tables 5-8)."""
    return _respelled(label, lambda c: c.published)


def construction_title(label: str) -> str:
    """A construction column's label as a figure titles it ("letalone" -> "Let alone")."""
    return _respelled(label, lambda c: c.heading)


def _respelled(label: str, spelling: Callable[[Construction], str]) -> str:
    """A construction named in any of its spellings, in one spelling; any other label of a construction
    column (a construction of a user's, an average, a benchmark, the control "and") as it is."""
    found = Construction.parse(label)
    return spelling(found) if found else label
