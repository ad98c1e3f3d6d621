"""The typed sentence word by word, before any follow-up: the surprisal of each word with the
construction against the same sentence with "or", and the difference per word. The two sentences
differ only in the connective, so the words before and after it pair up one to one; the connective
itself is one row (its words' surprisals summed, which is the surprisal of the phrase)."""
from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from pfcore.errors import InputError
from pfcore.probe.detect import Probe
from pfcore.scoring.requests import Request, RequestScorer
from pfcore.scoring.tables import token_table
from pfcore.scoring.words import ScoredText, Word, score_texts
from pfcore.store.cache import ScoreCache, through_cache

COLUMNS = ("position", "word", "word_or", "region", "focus2", "surprisal_construction_bits",
           "surprisal_or_bits", "difference_bits")
FIRST_WORD_NOTE = "the first word has no context (no BOS), so it has no surprisal"


def sentence_requests(probe: Probe) -> list[Request]:
    """The sentence with the construction and with "or", each scored whole."""
    return [Request("", probe.text), Request("", probe.control)]


def score_sentences(scorer: RequestScorer, probe: Probe, cache: ScoreCache | None,
                    *, corrected: bool = True) -> tuple[ScoredText, ScoredText]:
    """The sentence and its control, scored word by word (through the cache)."""
    if probe.construction is None:
        raise InputError(probe.message)
    cxn, ctl = score_texts(scorer, sentence_requests(probe), through_cache(cache), corrected=corrected)
    return cxn, ctl


def word_table(probe: Probe, cxn: ScoredText, ctl: ScoredText, *, corrected: bool = True) -> pd.DataFrame:
    """One row per word (the connective as one row): both sentences' surprisal in bits, with the
    BOW correction or as sums of token surprisals, and construction minus "or"."""
    before, connective, after = _regions(cxn.words, probe.span)
    control_span = (probe.span[0], probe.span[0] + len(probe.control_word))
    before_or, connective_or, after_or = _regions(ctl.words, control_span)
    if len(before) != len(before_or) or len(after) != len(after_or):
        raise InputError("the sentence and its 'or' control do not split into the same words around the "
                         "connective; put spaces around the connective")
    focus = probe.focus2_span
    rows = [_row(a.text, b.text, "before", _overlaps(a, focus), _bits(a, corrected), _bits(b, corrected))
            for a, b in zip(before, before_or)]
    rows.append(_row(" ".join(w.text for w in connective), " ".join(w.text for w in connective_or),
                     "connective", False, _sum_bits(connective, corrected), _sum_bits(connective_or, corrected)))
    rows += [_row(a.text, b.text, "after", _overlaps(a, focus), _bits(a, corrected), _bits(b, corrected))
             for a, b in zip(after, after_or)]
    table = pd.DataFrame(rows)
    table.insert(0, "position", range(len(table)))
    return table[list(COLUMNS)]


def sentence_words(scorer: RequestScorer, probe: Probe, cache: ScoreCache | None,
                   *, corrected: bool = True) -> pd.DataFrame:
    """Score the sentence and its control and return their word table (see `word_table`)."""
    return word_table(probe, *score_sentences(scorer, probe, cache, corrected=corrected), corrected=corrected)


def sentence_token_table(probe: Probe, cxn: ScoredText, ctl: ScoredText) -> pd.DataFrame:
    """Per-token surprisal (bits) of the sentence and of its "or" control, focus-2 tokens marked."""
    focus = probe.focus2_span
    shift = len(probe.control_word) - (probe.span[1] - probe.span[0])
    frames = []
    for name, scored, (start, end) in ((f"with '{probe.connective}'", cxn, focus),
                                       ("with 'or'", ctl, (focus[0] + shift, focus[1] + shift))):
        table = token_table([{"sentence": name}], [scored.scores])
        frames.append(table.assign(focus2=[end > start and a < end and b > start for a, b in scored.scored_spans]))
    return pd.concat(frames, ignore_index=True)


def focus2_bits(words: pd.DataFrame) -> tuple[float, float]:
    """Surprisal (bits) of the focus-2 words together, with the construction and with "or"."""
    focus = words[words["focus2"]]
    if focus.empty:
        return math.nan, math.nan
    return float(focus["surprisal_construction_bits"].sum()), float(focus["surprisal_or_bits"].sum())


def _regions(words: Sequence[Word], span: tuple[int, int]) -> tuple[list[Word], list[Word], list[Word]]:
    """The words before the connective, those overlapping it, and those after it."""
    start, end = span
    return ([w for w in words if w.end <= start], [w for w in words if w.start < end and w.end > start],
            [w for w in words if w.start >= end])


def _overlaps(word: Word, span: tuple[int, int]) -> bool:
    """Whether a word shares characters with a span."""
    return word.start < span[1] and word.end > span[0]


def _bits(word: Word, corrected: bool) -> float:
    """A word's surprisal in bits, corrected or as the sum of its tokens'."""
    return word.surprisal_bits if corrected else word.surprisal_bits_uncorrected


def _sum_bits(words: Sequence[Word], corrected: bool) -> float:
    """The surprisal of consecutive words together (NaN if one of them is unscored)."""
    return float(sum(_bits(w, corrected) for w in words)) if words else math.nan


def _row(word: str, word_or: str, region: str, focus2: bool, cxn: float, ctl: float) -> dict[str, object]:
    """One row of the word table."""
    return {"word": word, "word_or": word_or, "region": region, "focus2": focus2,
            "surprisal_construction_bits": cxn, "surprisal_or_bits": ctl, "difference_bits": cxn - ctl}
