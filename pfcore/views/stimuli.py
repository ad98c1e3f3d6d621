"""Stimuli files scored as words and regions: the long table (one row per word or region, every
input column carried through, both surprisal values, ready for R or pandas), and for SyntaxGym
suites the per-region surprisal by condition (mean over items, 95% interval) and the accuracy of
each prediction, from the sidebar's model or from a file of token surprisals made elsewhere (lm-zoo's
format). The `score --file` command and the Stimuli page both read files through here."""
from __future__ import annotations

import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pandas as pd

from pfcore.deployment import deployment
from pfcore.errors import InputError
from pfcore.files import too_large, upload_name, write_atomic
from pfcore.intervals import mean_interval
from pfcore.items.syntaxgym import GymSuite, read_stimuli, stimuli_kind
from pfcore.models.spec import ModelSpec
from pfcore.runs.lm_eval import is_sample_log
from pfcore.scoring.align import Span, aggregate, owners
from pfcore.scoring.lmzoo import SURPRISAL_FILE, read_surprisals
from pfcore.scoring.requests import Progress, Request, RequestError, RequestScorer
from pfcore.scoring.words import ScoredText, ScoreFn, Word, plain_score, score_texts
from pfcore.store.cache import ScoreCache, through_cache
from pfcore.suites import syntaxgym

Level = Literal["words", "regions"]
VALUE_COLUMNS = ("start", "end", "surprisal_bits", "surprisal_bits_uncorrected", "n_tokens", "model", "revision")
Columns = dict[str, object]


@dataclass(frozen=True)
class Text:
    """One sentence of a stimuli file: its input columns, its regions (each region's own input
    columns and its span; none for a plain stimuli CSV), and where it is, for messages."""

    sentence: str
    columns: Columns
    regions: tuple[tuple[Columns, Span], ...]
    where: str


@dataclass(frozen=True)
class Stimuli:
    """A stimuli file ready to score: its texts, and the SyntaxGym suite when it is one."""

    label: str
    texts: tuple[Text, ...]
    suite: GymSuite | None

    @property
    def default_level(self) -> Level:
        """Regions for SyntaxGym suites, words for plain stimuli."""
        return "regions" if self.suite is not None else "words"


@dataclass(frozen=True)
class StimuliResult:
    """What the Stimuli page shows: the long tables and, for suites, the region means by condition
    (the suite's metric over tokens, or over corrected words) and each prediction's accuracy."""

    words: pd.DataFrame
    regions: pd.DataFrame | None
    by_condition: pd.DataFrame | None
    accuracy: pd.DataFrame | None
    source: str | None = None  # where the numbers come from when not the sidebar's model: a surprisal file


def read_stimuli_file(path: str | Path) -> Stimuli:
    """A stimuli CSV (a `sentence` column), SyntaxGym's long CSV or a SyntaxGym JSON suite."""
    source = read_stimuli(path)
    if isinstance(source, GymSuite):
        return _from_suite(str(path), source)
    if not source:
        raise InputError(f"{path}: the file has a header but no sentences")
    taken = sorted(set(source[0].extra) & {"word", "region", *VALUE_COLUMNS})
    if taken:
        raise InputError(f"{path}: the column {taken[0]!r} is one the scored table adds; rename it")
    texts = tuple(Text(s.sentence, {"sentence": s.sentence, **s.extra}, (), f"{path}, row {number}")
                  for number, s in enumerate(source, start=1))
    return Stimuli(str(path), texts, None)


def _from_suite(label: str, suite: GymSuite) -> Stimuli:
    """One text per item and condition; its regions carry SyntaxGym's long-CSV columns."""
    texts = tuple(
        Text(c.sentence, {"item_number": item.number, "condition_name": c.name},
             tuple(({"region_number": r.number, "region_name": suite.region_names[r.number],
                     "content": r.content}, r.span) for r in c.regions),
             f"{label}, item {item.number}, condition {place}")
        for item in suite.items for place, c in enumerate(item.conditions, start=1))
    return Stimuli(label, texts, suite)


def stimuli_from_upload(name: str, data: bytes) -> Stimuli:
    """Stimuli from an uploaded file's name and bytes (read as a file of that name would be, and
    refused unwritten when larger than that kind of file, or in public mode an upload, may be)."""
    deployment().check_upload(len(data))
    name = upload_name(name)
    kind = stimuli_kind(name)
    if len(data) > kind.cap:
        raise too_large(Path(Path(name).name), kind)
    with tempfile.TemporaryDirectory() as folder:
        path = write_atomic(Path(folder) / Path(name).name, data, "the uploaded file")
        try:
            stimuli = read_stimuli_file(path)
        except InputError as exc:
            raise InputError(str(exc).replace(f"{folder}/", "")) from None
    texts = tuple(Text(t.sentence, t.columns, t.regions, t.where.replace(f"{folder}/", "")) for t in stimuli.texts)
    return Stimuli(path.name, texts, stimuli.suite)


def analyse_surprisal_upload(stimuli: Stimuli, name: str, data: bytes) -> StimuliResult:
    """What the Stimuli page shows for a suite whose token surprisals come from an uploaded lm-zoo
    file (refused unwritten when larger than a surprisal file, or in public mode an upload, may be; an
    lm-eval sample log is refused, pointing to the Models page that reads it): `words` holds each token
    with its region, `source` names the file and its sha256."""
    if stimuli.suite is None:
        raise InputError(f"{stimuli.label} is a plain stimuli CSV; a surprisal file goes with a SyntaxGym suite "
                         "(a suite JSON or SyntaxGym's long CSV)")
    deployment().check_upload(len(data))
    shown = upload_name(name)
    if is_sample_log(shown):  # the scores of pfcore's Paired-Focus requests, whole: nothing of a suite's tokens
        raise InputError(f"{shown} is an lm-evaluation-harness sample log: it holds one log-likelihood per "
                         "request of pfcore's Paired-Focus tasks (`pfcore export lm-eval`), not the token "
                         f"surprisals of these stimuli. {lm_eval_reader()}; here, give the suite's surprisals in "
                         "lm-zoo's format")
    if len(data) > SURPRISAL_FILE.cap:
        raise too_large(Path(shown), SURPRISAL_FILE)
    with tempfile.TemporaryDirectory() as folder:
        path = write_atomic(Path(folder) / shown, data, "the uploaded file")
        try:
            surprisals = read_surprisals(path, label=shown)
        except InputError as exc:
            raise InputError(str(exc).replace(f"{folder}/", "")) from None
    evaluation = syntaxgym.evaluate_surprisals(stimuli.suite, surprisals)
    return StimuliResult(evaluation.tokens, evaluation.rows, region_means(evaluation.rows),
                         evaluation.summary if stimuli.suite.predictions else None,
                         f"surprisals read from a file, {shown} (sha256 {surprisals.sha256})")


def lm_eval_reader() -> str:
    """Where an lm-eval sample log is read instead of the Stimuli page: the Models page, or on the
    visitor's own machine where this server (public mode) takes no lm-eval logs."""
    if not deployment().allows_saving:  # the Models page offers the lm-eval upload only where runs are saved
        return ("Read it with `pfcore run --suite SUITE --scores LOG` on your own machine (this public server "
                "does not take lm-eval logs)")
    return "Read it as a run on the Models page (\"Add a run from lm-evaluation-harness sample logs\")"


def score_stimuli(stimuli: Stimuli, scorer: RequestScorer, score: ScoreFn = plain_score,
                  *, corrected: bool = True) -> list[ScoredText]:
    """Score every text whole; a text the model cannot take is an InputError naming its row or item."""
    requests = [Request("", t.sentence) for t in stimuli.texts]
    try:
        return score_texts(scorer, requests, score, corrected=corrected)
    except RequestError as exc:
        where = next((t.where for t, r in zip(stimuli.texts, requests) if r == exc.request), stimuli.label)
        raise InputError(f"{where}: {exc}") from None


def check_level(stimuli: Stimuli, level: Level) -> None:
    """Regions need a SyntaxGym file; InputError saying so otherwise."""
    if level == "regions" and stimuli.suite is None:
        raise InputError(f"{stimuli.label} is a plain stimuli CSV, which has no regions: use words, or "
                         "give SyntaxGym's long CSV (item_number, condition_name, region_number, "
                         "region_name, content) or a suite JSON")


def long_table(stimuli: Stimuli, scored: Sequence[ScoredText], level: Level, spec: ModelSpec) -> pd.DataFrame:
    """One row per word or region: the input columns, the word or region and its span, the
    corrected and uncorrected surprisal (bits), its token count, the model and revision."""
    check_level(stimuli, level)
    rows = [row for text, result in zip(stimuli.texts, scored)
            for row in (_word_rows(text, result.words) if level == "words" else _region_rows(text, result.words))]
    table = pd.DataFrame(rows)
    table["model"], table["revision"] = spec.name, spec.revision or ""
    inputs = [c for c in table.columns if c not in (level[:-1], *VALUE_COLUMNS)]
    return table[[*inputs, level[:-1], *VALUE_COLUMNS]]


def _word_rows(text: Text, words: Sequence[Word]) -> list[Columns]:
    """The rows of one text's words, each with the columns of the region it lies in (if any)."""
    regions = owners(text.sentence, [(w.start, w.end) for w in words], [span for _, span in text.regions])
    return [{**text.columns, **(text.regions[r][0] if r is not None else {}), "word": w.text,
             "start": w.start, "end": w.end, "surprisal_bits": w.surprisal_bits,
             "surprisal_bits_uncorrected": w.surprisal_bits_uncorrected, "n_tokens": w.n_tokens}
            for w, r in zip(words, regions)]


def _region_rows(text: Text, words: Sequence[Word]) -> list[Columns]:
    """The rows of one text's regions: sums over the words starting in each (NaN when one of them
    is unscored, as a text's first word without BOS; 0 for an empty region)."""
    spans = [span for _, span in text.regions]
    where = owners(text.sentence, [(w.start, w.end) for w in words], spans)
    corrected = aggregate([w.surprisal_bits for w in words], where, len(spans), "sum")
    plain = aggregate([w.surprisal_bits_uncorrected for w in words], where, len(spans), "sum")
    counts = aggregate([float(w.n_tokens) for w in words], where, len(spans), "sum")
    return [{**text.columns, **columns, "region": text.sentence[start:end], "start": start, "end": end,
             "surprisal_bits": c, "surprisal_bits_uncorrected": p, "n_tokens": int(n)}
            for (columns, (start, end)), c, p, n in zip(text.regions, corrected, plain, counts)]


def stimuli_table(stimuli: Stimuli, scorer: RequestScorer, spec: ModelSpec, level: Level,
                  *, corrected: bool = True, score: ScoreFn = plain_score) -> pd.DataFrame:
    """The long table of a stimuli file scored by one model (`score` may go through the cache)."""
    check_level(stimuli, level)
    return long_table(stimuli, score_stimuli(stimuli, scorer, score, corrected=corrected), level, spec)


def analyse_stimuli(stimuli: Stimuli, scorer: RequestScorer, spec: ModelSpec, *, corrected: bool = True,
                    progress: Progress | None = None) -> StimuliResult:
    """Score a stimuli file through the persistent score cache and shape what the page shows."""
    with ScoreCache() as cache:
        scored = score_stimuli(stimuli, scorer, through_cache(cache, progress), corrected=corrected)
    words = long_table(stimuli, scored, "words", spec)
    suite = stimuli.suite
    if suite is None:
        return StimuliResult(words, None, None, None)
    rows = syntaxgym.region_rows(suite, scored, corrected=corrected and all(s.corrected for s in scored))
    accuracy = (syntaxgym.summarize(syntaxgym.decisions(rows, {suite.name: suite.predictions}))
                if suite.predictions else None)
    return StimuliResult(words, long_table(stimuli, scored, "regions", spec), region_means(rows), accuracy)


def region_means(rows: pd.DataFrame) -> pd.DataFrame:
    """Per condition and region, the mean surprisal over items with a 95% interval (normal), as
    SyntaxGym's plots show it; regions in their number order, conditions as the items give them.
    A region with words but no scored token (a sentence's first word) has no value, not 0."""
    out = []
    for (condition, number, name), part in rows.groupby(["condition_name", "region_number", "region_name"],
                                                        sort=False):
        scored = part[(part["n_tokens"] > 0) | (part["content"].str.strip() == "")]
        values = scored["surprisal_bits"].dropna().to_numpy()
        mean, low, high = mean_interval(values) if len(values) else (math.nan, math.nan, math.nan)
        out.append({"condition_name": condition, "region_number": int(number), "region_name": name,
                    "surprisal_bits": mean, "ci_low": low, "ci_high": high, "n": len(values)})
    return pd.DataFrame(out).sort_values("region_number", kind="stable").reset_index(drop=True)


def word_bars(words: pd.DataFrame, sentences: Sequence[str]) -> pd.DataFrame:
    """The words of the chosen sentences of a plain stimuli table, shaped for the token-bar
    figure: sentence (the series), position, token (the word) and surprisal_bits."""
    part = words[words["sentence"].isin(sentences)].drop_duplicates(["sentence", "start"])
    part = part.assign(position=part.groupby("sentence", sort=False).cumcount())
    return part.rename(columns={"word": "token"})[["sentence", "position", "token", "surprisal_bits"]]
