"""Masked-LM scoring: pseudo-log-likelihood, masked-token readout of a blank, and affinities.

PLL (Salazar et al. 2020) is computed exactly as minicons' `MaskedLMScorer`: metric `original`
masks one token at a time; `within_word_l2r` (Kauf & Ivanova 2023) also masks the rest of that
token's word to its right. Every masked copy of every requested text is streamed through the model
in chunks of at most `max_batch_tokens` padded tokens, and the output layer runs only at the one
position each copy is read at (when that is checked to be exact for the model).
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

import torch
from transformers import PreTrainedTokenizerBase
from transformers.models.auto.modeling_auto import (
    MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
    MODEL_FOR_MASKED_LM_MAPPING_NAMES,
)

from pfcore.errors import InputError, out_of_memory
from pfcore.models.device import exact_float32
from pfcore.models.llama import LlamaLM
from pfcore.models.loading import LoadedModel
from pfcore.models.spec import resolve_device
from pfcore.scoring.requests import BLANK, REDUCTIONS, Reduction
from pfcore.scoring.serial import model_lock

Metric = Literal["original", "within_word_l2r"]
METRICS: tuple[str, ...] = ("original", "within_word_l2r")
Span = tuple[int, int]


@dataclass(frozen=True)
class BlankScore:
    """Masked-token readout of one blank: log P of each fill, their difference, and how it was read."""

    text: str
    fills: tuple[str, str]
    logp: tuple[float, float]
    log_odds: float  # logp[0] - logp[1]
    n_pieces: tuple[int, int]  # word pieces of each fill in this tokenizer, in context
    multi_piece: bool
    method: str  # "masked_token" (every fill one piece) or "pll_within_word_l2r" (over the pieces)


@dataclass(frozen=True)
class _Encoded:
    """One tokenized text: ids with special tokens, and per token its word index, offsets, specialness."""

    text: str
    ids: tuple[int, ...]
    word_ids: tuple[int | None, ...]
    offsets: tuple[tuple[int, int], ...]
    special: tuple[bool, ...]


@dataclass(frozen=True)
class _Input:
    """One model row: `ids` with the positions in `masked` set to the mask token, read at `position`."""

    ids: tuple[int, ...]
    masked: tuple[int, ...]
    position: int


def _canonical(ids: Sequence[int], masked: Sequence[int], position: int, mask_id: int) -> _Input:
    """An _Input whose ids already hold the mask, so equal model inputs compare (and dedupe) equal."""
    out = list(ids)
    for p in masked:
        out[p] = mask_id
    return _Input(tuple(out), tuple(masked), position)


class MaskedScorer:
    """Scores text with a loaded Hugging Face masked LM and its (fast) tokenizer."""

    def __init__(self, loaded: LoadedModel, max_batch_tokens: int = 4096) -> None:
        model, tokenizer = loaded.model, loaded.tokenizer
        _check_masked_lm(model)
        if not isinstance(tokenizer, PreTrainedTokenizerBase) or tokenizer.mask_token_id is None:
            raise InputError(f"the tokenizer {type(tokenizer).__name__} has no mask token; "
                             "masked scoring needs a masked-LM tokenizer")
        if not tokenizer.is_fast:
            raise InputError("masked scoring needs a fast tokenizer (word boundaries and character "
                             "offsets); load it with use_fast=True")
        if max_batch_tokens < 1:
            raise InputError(f"max_batch_tokens must be at least 1, got {max_batch_tokens}")
        exact_float32()  # TF32 off, whoever loaded the model
        self.loaded = loaded
        self.device = torch.device(resolve_device(loaded.spec.device))
        self.model: Any = model if model.device == self.device else model.to(self.device)
        self.model.eval()
        self.tokenizer = tokenizer
        self.max_batch_tokens = max_batch_tokens
        self.mask_id: int = tokenizer.mask_token_id
        self.pad_id: int = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self.max_length = _max_length(model, tokenizer)
        specials = (tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id)
        self._unscored = frozenset(i for i in specials if i is not None)
        self._head_at_targets = self._head_hook_is_exact()

    # ----- pseudo-log-likelihood -----

    def token_scores(self, texts: Sequence[str],
                     metric: Metric = "within_word_l2r") -> list[list[tuple[str, float]]]:
        """Per-token PLL log-probs (nats) of whole sentences, as minicons token_score."""
        return [[(self.tokenizer.decode([i]).strip(), lp) for i, lp in s]
                for s in self.pll_sentences(texts, metric)]

    def sequence_scores(self, texts: Sequence[str], metric: Metric = "within_word_l2r",
                        reduction: Reduction = Reduction.SUM) -> list[float]:
        """PLL of whole sentences, summed or averaged over tokens, as minicons sequence_score."""
        _check_choice("reduction", reduction, REDUCTIONS)
        return [_reduce([lp for _, lp in s], reduction) for s in self.pll_sentences(texts, metric)]

    def conditional_scores(self, contexts: Sequence[str], continuations: Sequence[str],
                           metric: Metric = "within_word_l2r", reduction: Reduction = Reduction.SUM,
                           separator: str = " ") -> list[float]:
        """PLL of each continuation given its context (joined by `separator`), as minicons conditional_score."""
        _check_choice("reduction", reduction, REDUCTIONS)
        if len(contexts) != len(continuations):
            raise InputError(f"{len(contexts)} contexts but {len(continuations)} continuations; "
                             "give one context per continuation")
        return [_reduce([lp for _, lp in s], reduction)
                for s in self.pll_pairs(contexts, continuations, metric, separator)]

    def pll_pairs(self, contexts: Sequence[str], continuations: Sequence[str], metric: Metric,
                  separator: str = " ") -> list[list[tuple[int, float]]]:
        """(token id, log-prob) of each continuation's scored tokens given its context."""
        items = []
        for context, continuation in zip(contexts, continuations):
            if not continuation.strip():
                raise InputError(f"empty continuation after context {context!r}: there is nothing to score")
            items.append((self._encode(context + separator + continuation), self._context_length(context)))
        return self._pll(items, metric)

    def pll_sentences(self, texts: Sequence[str], metric: Metric) -> list[list[tuple[int, float]]]:
        """(token id, log-prob) of every scored token of whole sentences."""
        return self._pll([(self._encode(t), 0) for t in texts], metric)

    def _context_length(self, context: str) -> int:
        """Index of the first continuation token: the context's tokens with special tokens, as minicons."""
        ids = self.tokenizer(context)["input_ids"]
        return sum(i != self.tokenizer.pad_token_id and i != self.tokenizer.sep_token_id for i in ids)

    def _pll(self, items: Sequence[tuple[_Encoded, int]], metric: Metric) -> list[list[tuple[int, float]]]:
        """(token id, log-prob) of every scored token from `start` on, for each (text, start)."""
        _check_choice("metric", metric, METRICS)
        unique = list(dict.fromkeys(items))
        plans = [self._pll_requests(enc, start, metric) for enc, start in unique]
        logprobs = iter(self._target_logprobs([r for plan in plans for r in plan]))
        scored = {item: [(target, next(logprobs)) for _, target in plan] for item, plan in zip(unique, plans)}
        return [scored[item] for item in items]

    def _pll_requests(self, enc: _Encoded, start: int, metric: Metric) -> list[tuple[_Input, int]]:
        """One masked copy per scored token, with the token id to read (minicons get_masked_tensors)."""
        targets = [i for i in range(start, len(enc.ids)) if enc.ids[i] not in self._unscored]
        if not targets:
            raise InputError(f"nothing to score in {enc.text!r}: it has no tokens after the context")
        requests = []
        for t in targets:
            masked = [t]
            if metric == "within_word_l2r" and enc.word_ids[t] is not None:
                masked += [j for j in range(t + 1, targets[-1] + 1) if enc.word_ids[j] == enc.word_ids[t]]
            requests.append((_Input(enc.ids, tuple(masked), t), enc.ids[t]))
        return requests

    # ----- masked-token readout of a blank -----

    def blank_logodds(self, texts_with_blank: Sequence[str], fills: Sequence[str] = ("easier", "harder"),
                      blank: str = BLANK) -> list[BlankScore]:
        """log P(fill 1) - log P(fill 2) at the blank: one masked token per single-piece fill,
        within-word left-to-right PLL over the pieces of a fill that is several pieces."""
        if len(fills) != 2 or not all(isinstance(f, str) and f.strip() for f in fills):
            raise InputError(f"give exactly two non-empty fills, got {list(fills)!r}")
        pieces = iter(self.fill_logprobs([(text, fill) for text in texts_with_blank for fill in fills], blank))
        results = []
        for text in texts_with_blank:
            per_fill = (next(pieces), next(pieces))
            logp = tuple(math.fsum(lp for _, lp in fp) for fp in per_fill)
            n_pieces = (len(per_fill[0]), len(per_fill[1]))
            multi = max(n_pieces) > 1
            results.append(BlankScore(text=text, fills=(fills[0], fills[1]), logp=(logp[0], logp[1]),
                                      log_odds=logp[0] - logp[1], n_pieces=n_pieces, multi_piece=multi,
                                      method="pll_within_word_l2r" if multi else "masked_token"))
        return results

    def fill_logprobs(self, pairs: Sequence[tuple[str, str]],
                      blank: str = BLANK) -> list[list[tuple[int, float]]]:
        """(token id, log P) of each piece of `fill` put into the blank of `text`, for each
        (text, fill) pair, read left to right with the rest of the fill masked."""
        plans = [self._fill_requests(text, fill, blank) for text, fill in pairs]
        logprobs = iter(self._target_logprobs([r for plan in plans for r in plan]))
        return [[(target, next(logprobs)) for _, target in plan] for plan in plans]

    def _fill_requests(self, text: str, fill: str, blank: str) -> list[tuple[_Input, int]]:
        """Rows reading the fill's pieces left to right, each with itself and the pieces after it masked."""
        _require_text(text)
        if not blank or text.count(blank) != 1:
            raise InputError(f"{text!r} must contain the blank {blank!r} exactly once")
        start = text.index(blank)
        enc = self._encode(text[:start] + fill + text[start + len(blank):])
        pieces = self._span_positions(enc, (start, start + len(fill)))
        return [(_canonical(enc.ids, pieces[k:], p, self.mask_id), enc.ids[p]) for k, p in enumerate(pieces)]

    # ----- affinities (Rozner et al. 2025) -----

    def global_affinity(self, sentences: Sequence[str],
                        spans: Sequence[Sequence[Span]]) -> list[list[float]]:
        """P(word | that word masked) for each character span of each sentence; a word of several
        pieces gets the product of its pieces' probabilities with all of its pieces masked."""
        words = self._words(sentences, spans)
        requests = [(_canonical(enc.ids, pieces, p, self.mask_id), enc.ids[p])
                    for enc, per_word in words for pieces in per_word for p in pieces]
        logprobs = iter(self._target_logprobs(requests))
        return [[math.exp(math.fsum(next(logprobs) for _ in pieces)) for pieces in per_word]
                for _, per_word in words]

    def local_affinity(self, sentences: Sequence[str],
                       spans: Sequence[Sequence[Span]]) -> list[list[float]]:
        """Jensen-Shannon divergence (nats) at each word's first piece between the distribution with
        only that word masked and the one with every given word masked."""
        words = self._words(sentences, spans)
        inputs = []
        for enc, per_word in words:
            every = sorted({p for pieces in per_word for p in pieces})
            for pieces in per_word:
                inputs += [_canonical(enc.ids, pieces, pieces[0], self.mask_id),
                           _canonical(enc.ids, every, pieces[0], self.mask_id)]
        dists = iter(self._distributions(inputs))
        return [[jensen_shannon(next(dists), next(dists)) for _ in per_word] for _, per_word in words]

    def _words(self, sentences: Sequence[str],
               spans: Sequence[Sequence[Span]]) -> list[tuple[_Encoded, list[list[int]]]]:
        """Each sentence encoded, with the token positions of each of its word spans."""
        if len(sentences) != len(spans):
            raise InputError(f"{len(sentences)} sentences but {len(spans)} span lists; give one per sentence")
        words = []
        for sentence, sentence_spans in zip(sentences, spans):
            if not sentence_spans:
                raise InputError(f"no word spans given for {sentence!r}")
            enc = self._encode(sentence)
            words.append((enc, [self._span_positions(enc, span) for span in sentence_spans]))
        return words

    # ----- text handling -----

    def _encode(self, text: str) -> _Encoded:
        """Tokenize one text with special tokens, refusing empty, too long or pre-masked text."""
        _require_text(text)
        enc = self.tokenizer(text, return_offsets_mapping=True, return_special_tokens_mask=True)
        ids = tuple(enc["input_ids"])
        if len(ids) > self.max_length:
            raise InputError(f"text is {len(ids)} tokens long but this model reads at most "
                             f"{self.max_length}; shorten it: {text[:60]!r}...")
        if self.mask_id in ids:
            raise InputError(f"{text!r} already contains the mask token {self.tokenizer.mask_token!r}; "
                             "give plain text")
        return _Encoded(text, ids, tuple(enc.word_ids()), tuple(tuple(o) for o in enc["offset_mapping"]),
                        tuple(bool(s) for s in enc["special_tokens_mask"]))

    def _span_positions(self, enc: _Encoded, span: Span) -> list[int]:
        """Token positions that make up the characters text[start:end]; the span must fall on token
        boundaries and be in the vocabulary."""
        start, end = span
        word = enc.text[start:end]
        if not (0 <= start < end <= len(enc.text)) or not word.strip():
            raise InputError(f"span {span} is not a word of {enc.text!r}")
        positions = []
        for i, ((a, b), special) in enumerate(zip(enc.offsets, enc.special)):
            while a < b and enc.text[a].isspace():
                a += 1
            if special or not ((a < end and b > start) or (a == b and start <= a < end)):
                continue
            if a < start or b > end:
                raise InputError(f"{word!r} does not fall on token boundaries in {enc.text!r}")
            positions.append(i)
        if not positions:
            raise InputError(f"{word!r} has no tokens of its own in {enc.text!r}")
        if any(enc.ids[p] == self.tokenizer.unk_token_id for p in positions):
            raise InputError(f"{word!r} is not in this tokenizer's vocabulary (it becomes the unknown token)")
        return positions

    # ----- running the model -----

    def _target_logprobs(self, requests: Sequence[tuple[_Input, int]]) -> list[float]:
        """log P(target) at each request's position; identical inputs run once."""
        readers: dict[_Input, list[int]] = {}
        for k, (inp, _) in enumerate(requests):
            readers.setdefault(inp, []).append(k)
        inputs = list(readers)
        out = [0.0] * len(requests)
        for chunk, logprobs in self._stream(inputs):
            picks = [(row, k) for row, i in enumerate(chunk) for k in readers[inputs[i]]]
            values = logprobs[[row for row, _ in picks], [requests[k][1] for _, k in picks]].tolist()
            for (_, k), value in zip(picks, values):
                out[k] = value
        return out

    def _distributions(self, inputs: Sequence[_Input]) -> list[torch.Tensor]:
        """The full log-prob distribution over the vocabulary at each input's position."""
        out: list[torch.Tensor] = [torch.empty(0)] * len(inputs)
        for chunk, logprobs in self._stream(inputs):
            for row, i in enumerate(chunk):
                out[i] = logprobs[row]
        return out

    def _stream(self, inputs: Sequence[_Input]) -> Iterator[tuple[list[int], torch.Tensor]]:
        """Yield (indices into `inputs`, log-probs [n, vocab]) chunk by chunk, longest inputs first,
        each chunk at most max_batch_tokens padded tokens; on out-of-memory the chunk is halved."""
        order = sorted(range(len(inputs)), key=lambda i: -len(inputs[i].ids))
        done = 0
        while done < len(order):
            width = len(inputs[order[done]].ids)
            n = max(1, min(len(order) - done, self.max_batch_tokens // width))
            chunk = order[done:done + n]
            try:
                logprobs = self._forward([inputs[i] for i in chunk], self._head_at_targets)
            except (RuntimeError, MemoryError) as error:
                if not out_of_memory(error):
                    raise
                self._shrink_after_oom(n, width, error)
                continue
            yield chunk, logprobs
            done += n

    def _shrink_after_oom(self, n_rows: int, width: int, error: BaseException) -> None:
        """Halve the chunk budget (kept for later calls); give up when one row alone does not fit."""
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
        if n_rows == 1:
            raise InputError(f"out of memory scoring one masked copy of a {width}-token text; "
                             "shorten the text or use a smaller model") from error
        self.max_batch_tokens = max(1, n_rows * width // 2)

    def _forward(self, batch: Sequence[_Input], head_at_targets: bool) -> torch.Tensor:
        """float32 log-probs [n, vocab] at each row's position, for right-padded masked rows."""
        width = max(len(x.ids) for x in batch)
        ids = torch.tensor([x.ids + (self.pad_id,) * (width - len(x.ids)) for x in batch])
        mask_rows = [r for r, x in enumerate(batch) for _ in x.masked]
        ids[mask_rows, [p for x in batch for p in x.masked]] = self.mask_id
        attention = (torch.arange(width) < torch.tensor([len(x.ids) for x in batch])[:, None]).long()
        rows = torch.arange(len(batch), device=self.device)
        positions = torch.tensor([x.position for x in batch], device=self.device)
        ids, attention = ids.to(self.device), attention.to(self.device)
        with model_lock(self.model), torch.no_grad(), self._output_layer_at(rows, positions, ids.shape,
                                                                             head_at_targets):
            logits = self.model(input_ids=ids, attention_mask=attention).logits  # the hook sees only this pass
        logits = logits[rows, positions] if logits.shape[1] == width else logits[:, 0]
        return torch.log_softmax(logits.float(), dim=-1).cpu()

    @contextmanager
    def _output_layer_at(self, rows: torch.Tensor, positions: torch.Tensor, shape: torch.Size,
                         enabled: bool) -> Iterator[None]:
        """While active, the output layer sees only the hidden state at each row's position."""
        layer = self.model.get_output_embeddings() if enabled else None
        if layer is None:
            yield
            return

        def pick(_module: torch.nn.Module, args: tuple) -> tuple | None:
            hidden = args[0]
            if hidden.dim() != 3 or tuple(hidden.shape[:2]) != tuple(shape):
                return None
            return (hidden[rows, positions].unsqueeze(1), *args[1:])

        handle = layer.register_forward_pre_hook(pick)
        try:
            yield
        finally:
            handle.remove()

    def _head_hook_is_exact(self) -> bool:
        """Whether running the output layer only at the read positions gives the full forward's numbers."""
        n = min(8, self.max_length)
        ids = (torch.arange(n) * 7 + 3) % self.model.config.vocab_size
        probe = [_Input(tuple(ids.tolist()), (1,), p) for p in range(n)]
        return torch.allclose(self._forward(probe, True), self._forward(probe, False), atol=1e-5)


def jensen_shannon(logp: torch.Tensor, logq: torch.Tensor) -> float:
    """Jensen-Shannon divergence in nats between two distributions given as log-probabilities."""
    logp, logq = logp.double(), logq.double()
    logm = torch.logaddexp(logp, logq) - math.log(2.0)
    return float(0.5 * (logp.exp() * (logp - logm)).sum() + 0.5 * (logq.exp() * (logq - logm)).sum())


def _require_text(text: str) -> None:
    """Refuse a missing or blank text."""
    if not isinstance(text, str) or not text.strip():
        raise InputError("empty text: there is nothing to score")


def _reduce(values: Sequence[float], reduction: Reduction) -> float:
    """Sum or mean of per-token log-probs."""
    total = math.fsum(values)
    return total if reduction == Reduction.SUM else total / len(values)


def _check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    """Refuse an unknown option with the list of known ones."""
    if value not in allowed:
        raise InputError(f"unknown {name} {value!r}; choose one of {', '.join(allowed)}")


def _class_names(mapping: dict) -> set[str]:
    """All model class names listed in a transformers auto mapping."""
    return {name for value in mapping.values() for name in ([value] if isinstance(value, str) else value)}


def _check_masked_lm(model: torch.nn.Module) -> None:
    """Refuse a model that is not a masked LM, pointing causal models to causal scoring."""
    name = type(model).__name__
    if name.endswith("ForMaskedLM") or name in _class_names(MODEL_FOR_MASKED_LM_MAPPING_NAMES):
        return
    if name in _class_names(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES) or isinstance(model, LlamaLM):
        raise InputError(f"{name} is a causal model; use causal scoring for it")
    raise InputError(f"{name} is not a masked language model; load one with AutoModelForMaskedLM")


def _max_length(model: torch.nn.Module, tokenizer: PreTrainedTokenizerBase) -> int:
    """Most tokens (special tokens included) the model reads: its position table, less RoBERTa-style
    offsets (positions start after the padding index), and the tokenizer's own limit."""
    limit = tokenizer.model_max_length
    if n_positions := getattr(model.config, "max_position_embeddings", None):
        embeddings = getattr(getattr(model, "base_model", None), "embeddings", None)
        padding_idx = getattr(embeddings, "padding_idx", None)
        offset = padding_idx + 1 if isinstance(padding_idx, int) else 0
        limit = min(limit, n_positions - offset)
    return int(limit)
