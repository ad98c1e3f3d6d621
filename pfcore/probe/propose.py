"""Proposed follow-ups for a sentence outside the paper's frame, in the paper's form: "Having time for
lunch is easier than having time for dinner." (entailed: the construction makes focus 1 the easier
one, as the semantic suite's follow-ups say) and "... harder ..." (contradicted). They are built from
the parse of the sentence: the verb that governs focus 1, in the -ing form (from lemminflect, an
English inflection library), the words between it and focus 1, and each focus; when the foci are
verb phrases ("can't walk, let alone run"), from each focus's own verb. Foci that are states (the
predicate of "be" or another linking verb: "The hotel was dirty, not to mention expensive") are
compared as states ("Being dirty is a weaker point than being expensive."). A proposal is built
only if it reads back to the same foci with the same verb (`proposal_check`); otherwise it is shown
with the reason and not scored. A proposal is only a proposal: shown for the user to edit, and
scored only when asked for."""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from pfcore.errors import InputError
from pfcore.items.constructions import definition_of
from pfcore.probe import parse
from pfcore.probe.detect import Probe, bare_word
from pfcore.probe.parse import KIND_NAMES, PREDICATES, SUBJECTS, is_licensor, parallel

if TYPE_CHECKING:
    from spacy.tokens import Token

# A sentence that gets a proposal, and the proposal, shown when another one gets none.
WORKING_EXAMPLE = "We barely had time for lunch, let alone dinner."
WORKING_PROPOSAL = "Having time for lunch is easier than having time for dinner."
FORM = "{first} is {word} than {second}."
ENTAILED_WORD, CONTRADICTED_WORD = "easier", "harder"  # tasks: focus 1 the easier one
# States: under a negative licensor focus 1 is the likelier one ("not tired, much less exhausted");
# otherwise ("dirty, not to mention expensive") focus 2 is the stronger point.
LIKELIER = ("more likely", "less likely")
WEAKER_POINT = ("a weaker point", "a stronger point")
FROM_GENERATOR = "the semantic suite's item generator (the paper's follow-ups for this frame)"
FROM_CLAUSE = "the parse of the sentence (the verb before focus 1, or the foci's own verbs)"
# Words between the verb and focus 1 that lean on the sentence's negation, left out with it.
POLARITY_WORDS = frozenset({"any", "ever", "yet", "even"})
# Idioms whose task has another verb: "have been to Ohio" is a visit, "going to Ohio".
IDIOMS = {("be", "to"): "go"}
# A reflexive's subject and the subject's object form, for the gerund's own subject ("him explaining himself").
REFLEXIVE_SUBJECT = {"myself": "i", "yourself": "you", "yourselves": "you", "himself": "he", "herself": "she",
                     "itself": "it", "ourselves": "we", "themselves": "they", "oneself": ""}
OBJECT_FORM = {"i": "me", "you": "you", "he": "him", "she": "her", "it": "it", "we": "us", "they": "them"}


@dataclass(frozen=True)
class Proposal:
    """A proposed (entailed, contradicted) follow-up pair and where it comes from, or none and
    `reason`, which says why and gives a sentence that gets one. `not_scored` says why a pair that
    was built is only shown (it does not read back to the sentence's foci and verb)."""

    entailed: str = ""
    contradicted: str = ""
    source: str = ""
    reason: str = ""
    not_scored: str = ""

    @property
    def pair(self) -> tuple[str, str] | None:
        """(entailed, contradicted), or None when nothing is proposed."""
        return (self.entailed, self.contradicted) if self.entailed else None

    @property
    def scorable(self) -> bool:
        """Whether the proposal may be scored: built, and it passed the check."""
        return self.pair is not None and not self.not_scored

    def as_json(self, *, scored: bool) -> dict[str, object]:
        """The proposal as plain data, marked as a proposal (`scored`: whether it was scored)."""
        return {"proposal": True, "entailed": self.entailed or None, "contradicted": self.contradicted or None,
                "source": self.source or None, "reason": self.reason or None, "scored": scored and self.scorable,
                "not_scored_reason": self.not_scored or None}


@dataclass(frozen=True)
class Phrases:
    """The two phrases a proposal compares: a shared lead (the verb in the -ing form and the words
    up to focus 1; '' when the foci are verb phrases) and each focus as it stands in its phrase;
    `base` the lead with the verb in its base form ("have time for"; for verb-phrase foci, each
    focus so: `bases`), `subject` the object form of the subject a reflexive needs ("him"), and
    `state` when the foci are states rather than tasks."""

    lead: str
    first: str
    second: str
    bases: tuple[str, str]
    subject: str = ""
    state: bool = False

    def phrase(self, number: int) -> str:
        """Phrase 1 or 2: the subject, the lead and that focus."""
        return " ".join(w for w in (self.subject, self.lead, self.first if number == 1 else self.second) if w)


def propose_followups(probe: Probe) -> Proposal:
    """The follow-ups proposed for a detected sentence: the generator's for a sentence in the
    paper's frame, else the paper's form built from the parse (see the module)."""
    if probe.construction is None:
        raise InputError(probe.message)
    if probe.proposed is not None:
        return Proposal(*probe.proposed, source=FROM_GENERATOR)
    phrases = _phrases(probe)
    if isinstance(phrases, str):
        return Proposal(reason=f"{phrases}. A sentence with a verb before its foci gets one, e.g. "
                               f"'{WORKING_EXAMPLE}' gets '{WORKING_PROPOSAL}'")
    entailed, contradicted = followups(phrases, str(probe.construction))
    return Proposal(entailed, contradicted, FROM_CLAUSE, not_scored=proposal_check(phrases))


def followups(phrases: Phrases, construction: str) -> tuple[str, str]:
    """The entailed and the contradicted follow-up in the paper's form, the comparison in the
    direction the construction gives (focus 2 the harder or stronger end, or the weaker one)."""
    spec = definition_of(construction)
    words = (LIKELIER if spec.licensing == "negative" else WEAKER_POINT) if phrases.state else (ENTAILED_WORD,
                                                                                      CONTRADICTED_WORD)
    entailed, contradicted = words if not spec.weaker else words[::-1]
    return _sentence(phrases, entailed), _sentence(phrases, contradicted)


def pair_hints(probe: Probe, proposal: Proposal) -> tuple[str, str]:
    """What the entailed and the contradicted input show before anything is typed, for this
    sentence: the proposed pair, else what each follow-up should say about the sentence's foci."""
    if proposal.scorable:
        return f"e.g. {proposal.entailed}", f"e.g. {proposal.contradicted}"
    foci = f"'{probe.focus1}' and '{probe.focus2}'"
    return (f"a follow-up '{probe.connective}' entails here, about {foci}",
            f"one it contradicts, about {foci}")


def _sentence(phrases: Phrases, word: str) -> str:
    """One follow-up in the paper's form, its first letter a capital."""
    text = FORM.format(first=phrases.phrase(1), word=word, second=phrases.phrase(2))
    return text[:1].upper() + text[1:]


def _phrases(probe: Probe) -> Phrases | str:
    """The two phrases to compare ("having time for lunch", "having time for dinner"), or why
    there are none: foci of different kinds, a clause with its own subject, foci that are the
    subject, no verb before focus 1, a verb that is itself the negation ("doubt"), "there is"."""
    if probe.structure is None or (0, 0) in (probe.focus1_span, probe.focus2_span):
        return "focus 1 could not be placed in the sentence"
    kinds = probe.kinds
    for number, (focus, kind) in enumerate(zip((probe.focus1, probe.focus2), kinds), start=1):
        if kind == "clause":
            return f"focus {number} '{focus}' is a clause with its own subject, which has no -ing form to compare"
    head = _token(probe.control, probe.structure[0].head_at)
    if not parallel(*probe.structure):
        names = [KIND_NAMES[k] for k in kinds]
        return (f"focus 1 '{probe.focus1}' ({names[0]}) and focus 2 '{probe.focus2}' ({names[1]}) are not the same "
                "kind of phrase, so there is no one comparison to make")
    if probe.structure[0].relation in SUBJECTS:
        return (f"the foci are the subject of '{probe.structure[0].governor}': the paper's form compares two tasks "
                "or states, not who does them")
    if kinds == ("VP", "VP") and head.pos_ in ("VERB", "AUX"):
        (first, base1), (second, base2) = _verb_phrase(probe.focus1, head), _verb_phrase(probe.focus2, None)
        return _with_subject(head, Phrases("", first, second, (base1, base2)))
    return _lead_phrases(probe, head)


def _lead_phrases(probe: Probe, head: Token) -> Phrases | str:
    """The phrases built from the verb that governs focus 1 and the words up to it."""
    verb = next((t for t in head.ancestors if t.pos_ in ("VERB", "AUX")), None)
    if verb is None or verb.idx > probe.focus1_span[0]:
        return (f"no verb was found before focus 1 '{probe.focus1}' (an ellipsis, or a focus that is not a verb "
                "phrase), so there is no task to name")
    if is_licensor(verb):
        return (f"the verb before focus 1, '{verb.text}', is what makes the sentence negative: a follow-up about "
                f"'{verb.text}' would compare the doubts, not the two foci")
    if any(c.dep_ == "expl" for c in verb.children):
        return (f"'{verb.text}' here says that something exists ('there {verb.text}'), which is neither a task nor "
                "a state to compare")
    inverted = {t.i for c in verb.children if c.dep_ in SUBJECTS and c.i > verb.i for t in c.subtree}  # "Is it"
    between = [t for t in verb.doc[verb.i + 1:] if t.idx < probe.focus1_span[0] and not _dropped(t)
               and t.i not in inverted]
    lemma = IDIOMS.get((verb.lemma_, between[0].lower_ if between else ""), verb.lemma_)
    words = [t.text for t in between]
    base = " ".join([lemma] + words)
    phrases = Phrases(" ".join([_ing(lemma)] + words), probe.focus1, probe.focus2,
                      (f"{base} {probe.focus1}", f"{base} {probe.focus2}"), state=_is_state(head, verb))
    return _with_subject(verb, phrases)


def _is_state(head: Token, verb: Token) -> bool:
    """Whether focus 1 is a state: the predicate of "be" or of a linking verb ("was dirty", "looks tired")."""
    return head.dep_ in PREDICATES or (verb.lemma_ == "be" and head.pos_ in ("ADJ", "ADV", "NOUN", "PROPN", "NUM")
                                       and head.head.i == verb.i)


def _dropped(token: Token) -> bool:
    """Whether a word between the verb and focus 1 stays in the sentence, not in the follow-up: the
    negation and the words that lean on it ("have no time for" -> "having time for"; "any", "even")."""
    return is_licensor(token) or token.dep_ == "neg" or token.lower_ in POLARITY_WORDS


def _verb_phrase(focus: str, verb: Token | None) -> tuple[str, str]:
    """A verb-phrase focus with its verb in the -ing form and in the base form ("cooked a meal" ->
    "cooking a meal", "cook a meal")."""
    first, *rest = focus.split()
    lemma = verb.lemma_ if verb is not None else _lemma(first)
    return " ".join([_ing(lemma)] + rest), " ".join([lemma] + rest)


def _with_subject(verb: Token, built: Phrases) -> Phrases | str:
    """The phrases with the clause's subject before each gerund when a reflexive needs it ("him
    explaining himself"), or why it cannot have one."""
    words = [bare_word(w) for w in f"{built.lead} {built.first} {built.second}".split()]
    reflexive = next((w for w in words if w in REFLEXIVE_SUBJECT), "")
    if not reflexive:
        return built
    subject = _subject(verb)
    if subject is None:
        return f"'{reflexive}' needs the subject it refers to, and the clause before the foci has none"
    expected, bare = REFLEXIVE_SUBJECT[reflexive], bare_word(subject.text)
    if subject.pos_ == "PRON" and bare not in OBJECT_FORM:
        return f"'{reflexive}' refers to '{subject.text}', which cannot be the subject of a task"
    if subject.pos_ == "PRON" and OBJECT_FORM.get(bare) != OBJECT_FORM.get(expected):
        return f"'{reflexive}' does not refer to the subject '{subject.text}'"
    own = OBJECT_FORM[bare] if subject.pos_ == "PRON" else subject.doc[subject.left_edge.i:subject.i + 1].text
    return replace(built, subject=own)


def _subject(verb: Token) -> Token | None:
    """The subject of a verb, looking through coordination and auxiliaries ("He never apologised")."""
    for word in (verb, *verb.ancestors):
        found = next((c for c in word.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if found is not None:
            return found
    return None


def proposal_check(phrases: Phrases) -> str:
    """Why a proposal does not read back to its foci with the same verb ('' when it does). Its two
    phrases are parsed as infinitives ("It is easier to have time for lunch than to have time for
    dinner.", where the parser reads a verb unambiguously): each focus must hang, as one phrase,
    on the same word of the lead (for verb-phrase foci, each phrase on its own first word, the verb)."""
    subject = f"for {phrases.subject} " if phrases.subject else ""
    sentence = f"It is easier {subject}to {phrases.bases[0]} than {subject}to {phrases.bases[1]}."
    anchors = []
    at = 0
    for base, focus in zip(phrases.bases, (phrases.first, phrases.second)):
        at = sentence.index(f"to {base}", at) + len("to ")
        focus_words = focus if phrases.lead else base
        anchor = _anchor(sentence, at, at + len(base) - len(focus_words), len(base))
        if anchor is None:
            return (f"read as '{subject}to {base}', the proposal does not have '{focus_words}' as one phrase of "
                    f"{'its verb' if not phrases.lead else repr(phrases.lead)}, so it is not scored")
        anchors.append(anchor)
    if anchors[0] != anchors[1]:
        return (f"read as '{subject}to {phrases.bases[0]}' and '{subject}to {phrases.bases[1]}', the proposal's two "
                "phrases hang their foci on different words, so it is not scored")
    return ""


def _anchor(sentence: str, at: int, focus_at: int, length: int) -> int | None:
    """Where (characters from the phrase's start at `at`) the word is that the focus (from
    `focus_at` to the phrase's end) hangs on: a word of the lead, or a copula "be" of the lead
    that hangs on the focus ("be exhausted"); for a phrase that is all focus, its top word, which
    must be its first and a verb. None when the focus does not hang on one such word."""
    doc = parse.parse(sentence)
    end = at + length
    focus = [t for t in doc if focus_at <= t.idx < end]
    tops = {t.head.i: t for t in focus if not focus_at <= t.head.idx < end or t.head.i == t.i}
    if len(tops) != 1:
        return None
    (governor, top), = tops.items()
    if focus_at == at:
        return 0 if top.idx == at and top.pos_ in ("VERB", "AUX") else None
    if at <= doc[governor].idx < focus_at:
        return doc[governor].idx - at
    copula = next((c for c in top.children if at <= c.idx < focus_at and c.lemma_ == "be"), None)
    return None if copula is None else copula.idx - at


def _token(text: str, char: int) -> Token:
    """The token of the parsed text that starts at character `char`."""
    return next(t for t in parse.parse(text) if t.idx == char)


def _lemma(word: str) -> str:
    """A verb's base form ("had" -> "have"), by lemminflect."""
    from lemminflect import getLemma  # its dictionary loads on first use (about 1 s)

    lemmas = getLemma(bare_word(word), upos="VERB")
    return lemmas[0] if lemmas else bare_word(word)


@lru_cache(maxsize=4096)
def _ing(lemma: str) -> str:
    """The -ing form of a verb's base form ("have" -> "having"), by lemminflect."""
    from lemminflect import getInflection

    return str(getInflection(lemma.lower(), tag="VBG", inflect_oov=True)[0])
