"""`python -m pfcore score`: per-token log-probs and surprisals of one text (with its words, the
entropy and the most likely tokens on request), or the long word or region table of a stimuli
file; for one model or several, as a table, CSV or JSON. Scores go through the score cache, and a
rerun served from it loads the tokenizer alone, not the model."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from pfcore.cli.common import (
    add_model_args,
    json_rows,
    positive_int,
    print_envelope,
    progress_bar,
    specs_from_args,
)
from pfcore.errors import InputError
from pfcore.files import check_writable_file, write_output
from pfcore.models.spec import ModelSpec
from pfcore.names import Reduction
from pfcore.scoring.factory import LazyScorer
from pfcore.scoring.kinds import kind_of
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import Request, RequestScorer, TokenScores, check_length, finite
from pfcore.scoring.words import ScoredText, score_texts
from pfcore.store.cache import ScoreCache, through_cache
from pfcore.views.stimuli import Level, read_stimuli_file, stimuli_table

TOP_K = 5


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `score` sub-command."""
    p = sub.add_parser("score", help="score a continuation given a prefix, one sentence, or a stimuli file",
                       description="log P(CONTINUATION | PREFIX), of one sentence with --sentence, or the "
                       "long word/region table of a stimuli file with --file")
    p.add_argument("prefix", nargs="?", help="the context the continuation is conditioned on")
    p.add_argument("continuation", nargs="?", help="the text whose tokens are scored")
    p.add_argument("--sentence", help="score this whole sentence instead (first token unscored "
                   "unless --bos)")
    p.add_argument("--file", help="a stimuli CSV (a 'sentence' column, other columns carried through), "
                   "SyntaxGym's long CSV or a SyntaxGym suite JSON: one row per word or region")
    p.add_argument("--words", action="store_true", help="per word: surprisal with and without the "
                   "beginning-of-word correction (the default for a stimuli CSV)")
    p.add_argument("--regions", action="store_true", help="with --file: per SyntaxGym region, summed "
                   "over its words (the default for SyntaxGym files)")
    p.add_argument("--corrected", action=argparse.BooleanOptionalAction, default=True,
                   help="words' surprisal_bits with the beginning-of-word correction (default); "
                   "--no-corrected skips it and reports the plain token sums there")
    p.add_argument("--entropy", action="store_true", help="add the entropy of each token's distribution")
    p.add_argument("--top-k", type=positive_int, nargs="?", const=TOP_K, metavar="K",
                   help=f"add each position's K most likely tokens (K = {TOP_K} when not given)")
    p.add_argument("--out", help="with --file: write the table to this CSV (atomically)")
    p.add_argument("--bos", action="store_true", help="causal models: prepend BOS so the first token is scored "
                   "too (a masked model's PLL scores every token)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the score cache")
    p.add_argument("--json", action="store_true", help="print JSON: one object per model, a list under "
                   "'results' when there are several")
    add_model_args(p, several=True)
    p.set_defaults(func=run)


def request_from_args(args: argparse.Namespace) -> Request:
    """Either --sentence or PREFIX and CONTINUATION, never both, never neither."""
    if args.sentence is not None:
        if args.prefix or args.continuation:
            raise InputError("give either --sentence S or PREFIX CONTINUATION, not both")
        request = Request("", args.sentence)
    elif args.prefix is None or args.continuation is None:
        raise InputError("give PREFIX and CONTINUATION, or --sentence S, or --file F")
    elif not args.prefix.strip():
        raise InputError("empty prefix: use --sentence to score a text on its own")
    else:
        request = Request(args.prefix, args.continuation)
    check_length(request)
    return request


def first_token_policy(req: Request, method: ScoringMethod, *, bos: bool) -> str:
    """How the first token of the text was scored: PLL scores every token; a causal model needs BOS
    or a prefix before it."""
    if method.is_pll:
        return "every token scored (PLL)"
    return "bos" if bos else ("scored after prefix" if req.prefix else "first token unscored (no BOS)")


def as_json(model: str, req: Request, scores: TokenScores, *, policy: str) -> dict[str, object]:
    """The JSON object of one scored request."""
    return {
        "model": model,
        "prefix": req.prefix or None,
        "continuation": req.text,
        "tokens": list(scores.tokens),
        "logprobs": [float(x) for x in scores.logprobs],
        "surprisals_bits": [float(x) for x in scores.surprisals_bits],
        "sum_logprob": finite(scores.reduce(Reduction.SUM)),
        "mean_logprob": finite(scores.reduce(Reduction.MEAN)),
        "first_token_policy": policy,
    }


def words_json(scorer: RequestScorer, scored: ScoredText) -> list[dict[str, object]]:
    """The `words` list: each word, its span, both surprisals (null when unscored) and its tokens."""
    return [{"word": w.text, "start": w.start, "end": w.end, "surprisal_bits": finite(w.surprisal_bits),
             "surprisal_bits_uncorrected": finite(w.surprisal_bits_uncorrected),
             "tokens": list(scorer.display_tokens(scored.token_ids[w.first:w.first + w.n_tokens]))}
            for w in scored.words]


def table(scores: TokenScores) -> str:
    """A plain-text per-token table with totals."""
    lines = [f"{'token':<20} {'logprob':>10} {'surprisal(bits)':>16}"]
    for tok, lp, bits in zip(scores.tokens, scores.logprobs, scores.surprisals_bits):
        lines.append(f"{tok!r:<20} {lp:>10.4f} {bits:>16.4f}")
    lines.append(f"sum logprob {scores.reduce(Reduction.SUM):.4f}   mean logprob {scores.reduce(Reduction.MEAN):.4f}")
    return "\n".join(lines)


def words_table(scored: ScoredText) -> str:
    """A plain-text per-word table: corrected and uncorrected surprisal and token count."""
    rows = [f"{w.text:<20} {w.surprisal_bits:>10.4f} {w.surprisal_bits_uncorrected:>12.4f} {w.n_tokens:>7}"
            for w in scored.words]
    return "\n".join([f"{'word':<20} {'bits':>10} {'uncorrected':>12} {'tokens':>7}", *rows])


Details = tuple[list[float], list[list[tuple[str, float]]]]
"""Per scored token: the entropy (bits) of its distribution, and its top-k (token, log-prob)."""


def details(scorer: LazyScorer, req: Request, top_k: int | None) -> Details:
    """Entropy and, when asked, the top-k tokens of each scored position; these need the model
    itself and are not cached."""
    from pfcore.scoring.causal import CausalScorer  # torch: only when the model is needed

    real = scorer.scorer
    if not isinstance(real, CausalScorer):
        raise InputError("entropy and top-k need a causal model")
    found = real.token_details([req], top_k or TOP_K)[0]
    tops = [list(zip(real.display_tokens(ids), lps.tolist())) for ids, lps in
            zip(found.top_ids.tolist(), found.top_logprobs)] if top_k else []
    return found.entropy_bits.tolist(), tops


def details_json(found: Details) -> dict[str, object]:
    """The `entropy_bits` list, and the `top_k` list of {token, logprob} lists when asked."""
    entropy, tops = found
    out: dict[str, object] = {"entropy_bits": entropy}
    if tops:
        out["top_k"] = [[{"token": t, "logprob": lp} for t, lp in top] for top in tops]
    return out


def details_table(found: Details) -> str:
    """Entropy and the most likely tokens per scored position, as text."""
    entropy, tops = found
    rows = [f"{bits:>14.4f}  " + ", ".join(f"{t!r} {lp:.2f}" for t, lp in top)
            for bits, top in zip(entropy, tops or [[] for _ in entropy])]
    return "\n".join([f"{'entropy(bits)':>14}  most likely tokens here", *rows])


def score_one(spec: ModelSpec, req: Request, args: argparse.Namespace,
              cache: ScoreCache | None) -> tuple[dict[str, object], str]:
    """One model's JSON object and text table for one request."""
    scorer = text_scorer(spec, bos=args.bos)
    scored = score_texts(scorer, [req], through_cache(cache), corrected=args.corrected)[0] if args.words else None
    scores = scored.scores if scored else through_cache(cache)(scorer, [req])[0]
    out = as_json(spec.label, req, scores, policy=first_token_policy(req, scorer.method, bos=args.bos))
    text = [table(scores)]
    if scored:
        out["words"] = words_json(scorer, scored)
        text.append(words_table(scored))
    if args.entropy or args.top_k:
        found = details(scorer, req, args.top_k)
        out.update(details_json(found))
        text.append(details_table(found))
    return out, "\n".join(text)


def text_scorer(spec: ModelSpec, *, bos: bool) -> LazyScorer:
    """The scorer of whole texts for the model's kind: causal log-probs, or PLL (original) for a masked
    model; --bos is refused for a method it does not change (a masked model's PLL scores every token already)."""
    method = kind_of(spec.kind).text_method
    if bos and not method.takes_bos:
        raise InputError(f"--bos goes with causal models: a {spec.kind} model's {method.value} scoring does not "
                         "read from a BOS token (a masked model's PLL scores every token already)")
    return LazyScorer(spec, method, bos=bos)


def file_level(args: argparse.Namespace, default: Level) -> Level:
    """--words or --regions (not both), else the file's default."""
    if args.words and args.regions:
        raise InputError("give --words or --regions, not both")
    return "words" if args.words else "regions" if args.regions else default


def score_file(args: argparse.Namespace, specs: list[ModelSpec], cache: ScoreCache | None) -> int:
    """The long table of a stimuli file, per model, to --out, stdout (CSV) or JSON."""
    if args.prefix or args.continuation or args.sentence is not None:
        raise InputError("give --file alone, without --sentence or PREFIX CONTINUATION")
    if args.entropy or args.top_k:
        raise InputError("--entropy and --top-k are per token: use them with --sentence or PREFIX CONTINUATION")
    stimuli = read_stimuli_file(args.file)
    level = file_level(args, stimuli.default_level)
    if args.out:  # refused before any scoring, not after it
        check_writable_file(Path(args.out), "the table (--out)")
    tables = []
    for spec in specs:
        bar = progress_bar(spec.label, enabled=sys.stderr.isatty() or not args.json)
        tables.append(stimuli_table(stimuli, text_scorer(spec, bos=args.bos), spec, level, corrected=args.corrected,
                                    score=through_cache(cache, bar)))
    both = pd.concat(tables, ignore_index=True)
    if args.out:
        write_output(Path(args.out), both.to_csv(index=False), "the table (--out)")
    if args.json:
        print_envelope([{"model": spec.label, "revision": spec.revision, "level": level, "rows": json_rows(part)}
                        for spec, part in zip(specs, tables)])
    elif args.out:
        print(f"{len(both):,} rows ({level}) written to {args.out}")
    else:
        sys.stdout.write(both.to_csv(index=False))
    return 0


def run(args: argparse.Namespace) -> int:
    """Score the request or the file with each model (through the cache) and print the results."""
    specs = specs_from_args(args)
    with ScoreCache.when(not args.no_cache) as cache:
        if args.file:
            return score_file(args, specs, cache)
        if args.regions or args.out:
            raise InputError("--regions and --out go with --file")
        req = request_from_args(args)
        results = [score_one(spec, req, args, cache) for spec in specs]
    if args.json:
        print_envelope([obj for obj, _ in results])
    else:
        print("\n\n".join(text if len(specs) == 1 else f"model {spec.label}\n{text}"
                          for spec, (_, text) in zip(specs, results)))
    return 0
