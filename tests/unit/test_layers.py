"""The layering of docs/development.md (Layers), checked from the source: every module imports only from its
own layer or below, and no two packages import each other. Run it alone to see the import graph's
forbidden edges: `.venv/bin/python -m pytest tests/unit/test_layers.py -q`."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# lowest first; a module imports only from its own layer or below
LAYERS: tuple[tuple[str, ...], ...] = (
    ("pfcore", "pfcore.errors", "pfcore.glossary", "pfcore.names", "pfcore.output", "pfcore.paths",
     "pfcore.progress", "pfcore.deployment", "pfcore.intervals", "pfcore.files"),
    ("pfcore.models",),
    ("pfcore.scoring",),
    ("pfcore.items",),
    ("pfcore.store",),
    ("pfcore.suites",),
    ("pfcore.runs",),
    ("pfcore.analysis",),
    ("pfcore.plots",),
    ("pfcore.probe", "pfcore.sweep", "pfcore.lesson", "pfcore.views"),
    ("pfcore.cli",),
    ("pfcore.ui",),
    ("pages",),
)
CLI_MODULES = ("pfcore.__main__",)  # the command line's entry point; the rest of it is the pfcore.cli package


def module_name(path: Path) -> str:
    """The dotted module name of a source file (pages/ and app.py as `pages.*`)."""
    rel = path.relative_to(ROOT).with_suffix("")
    if rel.parts[0] != "pfcore":
        return "pages." + rel.name
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def layer_of(module: str) -> int:
    """The layer index of a pfcore module (the entry point sits in the cli layer)."""
    if module in CLI_MODULES:
        return layer_of("pfcore.cli")
    best = -1, ""
    for index, names in enumerate(LAYERS):
        for name in names:
            inside = module == name or (name != "pfcore" and module.startswith(name + "."))
            if inside and len(name) > len(best[1]):
                best = index, name
    if best[0] < 0:
        raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")
    return best[0]


def imports_of(path: Path) -> set[str]:
    """Every pfcore module a file imports, at any depth (functions and TYPE_CHECKING included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "pfcore"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "pfcore":
            found |= {f"{node.module}.{a.name}" if _is_module(f"{node.module}.{a.name}") else node.module
                      for a in node.names}
    return found


def _is_module(name: str) -> bool:
    """Whether a dotted name is a pfcore module or package (not a function or class)."""
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def sources() -> list[Path]:
    """Every Python file of the engine, the pages and the app."""
    return sorted([*ROOT.joinpath("pfcore").rglob("*.py"), *ROOT.joinpath("pages").glob("*.py"),
                   ROOT / "app.py"])


def edges() -> list[tuple[str, str]]:
    """(importer, imported) for every pfcore import in the tree."""
    return [(module_name(p), target) for p in sources() for target in sorted(imports_of(p))]


def package(module: str) -> str:
    """The pfcore sub-package a module belongs to (`pfcore.scoring`), or the module itself."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "pfcore" else parts[0]


def test_no_import_from_a_higher_layer() -> None:
    forbidden = [f"{a} -> {b}" for a, b in edges() if layer_of(b) > layer_of(a)]
    assert not forbidden, "imports from a higher layer:\n" + "\n".join(forbidden)


def test_ui_and_pages_never_import_a_cli() -> None:
    """The app goes through the engine's functions, never through a command-line module."""
    found = [f"{a} -> {b}" for a, b in edges()
             if a.startswith(("pfcore.ui", "pages")) and (b in CLI_MODULES or package(b) == "pfcore.cli")]
    assert not found, "the app imports command-line code:\n" + "\n".join(found)


def test_no_cycle_between_packages() -> None:
    graph: dict[str, set[str]] = {}
    for a, b in edges():
        if package(a) != package(b):
            graph.setdefault(package(a), set()).add(package(b))
    cycles = [f"{a} <-> {b}" for a, targets in graph.items() for b in targets if a in graph.get(b, set())]
    assert not cycles, "packages that import each other:\n" + "\n".join(sorted(cycles))


# what scoring a text takes: a model loaded, a scorer, texts scored, the score cache (names such as
# ScoringMethod or ModelSpec are data, and free to import)
SCORING = ("pfcore.models.loading", "pfcore.scoring.factory", "pfcore.scoring.causal", "pfcore.scoring.masked",
           "pfcore.scoring.words", "pfcore.store.cache")


def test_analysis_and_plots_never_score() -> None:
    """Analysis and figures read scores and results; scoring happens below them, in suites (the
    Stimuli page's engine is pfcore.views.stimuli)."""
    found = [f"{a} -> {b}" for a, b in edges() if a.startswith(("pfcore.analysis", "pfcore.plots"))
             and b in SCORING]
    assert not found, "analysis or plots that score:\n" + "\n".join(found)


def test_the_probe_takes_nothing_from_the_items_pages_data() -> None:
    """suites.blocks is the Items page's data; what the Probe shares with it lives in scoring.tables."""
    probe = ("pfcore.probe", "pfcore.ui.probe_view", "pages.1_Probe")
    found = [f"{a} -> {b}" for a, b in edges() if a.startswith(probe) and b == "pfcore.views.blocks"]
    assert not found, "the Probe imports the Items page's data:\n" + "\n".join(found)


@pytest.mark.parametrize("module", ["pfcore.scoring.causal", "pfcore.ui.model", "pfcore.cli.run",
                                    "pages.1_Probe"])
def test_every_module_has_a_layer(module: str) -> None:
    assert layer_of(module) >= 0


def test_a_new_package_must_be_given_a_layer() -> None:
    with pytest.raises(AssertionError, match="no layer"):
        layer_of("pfcore.newpackage.module")


def test_the_check_sees_a_forbidden_edge() -> None:
    """The test is not vacuous: an import of suites from scoring is flagged."""
    assert layer_of("pfcore.runs.runner") > layer_of("pfcore.scoring.causal")
    assert layer_of("pfcore.ui.model") > layer_of("pfcore.cli.run") > layer_of("pfcore.plots.tokens")


def test_the_suites_package_holds_suite_definitions_and_their_registry_only() -> None:
    """Running, resuming, trajectories and reports live in pfcore.runs, page data in pfcore.views: each
    module of pfcore/suites/ defines a registered suite, or is what they share (base, registry,
    the benchmarks' common parts)."""
    import importlib

    from pfcore.suites.registry import SUITES

    shared = {"pfcore.suites", "pfcore.suites.base", "pfcore.suites.registry", "pfcore.suites.benchmarks",
              "pfcore.suites.benchmarks_common"}
    modules = {module_name(p) for p in ROOT.joinpath("pfcore", "suites").glob("*.py")} - shared
    registered = [m for m in modules if getattr(importlib.import_module(m), "SUITE", None) in SUITES.values()]
    assert modules - set(registered) == set()
    assert not any(a.startswith("pfcore.suites") and b.startswith(("pfcore.runs", "pfcore.views", "pfcore.ui"))
                   for a, b in edges())
