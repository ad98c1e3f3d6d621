"""AppTests for the Trajectories page (published imports, own trajectories, the empty state) and
the Models page's mixed-effects table."""
from __future__ import annotations

import base64
import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from pfcore.analysis.trajectories import scope_key
from pfcore.models import ModelSpec
from pfcore.runs.checkpoints import checkpoints
from pfcore.runs.runner import RunConfig, run_suite
from pfcore.runs.trajectory import run_trajectory
from pfcore.store.model_sizes import extra_models_path
from pfcore.store.results import import_published, results_path
from pfcore.ui.trajectories_view import widget_key
from tests.app_helpers import no_errors, texts
from tests.app_helpers import page as app_page
from tests.tiny_models import build_checkpoint_series

PAGE = "pages/5_Trajectories.py"
PYTHIA = "EleutherAI/pythia-12b"
BUNDLED = "published@a6b6990"  # the label of the published results that ship with pfcore
TINY = "tiny-series"
SEMANTIC = ["PF meaning, plausible (pf_avg:aligned)", "PF meaning, implausible (pf_avg:misaligned)"]


def page(model: Path, script: Path | str = PAGE) -> AppTest:
    """An AppTest of a script with the sidebar model set to a tiny local model."""
    return app_page(script, model)


def traces(at: AppTest, index: int, *, bands: bool = False) -> list[str]:
    """Names of the lines (or, with `bands`, of the shaded intervals) of the index-th plotly chart."""
    spec = json.loads(at.get("plotly_chart")[index].proto.spec)
    return [t.get("name") for t in spec["data"] if (t.get("fill") == "toself") == bands]


@pytest.fixture(scope="module")
def own_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results table of a real 3-checkpoint trajectory of the tiny GPT-2 (semantic, 2 blocks)."""
    folder = tmp_path_factory.mktemp("own")
    series = build_checkpoint_series(folder / "ckpts")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PFCORE_CACHE", str(folder / "cache"))
        run_trajectory(TINY, checkpoints(ModelSpec(), None, str(series)), ["semantic"],
                       RunConfig(limit_blocks=2), report=lambda _msg: None)
        return results_path()


def with_own_results(own_results: Path) -> None:
    """Put the tiny trajectory's results into this test's private cache."""
    shutil.copy(own_results, results_path())


def test_published_figures_and_the_papers_correlation(tiny_gpt2: Path, cache_dir: Path,
                                                      shared_data: Path) -> None:
    at = page(tiny_gpt2).run()
    at.text_input(key="traj_import_folder").input(str(shared_data / "meaning_alone" / "outputs_summary"))
    at.button(key="traj_import").click().run()
    no_errors(at)
    assert texts(at.success)[0].startswith("Imported 136,100 rows from 20 files")
    assert f"as source {BUNDLED} (the same numbers as the bundled published results)" in texts(at.success)[0]
    at.selectbox(key="traj_model").set_value(PYTHIA).run()
    no_errors(at)
    assert len(at.get("plotly_chart")) == 4  # Figure 2, Figure 3, Figure 4, the chosen pair
    assert traces(at, 0) == [*SEMANTIC, "PF form (syntax) (syntax:Avg_Test)", "BLiMP (blimp:all)",
                             "COMPS (comps:all)", "EWoK (ewok:all)"]
    assert "accuracy_summary_la.tsv" in texts(at.caption)[0]
    figure4 = at.dataframe[0].value
    assert list(figure4["y"]) == ["syntax:Avg_Test", "pf_avg:misaligned", "ewok:domain_physical-relations"]
    at.selectbox(key=widget_key("pair_x", PYTHIA, BUNDLED)).set_value("pf_avg:aligned")
    at.selectbox(key=widget_key("pair_y", PYTHIA, BUNDLED)).set_value("ewok:domain_physical-relations")
    at.toggle(key="traj_zscale").set_value(True).run()
    no_errors(at)
    shown = {m.label: m.value for m in at.metric}
    assert shown["Spearman ρ"] == "0.47" and shown["p (Spearman)"] == "0.041" and shown["n changes"] == "19"
    notes = [c for c in texts(at.caption) if c.startswith("The paper (section 5.4) prints ρ = .48")]
    assert len(notes) == 2  # under Figure 4's table (its physical-relations panel) and under the pair
    assert all("pfcore's ρ = 0.472 is a difference of -0.008" in n and "ρ = 0.479" in n for n in notes)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels.count("Download chart (HTML)") == 4 and "Download the plotted values (CSV)" in labels
    at.multiselect(key=widget_key("fd_ys", PYTHIA, BUNDLED)).set_value([]).run()
    assert not at.exception
    assert texts(at.error) == ["choose at least one series to set against pf_avg:aligned"]
    assert len(at.get("plotly_chart")) == 3 and at.metric[0].value == "0.47"  # the pair still stands


def test_empty_state_offers_import_and_reports_offline_fetch(tiny_gpt2: Path, cache_dir: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(urllib.request, "urlopen", offline)
    at = page(tiny_gpt2).run()
    no_errors(at)
    assert any("No checkpoint results yet" in i for i in texts(at.info))
    assert not at.get("plotly_chart")
    assert [e.proto.expanded for e in at.expander if e.label.startswith("Add results")] == [True]
    at.button(key="traj_fetch").click().run()
    assert not at.exception
    assert any("could not reach github.com" in e for e in texts(at.error))
    still_offered(at)  # a failed import used to hide the rest of the section
    at.text_input(key="traj_import_folder").input(str(cache_dir / "nowhere"))
    at.button(key="traj_import").click().run()
    assert not at.exception
    assert any("not a folder" in e for e in texts(at.error))
    still_offered(at)


def still_offered(at: AppTest) -> None:
    """The section's buttons and the trajectory commands are on the page."""
    keys = {b.key for b in at.button}
    assert {"traj_bundled", "traj_import", "traj_fetch"} <= keys, keys
    assert any("pfcore trajectory --model" in m for m in texts(at.markdown))


def test_own_trajectory_in_the_picker_and_its_chart(tiny_gpt2: Path, cache_dir: Path,
                                                    own_results: Path) -> None:
    with_own_results(own_results)
    at = page(tiny_gpt2).run()
    no_errors(at)
    picker = at.selectbox(key="traj_model")
    assert picker.options == [f"{TINY} · your runs · 3 checkpoints"] and picker.value == TINY
    assert texts(at.caption)[0].startswith("From your own runs: 3 run record(s)")
    assert len(at.get("plotly_chart")) == 2  # Figures 2 and 3; 3 checkpoints are too few for Figure 4
    assert traces(at, 0) == SEMANTIC
    assert any("at least 4 checkpoints" in i for i in texts(at.info))


def test_own_and_published_side_by_side(tiny_gpt2: Path, cache_dir: Path, shared_data: Path,
                                        own_results: Path) -> None:
    with_own_results(own_results)
    import_published(shared_data / "meaning_alone" / "outputs_summary")
    at = page(tiny_gpt2).run()
    at.selectbox(key="traj_model").set_value(TINY).run()
    at.multiselect(key=widget_key("compare", TINY, "own")).set_value([scope_key(PYTHIA, BUNDLED)]).run()
    no_errors(at)
    names = traces(at, 0)  # short names in the legend (issue 37), the whole label on hover
    assert "PF meaning, plausible · tiny-series" in names and "PF meaning, plausible · pythia-12b" in names
    hover = [t.get("meta") for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]]
    assert "PF meaning, plausible (pf_avg:aligned) · tiny-series (your runs)" in hover
    assert "PF meaning, plausible (pf_avg:aligned) · EleutherAI/pythia-12b (published @ a6b6990)" in hover


def test_mixed_effects_on_the_paper_and_with_own_runs(tiny_gpt2: Path, cache_dir: Path,
                                                      tmp_path: Path) -> None:
    script = tmp_path / "mixed.py"
    script.write_text("from pfcore.ui.mixed_view import render_mixed_effects\nrender_mixed_effects()\n")
    at = page(tiny_gpt2, script).run()
    no_errors(at)
    table = at.dataframe[0].value
    full = table[(table["fit"] == "all three predictors") & (table["term"] == "ln parameters")]
    assert round(float(full["coef"].iloc[0]), 3) == 6.804 and int(full["models"].iloc[0]) == 36
    assert any("paper's 36 models only" in i for i in texts(at.info))
    assert [b.proto.label for b in at.get("download_button")] == ["Download the coefficients (CSV)"]

    run_suite(ModelSpec(name=str(tiny_gpt2)), RunConfig(limit_blocks=1))
    pd.DataFrame([{"hf_id": str(tiny_gpt2), "parameters": 1e5, "pretraining_tokens": 1e4,
                   "model_type": "CausalLM"}]).to_csv(extra_models_path(), index=False)
    at.run()
    no_errors(at)
    table = at.dataframe[0].value
    assert set(table["models"]) == {36, 37}
    assert table["data"].str.startswith("paper + your runs").sum() == len(table) / 2


def test_a_link_reopens_a_model_and_its_series(tiny_gpt2: Path, cache_dir: Path, own_results: Path) -> None:
    with_own_results(own_results)
    at = page(tiny_gpt2)
    at.query_params["model"] = TINY
    at.query_params["series"] = ["pf_avg:misaligned"]
    at.query_params["zoom"] = "9"
    at.run()
    no_errors(at)
    assert at.selectbox(key="traj_model").value == TINY
    assert at.multiselect(key=widget_key("series", TINY, "own")).value == ["pf_avg:misaligned"]
    assert traces(at, 0) == ["PF meaning, implausible (pf_avg:misaligned)"]
    assert any("zoom (not a setting of this page)" in c for c in texts(at.caption))


def test_a_link_in_the_old_spelling_opens_the_series_by_its_name(tiny_gpt2: Path, cache_dir: Path,
                                                                 own_results: Path) -> None:
    """Links written before constructions were named alike (issue 40) still open their series."""
    with_own_results(own_results)
    at = page(tiny_gpt2)
    at.query_params["model"] = TINY
    at.query_params["series"] = ["letalone:aligned", "Much Less:aligned"]
    at.run()
    no_errors(at)
    assert at.multiselect(key=widget_key("series", TINY, "own")).value == ["let_alone:aligned", "much_less:aligned"]


def offline(*_args, **_kwargs):
    """urlopen with no network."""
    raise urllib.error.URLError("no network")


def test_a_new_cache_shows_pythias_figure2_without_an_import(tiny_gpt2: Path, bundled_cache: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 20: offline, on an empty cache, the paper's Figure 2 is on the page with no import, with
    bands where n is known, and every panel of Figure 3 labels its ticks."""
    monkeypatch.setattr(urllib.request, "urlopen", offline)
    at = page(tiny_gpt2).run()
    no_errors(at)
    assert at.selectbox(key="traj_model").value == PYTHIA
    assert at.selectbox(key=widget_key("source", PYTHIA, "")).value == BUNDLED
    assert "bundled with pfcore" in texts(at.caption)[0]
    assert traces(at, 0) == [*SEMANTIC, "PF form (syntax) (syntax:Avg_Test)", "BLiMP (blimp:all)",
                             "COMPS (comps:all)", "EWoK (ewok:all)"]
    assert traces(at, 0, bands=True) == [f"{s}: 95% interval" for s in SEMANTIC]
    note = next(c for c in texts(at.caption) if c.startswith("Shaded"))
    assert "decisions in the paper's item set" in note
    assert "no band where n is not known: blimp:all, comps:all, ewok:all, syntax:Avg_Test" in note
    layout = json.loads(at.get("plotly_chart")[1].proto.spec)["layout"]
    axes = [k for k in layout if k.startswith(("xaxis", "yaxis"))]
    assert len(axes) == 8 and all(layout[k].get("showticklabels") is True for k in axes)


@pytest.mark.filterwarnings("ignore:the bundled published results")  # the page shows it (asserted below)
def test_a_damaged_bundle_is_reported_and_the_page_still_works(tiny_gpt2: Path, bundled_cache: Path,
                                                               tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from pfcore.store import published

    copy = tmp_path / "reference" / published.BUNDLE_PATH.name
    copy.parent.mkdir()
    shutil.copy(published.manifest_path(published.BUNDLE_PATH), published.manifest_path(copy))
    copy.write_bytes(published.BUNDLE_PATH.read_bytes()[:-100])
    monkeypatch.setattr(published, "BUNDLE_PATH", copy)
    at = page(tiny_gpt2).run()
    assert not at.exception
    assert any("edited or damaged" in w for w in texts(at.warning))
    assert any("No checkpoint results yet" in i for i in texts(at.info))
    at.button(key="traj_bundled").click().run()
    assert not at.exception and any("edited or damaged" in e for e in texts(at.error))
    still_offered(at)


def numbers(values: object) -> list[float]:
    """A chart's coordinates as numbers, whether plotly wrote a list or base64 binary data."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).tolist()
    return list(values)  # type: ignore[call-overload]


def test_figure2_by_tokens_seen_and_smoothed(tiny_gpt2: Path, bundled_cache: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: the x-axis radio draws Pythia by tokens seen (step x 2,097,152) and the smoothing slider
    draws the moving mean with the raw values faint beside it; a model whose tokens per step are
    unknown is named, not drawn on tokens."""
    monkeypatch.setattr(urllib.request, "urlopen", offline)
    at = page(tiny_gpt2).run()
    at.radio(key="traj_x").set_value("tokens_seen").run()
    no_errors(at)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["layout"]["xaxis"]["title"]["text"] == "Tokens seen (log scale)"
    lines = [t for t in spec["data"] if t.get("fill") != "toself"]
    assert max(numbers(lines[0]["x"])) == 143000 * 2_097_152 and not [t for t in lines if t.get("opacity")]
    at.select_slider(key="traj_smooth").set_value(3).run()
    no_errors(at)
    lines = [t for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"] if t.get("fill") != "toself"]
    raw = [t for t in lines if t.get("opacity") == 0.3]
    assert raw and len(raw) * 2 == len(lines) and all(t["showlegend"] is False for t in raw)
    at.multiselect(key=widget_key("compare", PYTHIA, BUNDLED)).set_value([f"{BUNDLED}|jhu-clsp/ettin-decoder-1b"]).run()
    no_errors(at)
    assert any(i.startswith("jhu-clsp/ettin-decoder-1b: tokens seen unknown") for i in texts(at.info)), texts(at.info)
