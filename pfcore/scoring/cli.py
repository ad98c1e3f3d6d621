"""`python -m pfcore score`: per-token log-probs and surprisals of one text, as a table or JSON."""
from __future__ import annotations

import argparse
import json

from pfcore.cli_common import add_model_args, spec_from_args
from pfcore.errors import InputError
from pfcore.models.loading import load_model
from pfcore.scoring.causal import CausalScorer, ScorerSettings
from pfcore.scoring.requests import Request, TokenScores, check_length, finite
from pfcore.store.cache import ScoreCache, score_cached


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `score` sub-command."""
    p = sub.add_parser("score", help="score a continuation given a prefix, or one sentence",
                       description="log P(CONTINUATION | PREFIX), or of one sentence with --sentence")
    p.add_argument("prefix", nargs="?", help="the context the continuation is conditioned on")
    p.add_argument("continuation", nargs="?", help="the text whose tokens are scored")
    p.add_argument("--sentence", help="score this whole sentence instead (first token unscored "
                   "unless --bos)")
    p.add_argument("--bos", action="store_true", help="prepend BOS so the first token is scored too")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the score cache")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_model_args(p, kind=False)
    p.set_defaults(func=run)


def request_from_args(args: argparse.Namespace) -> Request:
    """Either --sentence or PREFIX and CONTINUATION, never both, never neither."""
    if args.sentence is not None:
        if args.prefix or args.continuation:
            raise InputError("give either --sentence S or PREFIX CONTINUATION, not both")
        request = Request("", args.sentence)
    elif args.prefix is None or args.continuation is None:
        raise InputError("give PREFIX and CONTINUATION, or --sentence S")
    elif not args.prefix.strip():
        raise InputError("empty prefix: use --sentence to score a text on its own")
    else:
        request = Request(args.prefix, args.continuation)
    check_length(request)
    return request


def as_json(model: str, req: Request, scores: TokenScores, bos: bool) -> dict[str, object]:
    """The JSON object of one scored request."""
    return {
        "model": model,
        "prefix": req.prefix or None,
        "continuation": req.text,
        "tokens": list(scores.tokens),
        "logprobs": [float(x) for x in scores.logprobs],
        "surprisals_bits": [float(x) for x in scores.surprisals_bits],
        "sum_logprob": finite(scores.reduce("sum")),
        "mean_logprob": finite(scores.reduce("mean")),
        "first_token_policy": "bos" if bos else ("scored after prefix" if req.prefix
                                                 else "first token unscored (no BOS)"),
    }


def table(scores: TokenScores) -> str:
    """A plain-text per-token table with totals."""
    lines = [f"{'token':<20} {'logprob':>10} {'surprisal(bits)':>16}"]
    for tok, lp, bits in zip(scores.tokens, scores.logprobs, scores.surprisals_bits):
        lines.append(f"{tok!r:<20} {lp:>10.4f} {bits:>16.4f}")
    lines.append(f"sum logprob {scores.reduce('sum'):.4f}   mean logprob {scores.reduce('mean'):.4f}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Load the model, score the request (through the cache), print it."""
    req = request_from_args(args)
    loaded = load_model(spec_from_args(args))
    scorer = CausalScorer(loaded, ScorerSettings(bos=args.bos))
    cache = None if args.no_cache else ScoreCache()
    scores = score_cached(scorer, [req], cache)[0]
    if args.json:
        print(json.dumps(as_json(loaded.spec.label, req, scores, args.bos), allow_nan=False))
    else:
        print(table(scores))
    return 0
