"""Benchmark: pfcore's causal scorer against minicons (the paper's scorer) on the same semantic
blocks, in one process, with pfcore's score cache off. pfcore scores the model as pfcore loads it
(the embedded model: its plain-torch Llama); minicons gets the same folder as transformers' Auto*
classes load it (its usual input; the two give the same logits to the bit). After one untimed call
of each, the two take turns for --rounds rounds (benchmarks/rounds.py); prints a table, then one JSON
line with each side's median rate and the median ratio with its range.

    python benchmarks/bench_scoring.py --blocks 20 [--rounds 3] [--model smollm2-135m-instruct-q4_1] [--device cuda]

Both sides run on --device (default auto: CUDA where torch sees it, else the CPU), in float32 with TF32 off.
"""
from __future__ import annotations

import argparse
import json

import numpy as np
import torch
from minicons import scorer as mscorer
from rounds import alternate, ratio_line, rounds_option
from transformers import AutoModelForCausalLM, AutoTokenizer

from pfcore.items import CONSTRUCTIONS, default_items
from pfcore.models import DEFAULT_MODEL, ModelSpec
from pfcore.models.spec import AUTO, resolve_device
from pfcore.scoring.causal import CausalScorer, _make_packs
from pfcore.scoring.models import load_model
from pfcore.scoring.requests import Request
from pfcore.suites import semantic

MINICONS_BATCH = 32  # the paper's batch size


def parse() -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--blocks", type=int, default=20, help="blocks per construction (8 rows x 2 fills each)")
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    p.add_argument("--device", default=AUTO, help="cpu, cuda or auto (default: CUDA where torch sees it)")
    rounds_option(p)
    return p.parse_args()


def minicons_scores(ref: mscorer.IncrementalLMScorer, prefixes: list[str], texts: list[str]) -> list[float]:
    """minicons conditional_score, batches of 32 in item order, summed log-probs."""
    out: list[float] = []
    for i in range(0, len(prefixes), MINICONS_BATCH):
        out += ref.conditional_score(prefixes[i:i + MINICONS_BATCH], texts[i:i + MINICONS_BATCH],
                                     reduction=lambda x: x.sum(0).item())
    return out


def pfcore_work(scorer: CausalScorer, prefixes: list[str], texts: list[str]) -> dict[str, int]:
    """What pfcore's scorer does with the pairs: unique requests, and tokens through the model
    without and with its prefix-tree packing."""
    unique = list(dict.fromkeys(zip(prefixes, texts)))
    encoded = [scorer.encode(Request(p, t)) for p, t in unique]
    packed = sum(len(p.tokens) for p in _make_packs(sorted(encoded, key=lambda e: e.ids),
                                                     scorer.settings.pack_tokens))
    return {"unique_requests": len(unique), "tokens_plain": sum(len(e.ids) for e in encoded),
            "tokens_packed": packed}


def main() -> None:
    """Score the same items both ways, in turns; report items/s, their ratio and the largest difference."""
    args = parse()
    if args.threads:
        torch.set_num_threads(args.threads)
    items = semantic.limit_blocks(default_items("semantic", list(CONSTRUCTIONS)), args.blocks)
    reqs = semantic.requests(items)
    prefixes, texts = [r.prefix for r in reqs], [r.text for r in reqs]
    device = resolve_device(args.device)
    loaded = load_model(ModelSpec(args.model, device=device))
    ours = CausalScorer(loaded)  # sets TF32 off, for both sides
    model = AutoModelForCausalLM.from_pretrained(loaded.source, dtype=torch.float32, use_safetensors=True).eval()
    ref = mscorer.IncrementalLMScorer(model, tokenizer=AutoTokenizer.from_pretrained(loaded.source), device=device)
    timed = alternate({"pfcore": lambda: ours.conditional_logprobs(prefixes, texts, "sum"),
                       "minicons": lambda: minicons_scores(ref, prefixes, texts)}, args.rounds, warm_up=True)
    diff = float(np.max(np.abs(np.array(timed.first["pfcore"]) - np.array(timed.first["minicons"]))))
    stats = pfcore_work(ours, prefixes, texts)
    n = len(reqs)
    speedup = timed.ratio("minicons", "pfcore")  # minicons' seconds over pfcore's: how much faster pfcore is
    print(f"model {args.model} on {device}; {args.blocks} blocks x {len(CONSTRUCTIONS)} constructions = "
          f"{n} (row, fill) items; torch threads {torch.get_num_threads()}; {args.rounds} rounds in turns")
    print(f"{'scorer':<10}{'median s':>10}{'items/s':>10}   items/s per round")
    for side in ("minicons", "pfcore"):
        print(f"{side:<10}{timed.median(side):>10.2f}{n / timed.median(side):>10.1f}   "
              + " ".join(f"{r:.1f}" for r in timed.rates(side, n)))
    print(ratio_line("pfcore's speed-up (minicons s / pfcore s, per round)", speedup))
    print(f"pfcore work: {stats['unique_requests']} unique requests; tokens through the model "
          f"{stats['tokens_packed']} packed vs {stats['tokens_plain']} unpacked")
    print(json.dumps({"pfcore_items_per_s": n / timed.median("pfcore"),
                      "minicons_items_per_s": n / timed.median("minicons"), **speedup,
                      "pfcore_items_per_s_rounds": timed.rates("pfcore", n),
                      "minicons_items_per_s_rounds": timed.rates("minicons", n),
                      "max_abs_diff": diff, "items": n, "device": device}))


if __name__ == "__main__":
    main()
