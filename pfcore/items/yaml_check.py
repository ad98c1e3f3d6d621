"""A checker of YAML trees: plain data from the nodes with each entry's line, and problems that name
the file, the line and the entry, all collected before any is reported. A problem names the schema's
fields and the type of what was found, never an unknown key's name or a value (a YAML given by
mistake may hold `db_password: ...`). The lexicon and sweep plans subclass it with their own sections."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from pfcore.errors import type_name

Where = tuple[str | int, ...]  # an entry's place in the tree: keys and list indices from the top


class YamlChecker:
    """Turns a YAML tree into checked data, collecting every problem with its line (the lexicon
    and sweep plans)."""

    def __init__(self, path: Path) -> None:
        """Start with no problems for the YAML file at `path`."""
        self.path = path
        self.lines: dict[Where, int] = {}
        self.problems: list[str] = []
        self._places: list[Where] = []  # each problem's entry, so that those inside an unknown key can go
        self._scalar = yaml.constructor.SafeConstructor()

    def plain(self, node: yaml.Node, where: Where) -> Any:
        """Python data from a YAML node, recording each node's line; duplicate keys are problems."""
        self.lines[where] = _line(node)
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = self.key(key_node, where)
                if key is None:
                    continue
                if key in out:
                    self.fail(where, "duplicate key (a key appears twice in this mapping)", _line(key_node))
                out[key] = self.plain(value_node, where + (key,))
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.plain(v, where + (i,)) for i, v in enumerate(node.value)]
        return self.scalar(node, where)

    def key(self, node: yaml.Node, where: Where) -> str | None:
        """A mapping key, which must be text (keys name entries); None and a problem otherwise."""
        if isinstance(node, yaml.ScalarNode):
            key = self.scalar(node, where)
            if isinstance(key, str):
                return key
            found = f"{type_name(key)} (quote it)"
        else:
            found = "a list" if isinstance(node, yaml.SequenceNode) else "a mapping"
        self.fail(where, f"a key must be text, found {found}", _line(node))
        return None

    def scalar(self, node: yaml.Node, where: Where) -> Any:
        """The value of a scalar node; its text and a problem when its tag or text cannot be
        read (an unknown tag, a date that does not exist, `!!bool maybe`)."""
        try:
            return self._scalar.construct_object(node, deep=True)
        except Exception as exc:  # PyYAML's constructors raise whatever their parsing hits
            reason = (exc.problem if isinstance(exc, yaml.MarkedYAMLError)
                      else f"not a valid {node.tag.rpartition(':')[2]}")
            self.fail(where, f"cannot read the value ({reason})", _line(node))
            return node.value

    def fail(self, where: Where, problem: str, line: int | None = None) -> None:
        """Record a problem at an entry, on `line` or else the nearest line the YAML gave it."""
        probe = where
        while probe not in self.lines and probe:
            probe = probe[:-1]
        entry = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p))
                        for i, p in enumerate(where)) or "(top)"
        self.problems.append(f"{self.path}:{line or self.lines.get(probe, 1)}: {entry}: {problem}")
        self._places.append(where)

    def missing(self, where: Where) -> None:
        """Record that an entry lacks a value ("frames[3]: missing gerund")."""
        self.fail(where[:-1], f"missing {where[-1]}")

    def mapping(self, value: Any, where: Where) -> dict[Any, Any]:
        """The value if it is a mapping, else {} and a problem."""
        if isinstance(value, dict):
            return value
        if value is None:
            self.missing(where)
        else:
            self.fail(where, f"expected a mapping, found {type_name(value)}")
        return {}

    def sequence(self, value: Any, where: Where) -> list[Any]:
        """The value if it is a non-empty list, else [] and a problem."""
        if isinstance(value, list) and value:
            return value
        if value is None:
            self.missing(where)
        else:
            self.fail(where, "expected a non-empty list")
        return []

    def text(self, value: Any, where: Where, pattern: re.Pattern[str] | None = None) -> str:
        """The value as non-empty text (each word matching `pattern`), else "" and a problem."""
        if value is None:
            self.missing(where)
            return ""
        if not isinstance(value, str) or not value.strip():
            self.fail(where, "is empty; expected text" if isinstance(value, str) else
                      f"expected text, found {type_name(value)}")
            return ""
        if pattern and not all(pattern.match(w) for w in value.split()):
            self.fail(where, "expected lowercase words (letters, ' and -)")
        return value.strip()

    def keys(self, data: dict[Any, Any], where: Where, allowed: set[str]) -> None:
        """Problems for unknown keys of a mapping, each on its line and named by the mapping only
        (missing ones are found by their readers)."""
        unknown = sorted(data.keys() - allowed, key=str)
        self._forget([where + (key,) for key in unknown])  # what is inside an unknown key is not the schema's
        for key in unknown:
            self.fail(where, f"unknown key (expected one of {sorted(allowed)})", self.lines.get(where + (key,)))

    def _forget(self, subtrees: list[Where]) -> None:
        """Drop the problems recorded inside these entries (their paths would name the file's own keys)."""
        kept = [(p, w) for p, w in zip(self.problems, self._places)
                if not any(w[:len(s)] == s for s in subtrees)]
        self.problems, self._places = [p for p, _ in kept], [w for _, w in kept]


def _line(node: yaml.Node) -> int:
    """The 1-based line a node starts on."""
    return node.start_mark.line + 1
