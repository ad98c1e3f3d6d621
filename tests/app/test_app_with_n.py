"""Numbers with what they rest on, beyond the Probe (issue "Probe any sentence the way the paper
would", "Elsewhere, numbers without their n"): on Models, your runs with n and a 95% interval and a
source column wide enough to read; on Stimuli, predictions named by their formula, an unscored
region left out of the chart (not drawn as zero), and which file is read when a path is typed
beside an upload; on Run, a SyntaxGym result named by its formulas, not "0" and "1"."""
from __future__ import annotations

import json
from pathlib import Path

from pfcore.models import ModelSpec
from pfcore.runs.runner import RunConfig, run_suite
from tests.app_helpers import frame_with, no_errors, page, texts
from tests.unit.test_syntaxgym_suite import suite_data, write_suite

FORMULA = "(2;%good%) < (2;%bad%)"


def intro_suite(folder: Path) -> Path:
    """A suite whose region 1 is each sentence's first word alone ("intro"): never scored."""
    data = suite_data()
    data["region_meta"] = {"1": "intro", "2": "verb", "3": "rest"}
    for item in data["items"]:
        for condition in item["conditions"]:
            first, *rest = condition["regions"][0]["content"].split()
            condition["regions"][0]["content"] = first
            condition["regions"][1]["content"] = " ".join([*rest, condition["regions"][1]["content"]])
    return write_suite(folder, data)


def test_models_your_runs_carry_n_and_an_interval(tiny_gpt2: Path, cache_dir: Path) -> None:
    record = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(suite="semantic", limit_blocks=1))
    at = page("pages/4_Models.py", tiny_gpt2).run()
    no_errors(at)
    table = at.dataframe[0]
    own = table.value[table.value["origin"] == "your run"]
    assert own["n"].tolist() == ["2"]  # aligned items of one block: 2 decisions per construction
    assert json.loads(table.proto.columns)["source"]["width"] == "large"  # "pfcore run 2026..." is not cut
    values = frame_with(at, "ci_low")
    assert set(values["source"]) == {f"pfcore run {record.manifest.run_id}"} and len(values) == 4
    assert (values["n"] == 2).all() and (values["ci_low"] <= values["value"]).all()
    assert (values["value"] <= values["ci_high"]).all()


def test_stimuli_predictions_by_formula_and_no_bars_for_an_unscored_region(tiny_gpt2: Path, tmp_path: Path,
                                                                         cache_dir: Path) -> None:
    at = page("pages/6_Stimuli.py", tiny_gpt2)
    at.session_state["stimuli_path"] = str(intro_suite(tmp_path))
    at.run()
    no_errors(at)
    predictions = frame_with(at, "accuracy")
    assert predictions["prediction"].tolist() == [f"prediction 1: {FORMULA}"]
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    drawn = {x for trace in figure["data"] for x in trace["x"]}
    assert drawn == {"2: verb", "3: rest"}  # "1: intro" has no scored word: no bar of zero height
    assert any("1: intro" in a["text"] for a in figure["layout"]["annotations"])
    assert any("Not drawn: region 1: intro" in c for c in texts(at.caption))


def test_stimuli_says_which_file_it_reads(tiny_gpt2: Path, tmp_path: Path, cache_dir: Path) -> None:
    typed_path = tmp_path / "typed.csv"
    typed_path.write_text("sentence\nThe keys are here.\n")
    at = page("pages/6_Stimuli.py", tiny_gpt2)
    at.session_state["stimuli_path"] = str(typed_path)
    at.run()
    assert not any("is not read" in i for i in texts(at.info))  # a path alone is simply read
    at.file_uploader(key="stimuli_upload").set_value(("mine.csv", b"sentence\nThe key is here.\n", "text/csv"))
    at.run()
    no_errors(at)
    assert any("uploaded file **mine.csv**" in i and f"({typed_path})" in i and "is not read" in i
               for i in texts(at.info))
    assert frame_with(at, "surprisal_bits")["sentence"].unique().tolist() == ["The key is here."]


def test_run_names_syntaxgym_predictions_by_formula(tiny_gpt2: Path, tmp_path: Path, cache_dir: Path) -> None:
    path = write_suite(tmp_path, suite_data(formulas=(FORMULA, "(3;%good%) < (3;%bad%)")))
    record = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(suite="syntaxgym", items_path=str(path)))
    at = page("pages/3_Run.py", tiny_gpt2)
    at.query_params["run"] = record.path.name
    at.run()
    no_errors(at)
    picked = at.multiselect(key="run_filters_syntaxgym")
    assert picked.options == [f"prediction 1: {FORMULA}", "prediction 2: (3;%good%) < (3;%bad%)"]
    shown = frame_with(at, "accuracy")
    assert shown["filter"].tolist() == picked.options
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert FORMULA in json.dumps(chart["data"])
