"""The Items page's data: the shipped items as one table per suite with their filters, and one
block (semantic: 8 rows, two fills each) or base sentence (syntax: every manipulation, with the
construction and with "and") scored with a model."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from pfcore.errors import InputError
from pfcore.items import default_items
from pfcore.items.schema import Item, SemanticItem, SyntaxItem
from pfcore.names import Construction, Reduction, SuiteName
from pfcore.scoring.requests import LN2, RequestScorer
from pfcore.scoring.tables import stacked, token_table
from pfcore.store.cache import score_persistent
from pfcore.suites import semantic, syntax
from pfcore.suites.registry import SUITES
from pfcore.suites.semantic import CONDITIONS

BROWSED = tuple(name for name, suite in SUITES.items() if suite.block)  # the suites the Items page browses
SEARCH_MAX = 200
SEMANTIC_COLUMNS = ("construction", "connective", "condition", "context", "followup", "verb",
                    "noun", "scale", "weak_adj", "strong_adj", "pronoun", "modal", "block_id",
                    "item_id")
SYNTAX_COLUMNS = ("construction", "connective", "condition", "sentence", "verb", "noun", "scale",
                  "weak_adj", "strong_adj", "pronoun", "modal", "context_order", "base_id",
                  "item_id")


def item_table(suite: SuiteName) -> pd.DataFrame:
    """All shipped items of a suite as one table, with a `condition` column to filter on
    (semantic: aligned1..misaligned2; syntax: the manipulation)."""
    block_key(suite)  # refuses a suite the page does not browse
    items = default_items(suite)
    df = pd.DataFrame([vars(i) for i in items])
    if suite == SuiteName.SEMANTIC:
        df["condition"] = [CONDITIONS[(c, f)][0] for c, f in zip(df["context_order"], df["followup_order"])]
        return df[list(SEMANTIC_COLUMNS)]
    df["condition"] = df["manipulation"]
    return df[list(SYNTAX_COLUMNS)]


def block_key(suite: SuiteName) -> str:
    """The item field that groups a browsed suite's items into blocks (block_id, base_id); InputError
    for a suite the Items page does not browse."""
    key = SUITES[suite].block if suite in SUITES else None
    if key is None:
        raise InputError(f"unknown item suite {suite!r}; choose {' or '.join(BROWSED)}")
    return key


@dataclass(frozen=True)
class ItemFilter:
    """What the user filters on; empty tuples mean no restriction."""

    constructions: tuple[str, ...] = ()
    scales: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()
    search: str = ""


def filter_items(df: pd.DataFrame, f: ItemFilter) -> pd.DataFrame:
    """The rows that pass every filter; the search is a case-insensitive substring of the text."""
    if len(f.search) > SEARCH_MAX:
        raise InputError(f"the search text is too long ({len(f.search)} characters; at most {SEARCH_MAX})")
    keep = pd.Series(True, index=df.index)
    for column, values in (("construction", f.constructions), ("scale", f.scales),
                           ("verb", f.verbs), ("condition", f.conditions)):
        if values:
            keep &= df[column].isin(values)
    needle = f.search.strip().lower()
    if needle:
        text = df["sentence"] if "sentence" in df.columns else df["context"] + " " + df["followup"]
        keep &= text.str.lower().str.contains(needle, regex=False)
    return df[keep]


PICKER_LIMIT = 500  # blocks a picker lists; a clicked row opens any other


def group_count(rows: pd.DataFrame, suite: SuiteName) -> int:
    """How many blocks (semantic) or base sentences (syntax) the rows hold."""
    return int(rows[block_key(suite)].nunique())


def group_of_row(rows: pd.DataFrame, suite: SuiteName, position: int) -> str:
    """The block (or base) id of the row at a position of the table as shown."""
    return str(rows.iloc[position][block_key(suite)])


def group_labels(rows: pd.DataFrame, suite: SuiteName, *, limit: int = PICKER_LIMIT,
                 keep: str | None = None) -> dict[str, str]:
    """Block (semantic) or base sentence (syntax) ids among the rows, with a readable label each:
    the first `limit`, and the block `keep` (a clicked row's) wherever it is."""
    key = block_key(suite)
    unique = rows.drop_duplicates(key)
    firsts = unique.head(limit)
    if keep is not None and keep not in set(firsts[key]):
        firsts = pd.concat([unique[unique[key] == keep], firsts])
    if suite == SuiteName.SEMANTIC:
        return {r[key]: f"{Construction(r['construction']).words} · {r['verb']} "
                        f"{r['noun']} ({r['weak_adj']} / {r['strong_adj']}) · {r['pronoun']} {r['modal']}"
                for _, r in firsts.iterrows()}
    return {r[key]: f"{r['verb']} {r['noun']} ({r['weak_adj']} / {r['strong_adj']}) · {r['pronoun']} "
                    f"{r['modal']} · {r['context_order']}"
            for _, r in firsts.iterrows()}


@dataclass(frozen=True)
class GroupScores:
    """One scored block or base: per-sentence values, pairwise decisions, per-token surprisals."""

    rows: pd.DataFrame
    decisions: pd.DataFrame
    tokens: pd.DataFrame


def stacked_groups(groups: Mapping[str, GroupScores]) -> GroupScores:
    """One block scored by several models, as one GroupScores whose tables have a `model` column."""
    return GroupScores(stacked({m: g.rows for m, g in groups.items()}),
                       stacked({m: g.decisions for m, g in groups.items()}),
                       stacked({m: g.tokens for m, g in groups.items()}))


@dataclass(frozen=True)
class SuiteLayout:
    """How the Items page shows one suite: its words, what its per-token chart picks (`token_key`
    rows, one at a time or several, coloured by `colour`, under `chart_title`), and the label of its count of correct
    decisions per model (None: not counted, as a syntactic base mixes tests and controls)."""

    title: str
    condition: str
    group: str
    heading: str
    rows_note: str
    decisions_note: str
    token_key: str
    colour: str
    pick_one: bool
    chart_title: str  # with {group} (the block's label) and {picked} (the first row charted)
    correct_label: str | None


LAYOUTS: dict[SuiteName, SuiteLayout] = {
    SuiteName.SEMANTIC: SuiteLayout(
        "Semantic (meaning)", "Condition", "Block", "One block, scored",
        "**Rows**: log-odds = log P(*easier*) − log P(*harder*) of the follow-up given the context.",
        "**Decisions**: the construction must move the log-odds further than *or*, in the direction it "
        "entails (higher for aligned1 and misaligned2, lower for aligned2 and misaligned1).",
        "row", "fill", True, "{group}, {picked}: the follow-up with each fill", "Correct pairs in this block"),
    SuiteName.SYNTAX: SuiteLayout(
        "Syntactic (form)", "Manipulation", "Base sentence", "One base sentence, scored",
        "**Sentences**: surprisal = − mean log-probability per token (bits).",
        "**Decisions**: correct when the manipulation raises surprisal more with the construction than "
        "with *and*.",
        "sentence", "sentence", False, "{group}: per-token surprisal", None),
}


def correct_per_model(decisions: pd.DataFrame) -> list[tuple[str, int, int]]:
    """(model, correct decisions, decisions) for each model of a stacked block, in its order."""
    counts = decisions.groupby("model", sort=False)["correct"].agg(["sum", "size"])
    return [(str(model), int(row["sum"]), int(row["size"])) for model, row in counts.iterrows()]


def group_items(suite: SuiteName, group_id: str) -> list[Item]:
    """The items of one semantic block, or of one syntactic base (every connective)."""
    key = block_key(suite)
    items = [i for i in default_items(suite) if getattr(i, key) == group_id]
    if not items:
        raise InputError(f"no {suite} items with {key} {group_id}")
    return items


def score_group(scorer: RequestScorer, suite: SuiteName, group_id: str) -> GroupScores:
    """Score one block (semantic) or one base with its manipulations (syntax) with the model."""
    items = group_items(suite, group_id)
    if suite == SuiteName.SEMANTIC:
        return _score_semantic(scorer, [i for i in items if isinstance(i, SemanticItem)])
    return _score_syntax(scorer, [i for i in items if isinstance(i, SyntaxItem)])


def _score_semantic(scorer: RequestScorer, items: Sequence[SemanticItem]) -> GroupScores:
    """Log P of each fill given the context, log-odds per row, the 4 decisions, token surprisals."""
    scores = score_persistent(scorer, semantic.requests(items))
    rows = semantic.row_scores(items, scores, Reduction.MEAN)
    rows.insert(0, "row", [row_name(i) for i in items])
    labels = [{"row": row_name(i), "fill": fill, "text": semantic.filled(i, fill)}
              for i in items for fill in i.fills[:2]]
    dec = semantic.decisions(rows)
    dec = _bits(dec[["condition", "correct", "cxn_logodds", "or_logodds", "context_order", "followup_order"]])
    return GroupScores(_bits(rows[["row", "logodds", "logp_easier", "logp_harder", "context", "followup"]]),
                       dec, token_table(labels, scores))


def _bits(table: pd.DataFrame) -> pd.DataFrame:
    """Log-probability columns (nats) in bits, renamed with a _bits suffix, so one view has one unit."""
    columns = [c for c in table.columns if c.startswith(("logp", "logodds", "cxn_logodds", "or_logodds",
                                                         "surprisal", "rise"))]
    return table.assign(**{c: table[c] / LN2 for c in columns}).rename(columns={c: f"{c}_bits" for c in columns})


def row_name(item: SemanticItem) -> str:
    """Short name of a semantic row: connective, context order and follow-up order."""
    return f"{item.connective} · {item.context_order} · {item.followup_order}"


def _score_syntax(scorer: RequestScorer, items: Sequence[SyntaxItem]) -> GroupScores:
    """Surprisal of each sentence, the rise of each manipulation over the base (construction
    against "and"), and token surprisals."""
    scores = score_persistent(scorer, syntax.requests(items))
    rows = syntax.row_scores(items, scores, Reduction.MEAN)
    dec = _bits(syntax.decisions(rows)[["manipulation", "construction", "correct", "rise", "rise_and"]])
    labels = [{"sentence": f"{i.connective} · {i.manipulation}", "text": i.sentence} for i in items]
    return GroupScores(_bits(rows[["connective", "manipulation", "surprisal", "sentence"]]), dec,
                       token_table(labels, scores))
