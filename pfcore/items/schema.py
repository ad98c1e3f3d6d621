"""Item records of the three suites: explicit fields, and ids that are hashes of their content."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, TypeVar

from pfcore.names import Construction, SuiteName
from pfcore.scoring.requests import BLANK

# Construction name -> its fixed words, as the published files name them (names.Construction spells both).
CONSTRUCTIONS: dict[str, str] = {c.value: c.words for c in Construction}
# The four by their names, as every table of pfcore's names them (the results table, summaries, series).
PF_CONSTRUCTIONS: tuple[str, ...] = tuple(c.value for c in Construction)
# The four as the paper's layout spells them ("letalone"): the columns of its Tables 5-8 (data/reference/).
PAPER_CONSTRUCTIONS: tuple[str, ...] = tuple(c.published for c in Construction)
SYNTAX_CONTROL = "and"  # the syntactic suite's control "construction"
MASK = BLANK  # the blank of a semantic follow-up
FILLS: tuple[str, str] = ("easier", "harder")
CONTEXT_ORDERS = ("aligned", "misaligned")
FOLLOWUP_ORDERS = ("same", "reversed")
MANIPULATIONS = ("base", "NPI", "Pseudocleft", "CP Conjunction", "VP Conjunction",
                 "VP Gap Conjunction")


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def content_hash(*parts: object) -> str:
    """A 16-hex-digit sha256 of the parts' JSON: the same content gets the same id in any run."""
    return hashlib.sha256(_JSON.encode(parts).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class SemanticItem:
    """One row of the semantic suite: a context with a connective and a follow-up with a blank.

    context_order "aligned" names the easier task first (paper Swapped_Condition 0);
    followup_order "same" names the easier task first too (paper Swapped_Stimulus 0), whatever
    the context's order. weak_adj is the easier task's adjective, strong_adj the harder one's.
    repeat numbers identical copies of a block (the published sets list some blocks twice).
    """

    SUITE: ClassVar[SuiteName] = SuiteName.SEMANTIC  # the suite the item belongs to
    item_id: str
    block_id: str
    construction: str
    connective: str
    is_construction: bool
    context_order: str
    followup_order: str
    context: str
    followup: str
    frame: str
    verb: str
    noun: str
    scale: str
    weak_adj: str
    strong_adj: str
    pronoun: str
    modal: str
    fills: tuple[str, ...] = FILLS
    repeat: int = 0

    @property
    def sentence(self) -> str:
        """The published "Sentence" column: context and follow-up."""
        return f"{self.context} {self.followup}"

    @classmethod
    def ids_of(cls, v: Mapping[str, Any]) -> dict[str, str]:
        """The ids for this content (item_id from the text, block_id from the block's content)."""
        return {
            "item_id": content_hash(cls.SUITE, v["construction"], v["connective"], v["context"],
                                    v["followup"], list(v["fills"]), v["repeat"]),
            "block_id": content_hash("semantic-block", v["construction"], v["frame"],
                                     v["pronoun"], v["modal"], v["weak_adj"], v["strong_adj"],
                                     v["repeat"]),
        }


@dataclass(frozen=True)
class SyntaxItem:
    """One sentence of the syntactic suite: a base sentence or one manipulation of it.

    base_id identifies the base sentence's content and is the same for all connectives, so a
    construction's rows pair with the "and" rows of the same base and manipulation.
    """

    SUITE: ClassVar[SuiteName] = SuiteName.SYNTAX  # the suite the item belongs to
    item_id: str
    base_id: str
    construction: str
    connective: str
    manipulation: str
    sentence: str
    frame: str
    verb: str
    noun: str
    scale: str
    weak_adj: str
    strong_adj: str
    pronoun: str
    modal: str
    context_order: str
    repeat: int = 0

    @classmethod
    def ids_of(cls, v: Mapping[str, Any]) -> dict[str, str]:
        """The ids for this content (base_id from the base's content, not the connective)."""
        return {
            "item_id": content_hash(cls.SUITE, v["construction"], v["connective"],
                                    v["manipulation"], v["sentence"], v["repeat"]),
            "base_id": content_hash("syntax-base", v["frame"], v["pronoun"], v["modal"],
                                    v["weak_adj"], v["strong_adj"], v["context_order"],
                                    v["repeat"]),
        }


@dataclass(frozen=True)
class AffinityItem:
    """A construction sentence for Global Affinity: its fixed words and their character spans."""

    SUITE: ClassVar[SuiteName] = SuiteName.AFFINITY  # the suite the item belongs to
    item_id: str
    construction: str
    sentence: str
    words: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]
    context_order: str
    frame: str
    verb: str
    noun: str
    scale: str
    weak_adj: str
    strong_adj: str
    pronoun: str
    modal: str
    repeat: int = 0

    @classmethod
    def ids_of(cls, v: Mapping[str, Any]) -> dict[str, str]:
        """The id for this content."""
        return {"item_id": content_hash(cls.SUITE, v["construction"], v["sentence"], list(v["words"]),
                                        [list(span) for span in v["spans"]], v["repeat"])}


Item = SemanticItem | SyntaxItem | AffinityItem
ITEM_TYPES: dict[SuiteName, type[SemanticItem] | type[SyntaxItem] | type[AffinityItem]] = {
    cls.SUITE: cls for cls in (SemanticItem, SyntaxItem, AffinityItem)
}
T = TypeVar("T", SemanticItem, SyntaxItem, AffinityItem)


def build(cls: type[T], **content: Any) -> T:
    """An item of `cls` from its content, with the id fields computed from it."""
    return cls(**{**content, **cls.ids_of(content)})


def computed_ids(item: Item) -> dict[str, str]:
    """The ids an item's content should carry (differs from its fields when edited by hand)."""
    return item.ids_of(vars(item))


def field_names(suite: SuiteName) -> list[str]:
    """The column names of a suite's items, in schema order."""
    return [f.name for f in fields(ITEM_TYPES[suite])]
