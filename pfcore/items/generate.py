"""The three generators: semantic blocks, syntactic manipulations, Global Affinity sentences."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from pfcore.errors import InputError
from pfcore.items.bases import Base, capitalize, iter_bases
from pfcore.items.constructions import Definition, constructions, user_folder
from pfcore.items.lexicon import Lexicon
from pfcore.items.schema import (
    CONTEXT_ORDERS,
    FILLS,
    FOLLOWUP_ORDERS,
    MANIPULATIONS,
    AffinityItem,
    Item,
    SemanticItem,
    SyntaxItem,
    build,
)
from pfcore.names import SuiteName
from pfcore.scoring.align import word_spans

# Paper manipulation labels (make_templates.py) <-> ours.
PAPER_MANIPULATIONS = {"base": "base", "No_NPI": "NPI", "Psuedocleft": "Pseudocleft",
                       "CP Conjunction": "CP Conjunction", "VP Conjunction": "VP Conjunction",
                       "VP Gap Conjunction": "VP Gap Conjunction"}


def resolve_constructions(lexicon: Lexicon, names: Iterable[str | Definition] | str | None,
                          *, paper_compatible: bool = False, folder: str | Path | None = None) -> list[Definition]:
    """The definitions of the named constructions in generation order (the paper's four first, then
    the user's, see `constructions.constructions`); None or "all" means the paper's four (in
    paper-compatible mode, all published ones); unknown or unpublished names are an error. A
    Definition given in place of a name is taken as it is (one the app read from a visitor)."""
    given = [] if names is None else [names] if isinstance(names, str) else list(names)
    if given and all(isinstance(n, Definition) for n in given):
        return [n for n in given if isinstance(n, Definition)]
    defined = constructions(folder)
    paper = list(lexicon.paper.constructions if paper_compatible else lexicon.constructions)
    pool = paper if paper_compatible else [*paper, *(n for n in defined if n not in paper)]
    wanted = [str(n) for n in given]
    if not wanted or "all" in wanted:
        return [defined[n] for n in paper]
    unknown = [n for n in wanted if n not in pool]
    if unknown:
        what = "not in the published set:" if paper_compatible else "unknown construction"
        hint = "" if paper_compatible or user_folder(folder) else "; a definition of your own: --constructions DIR"
        raise InputError(f"{what} {', '.join(unknown)} (known: {', '.join(pool)}, all){hint}")
    return [defined[n] for n in pool if n in wanted]


def _bases_for(bases: list[Base], lexicon: Lexicon, definition: Definition) -> list[Base]:
    """The bases of the frames a construction uses (every frame unless its definition names some)."""
    if not definition.frames:
        return bases
    known = {f.name for f in lexicon.frames}
    missing = [f for f in definition.frames if f not in known]
    if missing:
        raise InputError(f"{definition.path}: frames: {len(missing)} of its frames are not the lexicon's "
                         f"(the lexicon's are named as 'lift rock (small-large)')")
    return [b for b in bases if b.frame.name in definition.frames]


def _applies(definition: Definition, suite: SuiteName) -> None:
    """InputError when the definition says the suite's test does not apply to it."""
    applies = {SuiteName.SEMANTIC: definition.semantic, SuiteName.SYNTAX: bool(definition.syntax),
               SuiteName.AFFINITY: definition.affinity}[suite]
    if not applies:
        raise InputError(f"the {suite} test does not apply to {definition.name} (its definition, "
                         f"{definition.path.name}, says so under tests)")


def generate_semantic(lexicon: Lexicon, constructions: Iterable[str | Definition] | str | None = None,
                      *, paper_compatible: bool = False, folder: str | Path | None = None) -> list[SemanticItem]:
    """Blocks of 8 per base and construction: construction then "or", each context order x
    follow-up order, in the published row order (construction by construction)."""
    bases = iter_bases(lexicon, paper_compatible=paper_compatible)
    items = []
    for definition in resolve_constructions(lexicon, constructions, paper_compatible=paper_compatible, folder=folder):
        _applies(definition, SuiteName.SEMANTIC)
        for base in _bases_for(bases, lexicon, definition):
            for connective in (definition.connective, definition.semantic_control):
                for context_order in CONTEXT_ORDERS:
                    for followup_order in FOLLOWUP_ORDERS:
                        items.append(build(
                            SemanticItem, construction=definition.name, connective=connective,
                            is_construction=connective != definition.semantic_control,
                            context_order=context_order, followup_order=followup_order,
                            context=base.context(context_order, connective, weaker=definition.weaker,
                                                 positive=definition.positive),
                            followup=base.followup(followup_order), fills=FILLS,
                            **base.fields()))
    return items


def manipulations(base: Base, connective: str, *, gerund: bool = False) -> dict[str, str]:
    """The base sentence (aligned order: the easier task first, for every connective, so that each
    pairs with its "and" twin) and its five manipulations with one connective; with `gerund` (a
    connective that ends in a preposition) the two control manipulations put the verb after it as a
    gerund, so that they stay grammatical ("..., to say nothing of singing a beautiful one", "...,
    to say nothing of me singing a beautiful one")."""
    weak, strong = base.weak, base.strong
    pronoun, modal, verb = base.pronoun, base.modal, base.frame.verb
    subject = f"{pronoun.subject} {modal.negative} {verb}"
    if gerund:
        gerund_vp = f"{base.frame.gerund} {base.one(strong)}"
        return {**manipulations(base, connective), "VP Conjunction": base.clause(weak, connective, gerund_vp),
                "VP Gap Conjunction": base.clause(weak, connective, f"{pronoun.gap_partner} {gerund_vp}")}
    return {
        "base": base.clause(weak, connective, base.one(strong)),
        "NPI": base.clause(weak, connective, base.one(strong), modal=modal.positive),
        "Pseudocleft": f"{capitalize(base.np(weak))}, {connective} {base.one(strong)}, {subject}.",
        "CP Conjunction": base.clause(weak, connective, f"{subject} {base.one(strong)}"),
        "VP Conjunction": base.clause(weak, connective, f"{verb} {base.one(strong)}"),
        "VP Gap Conjunction": base.clause(weak, connective, f"{pronoun.gap_partner} {base.one(strong)}"),
    }


def generate_syntax(lexicon: Lexicon, constructions: Iterable[str | Definition] | str | None = None,
                    *, paper_compatible: bool = False, folder: str | Path | None = None) -> list[SyntaxItem]:
    """Per aligned base: for each construction and then the control "and", the base sentence and
    the manipulations its definition lists (the paper's Table 3 and Appendix C: all five for the
    four), in the authors' row order; a construction's frames limit its bases, "and" has every base
    a construction has."""
    bases = iter_bases(lexicon, paper_compatible=paper_compatible)
    definitions = resolve_constructions(lexicon, constructions, paper_compatible=paper_compatible, folder=folder)
    for definition in definitions:
        _applies(definition, SuiteName.SYNTAX)
    tests = [("base", *d.syntax) for d in definitions]
    frames = [{b.frame.name for b in _bases_for(bases, lexicon, d)} for d in definitions]
    items = []
    for base in bases:
        uses = [base.frame.name in f for f in frames]
        wanted = [(d.name, d.connective, t, d.gerund_foci) for d, t, used in zip(definitions, tests, uses) if used]
        if wanted:
            wanted.append((lexicon.syntax_control, lexicon.syntax_control, tuple(MANIPULATIONS), False))
        for name, connective, kept, gerund in wanted:
            for manipulation, sentence in manipulations(base, connective, gerund=gerund).items():
                if manipulation in kept:
                    items.append(build(
                        SyntaxItem, construction=name, connective=connective,
                        manipulation=manipulation, sentence=sentence, context_order="aligned",
                        **base.fields()))
    return items


def affinity_spans(sentence: str, connective: str, words: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    """Character spans of the chosen fixed words inside the connective that follows ", "."""
    start = sentence.index(f", {connective} ") + 2
    return tuple((start + a, start + b) for a, b in word_spans(connective) if connective[a:b] in words)


def generate_affinity(lexicon: Lexicon, constructions: Iterable[str | Definition] | str | None = None,
                      *, paper_compatible: bool = False, folder: str | Path | None = None) -> list[AffinityItem]:
    """Each construction's contexts (both orders) with the character spans of its fixed words."""
    bases = iter_bases(lexicon, paper_compatible=paper_compatible)
    items = []
    for definition in resolve_constructions(lexicon, constructions, paper_compatible=paper_compatible, folder=folder):
        _applies(definition, SuiteName.AFFINITY)
        connective = definition.connective
        words = tuple(connective.split())
        if paper_compatible:
            words = lexicon.paper.affinity_words.get(definition.name, words)
        for base in _bases_for(bases, lexicon, definition):
            for order in CONTEXT_ORDERS:
                sentence = base.context(order, connective, weaker=definition.weaker, positive=definition.positive)
                items.append(build(
                    AffinityItem, construction=definition.name, sentence=sentence, words=words,
                    spans=affinity_spans(sentence, connective, words), context_order=order,
                    **base.fields()))
    return items


GENERATORS: dict[SuiteName, Callable[..., Sequence[Item]]] = {
    SuiteName.SEMANTIC: generate_semantic, SuiteName.SYNTAX: generate_syntax, SuiteName.AFFINITY: generate_affinity}
