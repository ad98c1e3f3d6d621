"""The table of model kinds: adding a kind is one module (a `Kind`: how it loads, how it scores text, its
methods) and one line in KINDS. Everything that chooses a kind or a method reads it from here."""
from __future__ import annotations

from pfcore.errors import InputError
from pfcore.scoring.kinds import causal, fake, masked, scores
from pfcore.scoring.kinds.base import Kind
from pfcore.scoring.methods import ScoringMethod

KINDS: dict[str, Kind] = {str(kind.name): kind for kind in (causal.KIND, masked.KIND, scores.KIND, fake.KIND)}


def named_kinds() -> dict[str, Kind]:
    """The kinds whose models load from their name: what --kind and the sidebar's picker offer."""
    return {name: kind for name, kind in KINDS.items() if kind.offered()}


def kind_of(name: str) -> Kind:
    """The kind of that name; InputError listing the kinds otherwise."""
    if name not in KINDS:
        raise InputError(f"unknown model kind {name!r}; choose one of {', '.join(KINDS)}")
    return KINDS[name]


def all_methods() -> tuple[ScoringMethod, ...]:
    """Every kind's scoring methods, in the table's order."""
    return tuple(method for kind in KINDS.values() for method in kind.methods)


def method_named(name: str | ScoringMethod) -> ScoringMethod:
    """The scoring method a name stands for; InputError listing the known names otherwise."""
    found = {method.value: method for method in all_methods()}.get(str(name))
    if found is None:
        raise InputError(f"unknown scoring {name!r}; choose one of {', '.join(m.value for m in all_methods())}")
    return found
