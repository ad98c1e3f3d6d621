"""Arguments shared by the sub-commands that load a model, the terminal's progress bar (a view of
pfcore.progress.Progress), tables as JSON rows, and the printing of the commands that compare models
(pfcore.output's envelope)."""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pfcore.errors import InputError
from pfcore.models.spec import AUTO, DEFAULT_MODEL, DTYPES, ModelSpec, resolve_device
from pfcore.names import ModelKind
from pfcore.output import envelope, json_text
from pfcore.progress import Progress, ProgressMeter, ProgressView, text_bar, throttled
from pfcore.scoring.kinds import named_kinds

if TYPE_CHECKING:
    import pandas as pd

    from pfcore.runs.checkpoints import DuplicateCheckpoint

MAX_MODELS = 4  # models one command compares side by side


def add_model_args(parser: argparse.ArgumentParser, *, with_kind: bool = True, several: bool = False) -> None:
    """--model (repeatable when `several`), --revision, --dtype, --device, --kind, --trust-remote-code."""
    if several:
        parser.add_argument("--model", action="append", default=None,
                            help=f"hub id, local folder or .gguf file; repeat for up to {MAX_MODELS} models "
                                 f"side by side (default: {DEFAULT_MODEL})")
    else:
        parser.add_argument("--model", default=DEFAULT_MODEL,
                            help=f"hub id, local folder or .gguf file (default: {DEFAULT_MODEL})")
    parser.add_argument("--revision", default=None, help="hub revision, e.g. step1000")
    parser.add_argument("--dtype", default="float32", choices=DTYPES)
    parser.add_argument("--device", default=AUTO,
                        help=f"cpu, cuda, cuda:N or {AUTO} (default: CUDA where torch sees a GPU, else the CPU)")
    if with_kind:
        parser.add_argument("--kind", default=ModelKind.CAUSAL.value, choices=tuple(named_kinds()),
                            help="; ".join(f"{name}: {kind.help}" for name, kind in named_kinds().items()))
    parser.add_argument("--trust-remote-code", action="store_true",
                        help="allow a hub model to run its own code (off by default)")


def add_constructions_arg(parser: argparse.ArgumentParser) -> None:
    """--constructions DIR: a folder of construction definitions of one's own (docs/constructions.md)."""
    parser.add_argument("--constructions", default=None,
                        help="a folder of construction definitions (*.yaml) beside the paper's four "
                             "(default: $PFCORE_CONSTRUCTIONS, if set)")


def add_checkpoint_args(parser: argparse.ArgumentParser) -> None:
    """--revisions, --checkpoint-dir and --name: a model's checkpoints, as `trajectory` reads them."""
    parser.add_argument("--revisions", help="comma-separated hub revisions (step1,step1000,...) or "
                        "'pythia-log' for the paper's 19 Pythia checkpoints")
    parser.add_argument("--checkpoint-dir", help="a folder of saved checkpoints named step<N> or checkpoint-<N>")
    parser.add_argument("--name", help="the trajectory's model name in the results table "
                        "(default: --model, or the checkpoint folder's name)")


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
    """The ModelSpec the model arguments describe (the first model, when several are given)."""
    return specs_from_args(args)[0]


def specs_from_args(args: argparse.Namespace) -> list[ModelSpec]:
    """One ModelSpec per --model (the default model when none is given), at most MAX_MODELS."""
    names = args.model if isinstance(args.model, list) else [args.model or DEFAULT_MODEL]
    names = list(dict.fromkeys(names or [DEFAULT_MODEL]))
    if len(names) > MAX_MODELS:
        raise InputError(f"give at most {MAX_MODELS} models to compare ({len(names)} given)")
    device = resolve_device(args.device)
    return [ModelSpec(name=name, revision=args.revision, dtype=args.dtype, device=device,
                      kind=getattr(args, "kind", ModelKind.CAUSAL), trust_remote_code=args.trust_remote_code)
            for name in names]


@dataclass
class OpenLine:
    """The width of the progress bar's line left open on stderr (0: none), so a message that follows
    can start a line of its own."""

    width: int = 0


OPEN_LINE: ContextVar[OpenLine | None] = ContextVar("open_line", default=None)  # set by `bar_line_ended`


def progress_view(label: str, *, enabled: bool = True, clock: Callable[[], float] = time.monotonic) -> ProgressView:
    """A stderr bar drawing a run's Progress (done of total, from the cache, rate, ETA), redrawn in
    place at most twice a second; silent when disabled."""
    open_line = OPEN_LINE.get() or OpenLine()  # the command's, or the bar's own outside one

    def draw(progress: Progress) -> None:
        line = f"{label} {text_bar(progress.fraction)} {progress.text()}"
        finished = progress.done >= progress.total
        sys.stderr.write(f"\r{line.ljust(open_line.width)}" + ("\n" if finished else ""))
        sys.stderr.flush()
        open_line.width = 0 if finished else len(line)

    return throttled(draw, min_interval=0.5, clock=clock) if enabled else lambda progress: None


@contextmanager
def bar_line_ended() -> Iterator[None]:
    """On an exception, end the progress bar's open line first, so the message that follows (an
    error, "interrupted") starts a line of its own."""
    open_line = OpenLine()
    token = OPEN_LINE.set(open_line)
    try:
        yield
    except BaseException:
        if open_line.width:
            sys.stderr.write("\n")
            open_line.width = 0
        raise
    finally:
        OPEN_LINE.reset(token)


def progress_bar(label: str, *, enabled: bool = True, clock: Callable[[], float] = time.monotonic
                 ) -> Callable[[int, int], None]:
    """A progress(done, total) callback for a scoring job that is not a run (`score --file`), drawn
    by `progress_view`."""
    return ProgressMeter(progress_view(label, enabled=enabled, clock=clock), clock=clock)


def json_rows(df: pd.DataFrame) -> list[dict[str, object]]:
    """A table's rows as JSON-ready dicts (NaN as null, 15 significant digits), for --json output."""
    rows: list[dict[str, object]] = json.loads(df.to_json(orient="records", double_precision=15))
    return rows


def print_envelope(objects: Sequence[object]) -> None:
    """Print the models' JSON objects in pfcore.output's envelope, as one line of strict JSON (no NaN)."""
    print(json_text(envelope(objects)))


def duplicate_warning(duplicate: DuplicateCheckpoint, *, excluded: bool) -> str:
    """The command line's warning of a checkpoint whose weights repeat an earlier step's."""
    how = "excluded" if excluded else "exclude it with `pfcore analyze fdcorr --drop-duplicate-checkpoints`"
    return f"warning: {duplicate.finding()} ({how})"
