"""YAML written by users, composed safely: anchors and aliases (the "billion laughs") and deep
nesting are refused before they cost time or memory, and every error names its file and line."""
from __future__ import annotations

from pathlib import Path

import yaml

from pfcore.errors import InputError

MAX_DEPTH = 64  # nesting levels; a lexicon needs five


class RefusedYAML(yaml.MarkedYAMLError):
    """YAML that is well formed but that we do not read (anchors, aliases, deep nesting)."""


class StrictLoader(yaml.SafeLoader):
    """A SafeLoader that refuses anchors, aliases and nesting deeper than MAX_DEPTH."""

    depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        """One node; an anchor or alias here, or one level too many, is refused at its line."""
        event = self.peek_event()
        if event.anchor is not None:
            raise RefusedYAML(None, None, "anchors and aliases (&name, *name) are not allowed; "
                              "write each value out", event.start_mark)
        if self.depth >= MAX_DEPTH:
            raise _too_deep(event.start_mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def fetch_flow_collection_start(self, token_class: type) -> None:
        """An opening bracket; refused past MAX_DEPTH while scanning, as the scanner's look-ahead
        over deeply nested brackets takes quadratic time long before composing sees them."""
        if self.flow_level >= MAX_DEPTH:
            raise _too_deep(self.get_mark())
        super().fetch_flow_collection_start(token_class)


def _too_deep(mark: yaml.Mark) -> RefusedYAML:
    """The error for nesting past MAX_DEPTH."""
    return RefusedYAML(None, None, f"nested deeper than {MAX_DEPTH} levels", mark)


def compose(text: str, source: Path) -> yaml.Node | None:
    """The node tree of a one-document YAML text (None when empty); InputError "source:line:
    problem" for a syntax error, a character YAML does not allow, or YAML we refuse."""
    try:
        loader = StrictLoader(text)
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise InputError(f"{source}:{line}: unacceptable character #x{exc.character:04x} ({exc.reason})") from exc
    try:
        return loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 1
        kind = "" if isinstance(exc, RefusedYAML) else "YAML syntax error: "
        raise InputError(f"{source}:{line}: {kind}{exc.problem}") from exc
    finally:
        loader.dispose()
