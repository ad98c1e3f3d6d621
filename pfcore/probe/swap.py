"""The sentence with its two foci exchanged ("We barely had time for dinner, let alone lunch."): the
context on which a follow-up pair's entailed and contradicted follow-ups trade places, so one pair
gives two decisions and the follow-ups' own wording weighs on both sides. Articles agree ("a" /
"an"), a capital stays at the start of the sentence, and an anaphoric "one" ("a tiny rock, let
alone a huge one") keeps standing for the noun it replaces. Where the foci cannot be exchanged,
`Swap.reason` says why, and only the sentence as typed is scored."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pfcore.errors import InputError
from pfcore.probe.detect import PHRASE_OPENERS, Probe, bare_word

# Words that open a clause: a focus starting with one is a clause, not a phrase ("that", "what" and
# "which" are left out: they are as often determiners, "that one").
SUBORDINATORS = frozenset({"whether", "if", "who", "whom", "why", "how", "when", "where", "because", "since",
                           "while", "although", "though", "unless"})
# Subject pronouns that cannot be objects ("you" and "it" can): a focus holding one is a clause.
CLAUSE_SUBJECTS = frozenset({"i", "he", "she", "we", "they"})
ANAPHORS = frozenset({"one", "ones"})
INDEFINITE = frozenset({"a", "an"})
# Words spelled with a vowel but said with a consonant ("a unicorn"), and the reverse ("an hour").
CONSONANT_SOUND = re.compile(r"(?:uni|use|usu|uti|eu|ewe|one|once|ur[aeiou])", re.IGNORECASE)
VOWEL_SOUND = re.compile(r"(?:hour|honest|honou?r|heir)", re.IGNORECASE)


@dataclass(frozen=True)
class Swap:
    """The sentence with its foci exchanged (`probe`, with its own "or" control), or None and
    `reason`, one sentence saying why it could not be built."""

    probe: Probe | None
    reason: str = ""


def swap_foci(probe: Probe) -> Swap:
    """The probe of the sentence with focus 1 and focus 2 exchanged, or why there is none."""
    if probe.construction is None:
        raise InputError(probe.message)
    reason = _cannot_swap(probe)
    if reason:
        return Swap(None, reason)
    first, second = _exchanged(probe.focus1, probe.focus2)
    if not first:
        return Swap(None, second)
    (a, b), (c, d) = probe.focus1_span, probe.focus2_span
    first, second = _capitals(probe.text, a, probe.focus1, probe.focus2, first, second)
    text = probe.text[:a] + first + probe.text[b:c] + second + probe.text[d:]
    start = probe.span[0] + len(first) - (b - a)
    swapped = replace(probe, text=text, span=(start, start + probe.span[1] - probe.span[0]), focus1=first,
                      focus2=second, frame=None, proposed=None, manipulations=(), syntax_items=(), block=())
    control = swapped.sentence_with(probe.lexicon.semantic_control)
    message = f"The sentence with its foci exchanged: focus 1 '{first}', focus 2 '{second}'."
    return Swap(replace(swapped, control=control, message=message))


def _cannot_swap(probe: Probe) -> str:
    """Why the foci of this probe cannot be exchanged ('' when they can)."""
    foci = (probe.focus1, probe.focus2)
    if (0, 0) in (probe.focus1_span, probe.focus2_span):
        return "the foci could not both be placed in the sentence, so they cannot be exchanged"
    for number, focus in enumerate(foci, start=1):
        if focus_is_clause(focus):
            return (f"focus {number} '{focus}' is a clause; exchanged, clauses can change who does what, so "
                    "only the sentence as typed is scored")
    if probe.focus1.lower() == probe.focus2.lower():
        return f"the two foci are the same words ('{probe.focus1}'): exchanging them changes nothing"
    if (bare_word(foci[0].split()[0]) in PHRASE_OPENERS) != (bare_word(foci[1].split()[0]) in PHRASE_OPENERS):
        return (f"focus 1 '{foci[0]}' and focus 2 '{foci[1]}' are not the same kind of phrase (only one starts "
                "with a determiner): exchanged, the sentence would not read")
    return ""


def focus_is_clause(focus: str) -> bool:
    """Whether a focus is a clause: it opens with a subordinator ("what he meant") or holds a
    subject pronoun ("he would pay")."""
    words = [bare_word(w) for w in focus.split()]
    return words[0] in SUBORDINATORS or bool(CLAUSE_SUBJECTS & set(words))


def _exchanged(focus1: str, focus2: str) -> tuple[str, str]:
    """The new (focus 1, focus 2); an anaphoric "one" in focus 2 stays last and focus 2's words
    take focus 1's noun ("a huge rock" / "a tiny one"). ('', reason) when "one" cannot be resolved."""
    words1, words2 = focus1.split(), focus2.split()
    if bare_word(words1[-1]) in ANAPHORS:
        return "", (f"focus 1 '{focus1}' ends in 'one', which stands for a noun that is not in the sentence, "
                    "so the foci cannot be exchanged")
    if bare_word(words2[-1]) not in ANAPHORS:
        return focus2, focus1
    if len(words1) < 2 or len(words2) < 2 or bare_word(words1[0]) not in PHRASE_OPENERS:
        return "", (f"focus 2 '{focus2}' ends in 'one', and focus 1 '{focus1}' has no determiner and noun for it "
                    "to stand for, so the foci cannot be exchanged")
    anaphor = words2[-1]
    rest = [] if [bare_word(w) for w in words1[:-1]] in (["a"], ["an"]) else words1[:-1]  # not "a one"
    return _agreeing(" ".join(words2[:-1] + [words1[-1]])), _agreeing(" ".join(rest + [anaphor]))


def _capitals(text: str, start: int, focus1: str, focus2: str, first: str, second: str) -> tuple[str, str]:
    """The exchanged foci with the capital of the sentence start kept there: when focus 1 opens
    the sentence with a capital and focus 2 is lower case (not a name), the new first focus is
    capitalised and the moved one lower-cased ("I" excepted)."""
    opens = not text[:start].strip() or re.search(r"[.!?]\s*$", text[:start]) is not None
    if not (opens and focus1[:1].isupper() and not focus2[:1].isupper()):
        return first, second
    moved = second if second.split()[0] == "I" else second[:1].lower() + second[1:]
    return first[:1].upper() + first[1:], moved


def _agreeing(phrase: str) -> str:
    """A phrase whose leading "a"/"an" agrees with the word after it."""
    words = phrase.split()
    if len(words) > 1 and words[0].lower() in INDEFINITE:
        words[0] = _article(words[0], words[1])
    return " ".join(words)


def _article(article: str, word: str) -> str:
    """The indefinite article (in the case of `article`) that the word's first sound asks for."""
    bare = word.lstrip("\"'(")
    vowel = (bare[:1].lower() in "aeiou" and not CONSONANT_SOUND.match(bare)) or VOWEL_SOUND.match(bare) is not None
    chosen = "an" if vowel else "a"
    return chosen.capitalize() if article[:1].isupper() else chosen
