"""The three generators: semantic blocks, syntactic manipulations, Global Affinity sentences."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from pfcore.errors import InputError
from pfcore.items.bases import Base, capitalize, iter_bases
from pfcore.items.lexicon import Lexicon
from pfcore.items.schema import (
    CONTEXT_ORDERS,
    FILLS,
    FOLLOWUP_ORDERS,
    AffinityItem,
    Item,
    SemanticItem,
    SyntaxItem,
    build,
)
from pfcore.names import SuiteName

# Paper manipulation labels (make_templates.py) <-> ours.
PAPER_MANIPULATIONS = {"base": "base", "No_NPI": "NPI", "Psuedocleft": "Pseudocleft",
                       "CP Conjunction": "CP Conjunction", "VP Conjunction": "VP Conjunction",
                       "VP Gap Conjunction": "VP Gap Conjunction"}


def resolve_constructions(lexicon: Lexicon, names: Iterable[str] | str | None,
                          *, paper_compatible: bool = False) -> list[str]:
    """Construction names in generation order; None or "all" means all (in paper-compatible mode,
    all published ones); unknown or unpublished names are an error."""
    pool = list(lexicon.paper.constructions if paper_compatible else lexicon.constructions)
    wanted = [] if names is None else [names] if isinstance(names, str) else list(names)
    if not wanted or "all" in wanted:
        return pool
    unknown = [n for n in wanted if n not in pool]
    if unknown:
        what = "not in the published set:" if paper_compatible else "unknown construction"
        raise InputError(f"{what} {', '.join(unknown)} (known: {', '.join(pool)}, all)")
    return [n for n in pool if n in wanted]


def generate_semantic(lexicon: Lexicon, constructions: Iterable[str] | str | None = None,
                      *, paper_compatible: bool = False) -> list[SemanticItem]:
    """Blocks of 8 per base and construction: construction then "or", each context order x
    follow-up order, in the published row order (construction by construction)."""
    bases = iter_bases(lexicon, paper_compatible=paper_compatible)
    items = []
    for name in resolve_constructions(lexicon, constructions, paper_compatible=paper_compatible):
        for base in bases:
            for connective in (lexicon.constructions[name], lexicon.semantic_control):
                for context_order in CONTEXT_ORDERS:
                    for followup_order in FOLLOWUP_ORDERS:
                        items.append(build(
                            SemanticItem, construction=name, connective=connective,
                            is_construction=connective != lexicon.semantic_control,
                            context_order=context_order, followup_order=followup_order,
                            context=base.context(context_order, connective),
                            followup=base.followup(followup_order), fills=FILLS,
                            **base.fields()))
    return items


def manipulations(base: Base, connective: str) -> dict[str, str]:
    """The base sentence (aligned order) and its five manipulations with one connective."""
    weak, strong = base.weak, base.strong
    pronoun, modal, verb = base.pronoun, base.modal, base.frame.verb
    subject = f"{pronoun.subject} {modal.negative} {verb}"
    return {
        "base": base.clause(weak, connective, base.one(strong)),
        "NPI": base.clause(weak, connective, base.one(strong), modal=modal.positive),
        "Pseudocleft": f"{capitalize(base.np(weak))}, {connective} {base.one(strong)}, {subject}.",
        "CP Conjunction": base.clause(weak, connective, f"{subject} {base.one(strong)}"),
        "VP Conjunction": base.clause(weak, connective, f"{verb} {base.one(strong)}"),
        "VP Gap Conjunction": base.clause(weak, connective,
                                          f"{pronoun.gap_partner} {base.one(strong)}"),
    }


def generate_syntax(lexicon: Lexicon, constructions: Iterable[str] | str | None = None,
                    *, paper_compatible: bool = False) -> list[SyntaxItem]:
    """Per aligned base: for each construction and then the control "and", the base sentence and
    its manipulations (the paper's Table 3 and Appendix C), in the authors' row order."""
    names = resolve_constructions(lexicon, constructions, paper_compatible=paper_compatible)
    connectives = [(n, lexicon.constructions[n]) for n in names]
    connectives.append((lexicon.syntax_control, lexicon.syntax_control))
    items = []
    for base in iter_bases(lexicon, paper_compatible=paper_compatible):
        for name, connective in connectives:
            for manipulation, sentence in manipulations(base, connective).items():
                items.append(build(
                    SyntaxItem, construction=name, connective=connective,
                    manipulation=manipulation, sentence=sentence, context_order="aligned",
                    **base.fields()))
    return items


def affinity_spans(sentence: str, connective: str,
                   words: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    """Character spans of the chosen fixed words inside the connective that follows ", "."""
    start = sentence.index(f", {connective} ") + 2
    spans, offset = [], start
    for word in connective.split():
        if word in words:
            spans.append((offset, offset + len(word)))
        offset += len(word) + 1
    return tuple(spans)


def generate_affinity(lexicon: Lexicon, constructions: Iterable[str] | str | None = None,
                      *, paper_compatible: bool = False) -> list[AffinityItem]:
    """Each construction's contexts (both orders) with the character spans of its fixed words."""
    bases = iter_bases(lexicon, paper_compatible=paper_compatible)
    items = []
    for name in resolve_constructions(lexicon, constructions, paper_compatible=paper_compatible):
        connective = lexicon.constructions[name]
        words = tuple(connective.split())
        if paper_compatible:
            words = lexicon.paper.affinity_words.get(name, words)
        for base in bases:
            for order in CONTEXT_ORDERS:
                sentence = base.context(order, connective)
                items.append(build(
                    AffinityItem, construction=name, sentence=sentence, words=words,
                    spans=affinity_spans(sentence, connective, words), context_order=order,
                    **base.fields()))
    return items


GENERATORS: dict[SuiteName, Callable[..., Sequence[Item]]] = {
    SuiteName.SEMANTIC: generate_semantic, SuiteName.SYNTAX: generate_syntax, SuiteName.AFFINITY: generate_affinity}
