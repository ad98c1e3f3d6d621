"""Semantic and syntactic suites: the paper's decision rules, run records, the run CLI."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.models import ModelSpec
from pfcore.runs.runner import run_suite
from pfcore.scoring.factory import LazyScorer
from pfcore.scoring.kinds import kind_of
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS, load_model
from pfcore.store.runs import load_run
from pfcore.suites import semantic, syntax
from pfcore.suites.base import RunConfig
from pfcore.suites.registry import get_suite


def load_suite_items(config: RunConfig) -> list:
    """The items a run of this config scores."""
    return get_suite(config.suite).load(config)


def paper_semantic_accuracy(logodds: list[float], flt: str) -> float:
    """The authors' eval.py rule, by row position in blocks of 8 (rows 0-3 construction, 4-7 "or")."""
    correct = total = 0
    for b in range(0, len(logodds), 8):
        lo = logodds[b:b + 8]
        checks = {"aligned1": lo[0] > lo[4], "aligned2": lo[1] < lo[5],
                  "misaligned1": lo[2] < lo[6], "misaligned2": lo[3] > lo[7]}
        for name, ok in checks.items():
            if flt == "all" or name.startswith(flt) and (flt in ("aligned", "misaligned") or flt == name):
                correct += ok
                total += 1
    return correct / total


def test_semantic_accuracy_equals_the_papers_method(tiny_gpt2: Path, paper_let_alone_tsv: Path,
                                                    cache_dir: Path) -> None:
    tsv = paper_let_alone_tsv
    record = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(items_path=str(tsv), limit_blocks=40))
    rows = record.tables["rows"]
    published = pd.read_csv(tsv, sep="\t").head(len(rows))
    assert list(rows["context"] + " " + rows["followup"]) == list(published["Sentence"])
    summary = record.summary.set_index("filter")["accuracy"]
    for flt in ("all", "aligned", "misaligned", "aligned1", "aligned2", "misaligned1", "misaligned2"):
        assert summary[flt] == pytest.approx(paper_semantic_accuracy(list(rows["logodds"]), flt)), flt
    assert record.manifest.settings["reduction"] == "mean"


def test_semantic_decision_rule_by_hand() -> None:
    rows = pd.DataFrame({
        "block_id": ["b"] * 8, "construction": ["let_alone"] * 8,
        "is_construction": [True] * 4 + [False] * 4,
        "context_order": ["aligned", "aligned", "misaligned", "misaligned"] * 2,
        "followup_order": ["same", "reversed"] * 4,
        "logodds": [2.0, -2.0, 0.5, 3.0, 1.0, -1.0, 1.0, 1.0],
        **{f: ["x"] * 8 for f in ("verb", "scale", "pronoun", "modal")},
    })
    dec = semantic.decisions(rows).set_index("condition")["correct"]
    assert dec.to_dict() == {"aligned1": True, "aligned2": True, "misaligned1": True, "misaligned2": True}
    rows.loc[0, "logodds"] = 0.0  # now below its "or" twin in the aligned1 condition
    assert not semantic.decisions(rows).set_index("condition")["correct"]["aligned1"]


def paper_syntax(rows: pd.DataFrame, construction: str) -> dict[str, float]:
    """The authors' syntax rule written independently: per base, rises against the "and" rises."""
    surprisal = {(r.base_id, r.construction, r.manipulation): -r.score for r in rows.itertuples()}
    hits: dict[str, list[bool]] = {}
    for (base, cxn, manip), s in surprisal.items():
        if cxn != construction or manip == "base":
            continue
        rise = s - surprisal[(base, cxn, "base")]
        rise_and = surprisal[(base, "and", manip)] - surprisal[(base, "and", "base")]
        hits.setdefault(manip, []).append(rise > rise_and)
    return {m: float(np.mean(v)) for m, v in hits.items()}


def test_syntax_accuracy_equals_the_papers_method(tiny_gpt2: Path, cache_dir: Path) -> None:
    record = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(suite="syntax", limit_blocks=30))
    rows = record.tables["rows"]
    summary = record.summary
    for construction in ("let_alone", "never_mind"):
        expected = paper_syntax(rows, construction)
        got = summary[summary["construction"] == construction].set_index("filter")["accuracy"]
        for manip, value in expected.items():
            assert got[manip] == pytest.approx(value)
        assert got["Avg_Test"] == pytest.approx(np.mean([expected[m] for m in syntax.TESTS]))
        assert got["Avg_Control"] == pytest.approx(np.mean([expected[m] for m in syntax.CONTROLS]))
    published = pd.read_csv(record.path / "outputs_summary.tsv", sep="\t")
    assert list(published.columns) == ["revision", "construction", "test_type", "accuracy",
                                       "delta_surps", "delta_surps_and"]
    assert "let alone" in set(published["construction"])


def test_run_record_and_manifest(tiny_gpt2: Path, cache_dir: Path) -> None:
    record = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(constructions=("much_less",), limit_blocks=3))
    again = load_run(record.path)
    m = again.manifest
    assert m.suite == "semantic" and m.scoring == "causal"
    assert m.items.count == 24 and len(m.items.hash) == 16
    assert {"pfcore", "transformers", "torch"} <= m.versions.keys()
    assert {"items_s", "load_s", "score_s", "total_s"} <= vars(m.timings_s).keys()
    assert set(again.tables) == {"rows", "decisions", "summary"}
    pub = pd.read_csv(record.path / "outputs_summary.tsv", sep="\t")
    assert set(pub["construction"]) == {"muchless"}
    assert list(pub.columns) == ["revision", "construction", "world_knowledge_filter", "accuracy"]
    lo, hi = record.summary.iloc[0][["ci_low", "ci_high"]]
    assert 0 <= lo <= record.summary.iloc[0]["accuracy"] <= hi <= 1


def test_run_cli_json(tiny_gpt2: Path, cache_dir: Path, capsys) -> None:
    argv = ["run", "--suite", "semantic", "--model", str(tiny_gpt2), "--limit-blocks", "2", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["accuracy"]) == {"let_alone", "much_less", "not_to_mention", "never_mind"}
    assert 0 <= out["accuracy"]["let_alone"]["aligned"] <= 1
    assert out["items"] == 4 * 2 * 8


def test_limit_blocks_and_bad_items(tmp_path: Path) -> None:
    items = load_suite_items(RunConfig(constructions=("let_alone",), limit_blocks=3))
    assert len(items) == 24 and {i.construction for i in items} == {"let_alone"}
    syn = load_suite_items(RunConfig(suite="syntax", limit_blocks=2))
    assert len({i.base_id for i in syn}) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    with pytest.raises(InputError):
        load_suite_items(RunConfig(items_path=str(bad)))


def test_wrong_item_kind_is_refused() -> None:
    from pfcore.items import default_item_path
    with pytest.raises(InputError, match="not semantic items"):
        load_suite_items(RunConfig(items_path=str(default_item_path("syntax")), limit_blocks=1))


def test_causal_scoring_refused_for_masked_model(tiny_bert: Path, cache_dir: Path) -> None:
    with pytest.raises(InputError, match="does not fit"):
        run_suite(ModelSpec(str(tiny_bert), kind="masked"), RunConfig(scoring="causal", limit_blocks=1))


@pytest.mark.parametrize("suite, scoring", [("semantic", "masked-token"), ("semantic", "pll-original"),
                                            ("semantic", "pll-l2r"), ("syntax", None), ("syntax", "pll-l2r"),
                                            ("affinity", None)])
def test_masked_model_runs_every_suite(tiny_bert: Path, cache_dir: Path, suite: str, scoring: str | None) -> None:
    record = run_suite(ModelSpec(str(tiny_bert), kind="masked"),
                       RunConfig(suite=suite, scoring=scoring, limit_blocks=2))
    expected = {"semantic": scoring, "syntax": scoring or "pll-original", "affinity": "global-affinity"}
    assert record.manifest.scoring == expected[suite]
    assert record.summary["accuracy"].between(0, 1).all()
    assert set(record.summary["construction"]) >= {"let_alone", "never_mind"}


def test_affinity_averages_words(tiny_roberta: Path, cache_dir: Path) -> None:
    record = run_suite(ModelSpec(str(tiny_roberta), kind="masked"), RunConfig(suite="affinity", limit_blocks=3))
    rows, s = record.tables["rows"], record.summary.set_index(["construction", "filter"])
    la = rows[rows["construction"] == "let_alone"]
    assert s.loc[("let_alone", "all"), "accuracy"] == pytest.approx(la.groupby("item_id")["affinity"].mean().mean())
    assert ("let_alone", "word_alone") in s.index


def test_blimp_through_the_runner(tiny_gpt2: Path, blimp_folder: Path, cache_dir: Path) -> None:
    record = run_suite(ModelSpec(str(tiny_gpt2)),
                       RunConfig(suite="blimp", items_path=str(blimp_folder), limit_blocks=5))
    s = record.summary.set_index("filter")
    assert s.loc["all", "n"] == 2 * 5
    assert "paradigm_wh_island" in s.index
    assert record.manifest.settings["reduction"] == "sum"
    from pfcore.store.results import load_results
    table = load_results()
    mine = table[table["source"] == f"pfcore run {record.manifest.run_id}"]
    assert set(mine["suite"]) == {"blimp"} and "accuracy" in set(mine["metric"])


def test_ewok_and_comps_through_the_cli(tiny_gpt2: Path, shared_data: Path, cache_dir: Path, capsys) -> None:
    zip_path = shared_data / "ewok" / "ewok-core-1.0_rebuilt_password-protected.zip"
    argv = ["run", "--suite", "ewok", "--items", str(zip_path), "--password", "ewok",
            "--limit-blocks", "40", "--model", str(tiny_gpt2), "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["items"] == 40 and 0 <= out["accuracy"]["ewok"]["all"] <= 1
    manifest = json.loads((Path(out["record"]) / "manifest.json").read_text())
    assert "password" not in manifest["settings"]
    comps = Path(__file__).parents[1] / "fixtures" / "comps_base_sample.jsonl"
    assert main(["run", "--suite", "comps", "--items", str(comps), "--model", str(tiny_gpt2), "--json"]) == 0
    assert "comps" in json.loads(capsys.readouterr().out)["accuracy"]


def test_cached_rerun_loads_neither_model_nor_torch(tiny_gpt2: Path, cache_dir: Path) -> None:
    """A rerun served wholly from the score cache gives the same numbers without loading the model:
    checked in a fresh process, where torch must stay unimported."""
    argv = ["run", "--suite", "semantic", "--model", str(tiny_gpt2), "--construction", "let_alone",
            "--limit-blocks", "2", "--json"]
    MODELS.clear()  # a first run in its own process: the model is loaded
    first = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(constructions=("let_alone",), limit_blocks=2))
    assert first.manifest.timings_s.load_s > 0
    code = ("import json, sys, contextlib, io; from pfcore.cli import main\n"
            f"out = io.StringIO()\nwith contextlib.redirect_stdout(out): main({argv!r})\n"
            "print(json.dumps({'run': json.loads(out.getvalue()), 'torch': 'torch' in sys.modules}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PFCORE_CACHE": str(cache_dir)})
    again = json.loads(done.stdout)
    assert again["torch"] is False
    assert again["run"]["timings_s"]["load_s"] == 0
    expected = first.summary.set_index("filter")["accuracy"].to_dict()
    assert again["run"]["accuracy"]["let_alone"] == pytest.approx(expected)


@pytest.mark.parametrize("bos", [False, True])
def test_lazy_scorer_keys_equal_the_loaded_scorers(tiny_gpt2: Path, bos: bool) -> None:
    spec, config = ModelSpec(str(tiny_gpt2)), RunConfig(bos=bos)
    lazy = LazyScorer(spec, ScoringMethod.CAUSAL, bos=config.bos)
    built = kind_of(spec.kind).scorer(load_model(spec), ScoringMethod.CAUSAL, bos=config.bos)
    assert lazy.cache_identity() == built.cache_identity()
    assert "scorer" not in lazy.__dict__  # the identity did not load the model


def test_lazy_pll_scorer_keys_equal_the_loaded_scorers(tiny_bert: Path) -> None:
    spec, config = ModelSpec(str(tiny_bert), kind="masked"), RunConfig()
    for scoring in (ScoringMethod.PLL_ORIGINAL, ScoringMethod.PLL_L2R):
        loaded = kind_of(spec.kind).scorer(load_model(spec), scoring, bos=config.bos)
        assert LazyScorer(spec, scoring, bos=config.bos).cache_identity() == loaded.cache_identity()


@pytest.mark.parametrize("suite", ["blimp", "comps", "ewok"])
def test_benchmark_refuses_a_scoring_it_cannot_use(suite: str) -> None:
    bench, masked, causal = get_suite(suite), ModelSpec("bert-base-uncased", kind="masked"), ModelSpec("gpt2")
    with pytest.raises(InputError, match="cannot use scoring 'masked-token'"):
        bench.method(masked, "masked-token")
    with pytest.raises(InputError, match="does not fit"):
        bench.method(causal, "pll-l2r")
    assert (bench.method(masked, None), bench.method(masked, "pll-l2r")) == (ScoringMethod.PLL_ORIGINAL,
                                                                             ScoringMethod.PLL_L2R)
    assert bench.method(causal, None) == bench.method(causal, "causal") == ScoringMethod.CAUSAL
