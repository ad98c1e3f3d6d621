"""SyntaxGym test suites (Hu et al. 2020) as a pfcore suite: each condition's sentence is scored
whole, its token surprisals (bits) are aggregated per region with the suite's metric as
syntaxgym-core does (uncorrected, first token unscored without BOS), or, with `corrected` (the
default, for causal models), the metric runs over the region's words with the beginning-of-word
correction; each item's prediction formulas are evaluated on those region values. Masked models
give PLL token scores instead. A suite is also evaluated from a file of token surprisals made
elsewhere (lm-zoo's format: `evaluate_surprisals`), and written back with a value per region as
syntaxgym-core writes it (`evaluated_json`)."""
from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from pfcore.errors import InputError
from pfcore.intervals import accuracy
from pfcore.items.formula import Formula, parse_formula
from pfcore.items.syntaxgym import Condition, GymSuite, read_suite
from pfcore.names import SuiteName
from pfcore.scoring.align import aggregate, attached_owners, owners
from pfcore.scoring.lmzoo import AlignmentError, SurprisalFile, align_tokens
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import Reduction, Request, RequestScorer, TokenScores
from pfcore.scoring.words import ScoredText, ScoreFn, score_texts
from pfcore.suites.base import RunConfig, ScoreContext, Suite, limit_positive

SOURCE = "https://github.com/cpllab/syntactic-generalization (test_suites/json)"
ROW_COLUMNS = ("suite", "item_number", "condition_name", "region_number", "region_name", "content",
               "surprisal_bits", "n_tokens")
PREDICTIONS = "predictions"  # rows.attrs key: suite name -> its formulas' text (small: pandas copies attrs)
TOKEN_COLUMNS = ("sentence_id", "item_number", "condition_name", "token_id", "token", "surprisal_bits",
                 "region_number")
SUMMARY_COLUMNS = ("construction", "filter", "formula", "accuracy", "ci_low", "ci_high", "n")


@dataclass(frozen=True)
class GymItems:
    """What a SyntaxGym run scores: the suites read from --items, and whether region values come
    from corrected word surprisals rather than token surprisals."""

    suites: tuple[GymSuite, ...]
    corrected: bool = False


def load_suites(path: str | Path | None, limit: int | None = None) -> tuple[GymSuite, ...]:
    """One suite file, or every *.json suite in a folder (names must differ), each cut to its first
    `limit` items; InputError saying where to get suites when none is given."""
    limit_positive(limit, "--limit-blocks")
    if not path:
        raise InputError(f"give a SyntaxGym suite file or folder with --items (the suites are at {SOURCE})")
    folder = Path(path)
    files = sorted(folder.glob("*.json")) if folder.is_dir() else [folder]
    if not files:
        raise InputError(f"{folder} holds no *.json SyntaxGym suites")
    suites = [read_suite(f) for f in files]
    seen: dict[str, Path] = {}
    for suite, file in zip(suites, files):
        if suite.name in seen:
            raise InputError(f"{file} and {seen[suite.name]} are both suite {suite.name!r}; names must differ")
        seen[suite.name] = file
    return tuple(replace(s, items=s.items[:limit]) if limit else s for s in suites)


def condition_requests(suite: GymSuite) -> list[Request]:
    """One whole-sentence request per item and condition, in item then condition order."""
    return [Request("", c.sentence) for item in suite.items for c in item.conditions]


def suite_sentences(suite: GymSuite) -> list[str]:
    """Every condition's sentence in `condition_requests` order (syntaxgym-core's `get_sentences`),
    for a file of one sentence a line; InputError for a sentence holding a line break."""
    for item in suite.items:
        for place, condition in enumerate(item.conditions, start=1):
            if condition.sentence.splitlines() != [condition.sentence]:
                raise InputError(f"{suite.name}, item {item.number}, condition {place}: the sentence holds a line "
                                 "break, so it cannot be written one sentence a line")
    return [r.text for r in condition_requests(suite)]


def region_values(condition: Condition, scored: ScoredText, metric: str,
                  *, corrected: bool) -> tuple[list[float], list[float]]:
    """(the metric over each region's scored token surprisals, or over its scored words' corrected
    surprisals; the number of scored tokens in each region). A token belongs to the region of its
    first non-space character; a whitespace-only token to the region of the token after it."""
    n_regions = len(condition.regions)
    if corrected:
        words = [w for w in scored.words if not math.isnan(w.logprob)]
        word_regions = owners(condition.sentence, [(w.start, w.end) for w in words], condition.spans)
        counts = aggregate([float(w.n_tokens) for w in words], word_regions, n_regions, "sum")
        return aggregate([w.surprisal_bits for w in words], word_regions, n_regions, metric), counts
    token_regions = attached_owners(condition.sentence, scored.scored_spans, condition.spans)
    counts = aggregate([1.0] * len(token_regions), token_regions, n_regions, "sum")
    return aggregate(list(scored.scores.surprisals_bits), token_regions, n_regions, metric), counts


def region_rows(suite: GymSuite, scored: Sequence[ScoredText], *, corrected: bool) -> pd.DataFrame:
    """One row per item, condition and region with its aggregated surprisal (bits); `scored`
    follows `condition_requests(suite)`."""
    rows = []
    texts = iter(scored)
    for item in suite.items:
        for condition in item.conditions:
            values, counts = region_values(condition, next(texts), suite.metric, corrected=corrected)
            for region, value, count in zip(condition.regions, values, counts):
                rows.append((suite.name, item.number, condition.name, region.number,
                             suite.region_names[region.number], region.content, value, int(count)))
    return pd.DataFrame(rows, columns=list(ROW_COLUMNS))


def decisions(rows: pd.DataFrame, predictions: Mapping[str, Sequence[Formula]]) -> pd.DataFrame:
    """One row per item and prediction: whether the formula holds on the item's region values."""
    out = []
    for (suite, item), part in rows.groupby(["suite", "item_number"], sort=False):
        values = {(c, int(r)): float(v) for c, r, v in
                  zip(part["condition_name"], part["region_number"], part["surprisal_bits"])}
        for index, formula in enumerate(predictions[str(suite)]):
            out.append((suite, item, str(index), formula.source, bool(formula.evaluate(values))))
    return pd.DataFrame(out, columns=["suite", "item_number", "prediction", "formula", "correct"])


def summarize(decided: pd.DataFrame) -> pd.DataFrame:
    """Accuracy with a 95% Wilson interval per suite (construction) and prediction (filter)."""
    if decided.empty:
        return pd.DataFrame(columns=list(SUMMARY_COLUMNS))
    out = []
    for (suite, prediction), part in decided.groupby(["suite", "prediction"], sort=False):
        acc = accuracy(part["correct"].to_numpy())
        out.append({"construction": suite, "filter": prediction, "formula": part["formula"].iloc[0],
                    "accuracy": acc.value, "ci_low": acc.low, "ci_high": acc.high, "n": acc.n})
    return pd.DataFrame(out)


def score_suites(suites: Sequence[GymSuite], scorer: RequestScorer,
                 score: ScoreFn, *, corrected: bool) -> pd.DataFrame:
    """Region rows of every suite, scored in one pass (shared sentences once); the text of the
    suites' formulas rides along in `rows.attrs` for `SyntaxGymSuite.decide`. The correction is a
    causal model's: a masked model's regions keep their PLL token sums."""
    corrected = corrected and scorer.bow_scorer() is not None
    requests = [condition_requests(s) for s in suites]
    scored = iter(score_texts(scorer, [r for part in requests for r in part], score, corrected=corrected))
    rows = pd.concat([region_rows(s, [next(scored) for _ in part], corrected=corrected)
                      for s, part in zip(suites, requests)], ignore_index=True)
    rows.attrs[PREDICTIONS] = {s.name: tuple(f.source for f in s.predictions) for s in suites}
    return rows


@dataclass(frozen=True)
class FileEvaluation:
    """A suite evaluated from a surprisal file: one row per item, condition and region (ROW_COLUMNS,
    `surprisal_bits` the metric the predictions read, then a column of each metric the suite asks
    for), each token with the region it was aligned to, the decisions and their summary."""

    suite: GymSuite
    source: SurprisalFile
    rows: pd.DataFrame
    tokens: pd.DataFrame
    decisions: pd.DataFrame
    summary: pd.DataFrame


def evaluate_surprisals(suite: GymSuite, surprisals: SurprisalFile) -> FileEvaluation:
    """Align each sentence's tokens to its regions, aggregate their surprisals (bits) with every
    metric of the suite, as syntaxgym-core does (each token counted, the first and `<eos>` too),
    and evaluate the predictions; InputError naming the sentence, item, condition and region where
    the file does not fit the suite. Sentences follow `condition_requests(suite)`."""
    places = [(item, place, c) for item in suite.items for place, c in enumerate(item.conditions, start=1)]
    if len(places) != len(surprisals.sentences):
        raise InputError(f"{surprisals.label} holds {len(surprisals.sentences):,} sentences, but the suite "
                         f"{suite.name!r} has {len(places):,} (one per item and condition, in the order "
                         "`pfcore syntaxgym sentences` writes them)")
    metrics = tuple(dict.fromkeys((*suite.all_metrics, suite.metric)))
    rows: list[tuple[Any, ...]] = []
    tokens: list[tuple[Any, ...]] = []
    byte_level = surprisals.byte_level
    for (item, place, condition), sentence in zip(places, surprisals.sentences):
        labels = [f"region {r.number} ({suite.region_names[r.number]})" for r in condition.regions]
        try:
            where = align_tokens(condition.sentence, sentence.tokens, condition.spans, labels, byte_level=byte_level)
        except AlignmentError as exc:
            raise InputError(f"{surprisals.label}:{sentence.token_line(exc.token)}: sentence {sentence.number} "
                             f"(item {item.number}, "
                             f"condition {place} {condition.name!r}), {exc}") from None
        n = len(condition.regions)
        values = {m: aggregate(sentence.bits, where, n, m) for m in metrics}
        counts = aggregate([1.0] * len(where), where, n, "sum")
        for k, region in enumerate(condition.regions):
            rows.append((suite.name, item.number, condition.name, region.number, suite.region_names[region.number],
                         region.content, values[suite.metric][k], int(counts[k]),
                         *(values[m][k] for m in suite.all_metrics)))
        tokens += [(sentence.number, item.number, condition.name, k + 1, token, bits, condition.regions[r].number)
                   for k, (token, bits, r) in enumerate(zip(sentence.tokens, sentence.bits, where))]
    table = pd.DataFrame(rows, columns=[*ROW_COLUMNS, *suite.all_metrics])
    decided = decisions(table, {suite.name: suite.predictions})
    return FileEvaluation(suite, surprisals, table, pd.DataFrame(tokens, columns=list(TOKEN_COLUMNS)), decided,
                          summarize(decided))


def evaluated_json(data: Mapping[str, Any], evaluation: FileEvaluation, model: str | None = None) -> dict[str, Any]:
    """The suite's JSON object (as read) with a `metric_value` per region, {metric: value (bits)}
    for each metric it asks for (null for no value), laid out as syntaxgym-core's output files;
    `model` goes into meta.model where given, as syntaxgym-core records it."""
    out = copy.deepcopy(dict(data))
    if model:
        out["meta"]["model"] = model
    metrics = evaluation.suite.all_metrics
    values = iter(evaluation.rows[list(metrics)].itertuples(index=False))
    for item in out["items"]:
        for condition in item["conditions"]:
            for region in condition["regions"]:
                region["metric_value"] = {m: (None if math.isnan(v) else float(v))
                                          for m, v in zip(metrics, next(values))}
    return out


class SyntaxGymSuite(Suite[GymItems]):
    """Region-based targeted evaluation: the share of items for which each prediction holds."""

    name = SuiteName.SYNTAXGYM
    label = "SyntaxGym (region surprisal, Hu et al. 2020)"
    headline = tuple(str(i) for i in range(10))
    chance = None
    pivoted = True

    def load(self, config: RunConfig) -> GymItems:
        """The suites of --items (a file or folder), the first `limit_blocks` items of each."""
        return GymItems(load_suites(config.items_path, config.limit_blocks), config.corrected)

    def item_ids(self, items: GymItems) -> list[str]:
        """suite:item for every item."""
        return [f"{s.name}:{item.number}" for s in items.suites for item in s.items]

    def requests(self, items: GymItems, method: ScoringMethod) -> list[Request]:
        """Every condition's sentence, as scored."""
        return [r for s in items.suites for r in condition_requests(s)]

    def reduction(self, config: RunConfig, method: ScoringMethod) -> Reduction:
        """Regions are aggregated with each suite's own metric; sentences are not reduced."""
        return Reduction.SUM

    def default_source(self, config: RunConfig) -> str:
        """Suites come only from --items."""
        return f"SyntaxGym suites given with --items ({SOURCE})"

    def score(self, items: GymItems, ctx: ScoreContext) -> pd.DataFrame:
        """Region surprisals of every item and condition, through the score cache."""
        def through_cache(scorer: RequestScorer, requests: Sequence[Request]) -> list[TokenScores]:
            return replace(ctx, scorer=scorer).scores(requests)

        return score_suites(items.suites, ctx.scorer, through_cache, corrected=items.corrected)

    def decide(self, rows: pd.DataFrame) -> pd.DataFrame:
        """Each item's predictions, with the formulas `score` attached to the rows."""
        formulas = {name: [parse_formula(text) for text in texts] for name, texts in rows.attrs[PREDICTIONS].items()}
        return decisions(rows, formulas)

    def summarize(self, decided: pd.DataFrame) -> pd.DataFrame:
        """Accuracy per suite and prediction."""
        return summarize(decided)


SUITE = SyntaxGymSuite()
