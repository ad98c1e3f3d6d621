"""Benchmark: words with the beginning-of-word correction against plain token scoring, on the same
sentences in one process (score cache off). Words = the BOW variant's pass (masses at word
boundaries and after each text) plus the alignment of tokens to words. After one untimed pass of
each, the two take turns for --rounds rounds (benchmarks/rounds.py). Prints a table, then one JSON
line with each side's median seconds and `ratio` (words / tokens, the median per round, with its
range; the issue asks for at most 1.3).

    python benchmarks/bench_words.py [--sentences 1500] [--rounds 3] [--suites DIR]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from rounds import alternate, ratio_line, rounds_option

from pfcore.items import CONSTRUCTIONS, default_items
from pfcore.models import DEFAULT_MODEL, ModelSpec
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.models import load_model
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
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    rounds_option(p)
    return p.parse_args()


def sentences(suites: str | None, n: int) -> list[str]:
    """Distinct whole sentences: SyntaxGym conditions, or the semantic contexts and follow-ups."""
    if suites:
        found = [r.text for s in syntaxgym.load_suites(Path(suites)) for r in syntaxgym.condition_requests(s)]
    else:
        items = default_items("semantic", list(CONSTRUCTIONS))
        found = [t for r in semantic.requests(items) for t in (r.prefix, r.text)]
    return list(dict.fromkeys(found))[:n]


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
    timed = alternate({"tokens": lambda: plain.score(requests), "words": lambda: score_texts(bow, requests)},
                      args.rounds, warm_up=True)
    tokens_s, words_s = timed.median("tokens"), timed.median("words")
    ratio = timed.ratio("words", "tokens")
    diff = max(float(np.max(np.abs(unpack_bow(b)[0].logprobs - p.logprobs)))
               for b, p in zip(bow.score(requests), plain.score(requests)))
    n_words = sum(len(t.split()) for t in texts)
    print(f"model {args.model}; {len(texts)} sentences, {n_words} words; torch threads {torch.get_num_threads()}; "
          f"{args.rounds} rounds in turns")
    print(f"{'what':<28}{'median s':>10}{'sentences/s':>14}   seconds per round")
    for side, label in (("tokens", "tokens (plain scoring)"), ("words", "words (BOW-corrected)")):
        print(f"{label:<28}{timed.median(side):>10.2f}{len(texts) / timed.median(side):>14.1f}   "
              + " ".join(f"{t:.2f}" for t in timed.seconds[side]))
    print(ratio_line("words / tokens (seconds, per round)", ratio))
    print(f"which tokens begin a word (once per tokenizer): {setup_s:.2f} s")
    print(json.dumps({"model": args.model, "sentences": len(texts), "words": n_words, "tokens_s": round(tokens_s, 3),
                      "words_s": round(words_s, 3), **ratio, "tokens_s_rounds": timed.seconds["tokens"],
                      "words_s_rounds": timed.seconds["words"], "setup_s": round(setup_s, 3),
                      "max_abs_diff": diff}))


if __name__ == "__main__":
    main()
