"""Benchmark: the host side of pfcore's causal scorer, the work a GPU would wait on. The forward pass
and the output layer's vocabulary-wide arithmetic are replaced by a stand-in of negligible cost that
still turns the batch's picks into index tensors as the real pass does; everything else runs as in a
real run: tokenization, prefix-tree packing, batching, the batch's inputs (ids, tree mask, positions),
the output-layer gathers' indices and the split of the results back to requests. Times `score` on the
semantic suite's requests of --blocks blocks, --repeats times, and reports microseconds per request
(min and median) of wall time and of the process's CPU time (all its threads: the tokenizer's are
several; on a busy machine the CPU time is the steadier figure), with each stage's share from one
profiled pass.

    python benchmarks/bench_host_side.py [--blocks 20] [--repeats 7] [--model smollm2-135m-instruct-q4_1]
"""
from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import time

import numpy as np
import torch

from pfcore.items import CONSTRUCTIONS, default_items
from pfcore.models import DEFAULT_MODEL, ModelSpec
from pfcore.scoring import causal
from pfcore.scoring.causal import CausalScorer, Extras, _Flat, _Picks, _RowStats
from pfcore.scoring.models import load_model
from pfcore.scoring.requests import Request
from pfcore.suites import semantic

STAGES = {  # profiled function -> stage (cumulative time)
    "encode_many": "tokenization", "_make_packs": "packing", "_batches": "batching",
    "_run_batch": "batch inputs and gathers", "_result": "results per request",
}


def parse() -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--blocks", type=int, default=20, help="blocks per construction (8 rows x 2 fills each)")
    p.add_argument("--repeats", type=int, default=7, help="timed passes over the requests (min and median)")
    p.add_argument("--model", default=DEFAULT_MODEL, help="whose tokenizer and shape (its weights are not used)")
    return p.parse_args()


def stand_in(_ids: torch.Tensor, _kwargs: dict, _b: torch.Tensor, _q: torch.Tensor, picks: _Picks,
             extras: Extras) -> _Flat:
    """What the forward pass and the output layer give, as zeros of the right shapes, after the index
    tensors the real pass builds from the picks (its host-side share)."""
    rows, _tokens, _bow_rows = picks.tensors(torch.device("cpu"))
    return _Flat(np.zeros(len(rows)), np.zeros(len(picks.bow_rows)), _RowStats.empty(0, extras, rows.device))


def stages(scorer: CausalScorer, requests: list[Request]) -> dict[str, float]:
    """Seconds per stage of one profiled pass (the profiler slows it; shares, not times, count)."""
    profile = cProfile.Profile()
    profile.runcall(scorer.score, requests, lambda *_: None)
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    found = {stage: 0.0 for stage in STAGES.values()}
    for (_file, _line, name), (_cc, _nc, _tt, cumulative, _callers) in stats.items():
        if name in STAGES:
            found[STAGES[name]] += cumulative
    return found


def main() -> None:
    """Time the host side per request; print a line per pass, the stages' shares and one JSON line."""
    args = parse()
    torch.set_num_threads(1)
    items = semantic.limit_blocks(default_items("semantic", list(CONSTRUCTIONS)), args.blocks)
    requests = list(dict.fromkeys(semantic.requests(items)))
    scorer = CausalScorer(load_model(ModelSpec(args.model)))  # its exactness checks run on the real model
    scorer._target_logprobs = stand_in  # type: ignore[method-assign]
    scorer.score(requests, lambda *_: None)  # warm: token texts, tokenizer caches
    seconds, cpu_seconds = [], []
    for _ in range(args.repeats):
        started, cpu_started = time.perf_counter(), time.process_time()
        scorer.score(requests, lambda *_: None)
        seconds.append(time.perf_counter() - started)
        cpu_seconds.append(time.process_time() - cpu_started)
    per_request = [s / len(requests) * 1e6 for s in seconds]
    cpu_per_request = [s / len(requests) * 1e6 for s in cpu_seconds]
    shares = stages(scorer, requests)
    total = sum(shares.values())
    print(f"{len(requests)} distinct requests ({args.blocks} blocks x {len(CONSTRUCTIONS)} constructions); "
          f"pack {scorer.settings.pack_tokens} tokens, batch {scorer.settings.batch_tokens}; "
          f"head rows {causal.HEAD_ROWS}")
    print("µs per request per pass: " + " ".join(f"{x:.1f}" for x in per_request))
    print(f"wall: min {min(per_request):.1f} µs, median {statistics.median(per_request):.1f} µs per request; "
          f"CPU: min {min(cpu_per_request):.1f} µs, median {statistics.median(cpu_per_request):.1f} µs")
    print("profiled shares: " + ", ".join(f"{k} {v / total:.0%}" for k, v in shares.items()))
    print(json.dumps({"requests": len(requests), "us_per_request_min": min(per_request),
                      "us_per_request_median": statistics.median(per_request), "us_per_request": per_request,
                      "cpu_us_per_request_min": min(cpu_per_request),
                      "cpu_us_per_request_median": statistics.median(cpu_per_request),
                      "stage_shares": {k: v / total for k, v in shares.items()}}))


if __name__ == "__main__":
    main()
