"""Masked LMs as request scorers, so their scores share the score cache with causal ones:
pseudo-log-likelihood of a continuation (or a whole sentence), and the masked-token readout of a
fill put into a text's blank."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pfcore.errors import InputError
from pfcore.models.loading import LoadedModel
from pfcore.scoring.align import Span
from pfcore.scoring.masked import MaskedScorer
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import BLANK, Progress, Request, TokenScores
from pfcore.scoring.serial import Together, model_lock
from pfcore.scoring.words import text_ids, token_spans


class _MaskedRequestScorer:
    """What both masked request scorers share: the masked scorer, token strings, cache identity."""

    def __init__(self, loaded: LoadedModel, method: ScoringMethod) -> None:
        self.loaded = loaded
        self._method = method
        self.scorer = MaskedScorer(loaded)
        self._together = Together(model_lock(loaded.model))

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """Per-token scores of each request; without a progress report (a page's few sentences, not
        a run), together with those of other sessions waiting for the model (pfcore.scoring.serial)."""
        if progress is None:
            return self._together.score(requests, lambda batch: self._wrap(self._pairs(batch), None))
        return self._wrap(self._pairs(requests), progress)

    def _pairs(self, requests: Sequence[Request]) -> list[list[tuple[int, float]]]:
        """(token id, log-prob) of each request's scored tokens, scored now."""
        raise NotImplementedError

    @property
    def method(self) -> ScoringMethod:
        """The scoring method these scores follow."""
        return self._method

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """Readable token strings."""
        return tuple(self.loaded.tokenizer.decode([i]) for i in ids)

    def cache_identity(self) -> dict[str, object]:
        """Model identity plus the method's settings (for the score cache)."""
        return {**self.loaded.identity, **self._method.identity()}

    def text_token_ids(self, text: str) -> tuple[int, ...]:
        """The ids of a text without special tokens."""
        return text_ids(self.loaded.tokenizer, text)

    def token_spans(self, text: str) -> tuple[Span, ...]:
        """The character span of each of `text_token_ids(text)`."""
        return token_spans(self.loaded.tokenizer, text)

    def bow_scorer(self) -> None:
        """None: the beginning-of-word correction is for causal models (PLL words keep their sums)."""
        return None

    def _wrap(self, pairs: Sequence[list[tuple[int, float]]], progress: Progress | None) -> list[TokenScores]:
        """(id, log-prob) lists as TokenScores, reporting the work as done."""
        if progress:
            progress(len(pairs), len(pairs))
        return [TokenScores(tuple(i for i, _ in p), np.array([lp for _, lp in p], dtype=np.float64),
                            self.display_tokens) for p in pairs]


class PllRequestScorer(_MaskedRequestScorer):
    """Pseudo-log-likelihood of Requests (continuation given context, or a whole sentence)."""

    def __init__(self, loaded: LoadedModel, method: ScoringMethod) -> None:
        if not method.is_pll:
            raise InputError(f"{method.value!r} is not a pseudo-log-likelihood method")
        super().__init__(loaded, method)

    def _pairs(self, requests: Sequence[Request]) -> list[list[tuple[int, float]]]:
        """Per-token PLL scores of each request's scored part."""
        metric = self._method.pll_metric
        whole = [r for r in requests if not r.prefix]
        given = [r for r in requests if r.prefix]
        found = dict(zip(whole, self.scorer.pll_sentences([r.text for r in whole], metric)))  # type: ignore[arg-type]
        found.update(zip(given, self.scorer.pll_pairs([r.prefix for r in given], [r.text for r in given],
                                                      metric)))  # type: ignore[arg-type]
        return [found[r] for r in requests]


class BlankRequestScorer(_MaskedRequestScorer):
    """Masked-token readout: Request(text with the BLANK, fill) scores the fill's pieces in
    the blank (one masked token per piece, read left to right with the rest of the fill masked)."""

    def __init__(self, loaded: LoadedModel) -> None:
        super().__init__(loaded, ScoringMethod.MASKED_TOKEN)

    def _pairs(self, requests: Sequence[Request]) -> list[list[tuple[int, float]]]:
        """Per-piece log-probs of each fill in its text's blank."""
        return self.scorer.fill_logprobs([(r.prefix, r.text) for r in requests], BLANK)
