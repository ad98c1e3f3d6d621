"""What a definition must hold for `items`, `run` and the Probe beyond its own fields: frames the
lexicon has, controls that are not themselves a scalar connective, spellings no other construction
has, and a verb form that fits a connective ending in a preposition. Each problem is one line naming
the file and the field, never a value of the file (docs/constructions.md)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pfcore.items.lexicon import Lexicon

if TYPE_CHECKING:  # constructions.py reads a folder through these checks
    from pfcore.items.constructions import Definition

# Words that end a connective as a preposition: a verb focus after one is a gerund ("to say nothing of singing").
PREPOSITIONS = frozenset({"of", "about", "for", "from", "with", "without", "besides", "beyond", "than", "over",
                          "against", "on", "upon", "in", "at", "by", "after", "before", "like", "despite"})


def ends_in_preposition(connective: str) -> bool:
    """Whether a connective's last word is a preposition ("to say nothing of", "not to speak of")."""
    return connective.split()[-1] in PREPOSITIONS


def frame_names(lexicon: Lexicon) -> list[str]:
    """The lexicon's frame names, as a definition's `frames` lists them ("lift rock (small-large)")."""
    return [frame.name for frame in lexicon.frames]


def frame_problems(definition: Definition, lexicon: Lexicon) -> list[str]:
    """A definition's frames that the lexicon lacks, counted, with the names it has."""
    known = frame_names(lexicon)
    missing = [f for f in definition.frames if f not in known]
    if not missing:
        return []
    return [f"{definition.path}: frames: {len(missing)} of its {len(definition.frames)} frames are not the "
            f"lexicon's (`pfcore constructions frames` lists them: {'; '.join(known)})"]


def control_problems(definition: Definition, others: Iterable[Definition]) -> list[str]:
    """A control that is a spelling of a construction (this one's others are refused by its reader):
    the suite would then compare a construction with a construction."""
    problems = []
    for role, control in (("semantic", definition.semantic_control), ("syntax", definition.syntax_control)):
        owner = next((d for d in others if control in d.words), None)
        if owner is not None:
            problems.append(f"{definition.path}: controls.{role}: the control is a spelling of the construction "
                            f"{owner.name} ({owner.origin}); a control is a connective without scalar meaning "
                            "('or', 'and')")
    return problems


def spelling_problems(definition: Definition, others: Iterable[Definition]) -> list[str]:
    """Spellings that another construction has: the Probe would read them as that one."""
    problems = []
    for other in others:
        shared = [w for w in definition.words if w in other.words]
        if shared:
            problems.append(f"{definition.path}: words: {len(shared)} of its spellings belong to the construction "
                            f"{other.name} ({other.origin}), which the Probe would read in their place; "
                            "choose other words")
    return problems


def form_problems(definition: Definition) -> list[str]:
    """A bare verb form stated for a connective that ends in a preposition, whose verb foci are gerunds
    ("to say nothing of singing a beautiful one", not "... of sing ...")."""
    if definition.verb_form == "bare" and ends_in_preposition(definition.connective):
        return [f"{definition.path}: verb_form: its connective ends in a preposition, after which a verb "
                "focus is a gerund ('of singing'); leave verb_form out or write gerund"]
    return []


def definition_problems(definition: Definition, others: Iterable[Definition], lexicon: Lexicon) -> list[str]:
    """Every problem of a definition beside the other constructions loaded with it (not itself)."""
    others = [d for d in others if d.name != definition.name and d.path != definition.path]
    return (frame_problems(definition, lexicon) + control_problems(definition, others)
            + spelling_problems(definition, others) + form_problems(definition))
