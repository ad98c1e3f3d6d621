"""Series, first-difference correlations and the across-model analyses."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from scipy.stats import spearmanr

from pfcore.analysis import fdcorr, models, series
from pfcore.analysis.trajectories import checkpoint_models, origin_of
from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.items.schema import PF_CONSTRUCTIONS
from pfcore.store.published_tsv import read_published
from pfcore.store.result_rows import RESULT_COLUMNS
from pfcore.store.results import append_results

PYTHIA = "EleutherAI/pythia-12b"


def make_rows(values: list[float], construction: str = "letalone", filt: str = "all",
              suite: str = "semantic", steps: list[int] | None = None, source: str = "s.tsv",
              model: str = "m", metric: str = "accuracy") -> pd.DataFrame:
    """Result rows of one series (steps 1, 2, 4, ... unless given)."""
    steps = steps or [2 ** i for i in range(len(values))]
    return pd.DataFrame({"model": model, "revision": [f"step{s}" for s in steps], "step": steps,
                         "suite": suite, "construction": construction, "filter": filt,
                         "metric": metric, "value": values, "source": source},
                        columns=list(RESULT_COLUMNS))


@pytest.fixture(scope="module")
def pythia(shared_data: Path) -> pd.DataFrame:
    """The published Pythia-12b summaries as result rows (read once; nothing stored)."""
    return read_published(shared_data / "meaning_alone" / "outputs_summary" / "EleutherAI"
                          / "pythia-12b").assign(model=PYTHIA)


def test_parse_series_names() -> None:
    assert series.parse_series("pf_avg:all") == series.SeriesSpec("pf_avg", "all", "accuracy")
    spec = series.parse_series(" letalone:NPI@delta_surps ")
    assert (spec.construction, spec.filter, spec.metric) == ("let_alone", "NPI", "delta_surps")
    assert spec.name == "let_alone:NPI@delta_surps"
    assert series.parse_series("ewok:domain_physical-relations").filter == \
        "domain_physical-relations"
    for bad in ("letalone", ":all", "letalone:"):
        with pytest.raises(InputError, match="CONSTRUCTION:FILTER"):
            series.parse_series(bad)


def test_series_are_ordered_by_step_not_file_order() -> None:
    rows = make_rows([0.1, 0.2, 0.3, 0.4]).iloc[[2, 0, 3, 1]]
    got = series.series_values(rows, "m", "letalone:all")
    assert got.index.tolist() == [1, 2, 4, 8] and got.tolist() == [0.1, 0.2, 0.3, 0.4]


def test_averages_need_all_four_constructions() -> None:
    rows = pd.concat([make_rows([0.2 * i, 0.4, 0.6], construction=c)
                      for i, c in enumerate(PF_CONSTRUCTIONS)]
                     + [make_rows([0.9, 0.9], construction="blimp", suite="blimp"),
                        make_rows([1.0, 1.0, 1.0], construction="letalone", filt="all",
                                  suite="syntax", source="syn.tsv")])
    rows = rows[~((rows["construction"] == "never_mind") & (rows["step"] == 4))]
    got = series.series_values(rows[rows["suite"] != "syntax"], "m", "pf_avg:all")
    assert got.index.tolist() == [1, 2]  # step 4 lacks never mind
    assert got.iloc[0] == pytest.approx(np.mean([0, 0.2, 0.4, 0.6]))
    with pytest.raises(InputError, match="mixes suites"):
        series.series_values(rows, "m", "letalone:all")
    assert series.series_values(rows, "m", "syntax:all").tolist() == []  # one construction only


def test_copies_collapse_and_conflicts_ask_for_a_source() -> None:
    same = pd.concat([make_rows([0.1, 0.2]), make_rows([0.1, 0.2], source="copy.tsv")])
    assert series.series_values(same, "m", "letalone:all").tolist() == [0.1, 0.2]
    clash = pd.concat([make_rows([0.1, 0.2]), make_rows([0.1, 0.3], source="pfcore run 1")])
    with pytest.raises(InputError, match="pfcore run 1, s.tsv.*--source"):
        series.series_values(clash, "m", "letalone:all")
    assert series.series_values(clash, "m", "letalone:all", source="pfcore run").tolist() == \
        [0.1, 0.3]


def test_missing_model_or_series_name_the_alternatives() -> None:
    rows = make_rows([0.1, 0.2])
    with pytest.raises(InputError, match="results import"):
        series.series_values(rows.iloc[0:0], "m", "letalone:all")
    with pytest.raises(InputError, match="models with checkpoints: m"):
        series.series_values(rows, "other", "letalone:all")
    with pytest.raises(InputError, match="available include pf_avg:all"):
        series.series_values(rows, "m", "ewok:all")


def test_fd_correlation_of_linked_changes() -> None:
    x = [0.0, 0.1, 0.15, 0.45, 0.5, 0.9]
    y = [3 * v + 1 for v in x]
    rows = pd.concat([make_rows(x), make_rows(y, construction="ewok", suite="ewok")])
    got = fdcorr.fd_correlation(rows.sample(frac=1, random_state=0), "m", "letalone:all",
                                "ewok:all")
    assert got.spearman == pytest.approx(1) and got.pearson == pytest.approx(1)
    assert got.n == 5 and got.steps == (2, 4, 8, 16, 32)
    assert got.dx == pytest.approx((0.1, 0.05, 0.3, 0.05, 0.4))
    neg = pd.concat([make_rows(x), make_rows([-v for v in x], construction="ewok",
                                             suite="ewok")])
    assert fdcorr.fd_correlation(neg, "m", "letalone:all", "ewok:all").spearman == \
        pytest.approx(-1)


def test_equal_changes_tie_despite_float_noise() -> None:
    # 0.2-0.1, 0.3-0.2 and 0.4-0.3 differ in the 17th digit; as ties rho is 3/sqrt(15)
    rows = pd.concat([make_rows([0.1, 0.2, 0.3, 0.4, 0.9]),
                      make_rows([0, 1, 3, 6, 10], construction="ewok", suite="ewok")])
    got = fdcorr.fd_correlation(rows, "m", "letalone:all", "ewok:all")
    assert got.spearman == pytest.approx(3 / np.sqrt(15))


def test_ties_hold_where_rounding_to_a_grid_would_split_them() -> None:
    # the changes 0.00060000005 and 0.5006000000500 - 0.5 differ by 5e-17 but round (to 1e-10) apart
    a = 0.00060000005
    rows = pd.concat([make_rows([0.0, a, 0.5, 0.5 + a, 0.2]),
                      make_rows([0, 1, 3, 6, 10], construction="ewok", suite="ewok")])
    got = fdcorr.fd_correlation(rows, "m", "letalone:all", "ewok:all")
    assert got.dx[0] == got.dx[2]
    assert got.spearman == pytest.approx(spearmanr([2.5, 4, 2.5, 1], [1, 2, 3, 4])[0], abs=1e-12)
    assert fdcorr.tied(pd.Series([0.3, 0.1, 0.3 + 4e-17, 0.1 + 2e-10])).tolist() == [0.3, 0.1, 0.3, 0.1]


def test_zscale_pools_changes_and_keeps_the_first_checkpoint() -> None:
    x, y = [0.5, 0.5, 0.7, 0.6, 0.9], [0.2, 0.3, 0.3, 0.5, 0.4]
    rows = pd.concat([make_rows(x), make_rows(y, construction="ewok", suite="ewok")])
    changes = np.concatenate([[0], np.diff(x), [0], np.diff(y)])
    mean, sd = fdcorr.pooled_change_scale(rows, "m", ["s.tsv"], "accuracy")
    assert (mean, sd) == pytest.approx((changes.mean(), changes.std()))
    got = fdcorr.fd_correlation(rows, "m", "letalone:all", "ewok:all", zscale=True)
    assert got.n == 5 and got.steps[0] == 1 and got.dx[0] == 0 and got.dy[0] == 0
    assert got.dx[1:] == pytest.approx(tuple((np.diff(x) - mean) / sd))
    flat = pd.concat([rows, make_rows([0.3] * 5, construction="comps", suite="comps")])
    with pytest.raises(InputError, match="comps:all does not change"):
        fdcorr.fd_correlation(flat, "m", "letalone:all", "comps:all")
    with pytest.raises(InputError, match="at least 4"):
        fdcorr.fd_correlation(rows[rows["step"] < 8], "m", "letalone:all", "ewok:all")


def test_zscaled_changes_equal_the_published_delta_columns(pythia: pd.DataFrame) -> None:
    """Our z-scaling reproduces the authors' delta_accuracy_zscale, series by series."""
    names = ["letalone:aligned", "nevermind:verb_sing_all", "ewok:domain_physical-relations",
             "blimp:all", "comps:all", "letalone:NPI", "muchless:Avg_Control"]
    for name in names:
        ours = fdcorr.checkpoint_changes(pythia, PYTHIA, name, zscale=True)
        published = series.series_values(pythia, PYTHIA, f"{name}@delta_accuracy_zscale")
        np.testing.assert_allclose(ours.to_numpy(), published.to_numpy(), atol=1e-9,
                                   err_msg=name)


def test_pythia_syntax_peaks_long_before_semantics(pythia: pd.DataFrame) -> None:
    form = series.milestones(series.series_values(pythia, PYTHIA, "syntax:Avg_Test"))
    assert (form.peak_step, form.near_peak_step) == (16000, 1000)
    assert form.peak_value == pytest.approx(0.983, abs=5e-4)
    for name in ("pf_avg:all", "pf_avg:aligned", "pf_avg:misaligned"):
        meaning = series.milestones(series.series_values(pythia, PYTHIA, name))
        assert meaning.peak_step == 143000 and meaning.near_peak_step >= 128000, name
    at_16000 = series.series_values(pythia, PYTHIA, "pf_avg:all")[16000]
    assert at_16000 < 0.55  # still near chance when syntax has peaked


def test_pythia_first_difference_correlations(pythia: pd.DataFrame) -> None:
    """Section 5.4 from the published numbers: EWoK physical relations .48, the others small."""
    def rho(x: str, y: str, zscale: bool) -> float:
        return fdcorr.fd_correlation(pythia, PYTHIA, x, y, zscale=zscale).spearman

    # the authors' procedure (z-scaled, step1 kept as 0, 19 checkpoints) with exact ties ...
    paper = fdcorr.fd_correlation(pythia, PYTHIA, "pf_avg:aligned",
                                  "ewok:domain_physical-relations", zscale=True)
    assert paper.n == 19 and paper.steps[0] == 1 and paper.steps[-1] == 143000
    assert paper.spearman == pytest.approx(0.4723, abs=1e-4)
    # ... and with their own float values, whose noise splits two ties: the printed .48
    published = [series.series_values(pythia, PYTHIA, f"{n}@delta_accuracy_zscale")
                 for n in ("pf_avg:aligned", "ewok:domain_physical-relations")]
    assert round(spearmanr(*published)[0], 2) == 0.48
    # the paper's value beside ours, with the reason computed from the same numbers
    comparison = fdcorr.paper_comparison(pythia, paper)
    assert comparison is not None and comparison.paper.printed == ".48" and comparison.split_ties == 2
    assert comparison.authors_floats == pytest.approx(0.4789, abs=1e-4)
    note = comparison.note()
    assert "prints ρ = .48; pfcore's ρ = 0.472 is a difference of -0.008" in note
    assert "ρ = 0.479, which rounds to .48," in note and "splits 2 ties" in note
    plain = fdcorr.fd_correlation(pythia, PYTHIA, "ewok:domain_physical-relations", "pf_avg:aligned")
    assert "plain first difference (n = 18)" in fdcorr.paper_comparison(pythia, plain).note()
    assert fdcorr.paper_comparison(pythia, fdcorr.fd_correlation(pythia, PYTHIA, "pf_avg:aligned",
                                                                  "syntax:Avg_Test")) is None
    # plain first differences (18 changes)
    assert rho("pf_avg:aligned", "ewok:domain_physical-relations", False) == \
        pytest.approx(0.4545, abs=1e-4)
    domains = [f"ewok:{f}" for f in pythia.loc[pythia["construction"] == "ewok", "filter"].unique()]
    best = max(domains, key=lambda d: rho("pf_avg:aligned", d, False))
    assert best == "ewok:domain_physical-relations"
    for zscale in (False, True):
        assert abs(rho("pf_avg:aligned", "syntax:Avg_Test", zscale)) < 0.05  # paper: -0.01
        assert abs(rho("pf_avg:aligned", "blimp:all", zscale)) < 0.2
        assert 0.4 < rho("pf_avg:aligned", "pf_avg:misaligned", zscale) < 0.5  # paper: 0.47


def test_mixed_model_on_the_paper_tables() -> None:
    data = models.accuracy_data("paper")
    assert len(data) == 144 and data["model"].nunique() == 36
    full = models.fit_mixed(data).coefficients.set_index("term")
    assert full.loc["log_parameters", "coef"] == pytest.approx(6.80, abs=0.01)
    assert full.loc["log_parameters", "p"] < 0.001
    assert full.loc["log_tokens", "p"] > 0.05 and full.loc["architecture[MLM]", "p"] > 0.05
    tokens = models.fit_mixed(data, ("log_tokens",)).coefficients.set_index("term")
    assert tokens.loc["log_tokens", "coef"] == pytest.approx(2.78, abs=0.01)
    assert tokens.loc["log_tokens", "p"] < 0.05
    rho = models.accuracy_parameter_rho(data)
    assert (round(rho.rho, 3), rho.n) == (0.689, 36)


def test_mixed_model_on_own_runs(cache_dir: Path, tmp_path: Path) -> None:
    runs = pd.concat([
        make_rows([acc], construction=c, filt="aligned", model=m, steps=[1],
                  source=f"pfcore run {m}").assign(step=pd.NA, revision="main")
        for m, acc in (("EleutherAI/pythia-1b", 0.7), ("org/tiny", 0.5),
                       ("openai-community/gpt2", 0.6))
        for c in PF_CONSTRUCTIONS])
    table = append_results(runs)
    with pytest.raises(InputError, match="org/tiny.*--models"):
        models.accuracy_data("runs", table)
    info = tmp_path / "models.csv"
    info.write_text("hf_id,parameters,pretraining_tokens,model_type\n"
                    "org/tiny,1000000,1000000000,CausalLM\n")
    data = models.accuracy_data("runs", table, info)
    assert sorted(data["accuracy"].unique()) == [50.0, 60.0, 70.0]
    both = models.accuracy_data("both", table, info)
    assert both["model"].nunique() == 37 and set(both["origin"]) == {"paper", "your run"}
    assert models.accuracy_parameter_rho(data).rho == pytest.approx(1.0)  # 1M < 125M < 1B
    assert models.fit_mixed(both).n_models == 37  # runs of paper models join their group
    info.write_text("hf_id,parameters,pretraining_tokens,model_type\norg/tiny,1,1,GPT\n")
    with pytest.raises(InputError, match="CausalLM or MLM"):
        models.accuracy_data("runs", table, info)


def test_cli_analyses(pythia: pd.DataFrame, cache_dir: Path,
                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "fdcorr", "--model", PYTHIA, "--x", "pf_avg:aligned",
                 "--y", "ewok:domain_physical-relations"]) == 2
    assert "results import" in capsys.readouterr().err
    append_results(pythia)
    assert main(["analyze", "fdcorr", "--model", PYTHIA, "--x", "pf_avg:aligned",
                 "--y", "ewok:domain_physical-relations", "--zscale", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"spearman", "spearman_p", "pearson", "pearson_p", "n"} <= set(out)
    assert round(out["spearman"], 2) == 0.47 and out["n"] == 19
    assert out["paper"]["spearman"] == ".48" and "0.479" in out["paper"]["note"]
    assert main(["analyze", "fdcorr", "--model", PYTHIA, "--x", "pf_avg:aligned",
                 "--y", "ewok:domain_physical-relations", "--zscale"]) == 0
    printed = capsys.readouterr().out
    assert "Spearman rho = 0.472 (p = 0.0411)   the paper: .48" in printed and "splits 2 ties" in printed
    assert main(["analyze", "peak", "--model", PYTHIA, "--series", "syntax:Avg_Test",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["near_peak_step"] == 1000
    assert main(["analyze", "series", "--model", PYTHIA]) == 0
    assert "ewok:domain_physical-relations" in capsys.readouterr().out.split()
    assert main(["analyze", "mixed", "--json"]) == 0
    fits = json.loads(capsys.readouterr().out)
    assert set(fits) == {"full", "log_parameters", "log_tokens", "architecture"}
    assert main(["analyze", "rho", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 36
    assert main(["analyze", "rho", "--data", "runs"]) == 2
    assert "no own runs" in capsys.readouterr().err


def test_wilson_interval_equals_statsmodels() -> None:
    """The written-out Wilson interval is statsmodels' proportion_confint(method="wilson")."""
    from statsmodels.stats.proportion import proportion_confint

    from pfcore.intervals import Z95, accuracy, wilson
    assert Z95 == pytest.approx(scipy.stats.norm.ppf(0.975), abs=1e-15)
    for n in (1, 2, 7, 50, 333, 3330, 26640):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            np.testing.assert_allclose(wilson(k, n), proportion_confint(k, n, alpha=0.05, method="wilson"),
                                       rtol=0, atol=1e-12)
    acc = accuracy([True, True, False])
    assert (acc.value, acc.n) == (2 / 3, 3) and acc.low < 2 / 3 < acc.high
    assert np.isnan(accuracy([]).value) and accuracy([]).n == 0


def test_bare_fdcorr_is_the_papers_comparison(pythia: pd.DataFrame, cache_dir: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """`pfcore analyze fdcorr` with no series computes the one correlation the paper prints, beside .48."""
    append_results(pythia)
    assert main(["analyze", "fdcorr"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{PYTHIA}: pf_avg:aligned vs ewok:domain_physical-relations (changes, n=18")
    assert "Spearman rho = 0.455" in out and "the paper: .48" in out and "gives ρ = 0.472 (n = 19)" in out


def test_checkpoint_models_label_each_model_by_its_origins_and_checkpoints(cache_dir: Path) -> None:
    """The Trajectories picker's labels: every origin of a model's rows, published first, and its
    distinct steps; rows without a step (single runs) name no model."""
    sources = ["published@a6b6990/pythia-12b.tsv", "pfcore run semantic r1", "published@a6b6990/pythia-12b.tsv",
               "an old import/x.tsv", "pfcore run semantic r2"]
    table = pd.DataFrame({"model": ["m", "m", "m", "old", "single"], "step": pd.array([0, 8, 8, 1, None], "Int64"),
                          "source": pd.array(sources, "string")})
    assert origin_of(table["source"]).tolist() == ["published@a6b6990", "own", "published@a6b6990",
                                                   "earlier-import", "own"]
    assert checkpoint_models(table) == {"m": "m · published @ a6b6990 + your runs · 2 checkpoints",
                                        "old": "old · earlier import · 1 checkpoint"}
