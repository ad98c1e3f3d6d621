"""Word surprisal with and without the beginning-of-word correction, checked against a direct
computation from full softmax distributions, against minicons' token surprisals, and through the
score cache; which tokens begin a word; entropy and top-k."""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from minicons import scorer as mscorer
from transformers.models.gpt2.tokenization_gpt2 import bytes_to_unicode

from pfcore.models import ModelSpec
from pfcore.scoring.align import attached_owners
from pfcore.scoring.causal import CausalScorer, ScorerSettings
from pfcore.scoring.factory import LazyScorer, cache_identity
from pfcore.scoring.kinds.fake import FakeScorer
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import load_model
from pfcore.scoring.requests import LN2, Request, TokenScores
from pfcore.scoring.words import begins_word, pack_bow, score_texts, unpack_bow
from pfcore.store.cache import ScoreCache, score_cached

ISSUE_SENTENCE = "They couldn't paint an ugly picture, let alone a gorgeous one."
SENTENCES = [
    ISSUE_SENTENCE,
    "He doesn't like shrimp, let alone squid.",
    "The cat sat on the mat.  The dogs were barking.",
    "Lifting a tiny rock is easier\nthan lifting a huge rock.",
]
TOL = 1e-4


@pytest.fixture(scope="module")
def gpt2(tiny_gpt2: Path):
    return load_model(ModelSpec(str(tiny_gpt2)))


def byte_level_starts(tokenizer) -> np.ndarray:
    """Independently of pfcore: a byte-level token begins a word when its first decoded character
    is whitespace (its raw text mapped back to bytes), or it is EOS."""
    to_byte = {char: byte for byte, char in bytes_to_unicode().items()}
    starts = np.zeros(len(tokenizer), dtype=bool)
    for token, index in tokenizer.get_vocab().items():
        raw = bytes(to_byte[c] for c in token) if all(c in to_byte for c in token) else token.encode()
        starts[index] = raw.decode("utf-8", errors="replace")[:1].isspace()
    starts[tokenizer.eos_token_id] = True
    return starts


def direct_words(loaded, text: str, bos: bool, prefix: str = "") -> list[tuple[str, float, float]]:
    """(word, uncorrected, corrected) in nats for each word of `text`, from the model's full
    next-token distributions: p(w|c) = p(tokens|c) P_bow(c w) / P_bow(c)."""
    tok = loaded.tokenizer
    joined = f"{prefix} {text}" if prefix else text
    enc = tok(joined, add_special_tokens=False, return_offsets_mapping=True)
    ids, offsets = list(enc["input_ids"]), list(enc["offset_mapping"])
    if bos:
        ids, offsets = [tok.bos_token_id, *ids], [(0, 0), *offsets]
    with torch.no_grad():
        logits = loaded.model(torch.tensor([ids])).logits[0].double()
    logp = logits.log_softmax(-1)
    starts = torch.from_numpy(byte_level_starts(tok))
    bow = logp[:, starts].logsumexp(-1)
    base = len(prefix) + 1 if prefix else 0
    out = []
    for match in re.finditer(r"\S+", joined):
        if match.start() < base:
            continue
        # the tokens whose first non-space character is in the word, and whitespace-only tokens before them
        mine = [i for i, (a, b) in enumerate(offsets)
                if joined[a:b].strip() and match.start() <= a + len(joined[a:b]) - len(joined[a:b].lstrip())
                < match.end()]
        while mine[0] > 0 and joined[slice(*offsets[mine[0] - 1])].isspace():
            mine.insert(0, mine[0] - 1)
        if mine[0] == 0:
            out.append((match.group(), math.nan, math.nan))
            continue
        value = float(sum(logp[i - 1, ids[i]] for i in mine))
        initial = match.start() == 0
        corrected = value + float(bow[mine[-1]]) - (0.0 if initial else float(bow[mine[0] - 1]))
        out.append((match.group(), value, corrected))
    return out


def test_begins_word_on_byte_level_bpe(gpt2) -> None:
    """pfcore's anchored decoding agrees with the byte-level definition, token by token."""
    mask = begins_word(gpt2.tokenizer)
    np.testing.assert_array_equal(mask, byte_level_starts(gpt2.tokenizer))
    vocab = gpt2.tokenizer.get_vocab()
    assert all(mask[i] for t, i in vocab.items() if t.startswith(("Ġ", "Ċ")))  # space, newline
    assert not any(mask[i] for t, i in vocab.items() if t[0].isascii() and (t[0].isalnum() or t[0] in ".,'"))
    assert mask[gpt2.tokenizer.eos_token_id]


@pytest.mark.parametrize("bos", [False, True])
@pytest.mark.parametrize("tree", [True, False])
def test_words_match_direct_computation(gpt2, bos: bool, tree: bool) -> None:
    scorer = CausalScorer(gpt2, ScorerSettings(bos=bos, tree=tree))
    scored = score_texts(scorer, [Request("", s) for s in SENTENCES])
    for text, result in zip(SENTENCES, scored):
        expected = direct_words(gpt2, text, bos)
        assert [w.text for w in result.words] == [w for w, _, _ in expected] == text.split()
        np.testing.assert_allclose([w.logprob for w in result.words], [u for _, u, _ in expected],
                                   atol=TOL, equal_nan=True)
        np.testing.assert_allclose([w.logprob_corrected for w in result.words], [c for _, _, c in expected],
                                   atol=TOL, equal_nan=True)
        assert math.isnan(result.words[0].logprob) != bos  # the first word is scored only after BOS


def test_continuation_words_match_direct_computation(gpt2) -> None:
    prefix = "You couldn't lift a tiny rock, let alone a huge one."
    text = "Lifting a tiny rock is easier than lifting a huge rock."
    result = score_texts(CausalScorer(gpt2), [Request(prefix, text)])[0]
    expected = direct_words(gpt2, text, bos=False, prefix=prefix)
    assert [w.text for w in result.words] == text.split()
    assert (result.words[0].start, result.words[-1].end) == (0, len(text))
    np.testing.assert_allclose([w.logprob_corrected for w in result.words], [c for _, _, c in expected], atol=TOL)
    np.testing.assert_allclose([w.logprob for w in result.words], [u for _, u, _ in expected], atol=TOL)


def test_uncorrected_words_are_minicons_token_sums(gpt2) -> None:
    """Each word's uncorrected surprisal is minicons' token surprisals summed over the word, in bits."""
    reference = mscorer.IncrementalLMScorer(gpt2.model, tokenizer=gpt2.tokenizer, device="cpu")
    scored = score_texts(CausalScorer(gpt2), [Request("", ISSUE_SENTENCE)])[0]
    tokens = reference.token_score([ISSUE_SENTENCE], base_two=True)[0]
    position = 0
    for word in scored.words:
        pieces = tokens[position:position + word.n_tokens]
        position += word.n_tokens
        if word is scored.words[0]:
            assert math.isnan(word.surprisal_bits_uncorrected)
            continue
        assert gpt2.tokenizer.convert_tokens_to_string([t for t, _ in pieces]).strip() == word.text
        assert word.surprisal_bits_uncorrected == pytest.approx(-sum(s for _, s in pieces), abs=1e-4)
    assert position == len(tokens)


def test_corrected_words_telescope(gpt2) -> None:
    """Over consecutive words the BOW ratios cancel: the corrected words sum to the uncorrected
    ones plus the log BOW mass after the text, minus the one before the first scored word."""
    scorer = CausalScorer(gpt2)
    result = score_texts(scorer, [Request("", ISSUE_SENTENCE)])[0]
    _, masses = unpack_bow(scorer.bow_scorer().score([Request("", ISSUE_SENTENCE)])[0])
    words = result.words[1:]
    first = words[0].first - (len(result.token_ids) - len(result.scores.token_ids))
    gap = sum(w.logprob_corrected for w in words) - sum(w.logprob for w in words)
    assert gap == pytest.approx(masses[-1] - masses[first], abs=1e-9)
    assert abs(gap) > 1e-3


def test_bow_masses_are_only_computed_where_needed(gpt2) -> None:
    """Masses are kept at rows whose token begins a word and after the last token, nowhere else."""
    scorer = CausalScorer(gpt2).bow_scorer()
    packed = scorer.score([Request("", ISSUE_SENTENCE)])[0]
    scores, masses = unpack_bow(packed)
    starts = begins_word(gpt2.tokenizer)
    wanted = [starts[t] for t in scores.token_ids] + [True]
    assert list(~np.isnan(masses)) == wanted
    assert (masses[~np.isnan(masses)] < 0).all()


def test_pack_and_unpack_round_trip() -> None:
    packed = pack_bow((5, 6, 7), np.array([-1.0, -2.0, -3.0]), [0, 2, 3], np.array([-0.1, -0.2, -0.3]),
                      lambda ids: ())
    assert packed.token_ids == (5, 6, 7, -1, -3, -4)
    scores, masses = unpack_bow(packed)
    assert scores.token_ids == (5, 6, 7)
    np.testing.assert_array_equal(scores.logprobs, [-1.0, -2.0, -3.0])
    np.testing.assert_array_equal(masses, [-0.1, np.nan, -0.2, -0.3])


def test_bow_variant_keeps_token_logprobs_and_its_own_cache_key(gpt2) -> None:
    plain = CausalScorer(gpt2)
    bow = plain.bow_scorer()
    assert bow.bow_scorer() is bow and plain.bow_scorer() is bow
    assert bow.cache_identity() == {**plain.cache_identity(), "bow": True}
    requests = [Request("", s) for s in SENTENCES]
    for mine, theirs in zip(plain.score(requests), bow.score(requests)):
        np.testing.assert_allclose(unpack_bow(theirs)[0].logprobs, mine.logprobs, atol=1e-6)
    spec = gpt2.spec
    assert cache_identity(spec, ScoringMethod.CAUSAL, bow=True) == bow.cache_identity()
    lazy = LazyScorer(spec, ScoringMethod.CAUSAL)
    assert lazy.bow_scorer().cache_identity() == bow.cache_identity()
    assert LazyScorer(spec, ScoringMethod.PLL_ORIGINAL).bow_scorer() is None


def test_cached_words_need_no_model(gpt2, cache_dir: Path) -> None:
    """A second pass is served from the score cache: the lazy scorer loads the tokenizer, not the model."""
    requests = [Request("", s) for s in SENTENCES]
    with ScoreCache() as cache:
        first = score_texts(LazyScorer(gpt2.spec, ScoringMethod.CAUSAL), requests,
                            lambda s, r: score_cached(s, r, cache))
        lazy = LazyScorer(gpt2.spec, ScoringMethod.CAUSAL)
        again = score_texts(lazy, requests, lambda s, r: score_cached(s, r, cache))
        assert "scorer" not in vars(lazy) and "scorer" not in vars(lazy.bow_scorer())
        for a, b in zip(first, again):
            assert a.words == b.words
        first_word = again[0].words[1]
        assert lazy.display_tokens(again[0].token_ids[first_word.first:first_word.first + 1]) == (" couldn",)


def test_whitespace_tokens_go_with_the_next_word() -> None:
    text = "a  b\n\nc"
    offsets = [(0, 1), (1, 2), (2, 4), (4, 5), (5, 6), (6, 7), (7, 7)]  # a| |␣b|\n|\n|c|(empty)
    assert attached_owners(text, offsets, [(0, 1), (3, 4), (6, 7)]) == [0, 1, 1, 2, 2, 2, None]


def test_fake_scorer_words() -> None:
    """The fake scorer's tokens are its words; its BOW masses are all 0, so both values agree."""
    scored = score_texts(FakeScorer(), [Request("", "one two three"), Request("one", "two three")])
    assert [w.text for w in scored[0].words] == ["one", "two", "three"]
    assert math.isnan(scored[0].words[0].logprob)
    for text in scored:
        for word in text.words[1:] if not text.request.prefix else text.words:
            assert word.logprob_corrected == word.logprob and word.n_tokens == 1
    assert scored[1].words[0].start == 0


def test_masked_words_keep_pll_sums(tiny_bert: Path) -> None:
    """A masked model has no BOW variant: each word holds its PLL tokens' sum, corrected or not."""
    from pfcore.scoring.pll import PllRequestScorer

    pll = PllRequestScorer(load_model(ModelSpec(str(tiny_bert), kind="masked")), ScoringMethod.PLL_L2R)
    result = score_texts(pll, [Request("", "The cat sat on the mat.")])[0]
    assert not result.corrected and [w.text for w in result.words] == ["The", "cat", "sat", "on", "the", "mat."]
    assert sum(w.logprob for w in result.words) == pytest.approx(result.scores.logprobs.sum())
    assert all(w.logprob == w.logprob_corrected for w in result.words)


def test_entropy_and_top_k_match_the_full_distribution(gpt2) -> None:
    scorer = CausalScorer(gpt2)
    details = scorer.token_details([Request("", ISSUE_SENTENCE)], top_k=5)[0]
    ids = scorer.text_token_ids(ISSUE_SENTENCE)
    with torch.no_grad():
        logp = gpt2.model(torch.tensor([ids])).logits[0, :-1].double().log_softmax(-1)
    entropy = -(logp.exp() * logp).sum(-1) / LN2
    np.testing.assert_allclose(details.entropy_bits, entropy.numpy(), atol=1e-4)
    top = logp.topk(5, dim=-1)
    np.testing.assert_array_equal(details.top_ids, top.indices.numpy())
    np.testing.assert_allclose(details.top_logprobs, top.values.numpy(), atol=1e-4)


def test_token_scores_unchanged_by_reading_words(gpt2) -> None:
    """Words are read from the same TokenScores the suites use: nothing is rescaled."""
    scorer = CausalScorer(gpt2)
    plain = scorer.score([Request("", ISSUE_SENTENCE)])[0]
    scored = score_texts(scorer, [Request("", ISSUE_SENTENCE)], corrected=False)[0]
    assert isinstance(scored.scores, TokenScores)
    np.testing.assert_array_equal(scored.scores.logprobs, plain.logprobs)
    assert all(w.logprob == w.logprob_corrected or math.isnan(w.logprob) for w in scored.words)
