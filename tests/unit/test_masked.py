"""Masked-LM scorer: parity with minicons' MaskedLMScorer, chunking, blank readout, affinities, errors."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from minicons.scorer import MaskedLMScorer
from scipy.spatial.distance import jensenshannon
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer, BertModel

from pfcore.errors import InputError
from pfcore.models import LoadedModel, ModelSpec
from pfcore.scoring.masked import MaskedScorer

SENTENCES = [
    "You couldn't lift a tiny rock, let alone a huge one.",
    "We can't sing an ugly song, much less a beautiful one.",
    "They weren't able to see a dim lamp, not to mention a bright one.",
    "He doesn't like shrimp, let alone squid.",
    "Hi",
    "Lifting a tiny rock is easier than lifting a huge rock, and a gorgeous zebra sang beautifully.",
]
CONTEXTS = ["You couldn't lift a tiny rock, let alone a huge one.", "I couldn't write a bad poem, never mind",
            "", "The cat sat on the mat."]
CONTINUATIONS = ["Lifting a tiny rock is easier than lifting a huge rock.", "a good one.", "Hi",
                 "The dogs were barking."]
BLANKS = ["You couldn't lift a tiny rock, let alone a huge one. "
          "Lifting a tiny rock is <MASK> than lifting a huge rock.",
          "Singing a beautiful song is <MASK> than singing an ugly song.",
          "<MASK> than that."]
METRICS = ["original", "within_word_l2r"]


def scorer_of(model: torch.nn.Module, tok: object, **kwargs: int) -> MaskedScorer:
    """A MaskedScorer over a model and tokenizer built in the test (not loaded from a spec)."""
    return MaskedScorer(LoadedModel(ModelSpec("test-model", kind="masked"), model, tok, "test"), **kwargs)


def _sharp(path: Path) -> tuple[torch.nn.Module, object]:
    """The tiny masked LM with its weight matrices scaled up, so its distributions are far from
    uniform and metric or position mistakes show up well above the 1e-4 tolerance."""
    model = AutoModelForMaskedLM.from_pretrained(path).eval()
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                p.mul_(20.0)
    return model, AutoTokenizer.from_pretrained(path)


@pytest.fixture(scope="module")
def bert(tiny_bert: Path) -> tuple[torch.nn.Module, object]:
    """Sharpened tiny BERT (WordPiece) and its tokenizer."""
    return _sharp(tiny_bert)


@pytest.fixture(scope="module")
def roberta(tiny_roberta: Path) -> tuple[torch.nn.Module, object]:
    """Sharpened tiny RoBERTa (byte-level BPE) and its tokenizer."""
    return _sharp(tiny_roberta)


@pytest.fixture(params=["bert", "roberta"])
def mlm(request: pytest.FixtureRequest) -> tuple[torch.nn.Module, object]:
    """Each tiny masked LM in turn."""
    return request.getfixturevalue(request.param)


def _log_softmax_at(model: torch.nn.Module, ids: list[int], position: int) -> torch.Tensor:
    """Reference: the full forward's log-probs at one position (no chunking, no head trick)."""
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits[0, position]
    return torch.log_softmax(logits.double(), dim=-1)


def _pieces(tok, text: str, word: str) -> tuple[list[int], list[int]]:
    """(input ids of text, positions of the first occurrence of `word`'s tokens in it)."""
    enc = tok(text, return_offsets_mapping=True)
    start = text.index(word)
    positions = [i for i, (a, b) in enumerate(enc["offset_mapping"])
                 if b > a and a >= start and b <= start + len(word)]
    return enc["input_ids"], positions


# ----- parity with minicons -----

@pytest.mark.parametrize("metric", METRICS)
def test_token_scores_match_minicons(mlm, metric: str) -> None:
    model, tok = mlm
    ours = scorer_of(model, tok).token_scores(SENTENCES, metric)
    ref = MaskedLMScorer(model, tokenizer=tok, device="cpu").token_score(SENTENCES, PLL_metric=metric)
    assert [[t for t, _ in s] for s in ours] == [[t for t, _ in s] for s in ref]
    for o, r in zip(ours, ref):
        np.testing.assert_allclose([v for _, v in o], [v for _, v in r], atol=1e-4, rtol=0)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_sequence_and_conditional_scores_match_minicons(mlm, metric: str, reduction: str) -> None:
    model, tok = mlm
    ours = scorer_of(model, tok)
    ref = MaskedLMScorer(model, tokenizer=tok, device="cpu")
    pool = (lambda x: x.sum(0).item()) if reduction == "sum" else (lambda x: x.mean(0).item())
    np.testing.assert_allclose(ours.sequence_scores(SENTENCES, metric, reduction),
                               ref.sequence_score(SENTENCES, reduction=pool, PLL_metric=metric), atol=1e-4, rtol=0)
    np.testing.assert_allclose(ours.conditional_scores(CONTEXTS, CONTINUATIONS, metric, reduction),
                               ref.conditional_score(CONTEXTS, CONTINUATIONS, reduction=pool, PLL_metric=metric),
                               atol=1e-4, rtol=0)


def test_metrics_differ_on_multi_piece_words(roberta) -> None:
    """The two metrics are told apart well above the parity tolerance (so parity tests can fail)."""
    scorer = scorer_of(*roberta)
    original, l2r = (scorer.sequence_scores(SENTENCES[-1:], m) for m in METRICS)
    assert abs(original[0] - l2r[0]) > 1e-2


# ----- chunking, out-of-memory, output-layer shortcut -----

def test_chunk_size_does_not_change_results(mlm, monkeypatch: pytest.MonkeyPatch) -> None:
    model, tok = mlm
    whole = scorer_of(model, tok, max_batch_tokens=1_000_000)
    expected = whole.token_scores(SENTENCES, "within_word_l2r")
    small = scorer_of(model, tok, max_batch_tokens=100)
    calls = []
    forward = model.forward
    monkeypatch.setattr(model, "forward", lambda **kw: calls.append(kw["input_ids"].shape) or forward(**kw))
    got = small.token_scores(SENTENCES, "within_word_l2r")
    assert sum(rows for rows, _ in calls) == sum(len(s) for s in expected)
    assert len(calls) > len(SENTENCES) and all(rows * width <= 100 or rows == 1 for rows, width in calls)
    for g, e in zip(got, expected):
        np.testing.assert_allclose([v for _, v in g], [v for _, v in e], atol=1e-5, rtol=0)


def test_out_of_memory_halves_the_chunk_and_continues(bert, monkeypatch: pytest.MonkeyPatch) -> None:
    model, tok = bert
    expected = scorer_of(model, tok).sequence_scores(SENTENCES)
    scorer = scorer_of(model, tok, max_batch_tokens=10_000)
    forward = model.forward

    def small_batches_only(**kw):
        if kw["input_ids"].shape[0] > 3:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return forward(**kw)

    monkeypatch.setattr(model, "forward", small_batches_only)
    np.testing.assert_allclose(scorer.sequence_scores(SENTENCES), expected, atol=1e-5, rtol=0)
    assert scorer.max_batch_tokens < 10_000


def test_out_of_memory_on_a_single_row_is_a_clear_error(bert, monkeypatch: pytest.MonkeyPatch) -> None:
    model, tok = bert
    scorer = scorer_of(model, tok)

    def no_memory(**kw):
        raise RuntimeError("CUDA error: out of memory")

    monkeypatch.setattr(model, "forward", no_memory)
    with pytest.raises(InputError, match="out of memory"):
        scorer.sequence_scores(SENTENCES[:1])


def test_output_layer_only_at_read_positions_matches_full_logits(mlm, monkeypatch: pytest.MonkeyPatch) -> None:
    model, tok = mlm
    shortcut = scorer_of(model, tok).token_scores(SENTENCES, "original")
    monkeypatch.setattr(model, "get_output_embeddings", lambda: None)
    full = scorer_of(model, tok).token_scores(SENTENCES, "original")
    for a, b in zip(shortcut, full):
        np.testing.assert_allclose([v for _, v in a], [v for _, v in b], atol=1e-5, rtol=0)


# ----- masked-token readout of a blank -----

def test_blank_logodds_equals_direct_masked_token_readout(mlm) -> None:
    """Single-piece fills: the authors' method (mask string in the text, read the word-initial
    token of each fill, derived from the tokenizer) gives the same numbers."""
    model, tok = mlm
    text = BLANKS[0]
    results = scorer_of(model, tok).blank_logodds([text], fills=("easier", "easier"))
    ids = tok(text.replace("<MASK>", tok.mask_token))["input_ids"]
    position = ids.index(tok.mask_token_id)
    (easier,) = tok.convert_tokens_to_ids(tok.tokenize(" easier"))
    direct = _log_softmax_at(model, ids, position)[easier].item()
    assert results[0].logp == pytest.approx((direct, direct), abs=1e-5)
    assert results[0].n_pieces == (1, 1) and not results[0].multi_piece
    assert results[0].method == "masked_token" and results[0].log_odds == 0.0


def test_blank_logodds_multi_piece_fill_is_left_to_right_pll(mlm) -> None:
    """"gorgeous" is several pieces in both tiny tokenizers: mask them all and read the first,
    then reveal it and read the next, and so on; "easier" is one piece, read at one mask."""
    model, tok = mlm
    text = BLANKS[1]
    (score,) = scorer_of(model, tok).blank_logodds([text], fills=("gorgeous", "easier"))
    prefix = text[:text.index(" <MASK>")]
    first = len(tok(prefix)["input_ids"]) - 1  # prefix with [CLS]/<s>, without the closing [SEP]/</s>
    expected = []
    for fill in ("gorgeous", "easier"):
        ids = tok(text.replace("<MASK>", fill))["input_ids"]
        positions = range(first, first + len(tok.tokenize(f" {fill}")))
        logp = 0.0
        for k, p in enumerate(positions):
            masked = [tok.mask_token_id if j in positions[k:] else i for j, i in enumerate(ids)]
            logp += _log_softmax_at(model, masked, p)[ids[p]].item()
        expected.append((logp, len(positions)))
    assert score.n_pieces == (expected[0][1], 1) and expected[0][1] > 1
    assert score.multi_piece and score.method == "pll_within_word_l2r"
    assert score.logp == pytest.approx((expected[0][0], expected[1][0]), abs=1e-4)
    assert score.log_odds == pytest.approx(expected[0][0] - expected[1][0], abs=1e-4)


def test_blank_logodds_batch_equals_one_at_a_time(mlm) -> None:
    model, tok = mlm
    scorer = scorer_of(model, tok)
    together = scorer.blank_logodds(BLANKS)
    alone = [scorer.blank_logodds([t])[0] for t in BLANKS]
    for a, b in zip(together, alone):
        assert a.logp == pytest.approx(b.logp, abs=1e-5) and a.n_pieces == b.n_pieces


# ----- affinities -----

def _span(sentence: str, word: str) -> tuple[int, int]:
    """Character span of the first whole-word `word` in `sentence`."""
    start = f" {sentence}".index(f" {word}")
    return start, start + len(word)


def test_global_affinity_is_probability_of_the_masked_word(mlm) -> None:
    model, tok = mlm
    sentence = SENTENCES[0]
    (let, alone), = scorer_of(model, tok).global_affinity([sentence], [[_span(sentence, "let"),
                                                                            _span(sentence, "alone")]])
    for word, got in (("let", let), ("alone", alone)):
        ids, (p,) = _pieces(tok, sentence, f"{word}")
        masked = list(ids)
        masked[p] = tok.mask_token_id
        assert got == pytest.approx(math.exp(_log_softmax_at(model, masked, p)[ids[p]].item()), rel=1e-4)


def test_global_affinity_of_a_multi_piece_word_masks_all_its_pieces(bert) -> None:
    model, tok = bert
    sentence = SENTENCES[-1]
    (value,), = scorer_of(model, tok).global_affinity([sentence], [[_span(sentence, "gorgeous")]])
    ids, positions = _pieces(tok, sentence, "gorgeous")
    assert len(positions) > 1
    masked = list(ids)
    for p in positions:
        masked[p] = tok.mask_token_id
    expected = sum(_log_softmax_at(model, masked, p)[ids[p]].item() for p in positions)
    assert value == pytest.approx(math.exp(expected), rel=1e-4)


def test_local_affinity_matches_scipy_jensen_shannon(mlm) -> None:
    model, tok = mlm
    sentence = SENTENCES[0]
    spans = [_span(sentence, "let"), _span(sentence, "alone")]
    (let, alone), = scorer_of(model, tok).local_affinity([sentence], [spans])
    ids, (pm,) = _pieces(tok, sentence, "let")
    _, (pl,) = _pieces(tok, sentence, "alone")
    only, both = list(ids), list(ids)
    only[pm] = both[pm] = both[pl] = tok.mask_token_id
    p = _log_softmax_at(model, only, pm).exp().numpy()
    q = _log_softmax_at(model, both, pm).exp().numpy()
    assert let == pytest.approx(jensenshannon(p, q) ** 2, abs=1e-6)
    assert let > 1e-4 and alone > 1e-4


def test_local_affinity_of_the_or_control_is_zero(bert) -> None:
    """As in the authors' code, the "or" control passes the same word twice: nothing else is masked."""
    model, tok = bert
    sentence = "You couldn't lift a tiny rock, or a huge one."
    span = _span(sentence, "or")
    assert scorer_of(model, tok).local_affinity([sentence], [[span, span]]) == [[0.0, 0.0]]


# ----- bad input -----

def test_causal_model_is_refused(tiny_gpt2: Path) -> None:
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2)
    with pytest.raises(InputError, match="causal model; use causal scoring"):
        scorer_of(model, AutoTokenizer.from_pretrained(tiny_gpt2))


def test_model_without_masked_lm_head_is_refused(tiny_bert: Path) -> None:
    with pytest.raises(InputError, match="not a masked language model"):
        scorer_of(BertModel.from_pretrained(tiny_bert), AutoTokenizer.from_pretrained(tiny_bert))


def test_tokenizer_without_mask_token_is_refused(bert, tiny_gpt2: Path) -> None:
    with pytest.raises(InputError, match="no mask token"):
        scorer_of(bert[0], AutoTokenizer.from_pretrained(tiny_gpt2))


@pytest.mark.parametrize("call", [
    lambda s: s.token_scores([""]),
    lambda s: s.sequence_scores(["Hi", "   "]),
    lambda s: s.conditional_scores([""], ["  "]),
    lambda s: s.blank_logodds([""]),
    lambda s: s.global_affinity([""], [[(0, 1)]]),
])
def test_empty_text_is_refused(bert, call) -> None:
    with pytest.raises(InputError, match="empty"):
        call(scorer_of(*bert))


def test_text_longer_than_the_model_reads_is_refused(mlm) -> None:
    scorer = scorer_of(*mlm)
    with pytest.raises(InputError, match=f"reads at most {scorer.max_length}"):
        scorer.sequence_scores(["Hi", "a rock " * 200])


def test_roberta_limit_leaves_out_the_padding_offset(roberta) -> None:
    """RoBERTa positions start after the padding index: 260 positions read 258 tokens."""
    assert scorer_of(*roberta).max_length == 258


@pytest.mark.parametrize("call, message", [
    (lambda s: s.sequence_scores(["Hi"], metric="l2r"), "unknown metric"),
    (lambda s: s.sequence_scores(["Hi"], reduction="max"), "unknown reduction"),
    (lambda s: s.conditional_scores(["a", "b"], ["c"]), "2 contexts but 1 continuations"),
    (lambda s: s.blank_logodds(["No blank here."]), "exactly once"),
    (lambda s: s.blank_logodds(["<MASK> or <MASK>."]), "exactly once"),
    (lambda s: s.blank_logodds(["It is <MASK>."], fills=("easier",)), "exactly two"),
    (lambda s: s.blank_logodds(["It is <MASK>."], fills=("xyzzyq", "easier")), "vocabulary"),
    (lambda s: s.blank_logodds(["It is <MASK>ier."], fills=("eas", "hard")), "token boundaries"),
    (lambda s: s.token_scores(["It is [MASK]."]), "already contains the mask token"),
    (lambda s: s.global_affinity(["let alone"], [[(0, 2)]]), "token boundaries"),
    (lambda s: s.global_affinity(["let alone"], [[(4, 99)]]), "not a word"),
    (lambda s: s.global_affinity(["let alone"], [[]]), "no word spans"),
    (lambda s: s.global_affinity(["let alone", "much less"], [[(0, 3)]]), "2 sentences but 1"),
])
def test_bad_input_is_refused_clearly(bert, call, message: str) -> None:
    with pytest.raises(InputError, match=message):
        call(scorer_of(*bert))
