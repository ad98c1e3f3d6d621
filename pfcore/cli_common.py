"""Arguments shared by the sub-commands that load a model, and a terminal progress bar."""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from pfcore.models.spec import DEFAULT_MODEL, DTYPES, ModelSpec


def add_model_args(parser: argparse.ArgumentParser, kind: bool = True) -> None:
    """--model, --revision, --dtype, --device, --kind, --trust-remote-code."""
    parser.add_argument("--model", default=DEFAULT_MODEL,
                        help=f"hub id, local folder or .gguf file (default: {DEFAULT_MODEL})")
    parser.add_argument("--revision", default=None, help="hub revision, e.g. step1000")
    parser.add_argument("--dtype", default="float32", choices=DTYPES)
    parser.add_argument("--device", default="cpu")
    if kind:
        parser.add_argument("--kind", default="causal", choices=("causal", "masked"))
    parser.add_argument("--trust-remote-code", action="store_true",
                        help="allow a hub model to run its own code (off by default)")


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (0 and negatives are refused at once)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def spec_from_args(args: argparse.Namespace) -> ModelSpec:
    """The ModelSpec the model arguments describe."""
    return ModelSpec(name=args.model, revision=args.revision, dtype=args.dtype, device=args.device,
                     kind=getattr(args, "kind", "causal"), trust_remote_code=args.trust_remote_code)


def progress_bar(label: str, enabled: bool = True) -> Callable[[int, int], None]:
    """A stderr progress callback(done, total) with rate and ETA; silent when disabled."""
    start = time.monotonic()
    last = [0.0]

    def update(done: int, total: int) -> None:
        now = time.monotonic()
        if not enabled or (now - last[0] < 0.5 and done < total):
            return
        last[0] = now
        elapsed = now - start
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else float("nan")
        width = 30
        filled = int(width * done / total) if total else width
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
                         f"{rate:.1f}/s ETA {eta:4.0f}s ")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return update
