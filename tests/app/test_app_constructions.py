"""The Run page's "Your own construction" (issue 30): a definition written in the page gives its first
block of items, and its first blocks scored beside the four's on one chart, with n and intervals; a
bad definition is one message; in public mode there is no box to type in (uploads only)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pfcore.items.constructions import EXAMPLES_DIR
from pfcore.store.results import load_results
from pfcore.store.runs import list_runs
from tests.app_helpers import frame_with, no_errors, page, texts

PAGE = "pages/3_Run.py"


def test_a_written_definition_is_scored_beside_the_four(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page(PAGE, tiny_gpt2).run()
    at.text_area(key="cx_text").set_value((EXAMPLES_DIR / "not_even.yaml").read_text()).run()
    no_errors(at)
    preview = at.dataframe[0].value
    assert len(preview) == 8 and set(preview["connective"]) == {"not even", "or"}
    followups = [c for c in preview.columns if c.startswith("follow-up with")]  # issue 37: not the <MASK> template
    assert len(followups) == 2 and not preview[followups].apply(lambda col: col.str.contains("<")).any().any()
    assert any("`not_even`: 'not even', a negative context, focus 2 the weaker end" in c for c in texts(at.caption))
    at.number_input(key="cx_blocks").set_value(1).run()
    at.button(key="cx_score").click().run()
    no_errors(at)
    bars = [p.proto.text for p in at.get("progress")]  # issue 37: a bar with counts, not only a spinner
    assert any(re.search(r"Scoring with .*: [\d,]+ of [\d,]+ ", text) for text in bars), bars
    table = at.dataframe[1].value
    assert set(table["construction"]) == {"let_alone", "much_less", "not_to_mention", "never_mind", "not_even"}
    assert set(table.loc[table["construction"] == "not_even", "origin"]) == {"user-defined"}
    assert (table.loc[table["filter"] == "all", "n"] == 4).all()  # one block: four decisions each
    assert ((table["ci_low"] <= table["accuracy"]) & (table["accuracy"] <= table["ci_high"])).all()
    assert any("95% Wilson intervals" in c for c in texts(at.caption))


def test_a_bad_definition_is_one_message_and_nothing_is_scored(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page(PAGE, tiny_gpt2).run()
    at.text_area(key="cx_text").set_value("name: still_less\nwords: still less\nlicensing: negative\n").run()
    assert not at.exception
    assert any("missing focus2" in e for e in texts(at.error))
    assert not [b for b in at.button if b.key == "cx_score"]
    assert not [e for e in texts(at.error) if "definition.yaml" in e]  # issue 37: a file the visitor never named
    assert any("the definition you wrote" in e for e in texts(at.error)), texts(at.error)


def test_public_mode_takes_definitions_by_upload_only(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    monkeypatch.setenv("PFCORE_FAKE_SCORER", "1")
    monkeypatch.setenv("PFCORE_PUBLIC", "1")
    monkeypatch.setenv("PFCORE_MODELS_ALLOWED", "pfcore-fake-scorer:fake")
    at = page(PAGE, "pfcore-fake-scorer").run()
    assert not at.exception
    assert not [t for t in at.text_area if t.key == "cx_text"]
    assert any("Upload a construction definition" in i for i in texts(at.info))


def test_the_trial_is_saved_as_a_run_with_its_rows_in_the_results_table(monkeypatch: pytest.MonkeyPatch,
                                                                         cache_dir: Path) -> None:
    """Issue 37: the scored trial is a run record (list_runs, Results below, the Models page) whose rows
    are in the results table, and the numbers the section shows are the record's."""
    monkeypatch.setenv("PFCORE_FAKE_SCORER", "1")
    at = page(PAGE, "pfcore-fake-scorer").run()
    at.text_area(key="cx_text").set_value((EXAMPLES_DIR / "not_even.yaml").read_text()).run()
    at.number_input(key="cx_blocks").set_value(2).run()
    at.button(key="cx_score").click().run()
    no_errors(at)
    runs = list_runs()
    assert len(runs) == 1
    record = runs[0]
    assert record.manifest.items.count == 5 * 2 * 8 and "not_even generated in the app" in record.manifest.items.source
    assert any(f"Saved as run `{record.manifest.run_id}`" in s for s in texts(at.success))
    assert at.session_state["run_pick"] == str(record.path)  # Results below shows it, with its link
    shown = frame_with(at, "origin").set_index(["construction", "filter"])
    saved = record.summary.set_index(["construction", "filter"]).loc[shown.index]
    for column in ("accuracy", "ci_low", "ci_high", "n"):
        assert np.allclose(shown[column].to_numpy(float), saved[column].to_numpy(float), atol=1e-12), column
    rows = load_results()
    rows = rows[rows["source"] == f"pfcore run {record.manifest.run_id}"]
    accuracy = rows[rows["metric"] == "accuracy"].set_index(["construction", "filter"])["value"]
    assert set(accuracy.index.get_level_values(0)) == set(saved.index.get_level_values(0))  # names, as the summary's
    mine = accuracy.loc["not_even"]
    assert np.allclose(mine.loc[["all", "aligned", "misaligned"]].to_numpy(float),
                       saved.loc["not_even"].loc[["all", "aligned", "misaligned"], "accuracy"].to_numpy(float))
