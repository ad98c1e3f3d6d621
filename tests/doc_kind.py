"""The model kind of docs/extending.md, built from the manual's own code: the tests add it as the manual
says (its module, and one line of KINDS), so what the manual shows is what they check and run."""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
MANUAL = ROOT / "docs" / "extending.md"
FIRST_LINE = '"""pfcore/scoring/kinds/unigram.py'
CORPUS = "you couldn't lift a tiny rock, let alone a huge one. easier than harder or and.\n"


def example_source() -> str:
    """The manual's example module: its Python block that starts with the module's path."""
    blocks = re.findall(r"```python\n(.*?)```", MANUAL.read_text(encoding="utf-8"), flags=re.S)
    found = [b for b in blocks if b.startswith(FIRST_LINE)]
    assert len(found) == 1, f"docs/extending.md has {len(found)} example kind modules"
    return found[0]


def build(folder: Path) -> ModuleType:
    """The example module written to `folder` as unigram.py and imported (as `doc_unigram_kind`)."""
    path = folder / "unigram.py"
    path.write_text(example_source(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("doc_unigram_kind", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def corpus(folder: Path) -> Path:
    """A unigram model: a small text file (the model's name is its path)."""
    path = folder / "corpus.txt"
    path.write_text(CORPUS, encoding="utf-8")
    return path
