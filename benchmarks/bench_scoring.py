"""Benchmark: pfcore's causal scorer against minicons (the paper's scorer) on the same semantic
blocks, in one process, with pfcore's score cache off. Prints a table, then one JSON line.

    python benchmarks/bench_scoring.py --blocks 20 [--model smollm2-135m-instruct-q4_1]
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch
from minicons import scorer as mscorer

from pfcore.items import CONSTRUCTIONS, default_items
from pfcore.models import DEFAULT_MODEL, ModelSpec, load_model
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.requests import Request
from pfcore.suites import semantic

MINICONS_BATCH = 32  # the paper's batch size


def parse() -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--blocks", type=int, default=20, help="blocks per construction (8 rows x 2 fills each)")
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    return p.parse_args()


def time_minicons(loaded, prefixes: list[str], texts: list[str]) -> tuple[list[float], float]:
    """minicons conditional_score, batches of 32 in item order, summed log-probs."""
    ref = mscorer.IncrementalLMScorer(loaded.model, tokenizer=loaded.tokenizer, device="cpu")
    out: list[float] = []
    start = time.perf_counter()
    for i in range(0, len(prefixes), MINICONS_BATCH):
        out += ref.conditional_score(prefixes[i:i + MINICONS_BATCH], texts[i:i + MINICONS_BATCH],
                                     reduction=lambda x: x.sum(0).item())
    return out, time.perf_counter() - start


def time_pfcore(loaded, prefixes: list[str], texts: list[str]) -> tuple[list[float], float, dict]:
    """pfcore's scorer on the same pairs (dedupe, prefix trees, head only where needed)."""
    scorer = CausalScorer(loaded)
    start = time.perf_counter()
    values = scorer.conditional_logprobs(prefixes, texts, "sum")
    elapsed = time.perf_counter() - start
    unique = list(dict.fromkeys(zip(prefixes, texts)))
    encoded = [scorer.encode(Request(p, t)) for p, t in unique]
    from pfcore.scoring.causal import _make_packs
    packed = sum(len(p.tokens) for p in _make_packs(sorted(encoded, key=lambda e: e.ids),
                                                     scorer.settings.pack_tokens))
    stats = {"unique_requests": len(unique), "tokens_plain": sum(len(e.ids) for e in encoded),
             "tokens_packed": packed}
    return values, elapsed, stats


def main() -> None:
    """Score the same items both ways and report items/s, their ratio and the largest difference."""
    args = parse()
    if args.threads:
        torch.set_num_threads(args.threads)
    items = semantic.limit_blocks(default_items("semantic", list(CONSTRUCTIONS)), args.blocks)
    reqs = semantic.requests(items)
    prefixes, texts = [r.prefix for r in reqs], [r.text for r in reqs]
    loaded = load_model(ModelSpec(args.model))
    ours, t_ours, stats = time_pfcore(loaded, prefixes, texts)
    theirs, t_theirs = time_minicons(loaded, prefixes, texts)
    diff = float(np.max(np.abs(np.array(ours) - np.array(theirs))))
    n = len(reqs)
    print(f"model {args.model}; {args.blocks} blocks x {len(CONSTRUCTIONS)} constructions = "
          f"{n} (row, fill) items; torch threads {torch.get_num_threads()}")
    print(f"{'scorer':<10}{'seconds':>10}{'items/s':>10}")
    print(f"{'minicons':<10}{t_theirs:>10.2f}{n / t_theirs:>10.1f}")
    print(f"{'pfcore':<10}{t_ours:>10.2f}{n / t_ours:>10.1f}")
    print(f"pfcore work: {stats['unique_requests']} unique requests; tokens through the model "
          f"{stats['tokens_packed']} packed vs {stats['tokens_plain']} unpacked")
    print(json.dumps({"pfcore_items_per_s": n / t_ours, "minicons_items_per_s": n / t_theirs,
                      "ratio": t_theirs / t_ours, "max_abs_diff": diff, "items": n}))


if __name__ == "__main__":
    main()
