"""What the Trajectories page shows beside its charts, in words."""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from pfcore.analysis.series import available_series
from pfcore.analysis.trajectories import FIGURE2, present, scope_label, scoped

MEANING = "pf_avg:"  # the semantic test's curves


def missing_series_notes(table: pd.DataFrame, scopes: Sequence[str], names: Sequence[str]) -> list[str]:
    """One line for each model drawn side by side that lacks some of the chosen series, naming them:
    a model with syntax results only (the published Pythia-deduped files) would otherwise add one
    curve and say nothing of the rest."""
    notes = []
    for key in scopes:
        source, _, model = key.partition("|")
        available = available_series(scoped(table, model, source), model)
        lacking = [n for n in names if n not in set(present(names, available))]
        if not lacking:
            continue
        words = "; ".join(FIGURE2.get(n, n) for n in lacking)
        meaning = any(n.startswith(MEANING) for n in available)
        why = "" if meaning else " (it has no meaning results at all, only other tests)"
        notes.append(f"{scope_label(key)} has no {words}{why}: those curves are not drawn for it.")
    return notes
