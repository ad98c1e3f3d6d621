"""Reading one sentence: find a Paired-Focus construction and its foci, build its "or" control and,
for sentences in the paper's frame, the follow-ups and syntactic manipulations the item generators
make for it."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from pfcore.errors import InputError
from pfcore.items.generate import generate_semantic, generate_syntax
from pfcore.items.lexicon import Lexicon, Pronoun, load_lexicon
from pfcore.items.schema import SYNTAX_CONTROL, SyntaxItem
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
DETERMINERS = frozenset("a an the this that these those my your his her its our their some any "
                        "no".split())
# Words that end focus 1 when it is read backwards from the connective (they are not part of it).
BOUNDARY = frozenset("i you he she it we they can could will would shall should may might must "
                     "do does did is are was were be been am have has had cannot not never even "
                     "also only just".split())


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
    proposed: tuple[str, str] | None = None  # (entailed, contradicted) follow-ups
    manipulations: tuple[Manipulation, ...] = ()
    syntax_items: tuple[SyntaxItem, ...] = field(default=(), repr=False, compare=False)

    @property
    def fits_frame(self) -> bool:
        """Whether the sentence is in the paper's frame (so follow-ups and manipulations exist)."""
        return self.frame is not None

    @property
    def choices(self) -> dict[str, str]:
        """The constructions one can switch to: name -> connective words."""
        return dict(self.lexicon.constructions)

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
        return analyze_sentence(self.sentence_with(self.choices[name]), self.lexicon)



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
        return Probe(text, None, no_construction_message(), lexicon)
    name, start, end = found
    connective = lexicon.constructions[name]
    before = text[:start].rstrip().rstrip(",").rstrip()
    focus2 = re.match(r"[^,;:.!?]*", text[end:]).group(0).strip()
    if not before or not focus2:
        return Probe(text, None, f"'{connective}' needs a clause before it and a focus after it, "
                     f"as in: {EXAMPLES.get(name, FRAME_EXAMPLE)}", lexicon)
    probe = Probe(text, name, "", lexicon, connective, (start, end), _focus1(before, focus2), focus2)
    probe = replace(probe, control=probe.sentence_with(lexicon.semantic_control))
    fitted = _fit_frame(text, name, lexicon)
    if fitted is not None:
        probe = _with_frame(probe, *fitted)
    return replace(probe, message=_found_message(probe))


def _find_connective(text: str, lexicon: Lexicon) -> tuple[str, int, int] | None:
    """The first connective in the text (any case, any spacing): its name and character span."""
    hits = []
    for name, words in lexicon.constructions.items():
        match = re.search(r"\b" + r"\s+".join(map(re.escape, words.split())) + r"\b", text, re.I)
        if match:
            hits.append((match.start(), match.end(), name))
    if not hits:
        return None
    start, end, name = min(hits)
    return name, start, end


def _focus1(before: str, focus2: str) -> str:
    """A guess at focus 1 from its parallel with focus 2: from the last determiner when focus 2
    starts with one ("a tiny rock" / "a huge one"), else as many words as focus 2 has, read
    backwards and stopping at a pronoun, auxiliary, negation or "even" ("boil water")."""
    words = before.split()
    if focus2.split()[0].lower() in DETERMINERS:
        starts = [i for i, w in enumerate(words) if w.lower() in DETERMINERS]
        if starts:
            return " ".join(words[starts[-1]:])
    taken: list[str] = []
    for word in reversed(words):
        bare = word.lower().replace("\u2019", "'").strip("\"'()")
        if len(taken) == len(focus2.split()) or bare in BOUNDARY or bare.endswith("n't"):
            break
        taken.insert(0, word)
    return " ".join(taken) or words[-1]


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
        r"one[.!]?", re.I)


def _fit_frame(text: str, name: str, lexicon: Lexicon) -> tuple[FrameFit, Lexicon] | None:
    """The frame fields and a one-base lexicon whose harder end is the second adjective, when the
    sentence is PRONOUN MODAL VERB ADJ1 NOUN, CONNECTIVE ADJ2 one. with adjectives of opposite
    ends of one frame's scale."""
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
        one_base = replace(lexicon, frames=(replace(frame, harder=second, adjectives={
            first: (words["adj1"],), second: (words["adj2"],)}),), modals=(modal,), pronouns=(pronoun,))
        fit = FrameFit(frame.name, pronoun.word, modal.negative, frame.verb, frame.noun, frame.scale,
                       words["adj1"], words["adj2"], aligned=second == frame.harder)
        return fit, one_base
    return None


def _with_frame(probe: Probe, fit: FrameFit, one_base: Lexicon) -> Probe:
    """The probe with the generators' follow-ups and manipulations for its one base. The base
    names the first focus as the easier task, as the construction says, so the suite's aligned
    context with its same-order follow-up applies: the construction favours the first fill."""
    item = next(i for i in generate_semantic(one_base, probe.construction)
                if i.is_construction and (i.context_order, i.followup_order) == ("aligned", "same"))
    items = tuple(generate_syntax(one_base, probe.construction))
    by = {(i.construction, i.manipulation): i.sentence for i in items}
    manipulations = tuple(
        Manipulation(m, "test" if m in syntax.TESTS else "control", by[(probe.construction, m)],
                     by[(SYNTAX_CONTROL, m)], by[(probe.construction, "base")], by[(SYNTAX_CONTROL, "base")])
        for m in syntax.TESTS + syntax.CONTROLS)
    return replace(probe, frame=fit, manipulations=manipulations, syntax_items=items,
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
