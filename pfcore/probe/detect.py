"""Reading one sentence: find a Paired-Focus construction and its foci, build its "or" control and,
for sentences in the paper's frame, the follow-ups and syntactic manipulations the item generators
make for it."""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from pfcore.errors import InputError
from pfcore.items.generate import generate_semantic, generate_syntax
from pfcore.items.lexicon import Lexicon, Pronoun, load_lexicon
from pfcore.items.schema import SYNTAX_CONTROL, SemanticItem, SyntaxItem
from pfcore.names import Reduction
from pfcore.suites import semantic, syntax

MAX_CHARS = 500
# One natural example per construction, shown when a sentence has none.
EXAMPLES: dict[str, str] = {
    "let_alone": "He doesn't like shrimp, let alone squid.",
    "much_less": "She can't afford a bike, much less a car.",
    "not_to_mention": "The hotel was noisy, not to mention dirty.",
    "never_mind": "I can't even boil water, never mind cook a meal.",
}
FRAME_EXAMPLE = "You couldn't lift a tiny rock, let alone a huge one."
# Subjects the frame accepts beyond the lexicon's, with a contrasting gapped-conjunct pronoun.
EXTRA_PRONOUNS = (Pronoun("I", "you"), Pronoun("he", "her"), Pronoun("she", "him"))
DETERMINERS = frozenset({"a", "an", "the", "this", "that", "these", "those", "my", "your", "his", "her",
                         "its", "our", "their", "some", "any", "no"})
# Words before focus 1's noun that belong to its noun phrase ("the" in "the first volume");
# "that" is left out, as it more often starts a clause.
PHRASE_OPENERS = (DETERMINERS - {"that"}) | frozenset({
    "all", "both", "each", "every", "many", "several", "most", "one", "two", "three", "four", "five",
    "six", "seven", "eight", "nine", "ten", "half"})
# Words that end focus 1 when it is read backwards from the connective (they are not part of it).
BOUNDARY = frozenset({"i", "you", "he", "she", "it", "we", "they", "can", "could", "will", "would",
                      "shall", "should", "may", "might", "must", "do", "does", "did", "is", "are", "was",
                      "were", "be", "been", "am", "have", "has", "had", "cannot", "not", "never", "even",
                      "also", "only", "just"})
# Subjects whose contractions ("it's", "I'm") cannot end focus 1.
SUBJECTS = frozenset({"i", "you", "he", "she", "it", "we", "they", "that", "there", "what", "who"})
# Words that cannot end focus 1 right before an unpaused connective: subjects, auxiliaries,
# negation, "to" and degree words ("you should let alone", "so much less", "a much less").
NO_FOCUS_BEFORE = (BOUNDARY - {"it"}) | frozenset({
    "to", "please", "so", "very", "far", "too", "how", "a", "an", "the", "and", "or", "but"})
# Words that make a clause negative or limiting: the context of a negative-polarity connective.
NEGATIVE_WORDS = frozenset({"not", "no", "never", "nobody", "nothing", "none", "nowhere", "neither",
                            "nor", "cannot", "without", "hardly", "barely", "scarcely", "seldom",
                            "rarely", "few", "little", "unable", "impossible", "too"})
# Connectives that are negative polarity items: without a pause they need a negative clause.
NEEDS_NEGATION_UNPAUSED = frozenset({"let_alone", "much_less", "never_mind"})
# Words that open a sentence or clause without being focus 1 ("Oh, never mind that.").
DISCOURSE_WORDS = frozenset({"oh", "ah", "well", "ok", "okay", "so", "but", "and", "or", "anyway",
                             "hey", "look", "now", "then", "please", "just", "yes", "no", "yeah",
                             "right", "alright"})
# Characters that mark a pause before the connective (and split clauses): comma, semicolon,
# colon, em and en dash.
PAUSES = ",;:\u2014\u2013"
# Nouns counted in bulk: "much less water" without a pause is the comparative.
MASS_NOUNS = frozenset({"water", "money", "time", "food", "sugar", "salt", "fat", "energy", "milk",
                        "coffee", "tea", "beer", "wine", "alcohol", "meat", "bread", "rice", "fuel",
                        "gas", "oil", "space", "room", "noise", "traffic", "effort", "attention",
                        "information", "news", "weight", "pressure", "damage", "stuff"})
# Adjectives and adverbs compared with "much less" that no suffix in GRADED_SUFFIXES catches.
GRADED_WORDS = frozenset({"often", "well", "much", "so", "fun", "common", "busy", "easy", "noisy",
                          "risky", "heavy", "crowded", "good", "bad", "hard", "far", "long"})
GRADED_SUFFIXES = ("ive", "ous", "able", "ible", "ful", "ant", "ent", "ic", "al", "ly")
MIN_SUFFIXED_LENGTH = 6  # shorter words ("meal", "fly", "rent") are rarely graded
# Words before an unpaused "not to mention" that make it a negated infinitive: verbs taking
# one ("decided not to mention it") and the objects of such verbs ("told him not to mention").
INFINITIVE_TAKERS = frozenset({
    "decide", "decided", "decides", "promise", "promised", "promises", "try", "tried", "tries",
    "trying", "agree", "agreed", "choose", "chose", "chosen", "ask", "asked", "tell", "told",
    "remember", "remembered", "careful", "better", "learn", "learned", "hope", "hoped", "want",
    "wanted", "wish", "wished", "prefer", "preferred", "how", "whether", "as", "sure",
    "me", "him", "her", "us", "them", "you"})
# Verbs of saying before "never mind" make it quoted discourse ("He said, never mind.").
REPORTING_VERBS = frozenset({"say", "said", "says", "tell", "told", "replied", "shouted", "thought",
                             "answered", "added", "whispered"})
# What each connective reads as when it is not the construction. "let alone" at the start of a
# sentence ("Let alone the dog, it bites.") has no focus 1 before it, so it is taken as the verb.
LOOK_ALIKES: dict[str, str] = {
    "let_alone": "the verb 'let (something) alone' (leave it alone), as in 'Let me alone!'",
    "much_less": "the comparative 'much less' (a lot less), as in 'He ate much less than I did.'",
    "not_to_mention": "the verb 'mention' negated, as in 'I decided not to mention it.'",
    "never_mind": "the imperative or discourse 'never mind' (forget it) or the verb 'mind', as "
                  "in 'Never mind, I'll do it myself.'",
}
# Near misses that contain no connective: a pattern and what to tell the user.
NEAR_MISSES: tuple[tuple[str, str], ...] = (
    (r"\blet\s+(?:\S+\s+){1,3}alone\b",
     "'let ... alone' with words between is the verb 'let (someone) alone', not 'let alone'."),
    (r"\b(?:not|\w+n['\u2019]t)\s+(?:\S+\s+){0,3}mention",
     "'not ... mention' with other words is a negated 'mention', not 'not to mention'."),
    (r"\bto\s+mention\b", "'to mention' without 'not' is the verb 'mention', not 'not to mention'."),
)


@dataclass(frozen=True)
class FrameFit:
    """How a sentence fits the paper's frame: PRONOUN MODAL VERB ADJ1 NOUN, CONNECTIVE ADJ2 one.
    `aligned` is True when the first adjective is the scale's easier end (the paper's order)."""

    frame: str
    pronoun: str
    modal: str
    verb: str
    noun: str
    scale: str
    first_adj: str
    second_adj: str
    aligned: bool


@dataclass(frozen=True)
class Manipulation:
    """One syntactic manipulation (paper Table 3): the manipulated sentence with the construction
    and with "and", and the two base sentences its surprisal rise is measured from."""

    name: str
    kind: str  # "test" or "control"
    sentence: str
    control: str
    base: str
    control_base: str


@dataclass(frozen=True)
class Probe:
    """What pfcore read in one sentence; `construction` is None (and `message` says why) when
    there is no construction to probe."""

    text: str
    construction: str | None
    message: str
    lexicon: Lexicon = field(repr=False, compare=False)
    connective: str = ""
    span: tuple[int, int] = (0, 0)  # characters of the connective in `text`
    focus1: str = ""
    focus2: str = ""
    control: str = ""
    frame: FrameFit | None = None
    proposed: tuple[str, str] | None = None  # (entailed, contradicted) follow-ups in context order
    manipulations: tuple[Manipulation, ...] = ()
    syntax_items: tuple[SyntaxItem, ...] = field(default=(), repr=False, compare=False)
    block: tuple[SemanticItem, ...] = field(default=(), repr=False, compare=False)  # the suite's 8 rows

    @property
    def fits_frame(self) -> bool:
        """Whether the sentence is in the paper's frame (so follow-ups and manipulations exist)."""
        return self.frame is not None

    @property
    def focus1_span(self) -> tuple[int, int]:
        """Characters of focus 1 in the sentence (it ends where the pause before the connective
        starts); (0, 0) when it is not found there."""
        end = len(self.text[:self.span[0]].rstrip().rstrip(PAUSES).rstrip())
        start = end - len(self.focus1)
        return (start, end) if self.focus1 and start >= 0 and self.text[start:end] == self.focus1 else (0, 0)

    @property
    def focus2_span(self) -> tuple[int, int]:
        """Characters of focus 2 in the sentence (after the connective); (0, 0) when it is not found."""
        at = self.text.find(self.focus2, self.span[1]) if self.focus2 else -1
        return (at, at + len(self.focus2)) if at >= 0 else (0, 0)

    @property
    def choices(self) -> dict[str, str]:
        """The constructions one can switch to: name -> connective words."""
        return dict(self.lexicon.constructions)

    def as_json(self) -> dict[str, object]:
        """What was read in the sentence, as plain data (the CLI's --json)."""
        return {"sentence": self.text, "construction": self.construction, "connective": self.connective,
                "focus1": self.focus1, "focus2": self.focus2, "control": self.control, "fits_frame": self.fits_frame}

    def sentence_with(self, connective: str) -> str:
        """The sentence with its connective replaced by another one (or by a control)."""
        start, end = self.span
        return self.text[:start] + connective + self.text[end:]

    def with_construction(self, name: str) -> Probe:
        """The same sentence with another of the constructions (a name from `choices`)."""
        if self.construction is None:
            raise InputError("this sentence has no construction to switch; type one with "
                             f"{', '.join(self.choices.values())}")
        if name not in self.choices:
            raise InputError(f"unknown construction {name!r}; choose one of {', '.join(self.choices)}")
        switched = analyze_sentence(self.sentence_with(self.choices[name]), self.lexicon)
        return switched if switched.construction == name else self._switched(name)

    def _switched(self, name: str) -> Probe:
        """The probe with another connective in the same place and the same foci (a stricter
        look-alike rule may not read the new sentence alone, but the user chose the construction)."""
        connective = self.choices[name]
        start = self.span[0]
        text = self.sentence_with(connective)
        probe = replace(self, text=text, construction=name, connective=connective,
                        span=(start, start + len(connective)), frame=None, proposed=None,
                        manipulations=(), syntax_items=(), block=())
        fitted = _fit_frame(text, name, self.lexicon)
        probe = _with_frame(probe, *fitted) if fitted else probe
        return replace(probe, message=_found_message(probe))



@lru_cache(maxsize=1)
def _default_lexicon() -> Lexicon:
    """The shipped lexicon, read once per process."""
    return load_lexicon()


def clean_text(text: str, what: str = "a sentence") -> str:
    """The text with runs of white space made single and its ends stripped; empty or over
    MAX_CHARS characters is an InputError."""
    text = " ".join(text.split())
    if not text:
        raise InputError(f"type {what}")
    if len(text) > MAX_CHARS:
        raise InputError(f"{what} is {len(text)} characters long; shorten it to at most "
                         f"{MAX_CHARS}")
    return text


def checked_pair(entailed: str, contradicted: str) -> tuple[str, str]:
    """A follow-up pair, cleaned (see `clean_text`); both present and different."""
    pair = clean_text(entailed, "an entailed follow-up"), clean_text(contradicted, "a contradicted follow-up")
    if pair[0] == pair[1]:
        raise InputError("the entailed and the contradicted follow-up are the same; make them differ")
    return pair


def checked_reduction(reduction: str) -> Reduction:
    """The reduction named, or an InputError naming the two there are."""
    if reduction not in tuple(Reduction):
        raise InputError(f"unknown reduction {reduction!r}; use mean (the paper's) or sum")
    return Reduction(reduction)


def no_construction_message() -> str:
    """What to tell a user whose sentence has no construction: the four connectives, with examples."""
    lines = [f"- {name.replace('_', ' ')}: {example}" for name, example in EXAMPLES.items()]
    return ("No Paired-Focus construction found. Use one of the four connectives between a "
            "weaker and a stronger focus, e.g.:\n" + "\n".join(lines))


def analyze_sentence(text: str, lexicon: Lexicon | None = None) -> Probe:
    """Find the construction, its foci and its "or" control; propose follow-ups and build the
    syntactic manipulations when the sentence fits the paper's frame."""
    text = clean_text(text)
    lexicon = lexicon or _default_lexicon()
    found = _find_connective(text, lexicon)
    if found is None:
        return Probe(text, None, _not_found_message(text, lexicon), lexicon)
    name, start, end = found
    focus2 = _focus2(text, end)
    probe = Probe(text, name, "", lexicon, lexicon.constructions[name], (start, end),
                  _focus1(_sentence_before(text, start), focus2), focus2)
    probe = replace(probe, control=probe.sentence_with(lexicon.semantic_control))
    fitted = _fit_frame(text, name, lexicon)
    if fitted is not None:
        probe = _with_frame(probe, *fitted)
    return replace(probe, message=_found_message(probe))


def _find_connective(text: str, lexicon: Lexicon) -> tuple[str, int, int] | None:
    """The first connective in the text that is a real use of its construction (not a look-alike
    such as comparative "much less than"): its name and character span."""
    for start, end, name in _candidates(text, lexicon):
        if _rejection(text, name, start, end, lexicon) is None:
            return name, start, end
    return None


def _candidates(text: str, lexicon: Lexicon) -> list[tuple[int, int, str]]:
    """Every occurrence of every connective (any case, any spacing), in reading order."""
    hits = []
    for name, words in lexicon.constructions.items():
        pattern = r"\b" + r"\s+".join(map(re.escape, words.split())) + r"\b"
        hits += [(m.start(), m.end(), name) for m in re.finditer(pattern, text, re.IGNORECASE)]
    return sorted(hits)


def _not_found_message(text: str, lexicon: Lexicon) -> str:
    """Why the sentence has no construction: why its first connective is not one, else which
    near miss it has ("let me alone"), with the four connectives and their examples."""
    candidates = _candidates(text, lexicon)
    if candidates:
        start, end, name = candidates[0]
        return _rejection(text, name, start, end, lexicon) or no_construction_message()
    near = [why for pattern, why in NEAR_MISSES if re.search(pattern, text, re.IGNORECASE)]
    return " ".join(near[:1] + [no_construction_message()])


def _rejection(text: str, name: str, start: int, end: int, lexicon: Lexicon) -> str | None:
    """Why the connective at start:end is not the construction (a message for the user), or None
    when it is: it needs a clause with focus 1 before it, a focus 2 after it, and must not read
    as its look-alike."""
    connective = lexicon.constructions[name]
    example = EXAMPLES.get(name, FRAME_EXAMPLE)
    reading = LOOK_ALIKES.get(name, "something else")
    before, focus2 = _sentence_before(text, start), _focus2(text, end)
    if not _has_focus1(_clause_tail(before)) or not focus2:
        return (f"'{connective}' needs a clause before it and a focus after it, as in: {example} "
                f"Without them it reads as {reading}")
    if _reads_as_look_alike(name, _words(before), _words(focus2), _paused(text, start)):
        return (f"No Paired-Focus construction found: '{connective}' here reads as {reading}; "
                f"the construction joins a weaker and a stronger focus, as in: {example}")
    return None


def _reads_as_look_alike(name: str, before: list[str], after: list[str], paused: bool) -> bool:
    """Whether the connective between these words is its look-alike. Without a pause before it,
    the word before must be able to end focus 1 and, for the negative-polarity connectives, the
    clause must be negative or limiting; then each connective's own test."""
    if not paused and (_cannot_end_focus1(before[-1]) or
                       (name in NEEDS_NEGATION_UNPAUSED and not _is_negative(before))):
        return True
    own_test = OWN_TESTS.get(name)
    return own_test is not None and own_test(before, after, paused)


def _comparative_much_less(before: list[str], after: list[str], paused: bool) -> bool:
    """Whether "much less" is the comparative (less by much): always before "than"; unpaused
    before a mass noun, an adjective or adverb, or a later "than"; after a pause in a positive
    clause before an adjective or adverb or a later "than" ("ten dollars, much less than ...")."""
    if after[0] == "than":
        return True
    graded = _looks_graded(after[0]) or "than" in after
    if not paused:
        return graded or after[0] in MASS_NOUNS
    return graded and not _is_negative(before)


def _infinitive_not_to_mention(before: list[str], after: list[str], paused: bool) -> bool:
    """Whether "not to mention" is a negated infinitive ("decided not to mention it"): unpaused
    after a verb that takes an infinitive or after its object ("told him not to mention")."""
    return not paused and before[-1] in INFINITIVE_TAKERS


def _quoted_never_mind(before: list[str], after: list[str], paused: bool) -> bool:
    """Whether "never mind" is quoted after a verb of saying ("He said, never mind the cost.")."""
    return before[-1] in REPORTING_VERBS


# Each connective's own look-alike test, after the shared ones: (words before, words of
# focus 2, paused) -> whether it is the look-alike.
OWN_TESTS: dict[str, Callable[[list[str], list[str], bool], bool]] = {
    "much_less": _comparative_much_less,
    "not_to_mention": _infinitive_not_to_mention,
    "never_mind": _quoted_never_mind,
}


def _cannot_end_focus1(word: str) -> bool:
    """Whether a word right before an unpaused connective cannot be the end of focus 1: a
    subject, auxiliary or degree word ("should let alone", "so much less"), or a contraction
    ("isn't", "it's")."""
    return (word in NO_FOCUS_BEFORE or word.endswith("n't")
            or ("'" in word and word.split("'")[0] in SUBJECTS))


def _looks_graded(word: str) -> bool:
    """Whether a word after "much less" looks like an adjective or adverb being compared
    ("expensive", "often", "quickly"), from a short list and common suffixes."""
    return word in GRADED_WORDS or (len(word) >= MIN_SUFFIXED_LENGTH and word.endswith(GRADED_SUFFIXES))


def _is_negative(words: list[str]) -> bool:
    """Whether a clause is negative or limiting ("can't", "never", "few", "hardly"), the context
    the negative-polarity connectives need."""
    return any(w in NEGATIVE_WORDS or w.endswith("n't") for w in words)


def _has_focus1(tail: list[str]) -> bool:
    """Whether the clause before the connective has a word that can be focus 1, i.e. is more
    than discourse words ("Oh, never mind") and pronouns or auxiliaries ("I never mind")."""
    return any(w not in DISCOURSE_WORDS and w not in NO_FOCUS_BEFORE for w in tail)


def _words(text: str) -> list[str]:
    """The lower-cased words of a text, curly apostrophes made straight ("doesn't")."""
    return re.findall(r"[\w']+", text.lower().replace("\u2019", "'"))


def _sentence_before(text: str, start: int) -> str:
    """The text of the connective's sentence before it, without the pause that ends it."""
    before = re.split(r"[.!?]+\s", text[:start])[-1]
    return before.rstrip().rstrip(PAUSES).rstrip()


def _clause_tail(before: str) -> list[str]:
    """The words after the last pause in the sentence before the connective: what focus 1 must
    be found in ("Oh" in "Oh, never mind that.")."""
    return _words(re.split(f"[{re.escape(PAUSES)}]", before)[-1])


def _paused(text: str, start: int) -> bool:
    """Whether a pause (comma, semicolon, colon, dash) comes right before the connective."""
    return text[:start].rstrip().endswith(tuple(PAUSES))


def _focus2(text: str, end: int) -> str:
    """Focus 2: the words after the connective up to the next punctuation."""
    return re.match(r"[^,;:.!?]*", text[end:]).group(0).strip()  # type: ignore[union-attr]  # always matches


def _focus1(before: str, focus2: str) -> str:
    """A guess at focus 1 from its parallel with focus 2: the noun phrase from the last
    determiner when focus 2 starts with one ("a tiny rock" / "a huge one"), else as many words
    as focus 2 has read backwards (see _parallel_start), with the determiner before them."""
    words = before.split()
    start = _determiner_start(words) if focus2.split()[0].lower() in DETERMINERS else None
    if start is None:
        start = _with_determiner(words, _parallel_start(words, len(focus2.split())))
    return " ".join(words[start:])


def _determiner_start(words: list[str]) -> int | None:
    """Where the noun phrase from the last determiner starts, if no auxiliary or negation
    follows it (so "The hotel was noisy" is not taken as one phrase)."""
    starts = [i for i, w in enumerate(words) if bare_word(w) in DETERMINERS]
    if not starts or any(bare_word(w) in BOUNDARY for w in words[starts[-1]:]):
        return None
    return starts[-1]


def _parallel_start(words: list[str], size: int) -> int:
    """Where `size` words read backwards start, stopping at a pronoun, auxiliary, negation or
    "even" ("boil water"); a last "it" comes with its verb, counted as one ("mentioned it")."""
    it_object = len(words) > 1 and bare_word(words[-1]) == "it"
    start = len(words) - 2 * it_object
    while start > 0 and len(words) - it_object - start < size:
        bare = bare_word(words[start - 1])
        if bare in BOUNDARY or bare.endswith("n't"):
            break
        start -= 1
    return min(start, len(words) - 1)


def _with_determiner(words: list[str], start: int) -> int:
    """The start moved back over the determiners and quantifiers of the same noun phrase
    ("the" in "the first volume", "all the")."""
    while 0 < start < len(words) and bare_word(words[start - 1]) in PHRASE_OPENERS:
        start -= 1
    return start


def bare_word(word: str) -> str:
    """A word lower-cased, with straight apostrophes and without quotes or brackets."""
    return word.lower().replace("\u2019", "'").strip("\"'()")


def _pronouns(lexicon: Lexicon) -> dict[str, Pronoun]:
    """Lower-cased subject -> pronoun, for the lexicon's pronouns and a few more."""
    return {p.subject.lower(): p for p in EXTRA_PRONOUNS + lexicon.pronouns}


def _frame_pattern(lexicon: Lexicon, connective: str) -> re.Pattern[str]:
    """A regular expression for the paper's frame with one connective and the lexicon's words."""
    def alt(words: set[str]) -> str:
        return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    adjectives = {a for s in lexicon.scales.values() for end in s.ends.values() for a in end}
    conn = r"\s+".join(map(re.escape, connective.split()))
    modals = {m.negative for m in lexicon.modals}
    return re.compile(
        rf"(?P<pronoun>{alt(set(_pronouns(lexicon)))}) (?P<modal>{alt(modals)}) "
        rf"(?P<verb>{alt({f.verb for f in lexicon.frames})}) an? (?P<adj1>{alt(adjectives)}) "
        rf"(?P<noun>{alt({f.noun for f in lexicon.frames})}),? {conn} an? (?P<adj2>{alt(adjectives)}) "
        r"one[.!]?", re.IGNORECASE)


def _fit_frame(text: str, name: str, lexicon: Lexicon) -> tuple[FrameFit, Lexicon, Lexicon] | None:
    """The frame fields and two one-base lexicons, when the sentence is PRONOUN MODAL VERB ADJ1
    NOUN, CONNECTIVE ADJ2 one. with adjectives of opposite ends of one frame's scale: one in the
    typed order (the second adjective as the harder end, for the manipulations of the sentence as
    typed) and one in the lexicon's order (for the suite's block, which names the easier task by
    the scale, not by the sentence)."""
    match = _frame_pattern(lexicon, lexicon.constructions[name]).fullmatch(text.replace("\u2019", "'"))
    if match is None:
        return None
    words = {k: v.lower() for k, v in match.groupdict().items()}
    for frame in lexicon.frames:
        if (frame.verb, frame.noun) != (words["verb"], words["noun"]):
            continue
        ends = {a: end for end in lexicon.scales[frame.scale].ends
                for a in lexicon.adjectives(frame, end)}
        first, second = ends.get(words["adj1"]), ends.get(words["adj2"])
        if first is None or second is None or first == second:
            continue
        pronoun = _pronouns(lexicon)[words["pronoun"]]
        modal = next(m for m in lexicon.modals if m.negative == words["modal"])
        adjectives = {first: (words["adj1"],), second: (words["adj2"],)}
        typed = replace(lexicon, frames=(replace(frame, harder=second, adjectives=adjectives),),
                        modals=(modal,), pronouns=(pronoun,))
        scale_order = replace(typed, frames=(replace(frame, adjectives=adjectives),))
        fit = FrameFit(frame.name, pronoun.word, modal.negative, frame.verb, frame.noun, frame.scale,
                       words["adj1"], words["adj2"], aligned=second == frame.harder)
        return fit, typed, scale_order
    return None


def _with_frame(probe: Probe, fit: FrameFit, typed: Lexicon, scale_order: Lexicon) -> Probe:
    """The probe with the suite's block for its base (8 rows, from the lexicon-ordered base), the
    follow-ups for the sentence as typed (in its own order), and the manipulations of the
    sentence as typed."""
    name = str(probe.construction)
    block = tuple(generate_semantic(scale_order, name))
    order = ("aligned", "same") if fit.aligned else ("misaligned", "reversed")  # follow-up in context order
    item = next(i for i in block if i.is_construction and (i.context_order, i.followup_order) == order)
    items = tuple(generate_syntax(typed, name))
    by = {(i.construction, i.manipulation): i.sentence for i in items}
    manipulations = tuple(
        Manipulation(m, "test" if m in syntax.TESTS else "control", by[(name, m)],
                     by[(SYNTAX_CONTROL, m)], by[(name, "base")], by[(SYNTAX_CONTROL, "base")])
        for m in syntax.TESTS + syntax.CONTROLS)
    return replace(probe, frame=fit, manipulations=manipulations, syntax_items=items, block=block,
                   proposed=(semantic.filled(item, item.fills[0]), semantic.filled(item, item.fills[1])))


def _found_message(probe: Probe) -> str:
    """A one-paragraph reading of the probe for the page."""
    text = (f"Found '{probe.connective}': focus 1 '{probe.focus1}', focus 2 '{probe.focus2}'. "
            f"The control replaces it with '{probe.lexicon.semantic_control}'.")
    if probe.frame is None:
        return text + (" Type a follow-up the construction entails and one it contradicts "
                       "(the paper's frame, e.g. '" + FRAME_EXAMPLE + "', gets them proposed).")
    order = "" if probe.frame.aligned else " (the harder task first: the paper's misaligned order)"
    return text + f" It fits the paper's frame{order}; follow-ups and manipulations are proposed."
