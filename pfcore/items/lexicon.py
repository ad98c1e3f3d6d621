"""The lexicon (data/lexicon.yaml): scales, frames, pronouns, modals and connectives, validated."""
from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pfcore.errors import InputError
from pfcore.files import MIB, FileKind, read_bounded
from pfcore.items.safe_yaml import compose
from pfcore.items.yaml_check import Where, YamlChecker
from pfcore.paths import DATA_DIR

LEXICON_FILE = FileKind("lexicon", MIB)  # 200 times the shipped one; PyYAML reads about 100 kB a second

DEFAULT_LEXICON = DATA_DIR / "lexicon.yaml"
WORD = re.compile(r"^[a-z][a-z'-]*$")
TOP_KEYS = {"version", "constructions", "controls", "pronouns", "modals", "scales", "frames",
            "paper_compatible"}

@dataclass(frozen=True)
class Scale:
    """A scale: two named ends with the adjectives used at each, and the source's full order."""

    name: str
    source: str
    gold: tuple[str, ...]
    ends: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class Frame:
    """A verb-noun pair on a scale, and which end of the scale is the harder task."""

    verb: str
    gerund: str
    noun: str
    scale: str
    harder: str
    adjectives: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The frame's label in items, e.g. "lift rock (small-large)"."""
        return frame_name(self.verb, self.noun, self.scale)


@dataclass(frozen=True)
class Pronoun:
    """A subject pronoun and the pronoun of the gapped conjunct (VP Gap Conjunction)."""

    subject: str
    gap_partner: str

    @property
    def word(self) -> str:
        """The pronoun as it starts a sentence ("You"), as the published Pronoun column has it."""
        return self.subject[:1].upper() + self.subject[1:]


@dataclass(frozen=True)
class Modal:
    """A negated modal ("couldn't") and its positive form ("could") for the NPI manipulation."""

    negative: str
    positive: str


@dataclass(frozen=True)
class PaperQuirks:
    """The published item set: its inventory (names, in published order) and what it did
    differently (spellings, repeated adjectives, affinity words). Empty when a lexicon has none."""

    constructions: tuple[str, ...] = ()
    pronouns: tuple[str, ...] = ()
    modals: tuple[str, ...] = ()
    frames: tuple[str, ...] = ()
    spellings: Mapping[str, str] = field(default_factory=dict)
    ends: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    affinity_words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Lexicon:
    """Everything the generators draw on, in generation order."""

    path: str
    sha256: str
    version: str
    constructions: Mapping[str, str]
    semantic_control: str
    syntax_control: str
    pronouns: tuple[Pronoun, ...]
    modals: tuple[Modal, ...]
    scales: Mapping[str, Scale]
    frames: tuple[Frame, ...]
    paper: PaperQuirks

    def inventory(self, *, paper_compatible: bool) -> tuple[tuple[Frame, ...], tuple[Modal, ...],
                                                         tuple[Pronoun, ...]]:
        """Frames, modals and pronouns in generation order: all of them, or the published ones."""
        if not paper_compatible:
            return self.frames, self.modals, self.pronouns
        if not self.paper.frames:
            raise InputError(f"{self.path}: no paper_compatible section, so no published set "
                             "to reproduce")
        frames = {f.name: f for f in self.frames}
        modals = {m.negative: m for m in self.modals}
        pronouns = {p.subject: p for p in self.pronouns}
        return (tuple(frames[n] for n in self.paper.frames),
                tuple(modals[n] for n in self.paper.modals),
                tuple(pronouns[n] for n in self.paper.pronouns))

    def easier_end(self, frame: Frame) -> str:
        """The end of the frame's scale that is the easier task (the one that is not `harder`)."""
        return next(end for end in self.scales[frame.scale].ends if end != frame.harder)

    def adjectives(self, frame: Frame, end: str, *, paper_compatible: bool = False) -> tuple[str, ...]:
        """The adjectives a frame uses at one end, spelled as the chosen mode writes them."""
        if paper_compatible and end in self.paper.ends.get(frame.scale, {}):
            words = self.paper.ends[frame.scale][end]
        else:
            words = frame.adjectives.get(end) or self.scales[frame.scale].ends[end]
        return tuple(self.paper.spellings.get(w, w) for w in words) if paper_compatible else words

    def vocabulary(self) -> frozenset[str]:
        """Every word the lexicon itself spells (the paper-compatible section excluded)."""
        phrases: list[str] = [*self.constructions.values(), self.semantic_control,
                              self.syntax_control]
        phrases += [w for p in self.pronouns for w in (p.subject, p.gap_partner)]
        phrases += [w for m in self.modals for w in (m.negative, m.positive)]
        phrases += [a for s in self.scales.values() for adjs in s.ends.values() for a in adjs]
        phrases += [w for f in self.frames for w in (f.verb, f.gerund, f.noun)]
        return frozenset(w.lower() for phrase in phrases for w in phrase.split())

    def scale_of(self, verb: str, noun: str, adjectives: tuple[str, str]) -> str:
        """The scale of the frame (verb, noun) that has both adjectives ("" when none has)."""
        canon = {v: k for k, v in self.paper.spellings.items()}
        wanted = {canon.get(a, a) for a in adjectives}
        for frame in self.frames:
            used = {a for adjs in self.scales[frame.scale].ends.values() for a in adjs}
            if (frame.verb, frame.noun) == (verb, noun) and wanted <= used:
                return frame.scale
        return ""


def frame_name(verb: str, noun: str, scale: str) -> str:
    """The label of a frame: verb, noun and, when known, the scale in brackets."""
    return f"{verb} {noun} ({scale})" if scale else f"{verb} {noun}"


def load_lexicon(path: str | Path | None = None) -> Lexicon:
    """Read and validate a lexicon YAML (the shipped one by default); InputError lists problems."""
    path = Path(path) if path is not None else DEFAULT_LEXICON
    raw = read_bounded(path, LEXICON_FILE)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: the lexicon is not UTF-8 text ({exc.reason})") from exc
    node = compose(text, path)
    checker = LexiconChecker(path)
    data = checker.plain(node, ()) if node is not None else None
    lexicon = checker.build(data, hashlib.sha256(raw).hexdigest())
    if checker.problems:
        raise InputError(f"{path}: invalid lexicon:\n" + "\n".join(checker.problems))
    assert lexicon is not None
    return lexicon


class LexiconChecker(YamlChecker):
    """The YAML checker with the lexicon's sections: turns a lexicon's YAML tree into a Lexicon."""

    def words(self, value: Any, where: Where) -> tuple[str, ...]:
        """A non-empty list of lowercase words."""
        return tuple(self.text(w, where + (i,), WORD) for i, w in
                     enumerate(self.sequence(value, where)))

    def build(self, data: Any, sha256: str) -> Lexicon | None:
        """The Lexicon, or None when the top level is not even a mapping."""
        if not isinstance(data, dict) or not data:
            self.fail((), "the lexicon must be a non-empty mapping (see data/lexicon.yaml)")
            return None
        self.keys(data, (), TOP_KEYS)
        version = data.get("version")
        if not isinstance(version, (str, int, float)) or not str(version).strip():
            self.missing(("version",))
        constructions = self.constructions(data.get("constructions"))
        controls = self.mapping(data.get("controls"), ("controls",))
        self.keys(controls, ("controls",), {"semantic", "syntax"})
        scales = self.scales(data.get("scales"))
        lexicon = Lexicon(
            path=str(self.path), sha256=sha256, version=str(version),
            constructions=constructions,
            semantic_control=self.text(controls.get("semantic"), ("controls", "semantic"), WORD),
            syntax_control=self.text(controls.get("syntax"), ("controls", "syntax"), WORD),
            pronouns=self.word_pairs(data.get("pronouns"), "pronouns", Pronoun, ("subject", "gap_partner")),
            modals=self.word_pairs(data.get("modals"), "modals", Modal, ("negative", "positive")),
            scales=scales,
            frames=self.frames(data.get("frames"), scales),
            paper=PaperQuirks(),
        )
        return replace(lexicon, paper=self.paper(data.get("paper_compatible"), lexicon))

    def constructions(self, value: Any) -> dict[str, str]:
        """Construction name -> words; the name must be the words joined by underscores."""
        out: dict[str, str] = {}
        for name, words in self.mapping(value, ("constructions",)).items():
            where = ("constructions", name)
            text = self.text(words, where, WORD)
            if text and name != text.replace(" ", "_"):
                self.fail(where, f"name must be the words joined by '_' ({text.replace(' ', '_')})")
            out[str(name)] = text
        if not out:
            self.fail(("constructions",), "no constructions")
        return out

    def word_pairs(self, value: Any, section: str, cls: type, fields: tuple[str, str]) -> tuple:
        """Entries of a section whose two fields are single words (pronouns, modals)."""
        out = []
        for i, entry in enumerate(self.sequence(value, (section,))):
            where = (section, i)
            entry = self.mapping(entry, where)
            self.keys(entry, where, set(fields))
            out.append(cls(*(self.text(entry.get(f), where + (f,), WORD) for f in fields)))
        return tuple(out)

    def scales(self, value: Any) -> dict[str, Scale]:
        """The scales; each end's adjectives must be on the scale's gold order, used once."""
        out: dict[str, Scale] = {}
        for name, entry in self.mapping(value, ("scales",)).items():
            where = ("scales", name)
            entry = self.mapping(entry, where)
            self.keys(entry, where, {"source", "ends", "gold"})
            gold = self.words(entry["gold"], where + ("gold",)) if "gold" in entry else ()
            ends_in = self.mapping(entry.get("ends"), where + ("ends",))
            if len(ends_in) != 2:
                self.fail(where + ("ends",), f"a scale needs exactly two ends, found {len(ends_in)}")
            ends = {str(end): self.words(adjs, where + ("ends", end))
                    for end, adjs in ends_in.items()}
            seen: set[str] = set()
            for end, adjs in ends.items():
                for i, adj in enumerate(adjs):
                    if gold and adj and adj not in gold:
                        self.fail(where + ("ends", end, i),
                                  f"adjective {adj!r} is not on its scale {name} "
                                  f"(gold: {' '.join(gold)})")
                    if adj in seen:
                        self.fail(where + ("ends", end, i), f"adjective {adj!r} is listed twice")
                    seen.add(adj)
            out[str(name)] = Scale(str(name), self.text(entry.get("source"), where + ("source",)),
                                   gold, ends)
        if not out:
            self.fail(("scales",), "no scales")
        return out

    def frames(self, value: Any, scales: dict[str, Scale]) -> tuple[Frame, ...]:
        """The frames; each names a known scale and end, and a gerund that fits its verb."""
        out: list[Frame] = []
        for i, entry in enumerate(self.sequence(value, ("frames",))):
            entry = self.mapping(entry, ("frames", i))
            label = f"{entry.get('verb', '?')} {entry.get('noun', '?')}"
            where: Where = ("frames", i)
            self.keys(entry, where, {"verb", "gerund", "noun", "scale", "harder", "adjectives"})
            verb = self.text(entry.get("verb"), where + ("verb",), WORD)
            noun = self.text(entry.get("noun"), where + ("noun",), WORD)
            gerund = self.text(entry.get("gerund"), where + ("gerund",), WORD)
            if verb and gerund and not _gerund_fits(verb, gerund):
                self.fail(where + ("gerund",), f"gerund {gerund!r} does not fit verb {verb!r} "
                          "(expected the -ing form of its first word, then the same particle)")
            scale_name = self.text(entry.get("scale"), where + ("scale",))
            scale = scales.get(scale_name)
            if scale_name and scale is None:
                self.fail(where + ("scale",), f"{label}: unknown scale {scale_name!r} "
                          f"(known: {', '.join(scales)})")
            harder = self.text(entry.get("harder"), where + ("harder",))
            if scale is not None and harder and harder not in scale.ends:
                self.fail(where + ("harder",), f"{label}: harder must be one end of "
                          f"{scale_name} ({' or '.join(scale.ends)}), found {harder!r}")
            adjectives = self.narrowed(entry.get("adjectives"), where + ("adjectives",), scale)
            frame = Frame(verb, gerund, noun, scale_name, harder, adjectives)
            if any(f.name == frame.name for f in out):
                self.fail(where, f"frame {frame.name} is listed twice")
            out.append(frame)
        return tuple(out)

    def narrowed(self, value: Any, where: Where, scale: Scale | None,
                 *, allow_repeats: bool = False) -> dict[str, tuple[str, ...]]:
        """Adjective lists per end that must all be on that end of the scale."""
        if value is None:
            return {}
        out: dict[str, tuple[str, ...]] = {}
        for end, adjs in self.mapping(value, where).items():
            words = self.words(adjs, where + (end,))
            if scale is None:
                continue
            if end not in scale.ends:
                self.fail(where + (end,), f"{end!r} is not an end of scale {scale.name} "
                          f"({' or '.join(scale.ends)})")
                continue
            for i, adj in enumerate(words):
                if adj not in scale.ends[end]:
                    self.fail(where + (end, i), f"adjective {adj!r} is not on the {end!r} end "
                              f"of scale {scale.name} ({' '.join(scale.ends[end])})")
            if not allow_repeats and len(set(words)) != len(words):
                self.fail(where + (end,), "an adjective is listed twice")
            out[str(end)] = words
        return out

    def paper(self, value: Any, lexicon: Lexicon) -> PaperQuirks:
        """The paper-compatible section: the published inventory (each name must be in the
        lexicon), respellings, end lists with repeats, affinity words."""
        where: Where = ("paper_compatible",)
        if value is None:
            return PaperQuirks()
        data = self.mapping(value, where)
        self.keys(data, where, {"constructions", "pronouns", "modals", "frames", "spellings", "ends",
                                "affinity_words"})
        known = {"constructions": list(lexicon.constructions),
                 "pronouns": [p.subject for p in lexicon.pronouns],
                 "modals": [m.negative for m in lexicon.modals],
                 "frames": [f.name for f in lexicon.frames]}
        inventory: dict[str, tuple[str, ...]] = {}
        for key, names in known.items():
            listed = [str(n) for n in self.sequence(data.get(key), where + (key,))]
            for i, name in enumerate(listed):
                if name not in names:
                    self.fail(where + (key, i), f"{name!r} is not among the lexicon's {key} "
                              f"({', '.join(names)})")
            inventory[key] = tuple(listed)
        used = {a for s in lexicon.scales.values() for adjs in s.ends.values() for a in adjs}
        spellings = {}
        for word, spelled in self.mapping(data.get("spellings", {}), where + ("spellings",)).items():
            if word not in used:
                self.fail(where + ("spellings", word), f"{word!r} is not an adjective of any scale")
            spellings[str(word)] = self.text(spelled, where + ("spellings", word), WORD)
        ends = {}
        for scale_name, lists in self.mapping(data.get("ends", {}), where + ("ends",)).items():
            if scale_name not in lexicon.scales:
                self.fail(where + ("ends", scale_name), f"unknown scale {scale_name!r}")
            ends[str(scale_name)] = self.narrowed(lists, where + ("ends", scale_name),
                                                  lexicon.scales.get(scale_name), allow_repeats=True)
        affinity = {}
        for name, words in self.mapping(data.get("affinity_words", {}),
                                        where + ("affinity_words",)).items():
            spot = where + ("affinity_words", name)
            chosen = self.words(words, spot)
            if name not in lexicon.constructions:
                self.fail(spot, f"unknown construction {name!r}")
            elif not set(chosen) <= set(lexicon.constructions[name].split()):
                self.fail(spot, f"words must be among {lexicon.constructions[name]!r}")
            affinity[str(name)] = chosen
        return PaperQuirks(**inventory, spellings=spellings, ends=ends, affinity_words=affinity)


def _gerund_fits(verb: str, gerund: str) -> bool:
    """Whether the gerund is an -ing form of the verb's first word followed by its particles."""
    v, g = verb.split(), gerund.split()
    return len(v) == len(g) and v[1:] == g[1:] and g[0].endswith("ing") and g[0][:2] == v[0][:2]
