"""A definition typed or uploaded in the app gets the checks `constructions check` makes (issue 40):
a spelling of a built-in is refused with one line naming the visitor's file, not the server's folder."""
from __future__ import annotations

from pathlib import Path

import pytest

from pfcore.errors import InputError
from pfcore.models.spec import ModelSpec
from pfcore.scoring.factory import scorer_for
from pfcore.store.results import load_results
from pfcore.store.runs import list_runs
from pfcore.views.constructions import definition_from_text, run_trial, trial_of

GOOD = b"name: still_less\nwords: still less\nlicensing: negative\nfocus2: stronger\n"


def test_an_uploaded_definition_with_a_built_ins_spelling_is_refused() -> None:
    with pytest.raises(InputError) as caught:
        definition_from_text("mine.yaml", GOOD.replace(b"words: still less", b"words: let alone"))
    message = str(caught.value)
    assert message.startswith("mine.yaml: words: 1 of its spellings belong to the construction let_alone")
    assert "/tmp" not in message and "\n" not in message


def test_an_uploaded_definition_that_passes_the_checks_is_read() -> None:
    assert definition_from_text("mine.yaml", GOOD).name == "still_less"


def test_a_public_visitors_trial_is_a_run_in_their_own_folder_alone(fake_model: str, cache_dir: Path,
                                                                     tmp_path: Path) -> None:
    """Issue 37: the trial is saved as a run; a public visitor's goes to their session's folder, as the Run
    page's runs do, and its rows stay out of the shared results table (what another visitor sees)."""
    trial = trial_of(definition_from_text("mine.yaml", GOOD))
    spec = ModelSpec(fake_model, kind="fake")
    own = tmp_path / "session"
    own.mkdir()
    record, scored = run_trial(trial, spec, 1, scorer_for, own_runs=own)
    assert record.path.parent == own and [r.path for r in list_runs(own)] == [record.path]
    assert not list_runs()
    assert not (load_results()["source"] == f"pfcore run {record.manifest.run_id}").any()
    assert scored.summary is not None and set(scored.summary["filter"]) == {"all", "aligned", "misaligned"}
    assert set(scored.summary.loc[scored.summary["origin"] == "user-defined", "construction"]) == {"still_less"}
