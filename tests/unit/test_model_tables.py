"""The Models page's tables: own runs beside the paper on the paper's terms (issue 12)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from pfcore.analysis.model_tables import figure_data, side_by_side
from pfcore.analysis.models import refit_variants
from pfcore.cli import main
from pfcore.models import ModelSpec
from pfcore.runs.runner import run_suite
from pfcore.store.model_sizes import read_extra_models, save_extra_models
from pfcore.store.results import load_results
from pfcore.store.runs import list_runs
from pfcore.suites.base import RunConfig


def test_table8_compares_on_the_papers_words(tiny_roberta: Path, cache_dir: Path) -> None:
    record = run_suite(ModelSpec(str(tiny_roberta), kind="masked"), RunConfig(suite="affinity", limit_blocks=2))
    rows = record.tables["rows"]
    mention = rows[(rows["construction"] == "not_to_mention") & rows["word"].isin(["not", "mention"])]
    expected = round(float(mention.groupby("item_id")["affinity"].mean().mean()), 3)
    all_three = round(float(rows[rows["construction"] == "not_to_mention"].groupby("item_id")["affinity"]
                            .mean().mean()), 3)
    table = side_by_side("Table 8", list_runs())
    own = table[table["origin"] == "your run"].iloc[0]
    assert own["nottomention"] == expected
    assert expected != all_three  # "to" was left out, as in the paper


def test_model_sizes_refuse_implausible_values(cache_dir: Path) -> None:
    edited = pd.DataFrame({"hf_id": ["a/real", "a/typo", None], "parameters": [1.35e8, 8, None],
                           "pretraining_tokens": [2e12, 2e12, None], "model_type": ["CausalLM", "CausalLM", None]})
    kept, refused = save_extra_models(edited)
    assert kept == 1 and len(refused) == 1 and refused[0].startswith("a/typo")
    assert list(read_extra_models()["hf_id"]) == ["a/real"]


def test_no_refit_brings_the_paper_p_value_back() -> None:
    refits = refit_variants(draws=3)
    assert len(refits) == 7
    assert (refits["p_min"] < 0.005).all()  # the paper reports p = .011
    assert (refits["significant"] == "log_parameters").all()


def test_a_run_on_fewer_than_four_constructions_is_left_out_of_the_cross_model_analyses(
        tiny_gpt2: Path, cache_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Figure 1 and rho average the four constructions: the Models page left a one-construction run
    out, while `analyze rho --data both` counted it (n = 37 instead of 36)."""
    full = shutil.copytree(tiny_gpt2, tmp_path / "full-model")
    name = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(constructions=("let_alone",),
                                                          limit_blocks=1)).manifest.model.name
    sizes = tmp_path / "sizes.csv"
    sizes.write_text(f"hf_id,parameters,pretraining_tokens,model_type\n{name},1.5e6,2e6,CausalLM\n")
    assert main(["analyze", "rho", "--data", "runs", "--models", str(sizes)]) == 2
    assert "four constructions" in capsys.readouterr().err
    full_name = run_suite(ModelSpec(str(full)), RunConfig(limit_blocks=1)).manifest.model.name
    sizes.write_text(sizes.read_text() + f"{full_name},1.5e6,3e6,CausalLM\n")
    with pytest.warns(UserWarning, match=f"left out {name}: not all four constructions"):
        assert main(["analyze", "rho", "--data", "both", "--models", str(sizes), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 37  # the paper's 36 and the complete run
    assert figure_data(load_results(), include_runs=True).partial == (name,)


def test_importing_the_models_tables_reads_no_file() -> None:
    """model_tables read the lexicon at import time: a page or CLI that merely imported it paid for it."""
    probe = ("import pfcore.items.lexicon as lexicon\n"
             "def refuse(*args, **kwargs):\n"
             "    raise SystemExit('the lexicon was read at import')\n"
             "lexicon.load_lexicon = refuse\n"
             "import pfcore.analysis.model_tables\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
