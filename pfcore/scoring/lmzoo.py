"""Token surprisal files in lm-zoo's format, and their tokens aligned to a sentence's regions.

A file is tab-separated with the header `sentence_id, token_id, token, surprisal`: one row per token
as the model tokenized the sentence, surprisal in bits, sentences and tokens numbered from 1 in order
(what `lm-zoo get-surprisals` writes and syntaxgym-core reads). No tokenizer is known, so each token
is read for the text it stands for: subword markers dropped (GPT-2's byte-level "Ġ" decoded,
SentencePiece "▁", WordPiece "##", "</w>" and "@@"), case, accents and typographic quotes and dashes
ignored, PTB and Moses escapes ("-LRB-", "&apos;", "@-@") undone. An unknown-word token (`<unk>`, `[UNK]`, `UNK-LC`)
stands for one or more words; a marker (`<eos>`, `</s>`, `<|endoftext|>`, `[CLS]`) and a lone
space marker stand for no text; punctuation the model dropped is passed over. A token belongs to the
region holding its first character (pfcore.scoring.align's rule); a token of no text to the region of
the token after it, or at the end to the region of the text's last character (where syntaxgym-core
puts `<eos>`). Every alignment is searched for: none is an AlignmentError saying where and why, and two
that put a token in different regions are refused rather than chosen between.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pfcore.errors import InputError
from pfcore.files import MIB, FileKind, open_regular, text_lines, too_large
from pfcore.scoring.align import Span, span_of_char

SURPRISAL_FILE = FileKind("surprisal file", 128 * MIB)  # the 34 suites of Hu et al. by a subword model: about 2 MiB
COLUMNS = ("sentence_id", "token_id", "token", "surprisal")
MAX_ID_DIGITS = 9
# The largest surprisal of one token read from a file: a probability of 2^-10,000, far below float64's smallest
# (2^-1,074), so no model's real surprisal is refused, and sums over any file's tokens stay finite.
MAX_TOKEN_BITS = 10_000.0
NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")

UNK_TOKENS = frozenset({"<unk>", "<UNK>", "[UNK]", "<oov>", "<OOV>"})
UNK_SIGNATURE = re.compile(r"UNK(?:-[A-Za-z0-9]+)*")  # Berkeley-style classes of unknown words: UNK, UNK-LC-ing
MARKER = re.compile(r"<\|?/?[A-Za-z_][\w-]*\|?>|\[[A-Z_]+\]")  # <eos>, </s>, <|endoftext|>, [CLS]
BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")  # SentencePiece's byte fallback
WORD_PREFIXES = ("▁", "Ġ", "##")
WORD_SUFFIXES = ("</w>", "@@")
ESCAPES = (("-LRB-", "("), ("-RRB-", ")"), ("-LSB-", "["), ("-RSB-", "]"), ("-LCB-", "{"), ("-RCB-", "}"),
           ("``", '"'), ("''", '"'), ("&apos;", "'"), ("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"),
           ("&gt;", ">"), ("&#91;", "["), ("&#93;", "]"), ("&#124;", "|"),
           ("@-@", "-"), ("@,@", ","), ("@.@", "."))  # Moses' aggressive dash splits, WikiText's number marks
FOLDS = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'", "`": "'", "“": '"', "”": '"',
                       "„": '"', "‟": '"', "″": '"', "«": '"', "»": '"', "–": "-", "—": "-", "‒": "-",
                       "−": "-", "‐": "-", "‑": "-"})
MAX_BYTE_GROUP = 4  # tokens one UTF-8 character may be split over
SHOWN = 24  # characters of text shown where a token does not fit


@dataclass(frozen=True)
class SentenceSurprisals:
    """One sentence of a surprisal file: its number, the line of its first token, its tokens and
    their surprisals (bits)."""

    number: int
    line: int
    tokens: tuple[str, ...]
    bits: tuple[float, ...]
    lines: tuple[int, ...] = ()  # the line of each token (blank lines may lie between them)

    def token_line(self, index: int | None) -> int:
        """The line of token `index` (from 0), else of the sentence's first token."""
        return self.lines[index] if index is not None and 0 <= index < len(self.lines) else self.line


@dataclass(frozen=True)
class SurprisalFile:
    """A whole surprisal file: its name (for messages and for what a page says), sha256 and sentences."""

    label: str
    sha256: str
    sentences: tuple[SentenceSurprisals, ...]

    @property
    def byte_level(self) -> bool:
        """Whether its tokens are GPT-2-style byte-level BPE (some token starts with "Ġ")."""
        return any(t.startswith("Ġ") for s in self.sentences for t in s.tokens)

    @property
    def n_tokens(self) -> int:
        """Tokens in the file."""
        return sum(len(s.tokens) for s in self.sentences)


# ---------------------------------------------------------------- reading

def read_surprisals(path: str | Path, label: str | None = None) -> SurprisalFile:
    """An lm-zoo surprisal file, checked row by row; InputError naming the line otherwise. `label`
    names it in messages (default: the path)."""
    path = Path(path)
    shown = label or str(path)
    if _size(path) > SURPRISAL_FILE.cap:  # refused before a byte is read
        raise too_large(path, SURPRISAL_FILE)
    builder = _Builder(shown)
    header_seen = False
    for number, line in enumerate(text_lines(path, SURPRISAL_FILE), start=1):
        text = line.rstrip("\r\n")
        if not text.strip():
            continue
        if not header_seen:
            builder.tab = "\t" in text
            _check_header(builder.cells(text), f"{shown}:{number}")
            header_seen = True
        else:
            builder.add(number, builder.cells(text))
    if not header_seen:
        raise InputError(f"{shown}: the file is empty; a surprisal file starts with the header "
                         f"{', '.join(COLUMNS)} (tab-separated)")
    return SurprisalFile(shown, file_sha256(path), builder.finish())


def _size(path: Path) -> int:
    """A file's size in bytes (0 where it cannot be told: the reader then says why it cannot read it)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def file_sha256(path: Path) -> str:
    """The sha256 of a surprisal file, read within its cap."""
    digest = hashlib.sha256()
    left = SURPRISAL_FILE.cap
    with open_regular(path, SURPRISAL_FILE) as handle:
        while chunk := handle.read(MIB):
            left -= len(chunk)
            if left < 0:
                raise too_large(path, SURPRISAL_FILE)
            digest.update(chunk)
    return digest.hexdigest()


def _check_header(cells: list[str], where: str) -> None:
    """The header must be lm-zoo's four columns, in order."""
    if tuple(cells) == COLUMNS:
        return
    wanted = f"the header must be the columns {', '.join(COLUMNS)} (tab-separated, as lm-zoo writes them)"
    if len(cells) != len(COLUMNS):
        raise InputError(f"{where}: {wanted}; this one has {len(cells)} column{'s' * (len(cells) != 1)}")
    place = next(k for k, (a, b) in enumerate(zip(cells, COLUMNS)) if a != b)
    raise InputError(f"{where}: {wanted}; its column {place + 1} is not {COLUMNS[place]}")


class _Builder:
    """Rows gathered into sentences, each row checked against the one before it."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.tab = True
        self.done: list[SentenceSurprisals] = []
        self.number, self.line = 0, 0
        self.tokens: list[str] = []
        self.bits: list[float] = []
        self.lines: list[int] = []

    def cells(self, text: str) -> list[str]:
        """A line's cells: split at tabs (or, in a file whose header has none, at runs of spaces)."""
        return [c.strip() for c in text.split("\t")] if self.tab else text.split()

    def add(self, line: int, cells: list[str]) -> None:
        """One token row."""
        where = f"{self.label}:{line}"
        if len(cells) != len(COLUMNS):
            raise InputError(f"{where}: {len(cells)} cells, but a row has {len(COLUMNS)} ({', '.join(COLUMNS)})")
        sentence, token = (_whole(cells[k], COLUMNS[k], where) for k in (0, 1))
        if sentence == self.number + 1 and token == 1:
            self._close()
            self.number, self.line = sentence, line
        elif (sentence, token) != (self.number, len(self.tokens) + 1):
            expected = (f"sentence {self.number}, token {len(self.tokens) + 1}, or sentence {self.number + 1}, "
                        "token 1" if self.number else "sentence 1, token 1")
            raise InputError(f"{where}: sentence {sentence}, token {token} is out of order (expected {expected}): "
                             "sentences and each sentence's tokens are numbered from 1, in order")
        if not cells[2]:
            raise InputError(f"{where}: the token is empty")
        self.tokens.append(cells[2])
        self.bits.append(_surprisal(cells[3], where))
        self.lines.append(line)

    def _close(self) -> None:
        """Finish the sentence being gathered."""
        if self.tokens:
            self.done.append(SentenceSurprisals(self.number, self.line, tuple(self.tokens), tuple(self.bits),
                                                tuple(self.lines)))
        self.tokens, self.bits, self.lines = [], [], []

    def finish(self) -> tuple[SentenceSurprisals, ...]:
        """Every sentence; InputError when the file has no token rows."""
        self._close()
        if not self.done:
            raise InputError(f"{self.label}: the file has a header but no token rows")
        return tuple(self.done)


def _whole(cell: str, column: str, where: str) -> int:
    """An id cell as a whole number of at least 1."""
    if not cell.isdecimal() or len(cell) > MAX_ID_DIGITS or int(cell) < 1:
        raise InputError(f"{where}: {column} must be a whole number of at least 1 (at most {MAX_ID_DIGITS} digits)")
    return int(cell)


def _surprisal(cell: str, where: str) -> float:
    """A surprisal cell: a finite number of bits, not below 0 (-0 is 0)."""
    if not NUMBER.fullmatch(cell):
        raise InputError(f"{where}: the surprisal is not a number")
    value = float(cell)
    if value != value or value in (float("inf"), float("-inf")):
        raise InputError(f"{where}: the surprisal is not a finite number")
    if value < 0:
        raise InputError(f"{where}: the surprisal is negative ({value:g}); a surprisal, -log2 P(token), is at least 0")
    if value > MAX_TOKEN_BITS:
        raise InputError(f"{where}: the surprisal is {value:g} bits, more than any model gives (at most "
                         f"{MAX_TOKEN_BITS:,.0f} bits, a probability of 2^-{MAX_TOKEN_BITS:,.0f}); "
                         "is the column in bits?")
    return value


# ---------------------------------------------------------------- alignment

class AlignmentError(InputError):
    """Tokens that do not fit a sentence; the message names the region (by its label) and the token,
    and `token` is that token's index (from 0; None where no one token is at fault), so that the
    caller can name the token's own row."""

    def __init__(self, message: str, token: int | None = None) -> None:
        super().__init__(message)
        self.token = token


@dataclass(frozen=True)
class _Unit:
    """Tokens read as one piece: one token, or the tokens of one UTF-8 character split into bytes.
    `readings` are the texts it may stand for (folded); `bare` whether it may stand for no text."""

    first: int
    count: int
    readings: tuple[tuple[str, ...], ...]
    bare: bool = False
    unk: bool = False


def align_tokens(text: str, tokens: Sequence[str], spans: Sequence[Span], labels: Sequence[str], *,
                 byte_level: bool = False) -> list[int]:
    """For each token, the index of the span (region) it belongs to; AlignmentError, naming the
    span by its label ("region 3 (Verb)") and the token, when the tokens do not spell the text or
    spell it in two ways that put a token in different spans."""
    region_of = span_of_char(len(text), spans)
    if any(r is None and not c.isspace() for r, c in zip(region_of, text)) or text.isspace() or not text:
        raise AlignmentError("the sentence has text outside its regions, or none")
    search = _Search(text, tokens, _units(tokens, byte_level), [r if r is not None else -1 for r in region_of],
                     labels)
    return [owner for unit, owner in zip(search.units, search.solve()) for _ in range(unit.count)]


def _units(tokens: Sequence[str], byte_level: bool) -> list[_Unit]:
    """The tokens as units, byte tokens of one character joined."""
    units: list[_Unit] = []
    k = 0
    while k < len(tokens):
        kind = _kind(tokens[k], byte_level)
        if isinstance(kind, bytes):
            count, decoded = _byte_group(tokens, k, byte_level)
            kind = _text_kind(frozenset({decoded.strip()}))
        else:
            count = 1
        units.append(_Unit(k, count, *kind))
        k += count
    return units


Kind = tuple[tuple[tuple[str, ...], ...], bool, bool]  # a unit's readings, bare, unk


@lru_cache(maxsize=2**16)
def _kind(token: str, byte_level: bool) -> Kind | bytes:
    """What a token may stand for (`_Unit`'s readings, bare and unk), or its bytes where they are not
    whole UTF-8 text on their own; remembered, as files repeat their tokens."""
    raw = _as_bytes(token, byte_level)
    if raw is None:
        return _word_kind(token)
    try:
        return _text_kind(frozenset({raw.decode("utf-8").strip()}))
    except UnicodeDecodeError:
        return raw


def _word_kind(token: str) -> Kind:
    """A token given as text: an unknown word, a marker, or the texts it may spell."""
    if token in UNK_TOKENS or UNK_SIGNATURE.fullmatch(token):
        return (), False, True
    if MARKER.fullmatch(token):
        return (_folded(token),), True, False
    readings = {token}
    readings |= {token[len(p):] for p in WORD_PREFIXES if token.startswith(p)}
    readings |= {r[:-len(s)] for r in list(readings) for s in WORD_SUFFIXES if r.endswith(s)}
    for escape, plain in ESCAPES:
        readings |= {r.replace(escape, plain) for r in list(readings) if escape in r}
    return _text_kind(frozenset(r.strip() for r in readings))


def _text_kind(readings: frozenset[str]) -> Kind:
    """A unit spelling any of `readings`; an empty reading lets it stand for no text."""
    return tuple(sorted({_folded(r) for r in readings if r})), "" in readings, False


def _folded(text: str) -> tuple[str, ...]:
    """A text as the tuple of its characters as compared (`_fold`)."""
    return tuple(_fold(c) for c in text)


@lru_cache(maxsize=2**14)
def _fold(char: str) -> str:
    """One character as compared: quotes and dashes made plain, accents dropped (an uncased
    WordPiece tokenizer strips them), case folded."""
    plain = unicodedata.normalize("NFD", char.translate(FOLDS))
    return "".join(c for c in plain if not unicodedata.combining(c)).casefold() or char


@lru_cache(maxsize=1)
def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level alphabet, character -> byte: printable bytes stand for themselves, the
    others (space, control bytes...) for the characters from U+0100 on, in byte order."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    shifted = [b for b in range(256) if b not in kept]
    return {**{chr(b): b for b in kept}, **{chr(256 + n): b for n, b in enumerate(shifted)}}


@lru_cache(maxsize=2**16)
def _as_bytes(token: str, byte_level: bool) -> bytes | None:
    """The bytes a token stands for: a byte-fallback token, or a byte-level token of a byte-level
    file (markers and unknown words are never bytes); None for a token given as text."""
    if match := BYTE_TOKEN.fullmatch(token):
        return bytes([int(match.group(1), 16)])
    if not byte_level or MARKER.fullmatch(token) or token in UNK_TOKENS:
        return None
    decoder = _byte_decoder()
    return bytes(decoder[c] for c in token) if all(c in decoder for c in token) else None


def _byte_group(tokens: Sequence[str], k: int, byte_level: bool) -> tuple[int, str]:
    """(how many tokens from k make whole UTF-8 text, that text): one, or the few a character is
    split over; AlignmentError when none do."""
    raw = b""
    for count in range(1, MAX_BYTE_GROUP + 1):
        if k + count > len(tokens):
            break
        piece = _as_bytes(tokens[k + count - 1], byte_level)
        if piece is None:
            break
        raw += piece
        try:
            return count, raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
    raise AlignmentError(f"token {k + 1} ({tokens[k]!r}) stands for bytes that are not UTF-8 text, "
                         f"even with the {MAX_BYTE_GROUP - 1} tokens after it", k)


@lru_cache(maxsize=2**14)
def _is_punct(char: str) -> bool:
    """Whether a character is punctuation (a model may drop it, and an unknown word may end at it)."""
    return unicodedata.category(char).startswith("P")


State = tuple[int, int]  # (units used, characters of the text passed)
DROP, BARE = -1, -2  # edge labels: punctuation passed over; a unit of no text


class _Search:
    """Every way the units spell the text, as a graph of states; each state keeps at most two of the
    distinct region sequences that finish from it, interned so equal sequences are one id."""

    def __init__(self, text: str, tokens: Sequence[str], units: Sequence[_Unit], region_of: Sequence[int],
                 labels: Sequence[str]) -> None:
        self.text, self.tokens, self.units, self.region_of, self.labels = text, tokens, units, region_of, labels
        self.end = region_of[len(text.rstrip()) - 1]  # the region of the last character
        self.folded = _folded(text)
        self.punct = [_is_punct(c) for c in text]
        size = len(text)
        self.next_char = [size] * (size + 1)  # the first non-space position at or after each one
        for k in reversed(range(size)):
            self.next_char[k] = k if not text[k].isspace() else self.next_char[k + 1]
        self.nodes: dict[tuple[int, int], int] = {}
        self.node_list: list[tuple[int, int, int | None]] = [(-1, -1, None)]  # (owner, child, first owner)

    def matches(self, reading: tuple[str, ...], at: int) -> bool:
        """Whether a folded reading spells the text at a position."""
        return self.folded[at:at + len(reading)] == reading

    def edges(self, state: State) -> list[tuple[State, int]]:
        """The states one step on, with the step's label: DROP, BARE, or the first character spelled."""
        used, passed = state
        at = self.next_char[passed]
        out: list[tuple[State, int]] = []
        if at < len(self.text) and self.punct[at]:
            out.append(((used, at + 1), DROP))
        if used == len(self.units):
            return out
        unit = self.units[used]
        if unit.bare:
            out.append(((used + 1, passed), BARE))
        if at == len(self.text):
            return out
        out += [((used + 1, at + len(r)), at) for r in unit.readings if self.matches(r, at)]
        if unit.unk:
            out += [((used + 1, end), at) for end in range(at + 1, len(self.text) + 1) if self._word_end(used, end)]
        return out

    def _word_end(self, used: int, end: int) -> bool:
        """Whether an unknown word may end here: at a space, the end, punctuation, or where the next
        unit's text begins."""
        text = self.text
        if end == len(text) or text[end].isspace() or self.punct[end] or self.punct[end - 1]:
            return True
        return used + 1 < len(self.units) and any(self.matches(r, end) for r in self.units[used + 1].readings)

    def solve(self) -> list[int]:
        """The one region sequence (per unit); AlignmentError when there is none or more than one."""
        start: State = (0, 0)
        graph: dict[State, list[tuple[State, int]]] = {}
        stack = [start]
        while stack:
            state = stack.pop()
            if state not in graph:
                graph[state] = self.edges(state)
                stack += [target for target, _ in graph[state] if target not in graph]
        found: dict[State, list[int]] = {}
        for state in sorted(graph, reverse=True):  # every edge leads to a larger state
            done = self.next_char[state[1]] == len(self.text) and state[0] == len(self.units)
            ids: list[int] = [0] if done else []
            for target, label in graph[state]:
                for child in found[target]:
                    node = child if label == DROP else self._node(label, child)
                    if node not in ids and len(ids) < 2:
                        ids.append(node)
            found[state] = ids
        if not found[start]:
            raise self._failure(graph)
        if len(found[start]) > 1:
            raise self._ambiguity(*(self._sequence(node) for node in found[start]))
        return self._sequence(found[start][0])

    def _node(self, label: int, child: int) -> int:
        """The interned id of (this unit's region, the rest); a unit of no text takes the region of
        the next unit that has text, or the end's."""
        first = self.node_list[child][2]
        owner = (first if first is not None else self.end) if label == BARE else self.region_of[label]
        key = (owner, child)
        if key not in self.nodes:
            self.nodes[key] = len(self.node_list)
            self.node_list.append((owner, child, first if label == BARE else owner))
        return self.nodes[key]

    def _sequence(self, node: int) -> list[int]:
        """The regions of a sequence's units, in order."""
        out = []
        while node:
            owner, node, _ = self.node_list[node]
            out.append(owner)
        return out

    def _ambiguity(self, one: list[int], other: list[int]) -> AlignmentError:
        """Two alignments that disagree: the first token they put in different regions."""
        place = next(k for k, (a, b) in enumerate(zip(one, other)) if a != b)
        low, high = sorted((one[place], other[place]))
        return AlignmentError(f"{self.labels[low]}: the tokens fit the text in more than one way, so "
                              f"{self._token(self.units[place].first)} could belong here or to "
                              f"{self.labels[high]}; refusing to guess (unknown-word tokens side by side are "
                              "the usual cause)", self.units[place].first)

    def _failure(self, graph: dict[State, list[tuple[State, int]]]) -> AlignmentError:
        """Why no alignment exists, at the furthest state reached."""
        used, passed = max(graph, key=lambda s: (s[0], self.next_char[s[1]]))
        at = self.next_char[passed]
        if used == len(self.units):
            return AlignmentError(f"{self.labels[self.region_of[at]]}: the tokens end before the text does; no "
                                  f"token stands for {self._excerpt(at)!r}")
        first = self.units[used].first
        token = self._token(first)
        if at == len(self.text):
            return AlignmentError(f"{self.labels[self.end]}: {token} comes after the end of the sentence", first)
        return AlignmentError(f"{self.labels[self.region_of[at]]}: {token} does not spell the text at "
                              f"{self._excerpt(at)!r}", first)

    def _token(self, index: int) -> str:
        """A token named in a message: its number (from 1) and its text."""
        return f"token {index + 1} ({self.tokens[index]!r})"

    def _excerpt(self, at: int) -> str:
        """The text from a position, cut short."""
        rest = self.text[at:]
        return rest if len(rest) <= SHOWN else rest[:SHOWN] + "..."
