"""Scoring and summaries of the comparison benchmarks, end to end on tiny_gpt2 with minicons callables."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from minicons import scorer as minicons_scorer
from transformers import AutoModelForCausalLM, AutoTokenizer

from pfcore.errors import InputError
from pfcore.intervals import accuracy
from pfcore.store.result_rows import RESULT_COLUMNS
from pfcore.store.results import append_results
from pfcore.suites import benchmarks_common, blimp, comps, ewok

COMPS_SAMPLE = Path(__file__).parents[1] / "fixtures" / "comps_base_sample.jsonl"
EWOK_ZIP = "ewok/ewok-core-1.0_rebuilt_password-protected.zip"


def _summed(x):
    """minicons reduction: summed log-probability (the paper's BLiMP/COMPS reduction)."""
    return x.sum(0).item()


@pytest.fixture(scope="module")
def lm(tiny_gpt2: Path) -> minicons_scorer.IncrementalLMScorer:
    """minicons' causal scorer (the paper's) on the tiny GPT-2."""
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2)
    return minicons_scorer.IncrementalLMScorer(model, tokenizer=AutoTokenizer.from_pretrained(tiny_gpt2),
                                               device="cpu")


@pytest.fixture(scope="module")
def sequence_fn(lm: minicons_scorer.IncrementalLMScorer) -> benchmarks_common.SequenceScorer:
    """SequenceScorer: summed full-sentence log-probs."""
    return lambda texts: lm.sequence_score(texts, reduction=_summed)


@pytest.fixture(scope="module")
def conditional_fn(lm: minicons_scorer.IncrementalLMScorer) -> benchmarks_common.ConditionalScorer:
    """ConditionalScorer: summed log P(continuation | prefix)."""
    return lambda prefixes, continuations: lm.conditional_score(prefixes, continuations, reduction=_summed)


def test_score_blimp_matches_minicons(blimp_folder: Path, lm, sequence_fn) -> None:
    items = blimp.load_blimp(blimp_folder, paradigms=["passive_1", "wh_island"], limit=6)
    seen: list[tuple[int, int]] = []
    scored = benchmarks_common.score_sentence_pairs(items, sequence_fn, batch_size=5,
                                                    progress=lambda d, t: seen.append((d, t)))
    direct = lm.sequence_score(items["sentence_good"].tolist() + items["sentence_bad"].tolist(),
                               reduction=_summed)  # one batch in item order; ours was sorted by length
    np.testing.assert_allclose(scored[["logprob_good", "logprob_bad"]].to_numpy().T.ravel(), direct,
                               atol=1e-4)
    assert (scored["correct"] == (scored["logprob_good"] > scored["logprob_bad"])).all()
    assert seen[-1] == (24, 24) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    summary = blimp.summarize_blimp(scored)
    assert summary.loc[0, "filter"] == "all" and summary.loc[0, "n"] == 12
    assert {"paradigm_passive_1", "paradigm_wh_island"} <= set(summary["filter"])


def test_score_comps_end_to_end(sequence_fn) -> None:
    scored = benchmarks_common.score_sentence_pairs(comps.load_comps(COMPS_SAMPLE), sequence_fn, batch_size=4)
    assert np.isfinite(scored[["logprob_good", "logprob_bad"]].to_numpy()).all()
    summary = comps.summarize_comps(scored)
    assert summary["filter"].tolist() == ["all", "negative_co-occurrence", "negative_overlap",
                                          "negative_random", "negative_taxonomic"]
    assert summary.loc[0, "correct"] == scored["correct"].sum()


def test_score_ewok_end_to_end(shared_data: Path, lm, conditional_fn) -> None:
    items = ewok.load_ewok(shared_data / EWOK_ZIP, password="ewok")
    items = items.groupby("domain").head(1).reset_index(drop=True)
    scored = ewok.score_ewok(items, conditional_fn, batch_size=8)
    first = scored.iloc[0]
    direct = lm.conditional_score([first["context2"]], [first["target1"]], reduction=_summed)[0]
    assert first["logprob_t1_c2"] == pytest.approx(direct, abs=1e-4)
    paper_mean = ewok.score_ewok(items, lambda p, c: lm.conditional_score(p, c), batch_size=8)
    for frame in (scored, paper_mean):  # one target compared across contexts: sum and mean agree
        frame["t1_right"] = frame["logprob_t1_c1"] > frame["logprob_t1_c2"]
        frame["t2_right"] = frame["logprob_t2_c2"] > frame["logprob_t2_c1"]
    columns = ["t1_right", "t2_right", "correct"]
    pd.testing.assert_frame_equal(paper_mean[columns], scored[columns])
    summary = ewok.summarize_ewok(scored)
    assert len(summary) == 12 and (summary.loc[1:, "n"] == 1).all()


def test_ewok_correct_needs_both_targets_right() -> None:
    items = pd.DataFrame({"domain": ["d"] * 4, "context1": ["A1", "B1", "C1", "D1"],
                          "context2": ["A2", "B2", "C2", "D2"], "target1": ["t1"] * 4, "target2": ["t2"] * 4})
    table = {  # (context, target): log-prob; item A right on both, B and C on one, D on none
        ("A1", "t1"): -1, ("A2", "t1"): -2, ("A1", "t2"): -3, ("A2", "t2"): -1,
        ("B1", "t1"): -1, ("B2", "t1"): -2, ("B1", "t2"): -1, ("B2", "t2"): -3,
        ("C1", "t1"): -2, ("C2", "t1"): -1, ("C1", "t2"): -3, ("C2", "t2"): -1,
        ("D1", "t1"): -2, ("D2", "t1"): -1, ("D1", "t2"): -1, ("D2", "t2"): -2,
    }
    scored = ewok.score_ewok(items, lambda p, c: [table[k] for k in zip(p, c)], batch_size=3)
    assert scored["correct"].tolist() == [True, False, False, False]
    assert ewok.summarize_ewok(scored).loc[0, "accuracy"] == 0.25


def test_pair_correct_is_strict_and_summaries_count_by_hand() -> None:
    items = pd.DataFrame({"paradigm": ["p", "p", "p", "q"], "linguistics_term": ["t", "t", "t", ""],
                          "sentence_good": ["a", "b", "c", "d"], "sentence_bad": ["A", "B", "C", "D"]})
    table = {"a": -1.0, "A": -2.0, "b": -2.0, "B": -1.0, "c": -1.5, "C": -1.5, "d": -0.5, "D": -3.0}
    scored = benchmarks_common.score_sentence_pairs(items, lambda texts: [table[t] for t in texts], batch_size=2)
    assert scored["correct"].tolist() == [True, False, False, True]  # a tie is not correct
    summary = blimp.summarize_blimp(scored).set_index("filter")
    assert summary.index.tolist() == ["all", "paradigm_p", "paradigm_q", "phenomenon_t"]
    assert summary.loc["all", ["n", "correct", "accuracy"]].tolist() == [4, 2, 0.5]
    assert summary.loc["paradigm_p", "accuracy"] == pytest.approx(1 / 3)
    expected = accuracy([True, False, False])
    assert summary.loc["paradigm_p", ["ci_low", "ci_high"]].tolist() == [expected.low, expected.high]


def test_each_distinct_text_is_scored_once() -> None:
    calls: list[list[str]] = []

    def count(texts: list[str]) -> list[float]:
        """Record each batch; score a text by minus its length."""
        calls.append(texts)
        return [-float(len(t)) for t in texts]

    scores = benchmarks_common.sequence_scores(["aa", "b", "aa", "ccc", "b"], count, batch_size=2)
    assert scores.tolist() == [-2.0, -1.0, -2.0, -3.0, -1.0]
    assert calls == [["ccc", "aa"], ["b"]]  # longest first, duplicates once


def test_bad_batch_size() -> None:
    with pytest.raises(InputError, match="batch size"):
        benchmarks_common.sequence_scores(["a"], lambda texts: [0.0], batch_size=0)


def test_results_rows_follow_the_long_table(cache_dir: Path) -> None:
    scored = pd.DataFrame({"domain": ["physical-relations", "social-relations"], "correct": [True, False]})
    rows = benchmarks_common.to_results_rows(ewok.summarize_ewok(scored), "EleutherAI/pythia-12b",
                                             "step143000")
    assert list(rows.columns) == list(RESULT_COLUMNS)
    assert set(rows["filter"]) == {"all", "domain_physical-relations", "domain_social-relations"}
    assert set(rows["construction"]) == set(rows["suite"]) == {"ewok"}
    assert set(rows["step"]) == {143000}
    value = rows.set_index(["filter", "metric"])["value"]
    assert value[("all", "accuracy")] == 0.5 and value[("all", "n")] == 2
    main = benchmarks_common.to_results_rows(ewok.summarize_ewok(scored), "m", "main", suite="own")
    assert main["step"].isna().all() and set(main["suite"]) == {"own"}
    stored = append_results(rows.assign(source="pfcore test"))
    assert len(stored) == len(rows)
