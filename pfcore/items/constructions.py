"""Constructions as data: one YAML definition per construction (its words, the context it needs, where
focus 2 lies on its scale, its controls, the paper's tests that apply, the frames it uses). The four of
the paper are data/constructions/*.yaml; a user's live in a folder they name (--constructions DIR, or
PFCORE_CONSTRUCTIONS). Every problem of a definition is one line naming the file, the line and the
field, never a value of the file (docs/constructions.md)."""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pfcore.errors import InputError
from pfcore.files import MIB, FileKind, read_bounded
from pfcore.items.definition_checks import definition_problems, ends_in_preposition
from pfcore.items.lexicon import load_lexicon
from pfcore.items.safe_yaml import compose
from pfcore.items.yaml_check import Where, YamlChecker
from pfcore.names import unprintable
from pfcore.paths import DATA_DIR

DEFINITION_FILE = FileKind("construction definition", MIB // 16)  # a definition is about 1 kB
BUILT_IN_DIR = DATA_DIR / "constructions"
EXAMPLES_DIR = DATA_DIR / "examples" / "constructions"
FOLDER_VAR = "PFCORE_CONSTRUCTIONS"
MAX_DEFINITIONS = 64  # in one folder
WORDS = re.compile(r"^[a-z][a-z'-]*( [a-z][a-z'-]*)*$")
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
# Bounds on every field, checked before anything is generated: a definition within them generates an item
# set about as large as the paper's (tests/unit/test_definition_bounds.py generates the largest one).
MAX_NAME = 40  # characters of a name ("not_to_mention" has 14)
MAX_SPELLING = 40  # characters of one spelling or control ("not to mention" has 14)
MAX_SPELLINGS = 8  # spellings of one construction
MAX_TEXT = 500  # characters of example, look_alike and source
MAX_FRAMES = 64  # frame names in a definition's list (the lexicon has 15)
MAX_FRAME_NAME = 100  # characters of one frame name
LICENSING = ("negative", "positive", "any")  # the clause the construction needs before it
FOCUS2 = ("stronger", "weaker")  # where focus 2 lies on the construction's scale
# The paper's syntactic manipulations, and those that test a negative context (NPI removes the negation).
SYNTAX_TESTS = ("NPI", "Pseudocleft", "CP Conjunction", "VP Conjunction", "VP Gap Conjunction")
KEYS = {"name", "words", "licensing", "focus2", "controls", "tests", "frames", "example", "look_alike", "source",
        "verb_form"}
TEXTS = ("example", "source")  # optional lines of text (look_alike may be text too)
VERB_FORMS = ("bare", "gerund")  # the form of a verb focus after the connective ("let alone sing", "of singing")
LOOK_ALIKE_KEYS = {"reads_as", "before", "after", "example"}


@dataclass(frozen=True)
class LookAlike:
    """A definition's own look-alike as data: what its words read as, and the words (or their lemmas)
    right before the connective (with no pause between) or right after it that make that reading."""

    reads_as: str
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    example: str = ""


@dataclass(frozen=True)
class Definition:
    """One construction: `words` are its spellings (the first is the one the items write), `licensing`
    the clause it needs (a negative one, a positive one, or any), `focus2` where focus 2 lies on its
    scale (the stronger, harder end, as with *let alone*, or the weaker one, as with *not even*)."""

    name: str
    words: tuple[str, ...]
    licensing: str
    focus2: str
    semantic_control: str
    syntax_control: str
    semantic: bool
    syntax: tuple[str, ...]
    affinity: bool
    frames: tuple[str, ...]  # lexicon frame names; () for every frame
    example: str
    look_alike: str
    source: str
    path: Path
    sha256: str
    built_in: bool
    verb_form: str = ""  # "bare" or "gerund" as the definition states it; "" to follow the connective
    look_alikes: tuple[LookAlike, ...] = ()

    @property
    def gerund_foci(self) -> bool:
        """Whether a verb focus after the connective is a gerund: as the definition states, else when
        the connective ends in a preposition ("to say nothing of singing a beautiful one")."""
        return self.verb_form == "gerund" if self.verb_form else ends_in_preposition(self.connective)

    @property
    def connective(self) -> str:
        """The spelling the items and the controls use."""
        return self.words[0]

    @property
    def positive(self) -> bool:
        """Whether its items put it in a positive clause ("You could lift a tiny rock, or even a huge one.")."""
        return self.licensing == "positive"

    @property
    def weaker(self) -> bool:
        """Whether focus 2 is the weaker end: its aligned context names the harder task first."""
        return self.focus2 == "weaker"

    @property
    def origin(self) -> str:
        """Where the definition comes from, in words (for cards, tables and captions)."""
        return "built in" if self.built_in else "user-defined"

    def record(self) -> dict[str, object]:
        """The definition for an item card or a run's manifest: the file and its content hash."""
        return {"name": self.name, "file": self.path.name, "sha256": self.sha256, "origin": self.origin}


class DefinitionChecker(YamlChecker):
    """The YAML checker with a definition's fields."""

    def words(self, value: Any, where: Where) -> tuple[str, ...]:
        """One spelling or a list of them (at most MAX_SPELLINGS), each a bounded `spelling`."""
        if isinstance(value, str):
            return (self.spelling(value, where),)
        items = self.sequence(value, where)
        if len(items) > MAX_SPELLINGS:
            self.fail(where, f"at most {MAX_SPELLINGS} spellings, found {len(items):,}")
            return ()
        return tuple(self.spelling(w, where + (i,)) for i, w in enumerate(items))

    def spelling(self, value: Any, where: Where) -> str:
        """Lowercase words joined by single spaces, at most MAX_SPELLING characters; a problem naming
        the rule, never the value, otherwise (a newline, a tab or a run of spaces included)."""
        if not isinstance(value, str) or not value.strip() or len(value) <= MAX_SPELLING and WORDS.match(value):
            return self.text(value, where, WORDS)
        if len(value) > MAX_SPELLING:
            self.fail(where, f"a spelling has at most {MAX_SPELLING} characters, found {len(value):,}")
        else:
            self.fail(where, "expected lowercase words (letters, ' and -) separated by single spaces, with no "
                             "newline, tab or other space")
        return ""

    def bounded_name(self, value: Any) -> str:
        """The name: lowercase letters, digits and '_', starting with a letter, at most MAX_NAME characters."""
        name = self.text(value, ("name",))
        if len(name) > MAX_NAME:
            self.fail(("name",), f"a name has at most {MAX_NAME} characters, found {len(name):,}")
            return ""
        if name and not NAME.match(name):
            self.fail(("name",), "expected lowercase letters, digits and '_', starting with a letter")
        return name

    def line_of_text(self, value: Any, where: Where, *, required: bool = False) -> str:
        """Text of one line (no control or bidirectional-override character), at most MAX_TEXT characters;
        "" when left out, unless `required`."""
        text = self.text(value, where) if required else self.optional_text(value, where)
        if len(text) > MAX_TEXT:
            self.fail(where, f"at most {MAX_TEXT} characters, found {len(text):,}")
        elif unprintable(text):
            self.fail(where, "expected one line of text, without a newline, tab, control or bidirectional character")
        return text

    def frame_names(self, value: Any) -> tuple[str, ...]:
        """`all` (as ()), or a list of at most MAX_FRAMES frame names of at most MAX_FRAME_NAME characters."""
        if value == "all":
            return ()
        if not isinstance(value, list) or not value or not all(isinstance(f, str) for f in value):
            self.fail(("frames",), "expected all, or a list of the lexicon's frame names")
        elif len(value) > MAX_FRAMES:
            self.fail(("frames",), f"at most {MAX_FRAMES} frames, found {len(value):,}")
        elif any(len(f) > MAX_FRAME_NAME or unprintable(f) for f in value):
            self.fail(("frames",), f"a frame name is one line of at most {MAX_FRAME_NAME} characters")
        else:
            return tuple(value)
        return ()

    def choice(self, value: Any, where: Where, allowed: tuple[str, ...]) -> str:
        """One of `allowed`; a problem naming them otherwise."""
        if value is None:
            self.missing(where)
        elif value not in allowed:
            self.fail(where, f"expected one of {', '.join(allowed)}")
        return str(value) if value in allowed else ""

    def flag(self, value: Any, where: Where, default: bool) -> bool:
        """true or false, the default when left out."""
        if value is None:
            return default
        if not isinstance(value, bool):
            self.fail(where, "expected true or false")
        return bool(value)

    def optional_text(self, value: Any, where: Where) -> str:
        """Text, or "" when left out."""
        return "" if value is None else self.text(value, where)

    def look_alike(self, value: Any) -> tuple[str, tuple[LookAlike, ...]]:
        """The look-alike: text saying what the words read as, or a list of patterns (each what its
        words read as, and the words before or after the connective that make that reading)."""
        if value is None or isinstance(value, str):
            return self.line_of_text(value, ("look_alike",)), ()
        entries = self.sequence(value, ("look_alike",))
        if len(entries) > MAX_SPELLINGS:
            self.fail(("look_alike",), f"at most {MAX_SPELLINGS} patterns, found {len(entries):,}")
            return "", ()
        patterns = tuple(self.pattern(entry, ("look_alike", i)) for i, entry in enumerate(entries))
        return (patterns[0].reads_as if patterns else ""), patterns

    def pattern(self, value: Any, where: Where) -> LookAlike:
        """One look-alike pattern: `reads_as` text, `before` and/or `after` lists of lowercase words."""
        entry = self.mapping(value, where)
        self.keys(entry, where, LOOK_ALIKE_KEYS)
        words = {key: self.words(entry[key], where + (key,)) for key in ("before", "after") if key in entry}
        if entry and not words:
            self.fail(where, "a look-alike pattern needs the words 'before' or 'after' the connective that make it")
        return LookAlike(self.line_of_text(entry.get("reads_as"), where + ("reads_as",), required=True),
                         words.get("before", ()), words.get("after", ()),
                         self.line_of_text(entry.get("example"), where + ("example",)))

    def tests(self, value: Any, licensing: str) -> tuple[bool, tuple[str, ...], bool]:
        """Which of the paper's tests apply: semantic, the syntactic manipulations, Global Affinity."""
        where: Where = ("tests",)
        tests = self.mapping(value, where) if value is not None else {}
        self.keys(tests, where, {"semantic", "syntax", "affinity"})
        syntax = tests.get("syntax", [] if licensing == "positive" else list(SYNTAX_TESTS))
        if not isinstance(syntax, list) or any(t not in SYNTAX_TESTS for t in syntax):
            self.fail(where + ("syntax",), f"expected a list of the manipulations {', '.join(SYNTAX_TESTS)}")
            syntax = []
        if syntax and licensing == "positive":
            self.fail(where + ("syntax",), "the syntactic manipulations are built on the paper's negated frame and "
                      "its 'and' controls; a construction of a positive context takes none (leave syntax out)")
        return (self.flag(tests.get("semantic"), where + ("semantic",), True), tuple(syntax),
                self.flag(tests.get("affinity"), where + ("affinity",), True))

    def build(self, data: Any, path: Path, sha256: str, *, built_in: bool) -> Definition | None:
        """The Definition, or None when the file is not even a mapping."""
        if not isinstance(data, dict) or not data:
            self.fail((), "a construction definition is a mapping (see docs/constructions.md)")
            return None
        self.keys(data, (), KEYS)
        name = self.bounded_name(data.get("name"))
        words = self.words(data.get("words"), ("words",))
        licensing = self.choice(data.get("licensing"), ("licensing",), LICENSING)
        focus2 = self.choice(data.get("focus2"), ("focus2",), FOCUS2)
        controls = self.mapping(data.get("controls"), ("controls",)) if data.get("controls") is not None else {}
        self.keys(controls, ("controls",), {"semantic", "syntax"})
        semantic_control = self.spelling(controls.get("semantic", "or"), ("controls", "semantic"))
        syntax_control = self.spelling(controls.get("syntax", "and"), ("controls", "syntax"))
        if set(words) & {semantic_control, syntax_control}:
            self.fail(("words",), "a spelling of the construction is also one of its controls: the control "
                      "must be a connective without its meaning")
        semantic, syntax, affinity = self.tests(data.get("tests"), licensing)
        frames = self.frame_names(data.get("frames", "all"))
        example, source = (self.line_of_text(data.get(key), (key,)) for key in TEXTS)
        verb_form = self.choice(data["verb_form"], ("verb_form",), VERB_FORMS) if "verb_form" in data else ""
        look_alike, look_alikes = self.look_alike(data.get("look_alike"))
        if self.problems or not name:
            return None
        return Definition(
            name=name, words=words, licensing=licensing, focus2=focus2, semantic_control=semantic_control,
            syntax_control=syntax_control, semantic=semantic, syntax=syntax, affinity=affinity, frames=frames,
            example=example, look_alike=look_alike, source=source, path=path, sha256=sha256, built_in=built_in,
            verb_form=verb_form, look_alikes=look_alikes)


def read_definition(path: str | Path, *, built_in: bool = False) -> Definition:
    """A checked definition; InputError with its problems (one line each, joined) otherwise."""
    path = Path(path)
    raw = read_bounded(path, DEFINITION_FILE)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: a construction definition is UTF-8 text ({exc.reason})") from exc
    checker = DefinitionChecker(path)
    node = compose(text, path)
    data = checker.plain(node, ()) if node is not None else None
    definition = checker.build(data, path, hashlib.sha256(raw).hexdigest(), built_in=built_in)
    if checker.problems or definition is None:
        raise InputError("; ".join(checker.problems or [f"{path}: not a construction definition"]))
    return definition


def user_folder(given: str | Path | None = None) -> Path | None:
    """The user's folder of definitions: the one given, else $PFCORE_CONSTRUCTIONS, else none."""
    folder = given or os.environ.get(FOLDER_VAR, "").strip()
    return Path(folder).expanduser() if folder else None


def constructions(folder: str | Path | None = None) -> dict[str, Definition]:
    """The four built-in definitions, then the user's (see `user_folder`), by name."""
    chosen = user_folder(folder)
    return dict(_loaded(str(chosen.resolve()) if chosen else ""))


def definition_of(name: str, folder: str | Path | None = None) -> Definition:
    """The definition of that name; InputError listing the known ones otherwise."""
    known = constructions(folder)
    if name not in known:
        hint = "" if user_folder(folder) else f" (a definition of your own: --constructions DIR or {FOLDER_VAR})"
        raise InputError(f"unknown construction {name!r}; known: {', '.join(known)}{hint}")
    return known[name]


@lru_cache(maxsize=8)
def _loaded(folder: str) -> tuple[tuple[str, Definition], ...]:
    """Built-ins and the folder's definitions (read once per process per folder); a clash with a
    built-in name, or between two files, is refused."""
    built_in = [read_definition(p, built_in=True) for p in BUILT_IN_DIR.glob("*.yaml")]
    order = list(load_lexicon().constructions)  # the paper's order, in which the generators write them
    found = {d.name: d for d in sorted(built_in, key=lambda d: order.index(d.name) if d.name in order else len(order))}
    if folder:
        for definition in _folder_definitions(Path(folder)):
            earlier = found.get(definition.name)
            if earlier is not None:
                clash = "a built-in construction" if earlier.built_in else f"defined in {earlier.path.name}"
                raise InputError(f"{definition.path}: name: the name is already {clash}; choose another")
            found[definition.name] = definition
        _check_together(found)
    return tuple(found.items())


def _check_together(found: dict[str, Definition]) -> None:
    """InputError with the problems of the user's definitions beside the others (frames, controls,
    spellings, verb forms: see `definition_checks`)."""
    lexicon = load_lexicon()
    problems = [p for d in found.values() if not d.built_in for p in definition_problems(d, found.values(), lexicon)]
    if problems:
        raise InputError("; ".join(problems))


def _folder_definitions(folder: Path) -> list[Definition]:
    """The *.yaml definitions of a user's folder."""
    if not folder.is_dir():
        raise InputError(f"{folder} is not a folder of construction definitions ({FOLDER_VAR} or --constructions)")
    paths = sorted(folder.glob("*.yaml"))
    if len(paths) > MAX_DEFINITIONS:
        raise InputError(f"{folder} holds {len(paths)} definitions; at most {MAX_DEFINITIONS} are read")
    return [read_definition(p) for p in paths]
