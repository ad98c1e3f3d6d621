"""Score requests through the persistent cache: served from it when present, and written to it
chunk by chunk, so that a rerun is instant and an interrupted run loses at most one chunk."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from pfcore.models.spec import ModelSpec
from pfcore.scoring.requests import Request, TokenScores
from pfcore.store.cache import ScoreCache, namespace, request_key

Progress = Callable[[int, int], None]
CHUNK = 2048  # requests scored between two commits to the cache


class RequestScorer(Protocol):
    """What the cache needs of a scorer (causal and masked scorers both provide it)."""

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]: ...

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]: ...

    def cache_identity(self) -> dict[str, object]: ...


def weights_fingerprint(source: str) -> str:
    """Sizes and times of the weight files of a local model folder ('' for hub ids)."""
    folder = Path(source)
    if not folder.is_dir():
        return ""
    files = sorted(folder.glob("*.safetensors"))
    return ";".join(f"{f.name}:{f.stat().st_size}:{int(f.stat().st_mtime)}" for f in files)


def model_identity(spec: ModelSpec, source: str) -> dict[str, object]:
    """What identifies a model's numbers: its spec, where it loads (or loaded) from, and its
    weight files; `resolve_source` gives the source without loading the model."""
    return {"name": spec.name, "revision": spec.revision, "dtype": spec.dtype, "kind": spec.kind,
            "source": source, "weights": weights_fingerprint(source)}


def score_cached(scorer: RequestScorer, requests: Sequence[Request], cache: ScoreCache | None,
                 progress: Progress | None = None, chunk: int = CHUNK) -> list[TokenScores]:
    """Per-token scores for each request; cached ones are read, the rest scored and stored."""
    if cache is None:
        return scorer.score(requests, progress)
    ns = namespace(scorer.cache_identity())
    unique = list(dict.fromkeys(requests))
    keys = {r: request_key(ns, r.prefix, r.text) for r in unique}
    found = cache.get_many(list(keys.values()))
    results = {r: _from_cache(scorer, *found[keys[r]]) for r in unique if keys[r] in found}
    todo = [r for r in unique if r not in results]
    total, base = len(unique), len(results)
    if progress:
        progress(base, total)
    for start in range(0, len(todo), chunk):
        part = todo[start:start + chunk]
        offset = base + start
        scored = scorer.score(part, (lambda d, _t: progress(offset + d, total)) if progress else None)
        cache.put_many((keys[r], s.token_ids, s.logprobs) for r, s in zip(part, scored))
        results.update(zip(part, scored))
    return [results[r] for r in requests]


def _from_cache(scorer: RequestScorer, ids: tuple[int, ...], logprobs: np.ndarray) -> TokenScores:
    """Rebuild a TokenScores from cached ids and log-probs."""
    return TokenScores(ids, logprobs, scorer.display_tokens)
