"""Base sentences: frame x adjective pair x modal x pronoun, in the published order, and their words."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from pfcore.items.lexicon import Frame, Lexicon, Modal, Pronoun
from pfcore.items.schema import FILLS, MASK

# Words the sentence templates add to the lexicon's words.
TEMPLATE_WORDS = frozenset({"a", "an", "one", "is", "than"})
TOKEN = re.compile(re.escape(MASK) + r"|[A-Za-z][A-Za-z']*")


def article(word: str) -> str:
    """The indefinite article before a word, by its first letter ("an ugly", "a huge")."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def capitalize(text: str) -> str:
    """The text with its first letter upper-cased and the rest untouched."""
    return text[:1].upper() + text[1:]


def sentence_words(text: str) -> list[str]:
    """The words (and blanks) of a sentence, for spelling checks."""
    return TOKEN.findall(text)


def known_words(lexicon: Lexicon) -> frozenset[str]:
    """Every lower-cased word a generated sentence may contain."""
    return lexicon.vocabulary() | TEMPLATE_WORDS | set(FILLS) | {MASK.lower()}


@dataclass(frozen=True)
class Base:
    """One block's content: a frame, a subject, a modal, and the easier/harder adjectives."""

    frame: Frame
    pronoun: Pronoun
    modal: Modal
    weak: str
    strong: str
    repeat: int

    def np(self, adjective: str) -> str:
        """The full noun phrase ("an ugly song")."""
        return f"{article(adjective)} {adjective} {self.frame.noun}"

    def one(self, adjective: str) -> str:
        """The anaphoric noun phrase ("a beautiful one")."""
        return f"{article(adjective)} {adjective} one"

    def ordered(self, order: str) -> tuple[str, str]:
        """The two adjectives in "aligned"/"same" (easier first) or the other order."""
        return (self.weak, self.strong) if order in ("aligned", "same") else (self.strong, self.weak)

    def clause(self, first: str, connective: str, second: str, modal: str | None = None) -> str:
        """'{Pronoun} {modal} {verb} {first NP}, {connective} {second}.' (second written out)."""
        return (f"{self.pronoun.word} {modal or self.modal.negative} {self.frame.verb} "
                f"{self.np(first)}, {connective} {second}.")

    def context(self, order: str, connective: str, *, weaker: bool = False, positive: bool = False) -> str:
        """The semantic context: "You couldn't lift a tiny rock, let alone a huge one.". The aligned
        order is the one whose reading under the construction agrees with the world: the easier task
        first, or, for a construction whose focus 2 is the weaker end, the harder task first; a
        construction of a positive context stands in the positive clause ("You could ...")."""
        first, second = self.ordered(order)
        if weaker:
            first, second = second, first
        return self.clause(first, connective, self.one(second), modal=self.modal.positive if positive else None)

    def followup(self, order: str) -> str:
        """The follow-up with its blank: "Lifting a tiny rock is <MASK> than lifting a huge rock."."""
        first, second = self.ordered(order)
        gerund = self.frame.gerund
        return f"{capitalize(gerund)} {self.np(first)} is {MASK} than {gerund} {self.np(second)}."

    def fields(self) -> dict[str, str | int]:
        """The item fields every suite copies from the base."""
        return {"frame": self.frame.name, "verb": self.frame.verb, "noun": self.frame.noun,
                "scale": self.frame.scale, "weak_adj": self.weak, "strong_adj": self.strong,
                "pronoun": self.pronoun.word, "modal": self.modal.negative, "repeat": self.repeat}


def iter_bases(lexicon: Lexicon, *, paper_compatible: bool = False) -> list[Base]:
    """All bases in the published order: frame, easier adjective, harder adjective, modal, pronoun.

    The default mode uses the whole lexicon and drops repeated blocks; paper-compatible mode uses
    the published inventory, keeps its repeated blocks (numbered by repeat) and its spellings.
    """
    bases: list[Base] = []
    seen: Counter[tuple[str, str, str, str, str]] = Counter()
    frames, modals, pronouns = lexicon.inventory(paper_compatible=paper_compatible)
    for frame in frames:
        easy = lexicon.adjectives(frame, lexicon.easier_end(frame), paper_compatible=paper_compatible)
        hard = lexicon.adjectives(frame, frame.harder, paper_compatible=paper_compatible)
        for weak in easy:
            for strong in hard:
                for modal in modals:
                    for pronoun in pronouns:
                        key = (frame.name, weak, strong, modal.negative, pronoun.subject)
                        if seen[key] and not paper_compatible:
                            continue
                        bases.append(Base(frame, pronoun, modal, weak, strong, seen[key]))
                        seen[key] += 1
    return bases
