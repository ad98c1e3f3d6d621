"""Scores read from a file: a model run elsewhere (another framework, a cluster, an API) gives the
log-probability of every text the Paired-Focus suites need (`pfcore items SUITE --sentences` lists
them with their ids), and the suites decide, summarise and record as they do for any model. The
file is a long TSV or CSV: `id`, `logprob` (the natural-log probability of the text given its prefix,
summed over its tokens) and `n_tokens` (how many tokens that sum has), docs/words-and-regions.md."""
from __future__ import annotations

import csv
import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from pfcore.errors import InputError
from pfcore.files import MIB, FileKind, read_bounded
from pfcore.models.loading import LoadedModel
from pfcore.models.spec import ModelSpec
from pfcore.names import checked_name
from pfcore.scoring.align import Span
from pfcore.scoring.kinds.base import Kind
from pfcore.scoring.lmzoo import MAX_TOKEN_BITS
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import MAX_TEXT_CHARS, Progress, Request, TokenScores

SCORES_FILE = FileKind("scores file", 512 * MIB)  # the whole semantic suite is about 110,000 texts: some 6 MiB
COLUMNS = ("id", "logprob", "n_tokens")
METHOD = ScoringMethod("scores-file", "scores", "log-probabilities read from a scores file (a model run elsewhere)")
SHOWN_MISSING = 5  # ids a message quotes of the texts a file lacks
MAX_TOKENS = 4 * MAX_TEXT_CHARS + 1  # a text's tokens: at most one a UTF-8 byte (4 a character), and a marker
MAX_TOKEN_NATS = MAX_TOKEN_BITS * math.log(2)  # the largest surprisal of one token read from a file, in nats
ASCII_DIGITS = re.compile(r"[0-9]{1,9}")


def text_id(prefix: str, text: str) -> str:
    """The id of a text (given its prefix) in a sentences list and a scores file: a content hash."""
    return hashlib.sha256(json.dumps([prefix, text], ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class ScoresFile:
    """A scores file read: its path, its content's sha256, and each id's (log-probability, tokens)."""

    path: Path
    sha256: str
    values: dict[str, tuple[float, int]]


def read_scores(path: str | Path) -> ScoresFile:
    """The scores of a file (TSV, or CSV by its name), read once per content; InputError naming the
    line of the first problem: missing columns, an id twice, a log-probability that is not a number,
    positive or infinite, a token count that is not a whole number of at least 1."""
    path = Path(path)
    try:
        stat = path.stat()
    except OSError:
        return _read(path, 0, -1)  # the bounded reader says why it cannot be read
    return _read(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4)
def _read(path: Path, mtime_ns: int, size: int) -> ScoresFile:
    """A scores file as it is at (mtime, size): see `read_scores`."""
    raw = read_bounded(path, SCORES_FILE)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: the scores file is not UTF-8 text ({exc.reason})") from None
    rows = csv.reader(text.splitlines(), delimiter="," if path.suffix.lower() == ".csv" else "\t")
    header = next(rows, [])
    if [h.strip() for h in header[:3]] != list(COLUMNS):
        raise InputError(f"{path}:1: a scores file starts with the columns {', '.join(COLUMNS)} "
                         "(see docs/words-and-regions.md)")
    values: dict[str, tuple[float, int]] = {}
    for line, row in enumerate(rows, start=2):
        if row:
            key, value = _row(path, line, row)
            if key in values:
                raise InputError(f"{path}:{line}: id {key} appears twice")
            values[key] = value
    if not values:
        raise InputError(f"{path}: the scores file has a header but no scores")
    return ScoresFile(path, hashlib.sha256(raw).hexdigest(), values)


def _row(path: Path, line: int, row: list[str]) -> tuple[str, tuple[float, int]]:
    """One row's id, log-probability and token count; InputError naming the line otherwise."""
    if len(row) < 3 or not row[0].strip():
        raise InputError(f"{path}:{line}: a row holds an id, a logprob and n_tokens")
    try:
        logprob = float(row[1])
    except ValueError:
        raise InputError(f"{path}:{line}: logprob is not a number") from None
    if not math.isfinite(logprob) or logprob > 0:
        raise InputError(f"{path}:{line}: logprob must be a finite log-probability (0 or below)")
    n_tokens = _token_count(path, line, row[2].strip())
    if logprob < -MAX_TOKEN_NATS * n_tokens:
        raise InputError(f"{path}:{line}: logprob is below -{MAX_TOKEN_NATS:,.0f} nats a token ({MAX_TOKEN_BITS:,.0f} "
                         "bits), more than any model gives; is the column a natural-log probability?")
    return row[0].strip(), (logprob, n_tokens)


def _token_count(path: Path, line: int, cell: str) -> int:
    """A row's n_tokens: a whole number (ASCII digits) from 1 to MAX_TOKENS; InputError naming the line otherwise."""
    if not ASCII_DIGITS.fullmatch(cell) or not 1 <= int(cell) <= MAX_TOKENS:
        raise InputError(f"{path}:{line}: n_tokens must be a whole number of at least 1 and at most {MAX_TOKENS:,} "
                         f"(a text has at most one token a byte, and a request at most {MAX_TEXT_CHARS:,} characters)")
    return int(cell)


def shown_request(request: Request, width: int = 64) -> str:
    """A text in a message, told apart from its neighbours: the end of its prefix (where the semantic
    contexts differ: "let alone a huge one." / "or a huge one.") and its text with the middle left out
    (where the follow-ups differ: "easier" / "harder", and the last words)."""
    text = request.text if len(request.text) <= width else (
        request.text[:width // 2 - 2] + "..." + request.text[-(width // 2 - 1):])
    if not request.prefix:
        return repr(text)
    prefix = request.prefix if len(request.prefix) <= width // 2 else "..." + request.prefix[-(width // 2 - 3):]
    return f"{prefix!r} + {text!r}"


class ScoresScorer:
    """A request scorer over a scores file: each text's log-probability as the first of its tokens'
    and 0 for the rest, so its sum and its mean per token are the file's, exactly."""

    def __init__(self, loaded: LoadedModel) -> None:
        self.loaded = loaded
        self.scores: ScoresFile = loaded.model

    @property
    def method(self) -> ScoringMethod:
        """Scores read from the file."""
        return METHOD

    def score(self, requests: Sequence[Request], progress: Progress | None = None) -> list[TokenScores]:
        """The file's score of each request; InputError listing the texts it lacks (none is guessed)."""
        keys = [text_id(r.prefix, r.text) for r in requests]
        missing = {k: r for k, r in zip(keys, requests) if k not in self.scores.values}  # each text once
        if missing:
            shown = "; ".join(f"{k} ({shown_request(r)})" for k, r in list(missing.items())[:SHOWN_MISSING])
            raise InputError(f"{self.scores.path} lacks {len(missing):,} of the {len(set(keys)):,} texts this run "
                             f"needs, e.g. {shown}; write the list with `pfcore items SUITE --sentences` and score "
                             "every text of it")
        if progress:
            progress(len(requests), len(requests))
        return [self._scores(r, self.scores.values[k]) for k, r in zip(keys, requests)]

    def _scores(self, request: Request, value: tuple[float, int]) -> TokenScores:
        """One text's scores: its log-probability on the first token, 0 on the others; InputError when the
        file gives it more tokens than its text has UTF-8 bytes (plus one: a marker such as end-of-text)."""
        logprob, n_tokens = value
        if n_tokens > len(request.text.encode("utf-8")) + 1:
            raise InputError(f"{self.scores.path}: id {text_id(request.prefix, request.text)} has n_tokens "
                             f"{n_tokens:,}, more than its text has bytes ({len(request.text.encode('utf-8')):,}); "
                             "a token covers at least one byte")
        logprobs = np.zeros(n_tokens)
        logprobs[0] = logprob
        return TokenScores((0,) * n_tokens, logprobs, self.display_tokens)

    def display_tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """A scores file names no tokens."""
        return ("",) * len(ids)

    def cache_identity(self) -> dict[str, object]:
        """The file's identity and the method's."""
        return {**self.loaded.identity, **METHOD.identity()}

    def text_token_ids(self, text: str) -> tuple[int, ...]:
        """A scores file holds no tokens: words and regions cannot be read from it."""
        raise InputError("a scores file gives one number per text: words and regions need a model's tokens")

    def token_spans(self, text: str) -> tuple[Span, ...]:
        """As `text_token_ids`."""
        raise InputError("a scores file gives one number per text: words and regions need a model's tokens")

    def bow_scorer(self) -> None:
        """No beginning-of-word correction: there are no tokens to correct."""
        return None


class ScoresKind(Kind):
    """Scores read from a file: a model spec of this kind is the name of the model that made them, its
    file attached for the command (`attach`)."""

    name, help, methods = "scores", "scores read from a file, made by a model run elsewhere", (METHOD,)
    by_name = False  # its file comes with --scores FILE

    def __init__(self) -> None:
        self.files: dict[tuple[str, str | None], Path] = {}

    def attach(self, model: str, path: str | Path) -> ModelSpec:
        """The spec of the model `model` whose scores are the file at `path` (read and checked now): its
        revision names the file's content, so other scores of the same model are another spec."""
        checked_name(model, "the model's name (--model, with --scores)")
        spec = ModelSpec(name=model, revision=f"scores-{read_scores(path).sha256[:12]}", kind=self.name)
        self.files[(spec.name, spec.revision)] = Path(path)
        return spec

    def _file(self, spec: ModelSpec) -> Path:
        """The scores file of a spec; InputError when none was given."""
        if (spec.name, spec.revision) not in self.files:
            raise InputError(f"no scores file for {spec.label!r}: give it with --scores FILE")
        return self.files[(spec.name, spec.revision)]

    def resolve(self, spec: ModelSpec) -> tuple[str, bool]:
        """The scores file, on this machine."""
        return str(self._file(spec)), True

    def identity(self, spec: ModelSpec, source: str) -> dict[str, object]:
        """The model's name and the file's content."""
        return {"name": spec.name, "kind": self.name, "scores_sha256": read_scores(source).sha256}

    def weights(self, spec: ModelSpec, source: str, local: bool) -> str:
        """The file's content hash: what the run's numbers come from."""
        return read_scores(source).sha256

    def load(self, spec: ModelSpec, source: str, local: bool, identity: dict[str, object]) -> LoadedModel:
        """The file read, as the model."""
        return LoadedModel(spec, read_scores(source), None, source, 0.0, identity)

    def scorer(self, loaded: LoadedModel, method: ScoringMethod, *, bos: bool) -> ScoresScorer:
        """The scorer over the file."""
        return ScoresScorer(loaded)


KIND = ScoresKind()
