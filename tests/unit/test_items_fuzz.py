"""Fuzzing the readers: any bytes as an item file and any text as a lexicon give a result or an
InputError, never another exception."""
from __future__ import annotations

import gzip
import tempfile
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pfcore.errors import InputError
from pfcore.items import (
    check_items,
    generate_affinity,
    generate_semantic,
    generate_syntax,
    load_lexicon,
    read_item_file,
)
from pfcore.items.check import checked_items
from pfcore.items.formats import render_items
from pfcore.items.lexicon import DEFAULT_LEXICON, Lexicon
from pfcore.items.schema import Item

FUZZ = settings(max_examples=150, deadline=None, database=None)
SUFFIXES = (".jsonl", ".jsonl.gz", ".csv", ".tsv")
SYNTAX_CHARS = '{}[]",:#|\\\t\n\r 01truefalse<MASK>ud8'  # characters that steer the item readers
YAML_CHARS = "&*!?|>-:,[]{}#'\"\\\t\n \0abc01"  # characters that steer the YAML reader


@cache
def seeds(suffix: str) -> tuple[bytes, ...]:
    """Small valid files of each kind in the format a suffix reads, for mutation."""
    lexicon = load_lexicon()
    semantic = generate_semantic(lexicon, "let_alone")[:8]
    sets: list[tuple[Sequence[Item], str]]
    if suffix == ".tsv":
        sets = [(semantic, "paper-tsv"), (generate_syntax(lexicon, "let_alone")[:6], "paper-tsv")]
    else:
        fmt = "csv" if suffix == ".csv" else "jsonl"
        sets = [(semantic, fmt), (generate_affinity(lexicon, "let_alone")[:4], fmt)]
    return tuple(render_items(items, fmt).encode("utf-8") for items, fmt in sets)


@st.composite
def mutated(draw: st.DrawFn, bases: tuple[bytes, ...]) -> bytes:
    """One of the base texts with a slice replaced by random bytes or reader-steering text."""
    base = draw(st.sampled_from(bases))
    start = draw(st.integers(0, len(base)))
    end = draw(st.integers(start, min(len(base), start + 80)))
    patch = draw(st.binary(max_size=40) | st.text(SYNTAX_CHARS, max_size=40).map(str.encode))
    return base[:start] + patch + base[end:]


@st.composite
def item_file(draw: st.DrawFn) -> tuple[str, bytes]:
    """A file name suffix and contents: random bytes, steering text, or a mutated valid file;
    gzip files are compressed whole, cut short, or left as they are."""
    suffix = draw(st.sampled_from(SUFFIXES))
    data = draw(st.binary(max_size=300) | st.text(SYNTAX_CHARS, max_size=300).map(str.encode)
                | mutated(seeds(suffix)))
    if suffix.endswith(".gz"):
        packed = gzip.compress(data)
        data = draw(st.sampled_from([packed, packed[:len(packed) // 2], data]))
    return suffix, data


def result_or_input_error(call: Callable[[], Any]) -> None:
    """Run a call: a result or an InputError pass, any other exception fails the test."""
    try:
        call()
    except InputError:
        pass


@FUZZ
@given(item_file())
def test_any_item_file_reads_or_is_an_input_error(lexicon: Lexicon, case: tuple[str, bytes]) -> None:
    suffix, data = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"items{suffix}"
        path.write_bytes(data)
        result_or_input_error(lambda: read_item_file(path, lexicon))
        result_or_input_error(lambda: checked_items(path, lexicon))
        assert isinstance(check_items(path, lexicon), list)


@FUZZ
@given(st.text(max_size=300) | st.text(YAML_CHARS, max_size=300)
       | mutated((DEFAULT_LEXICON.read_bytes(),)).map(lambda b: b.decode("utf-8", "replace")))
def test_any_lexicon_text_loads_or_is_an_input_error(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "lexicon.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        result_or_input_error(lambda: load_lexicon(path))
