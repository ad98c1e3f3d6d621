"""Exact causal-LM scoring that does less work: requests that share a token prefix are packed
into one prefix tree (one sequence, explicit positions, a tree-shaped attention mask), so shared
text runs through the model once, and the output layer runs only where a score is needed.
Token boundaries and the first-token/BOS policy are minicons' `IncrementalLMScorer`'s. The same
output-layer pass gives, on request, the beginning-of-word masses of the word correction
(pfcore.scoring.words), and the entropy and most likely tokens at each position; `next_tokens`
gives the most likely next tokens after a prefix (pfcore.scoring.next_tokens)."""
from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np
import torch

from pfcore.errors import InputError, out_of_memory
from pfcore.models.device import exact_float32
from pfcore.models.loading import LoadedModel
from pfcore.paths import JsonMemo
from pfcore.scoring.align import Span
from pfcore.scoring.methods import ScoringMethod, check_fits
from pfcore.scoring.next_tokens import TOP_K, NextTokens, check_prefix, top_tokens
from pfcore.scoring.requests import (
    LN2,
    Progress,
    Reduction,
    Request,
    RequestError,
    TokenScores,
    check_length,
    reduce_all,
)
from pfcore.scoring.serial import Together, model_lock
from pfcore.scoring.words import begins_word, pack_bow, text_ids, token_spans

log = logging.getLogger(__name__)

HEAD_ROWS = 128  # query rows per output-layer slice (128 x 49k logits is 25 MB)


def _empty(shape: tuple[int, ...], dtype: type = np.float64) -> np.ndarray:
    """A read-only empty array, made once and shared by every value that asks for none."""
    array: np.ndarray = np.zeros(shape, dtype=dtype)
    array.flags.writeable = False
    return array


NO_ROWS, NO_VALUES, NO_TOP_IDS, NO_TOP = _empty((0,), np.int64), _empty((0,)), _empty((0, 0), np.int64), _empty((0, 0))


@dataclass(frozen=True)
class Encoded:
    """Token ids of one request and the index of its first scored token."""

    ids: tuple[int, ...]
    start: int


@dataclass(frozen=True)
class ScorerSettings:
    """Choices that change the numbers; recorded in run manifests and cache keys."""

    bos: bool = False  # prepend BOS and score the first word too (minicons bos_token=True)
    bow: bool = False  # also return beginning-of-word log-masses (the word correction's variant)
    pack_tokens: int = 384  # nodes per packed prefix tree
    batch_tokens: int = 6144  # padded tokens per forward pass (halved on out-of-memory)
    tree: bool = True  # pack shared prefixes; False scores each request as its own row


@dataclass(frozen=True)
class Extras:
    """What the output layer computes beside the targets' log-probs: BOW log-masses at the rows
    whose target begins a word (ids in `begins_word`) and after each text, entropy, top-k."""

    begins_word: frozenset[int] | None = None
    entropy: bool = False
    top_k: int = 0


@dataclass(frozen=True)
class Values:
    """What the output layer gives one request: its scored tokens' log-probs; the rows (k: before
    scored token k, n: after the last) that have a BOW log-mass, and those masses; per scored
    token, the entropy (nats) and the top-k ids and log-probs of its distribution, when asked."""

    logprobs: np.ndarray
    bow_rows: np.ndarray = field(default_factory=lambda: NO_ROWS)
    bow: np.ndarray = field(default_factory=lambda: NO_VALUES)
    entropy: np.ndarray = field(default_factory=lambda: NO_VALUES)
    top_ids: np.ndarray = field(default_factory=lambda: NO_TOP_IDS)
    top_logprobs: np.ndarray = field(default_factory=lambda: NO_TOP)


@dataclass(frozen=True)
class TokenDetails:
    """Per scored token: the entropy (bits) of the distribution it was drawn from, and that
    distribution's most likely token ids with their log-probs (nats), best first."""

    entropy_bits: np.ndarray
    top_ids: np.ndarray
    top_logprobs: np.ndarray


class CausalScorer:
    """Scores Requests with a loaded causal LM: per-token log-probs, sums, means; with
    `bow` settings, beginning-of-word masses packed beside them (see `bow_scorer`)."""

    def __init__(self, loaded: LoadedModel, settings: ScorerSettings | None = None) -> None:
        check_fits(ScoringMethod.CAUSAL, loaded.spec.kind, loaded.spec.label)
        exact_float32()  # TF32 off, whoever loaded the model
        self.loaded = loaded
        self.model = loaded.model
        self.tok = loaded.tokenizer
        self.settings = settings or ScorerSettings()
        if self.settings.bos and self.tok.bos_token_id is None:
            raise InputError(f"{loaded.spec.label} has no BOS token; score without --bos")
        self.pad_id = self.tok.pad_token_id if self.tok.pad_token_id is not None else self.tok.eos_token_id
        self.max_len = loaded.max_length
        self._token_text: dict[int, str] = {}
        self._bow_vectors: dict[tuple[int, str], torch.Tensor] = {}
        checks = ExactnessMemo(loaded.identity)
        self._together = Together(model_lock(self.model))  # concurrent sessions' calls
        self._head = _split_head(self.model, checks)
        self._tree_ok = self.settings.tree and checks.remember("tree", self._tree_is_exact)

    # ----- encoding (minicons' token boundaries) -----

    def encode(self, req: Request) -> Encoded:
        """Token ids and first scored index of one request (see encode_many)."""
        return self.encode_many([req])[0]

    def encode_many(self, requests: Sequence[Request]) -> list[Encoded]:
        """Token ids and first scored index, as minicons' sequence_score / conditional_score;
        texts are tokenized in one batch call, each distinct prefix once."""
        for req in requests:
            check_length(req)
        texts = [f"{r.prefix} {r.text}" if r.prefix else r.text for r in requests]
        full = self.tok(texts, add_special_tokens=False)["input_ids"] if texts else []
        prefixes = list(dict.fromkeys(r.prefix for r in requests if r.prefix))
        pre_ids = self.tok(prefixes)["input_ids"] if prefixes else []
        n_pre = {p: len(ids) if self.settings.bos else len(ids) - ids.count(self.pad_id)
                 for p, ids in zip(prefixes, pre_ids)}
        bos = (self.tok.bos_token_id,) if self.settings.bos else ()
        out = []
        for req, tokens in zip(requests, full):
            ids = (*bos, *tokens)
            if len(ids) > self.max_len:
                raise RequestError(f"text is {len(ids)} tokens; {self.loaded.spec.label} reads at most "
                                   f"{self.max_len}. Shorten it.", req)
            start = max(n_pre[req.prefix] + len(bos) if req.prefix else 1, 1)
            if start >= len(ids):
                raise RequestError(_nothing_to_score(req, len(ids), self.loaded.spec.label), req)
            out.append(Encoded(ids, start))
        return out

    @property
    def method(self) -> ScoringMethod:
        """Causal log-probabilities."""
        return ScoringMethod.CAUSAL

    def cache_identity(self) -> dict[str, object]:
        """Model identity plus the settings that change scores (for the score cache)."""
        return {**self.loaded.identity, **ScoringMethod.CAUSAL.identity(bos=self.settings.bos, bow=self.settings.bow)}

    @property
    def _bos_id(self) -> int | None:
        """The BOS id prepended to whole texts, or None."""
        return self.tok.bos_token_id if self.settings.bos else None

    def text_token_ids(self, text: str) -> tuple[int, ...]:
        """The ids a whole text tokenizes into (with BOS when it is on), scored or not."""
        return text_ids(self.tok, text, self._bos_id)

    def token_spans(self, text: str) -> tuple[Span, ...]:
        """The character span of each of `text_token_ids(text)` (BOS: (0, 0))."""
        return token_spans(self.tok, text, self._bos_id)

    def bow_scorer(self) -> CausalScorer:
        """The scorer with `bow` on: its scores pack the BOW log-masses after the log-probs
        (pfcore.scoring.words.unpack_bow), under their own cache identity."""
        return self if self.settings.bow else self._bow_twin

    @cached_property
    def _bow_twin(self) -> CausalScorer:
        """The BOW variant of this scorer, built once."""
        return CausalScorer(self.loaded, replace(self.settings, bow=True))

    @cached_property
    def _word_starts(self) -> np.ndarray:
        """Per vocabulary id, whether the token begins a word (decided once per tokenizer)."""
        return begins_word(self.tok)

    @cached_property
    def _extras(self) -> Extras:
        """What `score` computes beside the log-probs: the BOW masses for the BOW variant."""
        if not self.settings.bow:
            return Extras()
        return Extras(begins_word=frozenset(np.flatnonzero(self._word_starts).tolist()))

    def _bow_vector(self, size: int, device: torch.device) -> torch.Tensor:
        """The 0/1 vector over the output layer's `size` ids marking word-beginning tokens (made
        once per size and device)."""
        key = (size, str(device))
        if key not in self._bow_vectors:
            vector = torch.zeros(size, dtype=torch.float32)
            starts = torch.from_numpy(self._word_starts[:size])
            vector[:len(starts)] = starts.float()
            self._bow_vectors[key] = vector.to(device)
        return self._bow_vectors[key]

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """Readable token strings (spaces shown as spaces, not as byte markers), memoised per id."""
        memo = self._token_text
        for i in ids:
            if i not in memo:
                memo[i] = self.tok.decode([i])
        return tuple(memo[i] for i in ids)

    # ----- public API -----

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """Per-token scores for each request; identical requests are computed once. Without a
        progress report (a page's few sentences, not a run), the requests are scored together with
        those of other sessions waiting for the model (see pfcore.scoring.serial)."""
        if progress is None:
            return self._together.score(requests, self._score)
        return self._score(requests, progress)

    def _score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """Per-token scores for each request, scored now; identical requests are computed once."""
        unique = list(dict.fromkeys(requests))
        encoded = self.encode_many(unique)
        values = self.score_encoded(encoded, progress, self._extras)
        by_req = {r: self._result(e, v) for r, e, v in zip(unique, encoded, values)}
        return [by_req[r] for r in requests]

    def token_details(self, requests: Sequence[Request], top_k: int = 5) -> list[TokenDetails]:
        """Per scored token of each request: the entropy of its distribution and its `top_k` most
        likely tokens (not cached: computed by the model each time)."""
        values = self.score_encoded(self.encode_many(requests), None, Extras(entropy=True, top_k=top_k))
        return [TokenDetails(v.entropy / LN2, v.top_ids, v.top_logprobs) for v in values]

    def next_tokens(self, prefix: str, *, k: int = TOP_K) -> NextTokens:
        """The k most likely next tokens after `prefix`: one forward pass over the prefix's tokens
        (with BOS when it is on), the softmax over the whole vocabulary at its last position."""
        prefix = check_prefix(prefix, k)
        ids = self.text_token_ids(prefix)
        if len(ids) >= self.max_len:
            raise InputError(f"the prefix is {len(ids)} tokens; {self.loaded.spec.label} reads at most "
                             f"{self.max_len}. Shorten it.")
        logprobs = self._last_logprobs(ids)
        return top_tokens(prefix, logprobs, k=k, decode=lambda i: self.tok.decode([i]), begins=self._word_starts,
                          special=frozenset(self.tok.all_special_ids), end_of_text=self.tok.eos_token_id)

    @torch.inference_mode()
    def _last_logprobs(self, ids: Sequence[int]) -> np.ndarray:
        """log P(next token) over the whole vocabulary after a sequence of ids (float64)."""
        input_ids = torch.tensor([list(ids)], dtype=torch.long, device=self.model.device)
        if self._head is not None:
            base, head = self._head
            logits = head(base(input_ids=input_ids, use_cache=False).last_hidden_state[0, -1:])[0]
        else:
            logits = self.model(input_ids=input_ids, use_cache=False).logits[0, -1]
        return logits.float().log_softmax(-1).cpu().numpy().astype(np.float64)

    def sequence_logprobs(self, texts: Sequence[str], reduction: Reduction = Reduction.SUM) -> list[float]:
        """log P(sentence) reduced over its scored tokens."""
        return reduce_all(self.score([Request("", t) for t in texts]), reduction)

    def conditional_logprobs(self, prefixes: Sequence[str], texts: Sequence[str],
                             reduction: Reduction = Reduction.SUM) -> list[float]:
        """log P(text | prefix) reduced over the text's tokens (prefix and text joined by a space)."""
        if len(prefixes) != len(texts):
            raise InputError("prefixes and continuations must come in pairs")
        return reduce_all(self.score([Request(p, t) for p, t in zip(prefixes, texts)]), reduction)

    def _result(self, enc: Encoded, values: Values) -> TokenScores:
        """Wrap the scored part of one encoded request (with its BOW masses for the BOW variant)."""
        ids = enc.ids[enc.start:]
        if self.settings.bow:
            return pack_bow(ids, values.logprobs, values.bow_rows, values.bow, self.display_tokens)
        return TokenScores(ids, values.logprobs, self.display_tokens)

    # ----- engine -----

    def score_encoded(self, encoded: Sequence[Encoded], progress: Progress | None = None,
                      extras: Extras = Extras()) -> list[Values]:
        """What the output layer gives each encoded request, in order."""
        return self._score_encoded(encoded, self._tree_ok, progress, extras)

    def _score_encoded(self, encoded: Sequence[Encoded], tree: bool, progress: Progress | None = None,
                       extras: Extras = Extras()) -> list[Values]:
        """Pack (or not), batch within the token budget, halve the budget on out-of-memory."""
        order = sorted(range(len(encoded)), key=lambda i: encoded[i].ids)
        tail = extras.begins_word is not None
        packs = _make_packs([encoded[i] for i in order], self.settings.pack_tokens if tree else 0, tail)
        out: list[Values] = [Values(NO_VALUES)] * len(encoded)
        done, budget = 0, self.settings.batch_tokens
        batches = _batches(packs, budget)
        while batches:
            batch = batches.pop(0)
            try:
                results = self._run_batch(batch, tree, extras)
            except (RuntimeError, MemoryError) as exc:
                if not out_of_memory(exc):
                    raise
                if budget <= 64:
                    raise InputError(f"out of memory scoring a batch of {budget} tokens with {self.loaded.spec.label}; "
                                     "shorten the texts or use a smaller model (nothing of it was cached)") from exc
                budget //= 2
                log.warning("out of memory: halving the batch to %d tokens and going on", budget)
                batches = _batches(batch, budget) + batches
                continue
            for pack, values in zip(batch, results):
                for local, vals in zip(pack.members, values):
                    out[order[local]] = vals
                done += len(pack.members)
            if progress:
                progress(done, len(encoded))
        return out

    @torch.inference_mode()
    def _run_batch(self, packs: list[Pack], tree: bool, extras: Extras) -> list[list[Values]]:
        """One forward pass over packed trees; returns what each member asked for."""
        dev = self.model.device
        width = max(len(p.tokens) for p in packs)
        ids = _padded([p.tokens for p in packs], width, self.pad_id or 0)  # padding is masked out: any id does
        if tree:  # position ids: each node's depth in its tree (padding gets position 0)
            kwargs = {"attention_mask": _additive(_tree_mask(packs, width).to(dev), self.model.dtype),
                      "position_ids": _padded([p.depths for p in packs], width).to(dev)}
        else:
            lengths = torch.tensor([len(p.tokens) for p in packs])
            kwargs = {"attention_mask": (torch.arange(width) < lengths[:, None]).long().to(dev)}
        queries = [p.queries for p in packs]
        index_b = torch.from_numpy(np.repeat(np.arange(len(packs)), [len(q) for q in queries]))
        index_q = torch.from_numpy(np.concatenate(queries).astype(np.int64))
        picks = _Picks.of(packs, extras.begins_word)
        with model_lock(self.model):  # one forward pass at a time per model, first come first served
            flat = self._target_logprobs(ids.to(dev), kwargs, index_b.to(dev), index_q.to(dev), picks, extras)
        members = iter(flat.split(picks))
        return [[next(members) for _ in p.member_slices] for p in packs]

    def _target_logprobs(self, ids: torch.Tensor, kwargs: dict, b: torch.Tensor, q: torch.Tensor,
                         picks: _Picks, extras: Extras) -> _Flat:
        """log P(target) at each picked (query row, target), and the extras asked for: the output
        layer and log-softmax run only at the query positions, a slice of rows at a time, so no
        vocabulary-wide buffer for the whole batch is ever made (at 49k words, one for 4,000 rows
        is 800 MB); the BOW mass is one product with a 0/1 vector, at the rows that need it."""
        if self._head is not None:
            base, head = self._head
            hidden = base(input_ids=ids, use_cache=False, **kwargs).last_hidden_state
        else:
            head = torch.nn.Identity()
            hidden = self.model(input_ids=ids, use_cache=False, **kwargs).logits
        dev = hidden.device  # the last layer's: where a layer map across devices leaves the outputs
        at_queries = hidden[b.to(dev), q.to(dev)]
        rows, tokens, bow_rows = picks.tensors(dev)
        out = torch.empty(len(picks.rows), dtype=torch.float32, device=dev)
        bow = torch.empty(len(picks.bow_rows), dtype=torch.float32, device=dev)
        stats = _RowStats.empty(len(at_queries), extras, dev)
        for start in range(0, len(at_queries), HEAD_ROWS):
            logits = head(at_queries[start:start + HEAD_ROWS]).float().to(dev)  # a no-op on one device
            lse = logits.logsumexp(-1)  # as minicons: log P = logit - logsumexp(logits)
            sel = (rows >= start) & (rows < start + HEAD_ROWS)
            local = rows[sel] - start
            out[sel] = logits[local, tokens[sel]] - lse[local]
            at = (bow_rows >= start) & (bow_rows < start + HEAD_ROWS)
            if at.any():
                local = bow_rows[at] - start
                probs = (logits[local] - lse[local, None]).exp()
                bow[at] = (probs @ self._bow_vector(logits.shape[-1], dev)).log()
            stats.fill(start, logits, lse, extras)
        return _Flat(out.cpu().numpy().astype(np.float64), bow.cpu().numpy().astype(np.float64),
                     stats.at(rows))

    def _tree_is_exact(self) -> bool:
        """Check once that packing two branches gives the plain forward pass's numbers."""
        a = self.tok("The cat sat on the mat", add_special_tokens=False)["input_ids"][:6]
        b = a[:3] + self.tok(" a dog barked", add_special_tokens=False)["input_ids"][:3]
        probe = [Encoded(tuple(a), 1), Encoded(tuple(b), 1)]
        try:
            packed = self._score_encoded(probe, tree=True)
        except Exception as exc:  # noqa: BLE001 - any failure means: do not pack for this model
            log.info("tree packing unsupported for this model (%s); scoring rows", exc)
            return False
        plain = self._score_encoded(probe, tree=False)
        exact = all(np.allclose(x.logprobs, y.logprobs, atol=1e-4) for x, y in zip(packed, plain))
        if not exact:
            log.info("tree packing differs from plain scoring for this model; scoring rows")
        return exact


def _nothing_to_score(req: Request, n_tokens: int, label: str) -> str:
    """Why a request has no scored token, and what to do."""
    if req.prefix:
        return (f"the continuation {req.text!r} adds no token after its prefix in {label}'s "
                "tokenization; give a longer continuation")
    return (f"{req.text!r} is {n_tokens} token in {label}'s tokenization, and without a BOS token the "
            "first token has nothing to predict it, so nothing is left to score. Give a longer text, "
            "or --bos with a model that has a BOS token.")


@dataclass
class _Picks:
    """The (query row, target token) pairs a batch needs, member after member, with each
    member's count; and the query rows that need a BOW mass, with each one's place in its member
    (k: before scored token k, n: after the last token) and each member's count of them."""

    rows: list[int] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    bow_rows: list[int] = field(default_factory=list)
    bow_places: list[int] = field(default_factory=list)
    bow_sizes: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, packs: list[Pack], begins_word: frozenset[int] | None = None) -> _Picks:
        """Flatten the packs' member slices, numbering query rows across the whole batch; BOW rows
        are those whose target begins a word, and each member's tail (when `begins_word` is given)."""
        picks = cls()
        offset = 0
        for p in packs:
            for (query_rows, targets), tail in zip(p.member_slices, p.tails):
                picks.rows += [offset + r for r in query_rows]
                picks.tokens += targets
                picks.sizes.append(len(targets))
                if begins_word is not None:
                    places = [k for k, t in enumerate(targets) if t in begins_word]
                    picks.bow_rows += [offset + query_rows[k] for k in places] + [offset + tail]
                    picks.bow_places += [*places, len(targets)]
                    picks.bow_sizes.append(len(places) + 1)
            offset += len(p.queries)
        return picks


    def tensors(self, device: torch.device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The query rows, target tokens and BOW rows as long tensors on `device` (through numpy:
        a list becomes a tensor several times faster so)."""
        return tuple(torch.from_numpy(np.asarray(x, dtype=np.int64)).to(device)  # type: ignore[return-value]
                     for x in (self.rows, self.tokens, self.bow_rows))


@dataclass(frozen=True)
class _RowStats:
    """Entropy (nats) and top-k ids and log-probs of each query row of a batch, when asked."""

    entropy: torch.Tensor
    top_ids: torch.Tensor
    top_logprobs: torch.Tensor

    @classmethod
    def empty(cls, n_rows: int, extras: Extras, device: torch.device) -> _RowStats:
        """Room for the rows' statistics (none unless `extras` asks)."""
        rows = n_rows if extras.entropy or extras.top_k else 0
        return cls(torch.zeros(rows, device=device),
                   torch.zeros((rows, extras.top_k), dtype=torch.long, device=device),
                   torch.zeros((rows, extras.top_k), device=device))

    def fill(self, start: int, logits: torch.Tensor, lse: torch.Tensor, extras: Extras) -> None:
        """Compute the statistics of one slice of rows from its logits."""
        if not len(self.entropy):
            return
        logprobs = logits - lse[:, None]
        end = start + len(logits)
        self.entropy[start:end] = torch.special.entr(logprobs.exp()).sum(-1)
        if extras.top_k:
            values, ids = logprobs.topk(min(extras.top_k, logits.shape[-1]), dim=-1)
            self.top_ids[start:end, :ids.shape[1]] = ids
            self.top_logprobs[start:end, :ids.shape[1]] = values

    def at(self, rows: torch.Tensor) -> _RowStats:
        """The statistics of the given rows (one per picked target), on the CPU."""
        if not len(self.entropy):
            return self
        return _RowStats(self.entropy[rows].cpu(), self.top_ids[rows].cpu(), self.top_logprobs[rows].cpu())


@dataclass(frozen=True)
class _Flat:
    """A batch's output-layer values, flat over its members (see _Picks)."""

    logprobs: np.ndarray
    bow: np.ndarray
    stats: _RowStats

    def split(self, picks: _Picks) -> list[Values]:
        """One Values per member, in the order of `picks` (fields not asked for keep defaults)."""
        cuts = np.cumsum(picks.sizes)[:-1]
        fields: dict[str, list[np.ndarray]] = {"logprobs": np.split(self.logprobs, cuts)}
        if picks.bow_sizes:
            bow_cuts = np.cumsum(picks.bow_sizes)[:-1]
            fields["bow_rows"] = np.split(np.asarray(picks.bow_places, dtype=np.int64), bow_cuts)
            fields["bow"] = np.split(self.bow, bow_cuts)
        if len(self.stats.entropy):
            fields["entropy"] = np.split(self.stats.entropy.numpy().astype(np.float64), cuts)
            fields["top_ids"] = np.split(self.stats.top_ids.numpy(), cuts)
            fields["top_logprobs"] = np.split(self.stats.top_logprobs.numpy().astype(np.float64), cuts)
        return [Values(**dict(zip(fields, values))) for values in zip(*fields.values())]


@dataclass
class Pack:
    """A prefix tree of requests laid out as one sequence (parents before children)."""

    tokens: list[int]
    parents: list[int]
    depths: list[int]
    members: list[int]  # indices of the requests (in sorted order) it answers
    queries: list[int]  # node positions whose next-token distribution is needed
    member_slices: list[tuple[list[int], list[int]]]  # per member: query rows, target token ids
    tails: list[int]  # per member: the query row after its last token (-1: not asked for)


def _make_packs(encoded: Sequence[Encoded], pack_tokens: int, tail: bool = False) -> list[Pack]:
    """Group sorted requests into prefix trees of at most `pack_tokens` nodes (0: one per request);
    with `tail`, each request also queries the row after its last token."""
    packs: list[Pack] = []
    current: list[tuple[int, Encoded, int]] = []
    size = 0
    for i, enc in enumerate(encoded):
        shared = _common_prefix(current[-1][1].ids, enc.ids) if current else 0
        if current and (pack_tokens == 0 or size + len(enc.ids) - shared > pack_tokens):
            packs.append(_build_pack(current, tail))
            current, size, shared = [], 0, 0
        current.append((i, enc, shared))
        size += len(enc.ids) - shared
    if current:
        packs.append(_build_pack(current, tail))
    return packs


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the shared leading run of two id sequences."""
    low, high = 0, min(len(a), len(b))  # a[:low] == b[:low]; a[:high + 1] != b[:high + 1]
    while low < high:  # by halves, each comparison of slices in C
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _build_pack(members: list[tuple[int, Encoded, int]], tail: bool = False) -> Pack:
    """Lay requests out as a prefix tree, each given with the number of leading ids it shares with
    the one before it (in sorted order, no earlier request shares more, so its shared part is the
    previous one's path): new nodes only for the rest. Records, per request, which node predicts
    which token (and, with `tail`, the row after its last token)."""
    pack = Pack([], [], [], [], [], [], [])
    query_row: dict[int, int] = {}
    path: list[int] = []
    for index, enc, shared in members:
        del path[shared:]
        first, added = len(pack.tokens), len(enc.ids) - shared
        pack.tokens += enc.ids[shared:]
        pack.parents += [path[-1] if path else -1, *range(first, first + added - 1)][:added]
        pack.depths += range(shared, len(enc.ids))
        path += range(first, first + added)
        rows = _rows_of(path[enc.start - 1:-1], query_row, pack.queries)
        pack.members.append(index)
        pack.member_slices.append((rows, list(enc.ids[enc.start:])))
        pack.tails.append(_rows_of(path[-1:], query_row, pack.queries)[0] if tail else -1)
    return pack


def _rows_of(nodes: list[int], query_row: dict[int, int], queries: list[int]) -> list[int]:
    """The query row of each node, a node new to `query_row` added to `queries` on first use."""
    rows = []
    for node in nodes:
        row = query_row.get(node)
        if row is None:
            row = query_row[node] = len(queries)
            queries.append(node)
        rows.append(row)
    return rows


def _batches(packs: list[Pack], budget: int) -> list[list[Pack]]:
    """Split packs (already length-sorted by construction) into padded batches within `budget`."""
    batches: list[list[Pack]] = []
    current: list[Pack] = []
    width = 0
    for p in sorted(packs, key=lambda p: len(p.tokens)):
        new_width = max(width, len(p.tokens))
        if current and new_width * (len(current) + 1) > budget:
            batches.append(current)
            current, new_width = [], len(p.tokens)
        current.append(p)
        width = new_width
    if current:
        batches.append(current)
    return batches


def _padded(rows: list[list[int]], width: int, fill: int = 0) -> torch.Tensor:
    """Rows of ids as one long tensor, each row padded with `fill` to `width`."""
    out = np.full((len(rows), width), fill, dtype=np.int64)
    for b, row in enumerate(rows):
        out[b, :len(row)] = row
    return torch.from_numpy(out)


def _tree_mask(packs: list[Pack], width: int) -> torch.Tensor:
    """4-D mask of what each node may attend to: itself and its ancestors; padding itself. Built a
    depth at a time (parents come before children): each node's row is its parent's, plus itself.
    Boolean, so that the 4-times larger additive mask is made where the model is (`_additive`)."""
    allowed = np.zeros((len(packs), width, width), dtype=bool)
    at = np.arange(width)
    allowed[:, at, at] = True
    pack = np.concatenate([np.full(len(p.parents), b) for b, p in enumerate(packs)])
    node = np.concatenate([np.arange(len(p.parents)) for p in packs])
    parent = np.concatenate([np.asarray(p.parents, dtype=np.int64) for p in packs])
    depth = np.concatenate([np.asarray(p.depths, dtype=np.int64) for p in packs])
    for d in range(1, int(depth.max(initial=0)) + 1):
        level = (depth == d) & (parent >= 0)
        b, i = pack[level], node[level]
        allowed[b, i] = allowed[b, parent[level]]
        allowed[b, i, i] = True
    return torch.from_numpy(allowed)[:, None]


def _additive(allowed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The additive attention mask of a boolean one: 0 where attending is allowed, the dtype's
    lowest value elsewhere."""
    return torch.where(allowed, torch.zeros((), dtype=dtype, device=allowed.device),
                       torch.tensor(torch.finfo(dtype).min, dtype=dtype, device=allowed.device))


def _split_head(model: Any, checks: ExactnessMemo) -> tuple[torch.nn.Module, torch.nn.Module] | None:
    """(body, output layer) when logits are exactly head(last hidden state), else None."""
    head = model.get_output_embeddings()
    base = getattr(model, "base_model", None)
    cfg = model.config
    if head is None or base is None or base is model:
        return None
    if getattr(cfg, "final_logit_softcapping", None) or getattr(cfg, "logit_scale", None) not in (None, 1, 1.0):
        return None

    def exact() -> bool:
        with torch.inference_mode():
            ids = torch.arange(2, 8).unsqueeze(0).to(model.device) % cfg.vocab_size
            full = model(input_ids=ids, use_cache=False).logits
            split = head(base(input_ids=ids, use_cache=False).last_hidden_state)
        return bool(torch.allclose(full, split, atol=1e-5))

    return (base, head) if checks.remember("head", exact) else None


class ExactnessMemo:
    """The outcomes of a model's exactness checks (head after body, tree packing), kept on disk per
    model identity, so a scorer for a model checked before is built without forward passes."""

    def __init__(self, identity: dict[str, object]) -> None:
        self.key = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()
        self.memo = JsonMemo("scorer-checks.json")

    def remember(self, name: str, check: Callable[[], bool]) -> bool:
        """The check's stored outcome for this model, or its outcome now (then stored)."""
        known = self.memo.read()
        entry = known.setdefault(self.key, {})
        if name not in entry:
            entry[name] = check()
            self.memo.write(known)
        return bool(entry[name])
