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
from pfcore.probe.detect import JOINER, Probe, bare_word, fits_frame
from pfcore.probe.parse import KIND_NAMES, hanging, parallel, same_slot

# Words that open a noun phrase: a focus 1 ending in "one" has no noun, and a focus 2 "a huge one"
# takes focus 1's noun only when focus 1 opens with one of these ("a tiny rock").
PHRASE_OPENERS = frozenset({"a", "an", "the", "this", "these", "those", "my", "your", "his", "her", "its", "our",
                            "their", "some", "any", "no", "all", "both", "each", "every", "many", "several", "most",
                            "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "half"})
CLAUSES = frozenset({"clause", "wh-clause", "that-clause"})
ANAPHORS = frozenset({"one", "ones"})
INDEFINITE = frozenset({"a", "an"})
# Words spelled with a vowel but said with a consonant ("a unicorn"), and the reverse ("an hour").
CONSONANT_SOUND = re.compile(r"(?:uni|use|usu|uti|eu|ewe|one|once|ur[aeiou])", re.IGNORECASE)
VOWEL_SOUND = re.compile(r"(?:hour|honest|honou?r|heir)", re.IGNORECASE)


@dataclass(frozen=True)
class Swap:
    """The sentence with its foci exchanged (`probe`, with its own "or" control, when it could be
    built) and `reason`, one sentence saying why it is not scored ('' when it is: built, and read
    with the same verb and the two foci exchanged whole)."""

    probe: Probe | None
    reason: str = ""

    @property
    def scored(self) -> bool:
        """Whether the swapped sentence is scored (built, and it keeps the original's parse)."""
        return self.probe is not None and not self.reason


def swap_foci(probe: Probe) -> Swap:
    """The probe of the sentence with focus 1 and focus 2 exchanged, or why there is none; a built
    sentence that does not keep the original's parse comes with the reason it is not scored."""
    if probe.construction is None:
        raise InputError(probe.message)
    reason = _cannot_swap(probe)
    if reason:
        return Swap(None, reason)
    first, second = _exchanged(probe.focus1, probe.focus2)
    (a, b), (c, d) = probe.focus1_span, probe.focus2_span
    first, second = _capitals(probe.text, a, probe.focus1, probe.focus2, first, second)
    text = probe.text[:a] + first + probe.text[b:c] + second + probe.text[d:]
    shift = len(first) - (b - a)
    start = probe.span[0] + shift
    swapped = replace(probe, text=text, span=(start, start + probe.span[1] - probe.span[0]), focus1=first,
                      focus2=second, focus1_span=(a, a + len(first)), focus2_span=(c + shift, c + shift + len(second)),
                      frame=None, proposed=None, manipulations=(), syntax_items=(), block=())
    swapped = replace(swapped, control=swapped.sentence_with(probe.control_word),
                      message=f"The sentence with its foci exchanged: focus 1 '{first}', focus 2 '{second}'.")
    return Swap(swapped, broken_parse(probe, swapped))


def _cannot_swap(probe: Probe) -> str:
    """Why the foci of this probe cannot be exchanged ('' when they can)."""
    foci = (probe.focus1, probe.focus2)
    if (0, 0) in (probe.focus1_span, probe.focus2_span):
        return "the foci could not both be placed in the sentence, so they cannot be exchanged"
    for number, (focus, kind) in enumerate(zip(foci, probe.kinds), start=1):
        if kind in CLAUSES:
            return (f"focus {number} '{focus}' is a clause; exchanged, clauses can change who does what, so "
                    "only the sentence as typed is scored")
    if probe.focus1.lower() == probe.focus2.lower():
        return f"the two foci are the same words ('{probe.focus1}'): exchanging them changes nothing"
    kinds = [KIND_NAMES[k] for k in probe.kinds]
    if probe.structure is not None and not parallel(*probe.structure):
        return (f"focus 1 '{foci[0]}' ({kinds[0]}) and focus 2 '{foci[1]}' ({kinds[1]}) are not the same kind of "
                "phrase: exchanged, the sentence would not read")
    pronouns = [s.pronoun for s in probe.structure] if probe.structure else [False, False]
    if pronouns[0] != pronouns[1]:
        return (f"focus 1 '{foci[0]}' and focus 2 '{foci[1]}' are not the same kind of phrase (only one is a "
                "pronoun): exchanged, the pronoun would take the stress of a focus")
    return _unresolved_one(*foci)


def _unresolved_one(focus1: str, focus2: str) -> str:
    """Why an anaphoric "one" keeps the foci from being exchanged ('' when it does not)."""
    words1, words2 = focus1.split(), focus2.split()
    if bare_word(words1[-1]) in ANAPHORS:
        return (f"focus 1 '{focus1}' ends in 'one', which stands for a noun that is not in the sentence, "
                "so the foci cannot be exchanged")
    if bare_word(words2[-1]) in ANAPHORS and (len(words1) < 2 or len(words2) < 2
                                               or bare_word(words1[0]) not in PHRASE_OPENERS):
        return (f"focus 2 '{focus2}' ends in 'one', and focus 1 '{focus1}' has no determiner and noun for it "
                "to stand for, so the foci cannot be exchanged")
    return ""


def broken_parse(probe: Probe, swapped: Probe) -> str:
    """Why the swapped sentence does not keep the parse of the original ('' when it does): parsed
    with the JOINER in place of the connective (as detection reads it), its new focus 1 is one
    phrase of the same kind as the original's focus 1, hanging on the same word (the same verb), and
    its new focus 2 one phrase joined to what comes before the connective. A sentence in the
    paper's frame must fit the frame again."""
    shown = f"the sentence with its foci exchanged, '{swapped.text}', is not scored"
    if probe.frame is not None:
        return "" if fits_frame(swapped.text, str(probe.construction), probe.lexicon) else \
            f"{shown}: it does not fit the paper's frame"
    joined, swapped_joined = probe.sentence_with(JOINER), swapped.sentence_with(JOINER)
    delta = len(JOINER) - (swapped.span[1] - swapped.span[0])
    old = hanging(joined, *probe.focus1_span)
    new = hanging(swapped_joined, *swapped.focus1_span)
    joiner = (swapped.span[0], swapped.span[0] + len(JOINER))
    second = hanging(swapped_joined, swapped.focus2_span[0] + delta, swapped.focus2_span[1] + delta, joiner)
    for focus, read in ((swapped.focus1, new), (swapped.focus2, second)):
        if read is None:
            return f"{shown}: its parse does not read '{focus}' as one phrase, so the foci are not exchanged whole"
    if second is not None and second[2] >= swapped.span[0]:
        return f"{shown}: its parse does not join '{swapped.focus2}' to what comes before '{probe.connective}'"
    if old is not None and new is not None and not same_slot(old[3], new[3]):
        return (f"{shown}: its parse reads '{swapped.focus1}' as {KIND_NAMES[new[3]]} where the original has "
                f"{KIND_NAMES[old[3]]}, so the foci are not exchanged whole")
    if old is not None and new is not None and old[1] != new[1]:
        return (f"{shown}: its focus 1 hangs on '{new[1] or 'nothing (it is the main verb)'}' where the original's "
                f"hangs on '{old[1] or 'nothing (it is the main verb)'}', so it is not the same verb")
    return ""


def _exchanged(focus1: str, focus2: str) -> tuple[str, str]:
    """The new (focus 1, focus 2); an anaphoric "one" in focus 2 stays last and focus 2's words
    take focus 1's noun ("a huge rock" / "a tiny one"); `_unresolved_one` has refused what cannot be."""
    words1, words2 = focus1.split(), focus2.split()
    if bare_word(words2[-1]) not in ANAPHORS:
        return focus2, focus1
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
