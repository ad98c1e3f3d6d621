"""The model's most likely next tokens: the top of the full softmax after a prefix, as a direct
forward pass gives it, shown as words; the fake scorer's deterministic stand-in; masked models refused."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from pfcore.errors import InputError
from pfcore.models import ModelSpec
from pfcore.scoring.causal import CausalScorer, ScorerSettings
from pfcore.scoring.factory import LazyScorer
from pfcore.scoring.kinds.fake import FakeScorer
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import load_model
from pfcore.scoring.next_tokens import CONTINUES, most_likely_next, readable

PREFIX = "You couldn't lift a tiny rock, let alone"


@pytest.fixture(scope="module")
def gpt2(tiny_gpt2: Path) -> CausalScorer:
    """The causal scorer of the tiny GPT-2."""
    return CausalScorer(load_model(ModelSpec(name=str(tiny_gpt2))))


def direct_softmax(scorer: CausalScorer, prefix: str, bos: bool = False) -> np.ndarray:
    """P(next token) after the prefix from a plain forward pass of the whole model."""
    ids = ([scorer.tok.bos_token_id] if bos else []) + scorer.tok(prefix, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logits = scorer.model(input_ids=torch.tensor([ids])).logits[0, -1]
    return torch.softmax(logits.double(), -1).numpy()


@pytest.mark.parametrize("split_head", [True, False])
def test_top_k_is_the_top_of_the_full_softmax(gpt2: CausalScorer, split_head: bool,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    if not split_head:
        monkeypatch.setattr(gpt2, "_head", None)
    found = gpt2.next_tokens(PREFIX, k=10)
    probs = direct_softmax(gpt2, PREFIX)
    expected = np.argsort(-probs, kind="stable")[:10]
    assert [t.token_id for t in found.tokens] == list(expected)
    assert [t.probability for t in found.tokens] == pytest.approx(list(probs[expected]), abs=1e-6)
    shown = [t.probability for t in found.tokens]
    assert shown == sorted(shown, reverse=True) and found.covered <= 1 + 1e-9
    assert found.vocabulary == len(probs)


def test_with_bos_the_prefix_follows_bos(tiny_gpt2: Path) -> None:
    scorer = CausalScorer(load_model(ModelSpec(name=str(tiny_gpt2))), ScorerSettings(bos=True))
    found = scorer.next_tokens(PREFIX, k=5)
    probs = direct_softmax(scorer, PREFIX, bos=True)
    assert [t.probability for t in found.tokens] == pytest.approx(list(np.sort(probs)[::-1][:5]), abs=1e-6)


def test_tokens_read_as_words_without_tokenizer_marks(gpt2: CausalScorer) -> None:
    table = gpt2.next_tokens("The cat sat on the", k=30).table()
    assert not table["word"].str.contains("Ġ|▁|Ċ").any()
    starts = table[table["begins_word"]]
    assert (starts["token"].str[:1].str.isspace() | starts["word"].str.startswith("(")).all()
    assert table["probability_percent"].to_numpy() == pytest.approx(100 * table["probability"].to_numpy())


@pytest.mark.parametrize("text, begins, special, end, shown", [
    (" squid", True, False, False, "squid"),
    ("ing", False, False, False, f"{CONTINUES}ing"),
    (".", False, False, False, "."),
    ("\n", True, False, False, "(new line)"),
    (" ", True, False, False, "(space)"),
    ("<|im_end|>", False, True, True, "(end of text)"),
    ("<|im_start|>", False, True, False, "(<|im_start|>)"),
])
def test_readable(text: str, begins: bool, special: bool, end: bool, shown: str) -> None:
    assert readable(text, begins_word=begins, special=special, end_of_text=end) == shown


def test_the_fake_scorer_is_deterministic_and_a_partial_distribution() -> None:
    first, again = FakeScorer().next_tokens("I drank a cup of", k=5), FakeScorer().next_tokens("I drank a cup of", k=5)
    assert first == again and len(first.tokens) == 5
    probabilities = [t.probability for t in first.tokens]
    assert probabilities == sorted(probabilities, reverse=True) and 0 < first.covered < 1
    assert FakeScorer().next_tokens("Something else", k=5) != first
    assert all(t.word == t.text.strip() for t in first.tokens)


def test_a_masked_model_has_no_next_word_and_is_not_loaded(tiny_bert: Path) -> None:
    lazy = LazyScorer(ModelSpec(name=str(tiny_bert), kind="masked"), ScoringMethod.PLL_ORIGINAL)
    with pytest.raises(InputError, match="does not apply to a masked model"):
        most_likely_next(lazy, PREFIX)
    assert "scorer" not in vars(lazy)


def test_the_lazy_scorer_gives_the_loaded_scorers_tokens(tiny_gpt2: Path, gpt2: CausalScorer) -> None:
    lazy = LazyScorer(ModelSpec(name=str(tiny_gpt2)), ScoringMethod.CAUSAL)
    assert most_likely_next(lazy, PREFIX, k=3) == gpt2.next_tokens(PREFIX, k=3)


@pytest.mark.parametrize("prefix, k, message", [
    ("   ", 10, "type the start of a sentence"),
    ("x" * 20_001, 10, "the limit is 20,000"),
    (PREFIX, 0, "between 1 and 100"),
    ("a\0b", 10, "NUL"),
])
def test_bad_requests_are_one_clear_line(gpt2: CausalScorer, prefix: str, k: int, message: str) -> None:
    with pytest.raises(InputError, match=message):
        most_likely_next(gpt2, prefix, k=k)


def test_a_prefix_beyond_the_models_length_is_refused(gpt2: CausalScorer) -> None:
    with pytest.raises(InputError, match="reads at most"):
        gpt2.next_tokens("rock " * 400)
