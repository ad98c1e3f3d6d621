"""Every suite pfcore runs, by name: adding a suite is one module and one entry here."""
from __future__ import annotations

from pfcore.names import SuiteName, named
from pfcore.scoring.kinds import kind_of
from pfcore.suites import affinity, blimp, comps, ewok, semantic, syntax, syntaxgym
from pfcore.suites.base import Suite

SUITES: dict[SuiteName, Suite] = {s.name: s for s in (semantic.SUITE, syntax.SUITE, affinity.SUITE,
                                                 blimp.SUITE, comps.SUITE, ewok.SUITE, syntaxgym.SUITE)}


def get_suite(name: str) -> Suite:
    """The suite of that name; InputError listing the known ones otherwise."""
    return SUITES[named(SuiteName, name, "suite")]


def suites_for(kind: str) -> tuple[SuiteName, ...]:
    """The suites a model of this kind can run."""
    return tuple(name for name, suite in SUITES.items() if suite.fits(kind_of(kind)))
