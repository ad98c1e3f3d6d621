"""Reading one sentence: find a Paired-Focus construction and its foci, build its "or" control and,
for sentences in the paper's frame, the follow-ups and syntactic manipulations the item generators
make for it. The foci come from the structure of the sentence (`pfcore.probe.parse`): focus 2 is what
the connective joins, focus 1 the phrase before it that is parallel to focus 2. What detection knows
of each construction is its definition (`items.constructions`: data/constructions/, and a user's
folder)."""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from pfcore.errors import InputError
from pfcore.items.constructions import Definition, LookAlike, constructions, definition_of
from pfcore.items.generate import generate_semantic, generate_syntax
from pfcore.items.lexicon import Lexicon, Pronoun, load_lexicon
from pfcore.items.schema import SYNTAX_CONTROL, SemanticItem, SyntaxItem
from pfcore.names import Reduction
from pfcore.probe import parse
from pfcore.probe.parse import KIND_NAMES, NEGATIVE_WORDS, Phrase
from pfcore.suites import semantic, syntax

MAX_CHARS = 500


# One natural example per construction (from its definition), shown when a sentence has none.
EXAMPLES: dict[str, str] = {name: d.example for name, d in constructions().items() if d.built_in}
FRAME_EXAMPLE = "You couldn't lift a tiny rock, let alone a huge one."
# Subjects the frame accepts beyond the lexicon's, with a contrasting gapped-conjunct pronoun.
EXTRA_PRONOUNS = (Pronoun("I", "you"), Pronoun("he", "her"), Pronoun("she", "him"))
# Characters that mark a pause before the connective (and split clauses): comma, semicolon,
# colon, em and en dash.
PAUSES = ",;:\u2014\u2013"
# What the parser reads in place of the connective: a coordination whose conjuncts are the two
# foci. "or even" (a focus particle after "or", as the connective is one) keeps a bare verb a verb
# where "or" alone lets the small parser read "or boil water" as a noun compound.
JOINER = "or even"
PLAIN_JOINER = "or"  # a second reading, to find where the parser is unsure of focus 2
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
    `aligned` is True when the first adjective is the scale's easier end (the paper's order);
    `spans` are where its foci ("a tiny rock", "a huge one") are."""

    frame: str
    pronoun: str
    modal: str
    verb: str
    noun: str
    scale: str
    first_adj: str
    second_adj: str
    aligned: bool
    spans: tuple[tuple[int, int], tuple[int, int]] = field(default=((0, 0), (0, 0)), compare=False)  # the two foci


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
    there is no construction to probe. `structure` is how the parser read the two foci (None for a
    sentence in the paper's frame, whose foci the frame gives)."""

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
    focus1_span: tuple[int, int] = (0, 0)  # characters of focus 1 in `text`
    focus2_span: tuple[int, int] = (0, 0)
    structure: tuple[Phrase, Phrase] | None = field(default=None, repr=False, compare=False)

    @property
    def fits_frame(self) -> bool:
        """Whether the sentence is in the paper's frame (so follow-ups and manipulations exist)."""
        return self.frame is not None

    @property
    def kinds(self) -> tuple[str, str]:
        """The kinds of phrase of focus 1 and focus 2 (keys of `parse.KIND_NAMES`; noun phrases in the frame)."""
        return (self.structure[0].kind, self.structure[1].kind) if self.structure else ("NP", "NP")

    @property
    def choices(self) -> dict[str, str]:
        """The constructions one can switch to: name -> connective words (the user's too)."""
        return {name: d.connective for name, d in constructions().items()}

    @property
    def control_word(self) -> str:
        """The control connective that replaces the construction ("or", unless its definition names another)."""
        return definition_of(self.construction).semantic_control if self.construction else self.lexicon.semantic_control

    def as_json(self) -> dict[str, object]:
        """What was read in the sentence, as plain data (the CLI's --json)."""
        kinds = list(self.kinds) if self.construction else None
        return {"sentence": self.text, "construction": self.construction, "connective": self.connective,
                "focus1": self.focus1, "focus2": self.focus2, "focus_kinds": kinds, "control": self.control,
                "fits_frame": self.fits_frame}

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
        """The probe with another connective in the same place and the same foci (a look-alike
        rule may not read the new sentence alone, but the user chose the construction)."""
        connective = self.choices[name]
        text = self.sentence_with(connective)
        probe = _placed(replace(self, text=text, construction=name, connective=connective, frame=None, proposed=None,
                                manipulations=(), syntax_items=(), block=()), self.span[0], connective)
        fitted = _fit_frame(text, name, self.lexicon)
        probe = _with_frame(probe, *fitted) if fitted else probe
        return replace(probe, message=_found_message(probe))


def _placed(probe: Probe, start: int, connective: str) -> Probe:
    """The probe with its connective now `connective` at `start` of its text: the spans after it
    (focus 2's, the parser's focus 2) move with it."""
    delta = start + len(connective) - probe.span[1]
    a, b = probe.focus2_span
    structure = probe.structure and (probe.structure[0], probe.structure[1].moved(delta))
    return replace(probe, span=(start, start + len(connective)), focus2_span=(a + delta, b + delta),
                   structure=structure)


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
    lines = [f"- {d.connective}: {d.example}" for d in constructions().values() if d.example]
    return ("No Paired-Focus construction found. Use one of these connectives between two foci on a "
            "scale, e.g.:\n" + "\n".join(lines))


def analyze_sentence(text: str, lexicon: Lexicon | None = None) -> Probe:
    """Find the construction, its foci and its "or" control; propose follow-ups and build the
    syntactic manipulations when the sentence fits the paper's frame."""
    text = clean_text(text)
    lexicon = lexicon or _default_lexicon()
    first_rejection = ""
    candidates = _candidates(text)
    for start, end, name in candidates:
        read = _read(text, name, start, end, lexicon)
        if isinstance(read, Probe):
            return replace(read, message=_found_message(read) + _others_note(read, candidates))
        first_rejection = first_rejection or read
    return Probe(text, None, first_rejection or _not_found_message(text), lexicon)


def _candidates(text: str) -> list[tuple[int, int, str]]:
    """Every occurrence of every construction's spellings (any case, any spacing), in reading order."""
    hits = []
    for name, construction in constructions().items():
        for spelling in construction.words:
            pattern = r"\b" + r"\s+".join(map(re.escape, spelling.split())) + r"\b"
            hits += [(m.start(), m.end(), name) for m in re.finditer(pattern, text, re.IGNORECASE)]
    return sorted(hits)


def _others_note(probe: Probe, candidates: list[tuple[int, int, str]]) -> str:
    """A word on the other connectives of the sentence (none: ''): the control replaces only the one read."""
    others = [probe.text[a:b] for a, b, _ in candidates if b <= probe.span[0] or a >= probe.span[1]]
    if not others:
        return ""
    listed = ", ".join(f"'{w}'" for w in dict.fromkeys(others))
    return (f" The sentence also holds {listed}: the control replaces only '{probe.connective}', "
            "and the rest stays in both sentences.")


def _not_found_message(text: str) -> str:
    """Why a sentence without any connective has no construction: which near miss it has ("let me
    alone"), with the four connectives and their examples."""
    near = [why for pattern, why in NEAR_MISSES if re.search(pattern, text, re.IGNORECASE)]
    return " ".join(near[:1] + [no_construction_message()])


def _read(text: str, name: str, start: int, end: int, lexicon: Lexicon) -> Probe | str:
    """The probe of the connective at start:end when it is a real use of its construction, else
    why not (a message naming what the words read as): a sentence in the paper's frame is read by
    the frame; any other needs a clause before the connective and a focus after it, must not have
    the structure of its look-alike, needs a negative context where the construction needs one and
    no pause marks it, and a phrase before the connective parallel to focus 2."""
    construction = definition_of(name)
    connective = construction.connective
    probe = Probe(text, name, "", lexicon, connective, (start, end))
    probe = replace(probe, control=probe.sentence_with(probe.control_word))
    fitted = _fit_frame(text, name, lexicon)
    if fitted is not None:
        return _with_frame(probe, *fitted)
    before, after = _sentence_before(text, start), _focus2_words(text, end)
    if not _words(re.split(f"[{re.escape(PAUSES)}]", before)[-1]) or not after:
        example = f", as in: {construction.example}" if construction.example else "."
        return (f"'{connective}' needs a clause before it and a focus after it{example} "
                f"Without them it reads as {construction.look_alike or 'another use of its words'}.")
    paused = text[:start].rstrip().endswith(tuple(PAUSES))
    own = OWN_TESTS.get(name)
    why = (own(text, start, end, paused) if own is not None else "") or _shared_look_alike(text, start, end, paused)
    if why:
        return _look_alike(construction, why)
    pattern = _defined_look_alike(construction, text, start, end, paused)
    if pattern is not None:
        example = f", as in '{pattern.example}'" if pattern.example else ""
        return _look_alike(construction, "its definition's look-alike pattern", pattern.reads_as + example)
    if construction.licensing == "negative" and not paused and not _is_negative(_words(before)):
        return _look_alike(construction, "without a pause, it needs a negative or limiting clause before it "
                                         "('not', 'never', 'hardly', ...)")
    joined = probe.sentence_with(JOINER)
    foci = parse.coordination(joined, start, JOINER)
    if isinstance(foci, str):
        return _look_alike(construction, foci.replace("the connective", f"'{connective}'"))
    ambiguous = _ambiguous(probe, joined, foci)
    if ambiguous:
        return f"The foci of '{connective}' cannot be read with confidence: {ambiguous}; none is scored."
    return _with_foci(probe, *foci)


def _ambiguous(probe: Probe, joined: str, foci: tuple[Phrase, Phrase]) -> str:
    """Why the parse is not to be trusted ('' when it is): read with a plain "or", focus 2 is another
    kind of phrase, and in the JOINER's reading it is one word beside a longer focus 1 (a noun such as
    "shrimp" read as the verb "to shrimp", which makes focus 1 take in the verb before it)."""
    plain = probe.sentence_with(PLAIN_JOINER)
    other = parse.coordination(plain, probe.span[0], PLAIN_JOINER)
    first, second = (f.text(joined) for f in foci)
    if isinstance(other, str) or other[1].kind == foci[1].kind or len(second.split()) > 1 or len(first.split()) < 2:
        return ""
    return (f"the parser reads '{second}' as {KIND_NAMES[foci[1].kind]} (focus 1 '{first}') with one joiner and as "
            f"{KIND_NAMES[other[1].kind]} (focus 1 '{other[0].text(plain)}') with another, so its foci are not "
            "known; rephrase it (a determiner helps: 'the shrimp')")


def _with_foci(probe: Probe, first: Phrase, second: Phrase) -> Probe:
    """The probe with the parser's foci, read with the JOINER in place of the connective and placed
    in the sentence."""
    delta = probe.span[1] - probe.span[0] - len(JOINER)
    second = second.moved(delta)
    return replace(probe, focus1=first.text(probe.text), focus2=second.text(probe.text),
                   focus1_span=(first.start, first.end), focus2_span=(second.start, second.end),
                   structure=(first, second))


def _shared_look_alike(text: str, start: int, end: int, paused: bool) -> str:
    """Why the connective's words are, by the sentence's structure, something else ('' when they are
    not), for every construction: an infinitive a word before it governs, with no pause between
    ("They promised not to speak of it again"), or a subordinator opening a clause after it ("I
    wonder if not everyone agrees")."""
    return ("" if paused else parse.governed_infinitive(text, start, end)) or parse.opened_clause(text, start, end,
                                                                                                 paused)


def _defined_look_alike(construction: Definition, text: str, start: int, end: int, paused: bool) -> LookAlike | None:
    """The definition's own look-alike pattern that the words around the connective match: a word
    (or its dictionary form) right before it with no pause between, or right after it."""
    if not construction.look_alikes:
        return None
    before, after = parse.neighbours(text, start, end)
    return next((p for p in construction.look_alikes
                 if (not paused and before & set(p.before)) or after & set(p.after)), None)


def _look_alike(construction: Definition, why: str, reads: str = "") -> str:
    """The message for a connective that is not its construction here: what it reads as, and why."""
    reads = reads or construction.look_alike or "another use of its words"
    example = f", as in: {construction.example}" if construction.example else ""
    return (f"No Paired-Focus construction found: '{construction.connective}' here reads as "
            f"{reads} ({why}); the construction joins two foci on a scale{example}")


def _comparative_much_less(text: str, start: int, end: int, paused: bool) -> str:
    """Why "much less" is the comparative (less by much), or '': right before "than"; without a
    pause, before a graded word or a mass noun (see `parse.graded_after`) or a later "than"; after a
    pause in a positive clause, before a graded word or a later "than" ("ten dollars, much less than
    I expected")."""
    words = _words(text[end:])
    if words[:1] == ["than"]:
        return "'than' follows it"
    compared = parse.graded_after(text, end)
    if not paused or not _is_negative(_words(_sentence_before(text, start))):
        if "than" in words:
            return "a 'than' follows"
        if compared:
            return f"'{compared}' after it is what it compares"
    return ""


# Each connective's own look-alike test, after the shared ones: (text, start, end, paused) -> why
# the connective there is its look-alike ('' when it is not). These are about the English words
# (the verb "mention", the verb "mind", the comparative "less"), not about the constructions.
OWN_TESTS: dict[str, Callable[[str, int, int, bool], str]] = {
    "much_less": _comparative_much_less,
    # "not to mention" as the negated infinitive of "mention" (only without a pause)
    "not_to_mention": lambda text, start, end, paused: "" if paused else parse.infinitive_governor(text, start, end),
    "never_mind": lambda text, start, end, paused: parse.dismissal(text, start, end),  # a dismissal
}


def _is_negative(words: list[str]) -> bool:
    """Whether a clause is negative or limiting ("can't", "never", "few", "hardly"), the context
    the negative-polarity connectives need."""
    return any(w in NEGATIVE_WORDS or w.endswith("n't") for w in words)


def _words(text: str) -> list[str]:
    """The lower-cased words of a text, curly apostrophes made straight ("doesn't")."""
    return re.findall(r"[\w']+", text.lower().replace("\u2019", "'"))


def _sentence_before(text: str, start: int) -> str:
    """The text of the connective's sentence before it, without the pause that ends it."""
    before = re.split(r"[.!?]+\s", text[:start])[-1]
    return before.rstrip().rstrip(PAUSES).rstrip()


def _focus2_words(text: str, end: int) -> list[str]:
    """The words after the connective up to the next punctuation mark (where focus 2 must be)."""
    return _words(re.match(r"[^,;:.!?]*", text[end:]).group(0))  # type: ignore[union-attr]  # always matches


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
        rf"(?P<verb>{alt({f.verb for f in lexicon.frames})}) (?P<focus1>an? (?P<adj1>{alt(adjectives)}) "
        rf"(?P<noun>{alt({f.noun for f in lexicon.frames})})),? {conn} (?P<focus2>an? (?P<adj2>{alt(adjectives)}) "
        r"one)[.!]?", re.IGNORECASE)


def fits_frame(text: str, name: str, lexicon: Lexicon) -> bool:
    """Whether a text is a sentence of the paper's frame with this construction."""
    return _fit_frame(text, name, lexicon) is not None


def _fit_frame(text: str, name: str, lexicon: Lexicon) -> tuple[FrameFit, Lexicon, Lexicon] | None:
    """The frame fields and two one-base lexicons, when the sentence is PRONOUN MODAL VERB ADJ1
    NOUN, CONNECTIVE ADJ2 one. with adjectives of opposite ends of one frame's scale: one in the
    typed order (the second adjective as the harder end, for the manipulations of the sentence as
    typed) and one in the lexicon's order (for the suite's block, which names the easier task by
    the scale, not by the sentence)."""
    if name not in lexicon.constructions:  # a user's construction: read by its parse, not by the paper's frame
        return None
    match = _frame_pattern(lexicon, lexicon.constructions[name]).fullmatch(text.replace("\u2019", "'"))
    if match is None:
        return None
    words = {k: v.lower() for k, v in match.groupdict().items()}
    spans = match.span("focus1"), match.span("focus2")
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
                       words["adj1"], words["adj2"], aligned=second == frame.harder, spans=spans)
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
    (a, b), (c, d) = fit.spans
    return replace(probe, frame=fit, manipulations=manipulations, syntax_items=items, block=block,
                   proposed=(semantic.filled(item, item.fills[0]), semantic.filled(item, item.fills[1])),
                   focus1=probe.text[a:b], focus2=probe.text[c:d], focus1_span=(a, b), focus2_span=(c, d),
                   structure=None)


def _found_message(probe: Probe) -> str:
    """A one-paragraph reading of the probe for the page."""
    kind1, kind2 = (f" ({KIND_NAMES[k]})" for k in probe.kinds) if probe.structure else ("", "")
    text = (f"Found '{probe.connective}': focus 1 '{probe.focus1}'{kind1}, focus 2 '{probe.focus2}'{kind2}. "
            f"The control replaces it with '{probe.control_word}'.")
    if probe.structure is not None and not parse.parallel(*probe.structure):
        text += " The two foci are not the same kind of phrase: they are read as typed, not exchanged."
    if probe.frame is None:
        return text + (" Type a follow-up the construction entails and one it contradicts "
                       "(the paper's frame, e.g. '" + FRAME_EXAMPLE + "', gets them proposed).")
    order = "" if probe.frame.aligned else " (the harder task first: the paper's misaligned order)"
    return text + f" It fits the paper's frame{order}; follow-ups and manipulations are proposed."
