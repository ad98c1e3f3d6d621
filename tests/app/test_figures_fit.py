"""What every page shows, checked from the source (issue 37): blank cells, not "None"."""
from __future__ import annotations

import ast
from pathlib import Path

from tests.app_helpers import ROOT

SHOWN = [*sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "pfcore" / "ui").glob("*.py"))]


def calls(path: Path, name: str) -> list[ast.Call]:
    """Every call of a method or function called `name` in a file."""
    return [node for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == name]


def test_every_table_shows_empty_cells_blank() -> None:
    """Issue 37: tables showed "None" for empty cells (Stimuli, the Lesson's numbers); a table the app
    shows says how an empty cell looks (blank, or a dash)."""
    tables = {(path.name, call.lineno): call for path in SHOWN for call in calls(path, "dataframe")}
    assert len(tables) >= 15
    bare = [where for where, call in tables.items() if not any(k.arg == "placeholder" for k in call.keywords)]
    assert bare == []
