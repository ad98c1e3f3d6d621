"""Benchmark: words with the beginning-of-word correction against plain token scoring, on the same
sentences in one process (score cache off). Words = the BOW variant's pass (masses at word
boundaries and after each text) plus the alignment of tokens to words. Prints a table, then one
JSON line with `ratio` (words / tokens; the issue asks for at most 1.3).

    python benchmarks/bench_words.py [--sentences 1500] [--suites ../shared/data/syntaxgym/suites]
"""
from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from pfcore.items import CONSTRUCTIONS, default_items
from pfcore.models import DEFAULT_MODEL, ModelSpec, load_model
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.requests import Request
from pfcore.scoring.words import score_texts, unpack_bow
from pfcore.suites import semantic, syntaxgym


def parse() -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sentences", type=int, default=1500, help="distinct sentences to score")
    p.add_argument("--suites", help="take the sentences of these SyntaxGym suites (a file or folder) "
                   "instead of the shipped semantic items")
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--repeats", type=int, default=5, help="timed passes of each, taking turns (the fastest counts)")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    return p.parse_args()


def sentences(suites: str | None, n: int) -> list[str]:
    """Distinct whole sentences: SyntaxGym conditions, or the semantic contexts and follow-ups."""
    if suites:
        found = [r.text for s in syntaxgym.load_suites(Path(suites)) for r in syntaxgym.condition_requests(s)]
    else:
        items = default_items("semantic", list(CONSTRUCTIONS))
        found = [t for r in semantic.requests(items) for t in (r.prefix, r.text)]
    return list(dict.fromkeys(found))[:n]


def fastest(runs: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """The fastest of `repeats` timed calls of each, in seconds; the calls take turns, so a load
    from other processes weighs on both alike."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: min(found) for name, found in times.items()}


def main() -> None:
    """Time tokens and words on the same sentences; report their ratio and check the tokens agree."""
    args = parse()
    if args.threads:
        torch.set_num_threads(args.threads)
    texts = sentences(args.suites, args.sentences)
    requests = [Request("", t) for t in texts]
    loaded = load_model(ModelSpec(args.model))
    plain = CausalScorer(loaded)
    started = time.perf_counter()
    bow = plain.bow_scorer()
    bow.score(requests[:1])  # decide once which tokens begin a word (per tokenizer, not per call)
    setup_s = time.perf_counter() - started
    timed = fastest({"tokens": lambda: plain.score(requests), "words": lambda: score_texts(bow, requests)},
                    args.repeats)
    tokens_s, words_s = timed["tokens"], timed["words"]
    diff = max(float(np.max(np.abs(unpack_bow(b)[0].logprobs - p.logprobs)))
               for b, p in zip(bow.score(requests), plain.score(requests)))
    n_words = sum(len(t.split()) for t in texts)
    print(f"model {args.model}; {len(texts)} sentences, {n_words} words; torch threads {torch.get_num_threads()}; "
          f"fastest of {args.repeats}")
    print(f"{'what':<28}{'seconds':>10}{'sentences/s':>14}")
    print(f"{'tokens (plain scoring)':<28}{tokens_s:>10.2f}{len(texts) / tokens_s:>14.1f}")
    print(f"{'words (BOW-corrected)':<28}{words_s:>10.2f}{len(texts) / words_s:>14.1f}")
    print(f"which tokens begin a word (once per tokenizer): {setup_s:.2f} s")
    print(json.dumps({"model": args.model, "sentences": len(texts), "words": n_words, "tokens_s": round(tokens_s, 3),
                      "words_s": round(words_s, 3), "ratio": round(words_s / tokens_s, 3),
                      "setup_s": round(setup_s, 3), "max_abs_diff": diff}))


if __name__ == "__main__":
    main()
