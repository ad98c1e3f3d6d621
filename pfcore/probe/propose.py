"""Proposed follow-ups for a sentence outside the paper's frame, in the paper's form: "Having time for
lunch is easier than having time for dinner." (entailed: the construction makes focus 1 the easier
one, as the semantic suite's follow-ups say) and "... harder ..." (contradicted). They are built
from the clause before focus 1: its main verb in the -ing form (from lemminflect, an English
inflection library), the words between the verb and focus 1, and each focus; when the foci are
verb phrases themselves ("can't walk, let alone run"), from each focus's own verb. A proposal is
only a proposal: it is shown for the user to edit, and scored only when asked for."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pfcore.errors import InputError
from pfcore.probe.detect import PAUSES, SUBJECTS, Probe, bare_word
from pfcore.probe.swap import focus_is_clause

# A sentence that gets a proposal, and the proposal, shown when another one gets none.
WORKING_EXAMPLE = "We barely had time for lunch, let alone dinner."
WORKING_PROPOSAL = "Having time for lunch is easier than having time for dinner."
FORM = "{first} is {word} than {second}."
ENTAILED_WORD, CONTRADICTED_WORD = "easier", "harder"
FROM_GENERATOR = "the semantic suite's item generator (the paper's follow-ups for this frame)"
FROM_CLAUSE = "the clause before focus 1"
BE_FORMS = frozenset({"am", "is", "are", "was", "were", "be", "been", "being", "'s", "'re", "'m", "ain't"})
HAVE_FORMS = frozenset({"have", "has", "had", "'ve", "'d"})
# Modals and do-support: the word after them (past any adverb) is the verb.
MODALS = frozenset({"can", "could", "will", "would", "shall", "should", "may", "might", "must", "do",
                    "does", "did", "cannot", "to"})
ADVERBS = frozenset({"not", "never", "hardly", "barely", "scarcely", "seldom", "rarely", "even", "ever",
                     "really", "just", "only", "still", "yet", "also", "actually", "possibly", "simply",
                     "always", "often", "usually", "already", "quite"})
# Words between the verb and focus 1 that the follow-up leaves out ("have no time for" -> "having
# time for"): the negation belongs to the sentence, not to the comparison of the two tasks.
DROPPED = ADVERBS | frozenset({"no", "any"})


@dataclass(frozen=True)
class Proposal:
    """A proposed (entailed, contradicted) follow-up pair and where it comes from, or none and
    `reason`, which says why and gives a sentence that gets one."""

    entailed: str = ""
    contradicted: str = ""
    source: str = ""
    reason: str = ""

    @property
    def pair(self) -> tuple[str, str] | None:
        """(entailed, contradicted), or None when nothing is proposed."""
        return (self.entailed, self.contradicted) if self.entailed else None

    def as_json(self, *, scored: bool) -> dict[str, object]:
        """The proposal as plain data, marked as a proposal (`scored`: whether it was scored)."""
        return {"proposal": True, "entailed": self.entailed or None, "contradicted": self.contradicted or None,
                "source": self.source or None, "reason": self.reason or None, "scored": scored}


def propose_followups(probe: Probe) -> Proposal:
    """The follow-ups proposed for a detected sentence: the generator's for a sentence in the
    paper's frame, else the paper's form built from the clause before focus 1 (see the module)."""
    if probe.construction is None:
        raise InputError(probe.message)
    if probe.proposed is not None:
        return Proposal(*probe.proposed, source=FROM_GENERATOR)
    phrases = _phrases(probe)
    if isinstance(phrases, str):
        return Proposal(reason=f"{phrases}. A sentence with a verb before its foci gets one, e.g. "
                               f"'{WORKING_EXAMPLE}' gets '{WORKING_PROPOSAL}'")
    first, second = phrases
    return Proposal(_sentence(first, second, ENTAILED_WORD), _sentence(first, second, CONTRADICTED_WORD),
                    source=FROM_CLAUSE)


def pair_hints(probe: Probe, proposal: Proposal) -> tuple[str, str]:
    """What the entailed and the contradicted input show before anything is typed, for this
    sentence: the proposed pair, else what each follow-up should say about the sentence's foci."""
    if proposal.pair is not None:
        return f"e.g. {proposal.entailed}", f"e.g. {proposal.contradicted}"
    foci = f"'{probe.focus1}' and '{probe.focus2}'"
    return (f"a follow-up '{probe.connective}' entails here, about {foci}",
            f"one it contradicts, about {foci}")


def _sentence(first: str, second: str, word: str) -> str:
    """One follow-up in the paper's form, its first letter a capital."""
    text = FORM.format(first=first, word=word, second=second)
    return text[:1].upper() + text[1:]


def _phrases(probe: Probe) -> tuple[str, str] | str:
    """The two -ing phrases to compare ("having time for lunch", "having time for dinner"), or
    why there are none."""
    for number, focus in enumerate((probe.focus1, probe.focus2), start=1):
        if focus_is_clause(focus):
            return f"focus {number} '{focus}' is a clause, which has no -ing form to compare"
    start = probe.focus1_span[0]
    if probe.focus1_span == (0, 0):
        return "focus 1 could not be placed in the sentence"
    clause = _clause_words(probe.text[:start])
    found = _main_verb(clause, probe.focus1.split())
    if isinstance(found, str):
        return found
    if found is None:
        return _verb_phrases(probe)
    index, verb = found
    lead = " ".join([_ing(verb)] + [w for w in clause[index + 1:] if bare_word(w) not in DROPPED])
    for number, focus in enumerate((probe.focus1, probe.focus2), start=1):
        if _is_adjective(focus.split()[-1]):
            return (f"focus {number} '{focus}' is an adjective: '{_ing(verb)} {focus}' does not name a task "
                    "that can be easier or harder")
    return f"{lead} {probe.focus1}", f"{lead} {probe.focus2}"


def _verb_phrases(probe: Probe) -> tuple[str, str] | str:
    """Both foci as -ing phrases when each starts with a verb ("boil water" / "cook a meal"), or
    why not: the clause before focus 1 has no verb of its own (an ellipsis)."""
    words1, words2 = probe.focus1.split(), probe.focus2.split()
    if not (_is_verb(words1[0]) and _is_verb(words2[0])):
        return (f"no verb was found before focus 1 '{probe.focus1}' (an ellipsis, or a focus that is not a "
                "verb phrase), so there is no task to name")
    return (" ".join([_ing(words1[0])] + words1[1:]), " ".join([_ing(words2[0])] + words2[1:]))


def _clause_words(before: str) -> list[str]:
    """The words of the clause that ends where focus 1 starts (after the last pause or sentence end)."""
    for mark in ".!?" + PAUSES:
        before = before.rsplit(mark, 1)[-1]
    return [w.replace("\u2019", "'") for w in before.split()]


def _main_verb(clause: list[str], focus1: list[str]) -> tuple[int, str] | str | None:
    """The main verb of the clause (index and word); a reason when the clause is a copula ("was
    noisy"); None when the clause ends before its verb ("can't even", the verb is in focus 1)."""
    marked = False
    following = clause + focus1
    for index, word in enumerate(clause):
        bare = bare_word(word)
        stem = bare[:-3] if bare.endswith("n't") else bare
        suffix = "'" + bare.split("'", 1)[1] if "'" in bare and not bare.endswith("n't") else ""
        after = _next_word(following, index)
        if stem in BE_FORMS or suffix in BE_FORMS:
            if after is not None and after[1].lower().endswith("ing") and _is_verb(after[1]) and after[0] < len(clause):
                return after
            return f"'{word}' is a copula here, so the clause before focus 1 has no verb that names a task"
        if stem in HAVE_FORMS or suffix in HAVE_FORMS:
            if after is not None and after[0] < len(clause) and _is_participle(after[1]):
                return after
            return index, "have"
        if stem in MODALS or bare in MODALS or bare in ADVERBS or bare in SUBJECTS or bare.endswith("n't"):
            marked = True
            continue
        if _is_verb(word) and (marked or _is_inflected(word)):
            return index, word
        marked = False
    return None


def _next_word(words: list[str], index: int) -> tuple[int, str] | None:
    """The first word after `index` that is not an adverb (its index and text), or None."""
    return next(((i, w) for i, w in enumerate(words) if i > index and bare_word(w) not in ADVERBS), None)


@lru_cache(maxsize=4096)
def _readings(word: str) -> frozenset[str]:
    """The parts of speech lemminflect's dictionary gives a word (VERB, NOUN, ADJ, ...)."""
    from lemminflect import getAllLemmas  # its dictionary loads on first use (about 1 s)

    return frozenset(getAllLemmas(bare_word(word)))


def _is_verb(word: str) -> bool:
    """Whether the word can be a verb."""
    return bool(_readings(word) & {"VERB", "AUX"})


def _is_adjective(word: str) -> bool:
    """Whether the word reads as an adjective and never as a noun ("noisy", "dirty")."""
    readings = _readings(word)
    return "ADJ" in readings and "NOUN" not in readings


def _lemma(word: str) -> str:
    """The verb's base form ("had" -> "have")."""
    from lemminflect import getLemma

    lemmas = getLemma(bare_word(word), upos="VERB")
    return lemmas[0] if lemmas else bare_word(word)


def _is_participle(word: str) -> bool:
    """Whether the word is a past participle ("read" in "have read")."""
    from lemminflect import getInflection

    return _is_verb(word) and bare_word(word) in getInflection(_lemma(word), tag="VBN")


def _is_inflected(word: str) -> bool:
    """Whether the word is a verb in the past or the third person ("reads", "mentioned"), which a
    noun rarely is."""
    from lemminflect import getInflection

    lemma = _lemma(word)
    return bare_word(word) != lemma and any(bare_word(word) in getInflection(lemma, tag=t) for t in ("VBD", "VBZ"))


def _ing(verb: str) -> str:
    """The verb's -ing form, lower case ("had" -> "having")."""
    from lemminflect import getInflection

    return str(getInflection(_lemma(verb), tag="VBG", inflect_oov=True)[0])
