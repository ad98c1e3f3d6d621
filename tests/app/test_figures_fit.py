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


THIN = 12  # names a page may import from pfcore: it draws widgets and hands the rest to view functions


def pfcore_names(path: Path) -> int:
    """How many names a page imports from pfcore."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sum(len(node.names) for node in ast.walk(tree)
               if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pfcore"))


def test_pages_stay_thin() -> None:
    """Issue 37: the Trajectories page imported 57 names from pfcore, the Run page 41; a thin page
    imports a handful: each of its sections is one view function in pfcore/ui."""
    counts = {path.name: pfcore_names(path) for path in sorted((ROOT / "pages").glob("*.py"))}
    assert len(counts) == 8 and {name: n for name, n in counts.items() if n > THIN} == {}
    assert sum(counts.values()) <= 40  # 237 before
