"""Causal scoring agrees with minicons IncrementalLMScorer to 1e-4, tree-packed or not."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from minicons import scorer as mscorer

from pfcore.errors import InputError
from pfcore.models import ModelSpec
from pfcore.scoring import causal
from pfcore.scoring.causal import CausalScorer, ScorerSettings
from pfcore.scoring.models import load_model
from pfcore.scoring.requests import Request, TokenScores, reduce_all
from tests.tiny_models import by_auto_classes

PREFIXES = [
    "You couldn't lift a tiny rock, let alone a huge one.",
    "You couldn't lift a tiny rock, or a huge one.",
    "We can't sing an ugly song, much less a beautiful one.",
    "They weren't able to see a dim lamp, not to mention a bright one.",
]
CONTINUATIONS = [
    "Lifting a tiny rock is easier than lifting a huge rock.",
    "Lifting a tiny rock is harder than lifting a huge rock.",
    "Singing a beautiful song is harder than singing an ugly song.",
    "Seeing a bright lamp is easier than seeing a dim lamp.",
]
SENTENCES = PREFIXES + CONTINUATIONS + ["The cat sat.", "He doesn't like shrimp, let alone squid."]
TOL = 1e-4


def total(x: torch.Tensor) -> float:
    """minicons reduction: sum of log-probs."""
    return x.sum(0).item()


def pairs() -> tuple[list[str], list[str]]:
    """Every prefix with every continuation: requests share prefixes, as in the suites."""
    pre = [p for p in PREFIXES for _ in CONTINUATIONS]
    return pre, CONTINUATIONS * len(PREFIXES)


@pytest.fixture(scope="module")
def gpt2(tiny_gpt2):
    return load_model(ModelSpec(str(tiny_gpt2)))


@pytest.fixture(scope="module")
def reference(gpt2):
    return mscorer.IncrementalLMScorer(gpt2.model, tokenizer=gpt2.tokenizer, device="cpu")


@pytest.mark.parametrize("tree", [True, False])
def test_conditional_matches_minicons(gpt2, reference, tree: bool) -> None:
    pre, cont = pairs()
    ours = CausalScorer(gpt2, ScorerSettings(tree=tree)).conditional_logprobs(pre, cont)
    theirs = reference.conditional_score(pre, cont, reduction=total)
    np.testing.assert_allclose(ours, theirs, atol=TOL)
    ours_mean = CausalScorer(gpt2, ScorerSettings(tree=tree)).conditional_logprobs(pre, cont, "mean")
    np.testing.assert_allclose(ours_mean, reference.conditional_score(pre, cont), atol=TOL)


@pytest.mark.parametrize("bos", [False, True])
def test_sequence_matches_minicons(gpt2, reference, bos: bool) -> None:
    scorer = CausalScorer(gpt2, ScorerSettings(bos=bos))
    np.testing.assert_allclose(scorer.sequence_logprobs(SENTENCES),
                               reference.sequence_score(SENTENCES, reduction=total, bos_token=bos),
                               atol=TOL)


def test_conditional_with_bos_matches_minicons(gpt2, reference) -> None:
    pre, cont = pairs()
    ours = CausalScorer(gpt2, ScorerSettings(bos=True)).conditional_logprobs(pre, cont)
    np.testing.assert_allclose(ours, reference.conditional_score(pre, cont, reduction=total,
                                                                 bos_token=True), atol=TOL)


def test_token_scores_match_minicons(gpt2, reference) -> None:
    ours = CausalScorer(gpt2).score([Request("", s) for s in SENTENCES])
    theirs = reference.token_score(SENTENCES)
    for mine, ref in zip(ours, theirs):
        ref = ref[1:]  # minicons lists the unscored first token with 0.0
        assert gpt2.tokenizer.convert_ids_to_tokens(list(mine.token_ids)) == [t for t, _ in ref]
        assert "".join(mine.tokens).strip() == "".join(gpt2.tokenizer.decode(list(mine.token_ids))).strip()
        np.testing.assert_allclose(mine.logprobs, [s for _, s in ref], atol=TOL)


def test_tree_packing_is_used_and_shares_tokens(gpt2) -> None:
    scorer = CausalScorer(gpt2)
    assert scorer._tree_ok
    pre, cont = pairs()
    encoded = [scorer.encode(Request(p, c)) for p, c in zip(pre, cont)]
    from pfcore.scoring.causal import _make_packs
    packed = sum(len(p.tokens) for p in _make_packs(sorted(encoded, key=lambda e: e.ids), 384))
    assert packed < 0.7 * sum(len(e.ids) for e in encoded)


def test_small_batches_and_packs_give_the_same_numbers(gpt2) -> None:
    pre, cont = pairs()
    big = CausalScorer(gpt2).conditional_logprobs(pre, cont)
    small = CausalScorer(gpt2, ScorerSettings(pack_tokens=20, batch_tokens=64)).conditional_logprobs(pre, cont)
    np.testing.assert_allclose(big, small, atol=TOL)


@pytest.mark.parametrize("tree", [True, False])
def test_output_layer_slices_match_minicons(gpt2, reference, tree: bool, monkeypatch) -> None:
    """The output layer runs a few query rows at a time; with slices of 3 rows, a slice boundary
    falls inside nearly every request, and per-token scores still equal minicons'."""
    monkeypatch.setattr(causal, "HEAD_ROWS", 3)
    pre, cont = pairs()
    ours = CausalScorer(gpt2, ScorerSettings(tree=tree)).score([Request(p, c) for p, c in zip(pre, cont)])
    theirs = reference.conditional_score(pre, cont, reduction=lambda x: x)
    for mine, ref in zip(ours, theirs):
        np.testing.assert_allclose(mine.logprobs, ref.numpy(), atol=TOL)


def test_duplicates_are_scored_once_and_returned_in_order(gpt2) -> None:
    scorer = CausalScorer(gpt2)
    reqs = [Request(PREFIXES[0], CONTINUATIONS[0]), Request(PREFIXES[1], CONTINUATIONS[1])] * 3
    out = scorer.score(reqs)
    assert [o.reduce() for o in out[:2]] * 3 == [o.reduce() for o in out]


def test_surprisal_bits_and_reductions(gpt2) -> None:
    s = CausalScorer(gpt2).score([Request(PREFIXES[0], CONTINUATIONS[0])])[0]
    np.testing.assert_allclose(s.surprisals_bits, -s.logprobs / np.log(2))
    assert s.reduce("mean") == pytest.approx(s.reduce("sum") / len(s.logprobs))


@pytest.mark.parametrize("how", ["sum", "mean"])
def test_reduce_all_equals_one_by_one_with_unscored_entries(how: str) -> None:
    """The vectorised reduction over a suite matches each item's own, NaN where nothing is scored
    (an empty entry first, inside and last)."""
    rng = np.random.default_rng(0)
    sizes = [0, 3, 1, 0, 0, 5, 2, 0]
    scores = [TokenScores(tuple(range(n)), -rng.random(n), lambda ids: ()) for n in sizes]
    got = reduce_all(scores, how)
    want = [s.reduce(how) for s in scores]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert [np.isnan(g) for g in got] == [n == 0 for n in sizes]
    assert reduce_all([], how) == []


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_text_is_refused(gpt2, text: str) -> None:
    with pytest.raises(InputError, match="empty"):
        CausalScorer(gpt2).sequence_logprobs([text])


def test_text_longer_than_the_context_is_refused(gpt2) -> None:
    with pytest.raises(InputError, match="reads at most"):
        CausalScorer(gpt2).sequence_logprobs(["rock " * 400])


def test_masked_model_is_refused(tiny_bert) -> None:
    with pytest.raises(InputError, match="causal"):
        CausalScorer(load_model(ModelSpec(str(tiny_bert), kind="masked")))


@pytest.mark.slow
def test_default_model_matches_minicons(default_model_cache: Path) -> None:
    loaded = load_model(ModelSpec())  # pfcore's own loading; minicons gets the folder as transformers loads it
    model, tokenizer = by_auto_classes(Path(loaded.source))
    reference = mscorer.IncrementalLMScorer(model, tokenizer=tokenizer, device="cpu")
    pre, cont = pairs()
    ours = CausalScorer(loaded).conditional_logprobs(pre, cont)
    np.testing.assert_allclose(ours, reference.conditional_score(pre, cont, reduction=total), atol=TOL)
    np.testing.assert_allclose(CausalScorer(loaded).sequence_logprobs(SENTENCES, "mean"),
                               reference.sequence_score(SENTENCES), atol=TOL)
