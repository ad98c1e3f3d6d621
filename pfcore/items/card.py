"""Dataset cards: counts per construction, scale and frame, and every difference from the published
set (markdown for people, JSON for programs)."""
from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pfcore.files import write_atomic
from pfcore.items.constructions import Definition
from pfcore.items.formats import PAPER_MANIPULATIONS, parse_item_file, render_items
from pfcore.items.generate import GENERATORS
from pfcore.items.lexicon import Lexicon
from pfcore.items.schema import MANIPULATIONS, SYNTAX_CONTROL, Item, SemanticItem, SyntaxItem
from pfcore.names import SuiteName

# Fields left out of "changed": ids follow the content, spans follow the sentence and words.
DERIVED_FIELDS = {"item_id", "block_id", "base_id", "spans"}
COUNTED = {SuiteName.SEMANTIC: ["construction", "scale", "frame", "pronoun", "modal"],
           SuiteName.SYNTAX: ["construction", "manipulation", "scale", "frame", "pronoun", "modal"],
           SuiteName.AFFINITY: ["construction", "scale", "frame", "pronoun", "modal"]}
TEXT_FIELDS = {SuiteName.SEMANTIC: ("context", "followup"), SuiteName.SYNTAX: ("sentence",),
               SuiteName.AFFINITY: ("sentence",)}
ARCHIVE = Path("archive") / "syntactic_test_fix.tsv"
SUFFIXES = (".jsonl.gz", ".csv.gz", ".tsv.gz", ".jsonl", ".csv", ".tsv")
TITLES = {SuiteName.SEMANTIC: "Paired-Focus semantic items", SuiteName.SYNTAX: "Paired-Focus syntactic items",
          SuiteName.AFFINITY: "Paired-Focus Global Affinity items"}
ARCHIVE_WHY = (
    "The archived file is the output of the authors' repair step (`make_templates.py --fix`): "
    "their first pass removed the negation only from \"couldn't\"/\"can't\" (NPI) and dropped the "
    "repeated subject only after \"couldn't\" (VP Conjunction), so the NPI rows with \"weren't "
    "able to\" kept their negation and the VP Conjunction rows with \"can't\"/\"weren't able to\" "
    "were clause conjunctions. The archive holds just those re-made rows (NPI and VP Conjunction "
    "for \"can't\" and \"weren't able to\"); the authors' final set splices them into the first "
    "pass and is not published here. This generator builds every row from the lexicon, so every "
    "modal is right the first time; in paper-compatible mode each archived row equals the row at "
    "its `old_index` (tests/test_items_syntax.py).")


def card_paths(out: str | Path) -> tuple[Path, Path]:
    """Where the card of an item file goes: beside it, as NAME.card.md and NAME.card.json."""
    out = Path(out)
    name = next((out.name[:-len(suffix)] for suffix in SUFFIXES if out.name.endswith(suffix)), out.name)
    return out.with_name(f"{name}.card.md"), out.with_name(f"{name}.card.json")


def build_card(items: Sequence[Item], lexicon: Lexicon, definitions: Sequence[Definition],
               command: str, reference: Path | None = None) -> tuple[str, dict[str, Any]]:
    """The card (markdown, JSON data) for default-mode items, naming each construction's definition
    file and its sha256, compared with the paper-compatible set the same lexicon generates and, when
    `reference` holds the published files, with those."""
    suite = items[0].SUITE
    published = [d.name for d in definitions if d.name in lexicon.paper.constructions]
    paper = GENERATORS[suite](lexicon, published, paper_compatible=True) if published else []
    data: dict[str, Any] = {
        "kind": suite, "command": command,  # "kind": the cards' key for the suite
        "lexicon": {"path": Path(lexicon.path).name, "version": lexicon.version,
                    "sha256": lexicon.sha256},
        "constructions": [d.record() for d in definitions],
        "items": len(items),
        "counts": {name: dict(Counter(getattr(i, name) for i in items)) for name in COUNTED[suite]},
        "differences_from_published": (differences(paper, items, lexicon)
                                       if lexicon.paper.frames else None),
    }
    if suite == SuiteName.SEMANTIC:
        data["blocks"] = dict(Counter(i.construction for i in items if isinstance(i, SemanticItem)
                                      and i.is_construction and i.context_order == "aligned"
                                      and i.followup_order == "same"))
    if reference is not None and paper:
        data["reference_check"] = reference_check(suite, paper, lexicon, reference, items)
    return render_markdown(data, items), data


def write_card(out: str | Path, markdown: str, data: dict[str, Any]) -> tuple[Path, Path]:
    """Write the card files beside the item file; returns their paths."""
    md_path, json_path = card_paths(out)
    write_atomic(md_path, markdown, "the dataset card")
    write_atomic(json_path, json.dumps(data, indent=1, ensure_ascii=False) + "\n", "the dataset card")
    return md_path, json_path


def _canon(lexicon: Lexicon) -> Any:
    """A function mapping the published spellings in a text back to the lexicon's."""
    back = {v: k for k, v in lexicon.paper.spellings.items()}
    return lambda text: re.sub(r"[A-Za-z']+", lambda m: back.get(m[0], m[0]), text)


def _match_key(item: Item, canon: Any) -> tuple[Any, ...]:
    """What makes two items "the same item", whatever the spelling."""
    texts = tuple(canon(getattr(item, f)) for f in TEXT_FIELDS[item.SUITE])
    extra = (item.manipulation,) if isinstance(item, SyntaxItem) else ()
    return (item.construction, *extra, *texts, item.repeat)


def _block_key(item: Item, canon: Any) -> dict[str, Any]:
    """The block (semantic, affinity) or base (syntax) an item belongs to."""
    key: dict[str, Any] = {} if isinstance(item, SyntaxItem) else {"construction": item.construction}
    return key | {"frame": item.frame, "weak_adj": canon(item.weak_adj), "strong_adj": canon(item.strong_adj),
                  "pronoun": item.pronoun, "modal": item.modal, "repeat": item.repeat}


def _grouped(items: Sequence[Item], canon: Any) -> list[dict[str, Any]]:
    """Items summarised by block: the block's fields and how many items it has."""
    counts: Counter[str] = Counter(json.dumps(_block_key(i, canon)) for i in items)
    return [{**json.loads(k), "items": n} for k, n in counts.items()]


def _changes(old: Item, new: Item) -> list[tuple[str, str, str]]:
    """(field, published, now) for each field that differs; texts reduced to the differing words."""
    out = []
    for name, before in vars(old).items():
        after = getattr(new, name)
        if name in DERIVED_FIELDS or before == after:
            continue
        if isinstance(before, str) and len(before.split()) == len(after.split()):
            out += [(name, a, b) for a, b in zip(before.split(), after.split()) if a != b]
        else:
            out.append((name, str(before), str(after)))
    return out


def differences(published: Sequence[Item], ours: Sequence[Item], lexicon: Lexicon) -> dict[str, Any]:
    """Every difference between two item sets: items dropped, added, and changed (by field)."""
    canon = _canon(lexicon)
    theirs = {_match_key(i, canon): i for i in published}
    mine = {_match_key(i, canon): i for i in ours}
    changes: Counter[tuple[str, str, str]] = Counter()
    for key, item in theirs.items():
        if key in mine:
            changes.update(_changes(item, mine[key]))
    return {
        "published_items": len(published), "items": len(ours),
        "dropped": _grouped([i for k, i in theirs.items() if k not in mine], canon),
        "added": _grouped([i for k, i in mine.items() if k not in theirs], canon),
        "changed": [{"field": f, "published": a, "now": b, "items": n}
                    for (f, a, b), n in sorted(changes.items())],
    }


def reference_check(suite: SuiteName, paper: Sequence[Item], lexicon: Lexicon, reference: Path,
                    ours: Sequence[Item]) -> dict[str, Any]:
    """Paper-compatible output against the published files found under `reference`."""
    out: dict[str, Any] = {"reference": str(reference)}
    if suite == SuiteName.SEMANTIC:
        for name in sorted({i.construction for i in paper}):
            published = reference / f"{name}.tsv"
            if published.is_file():
                mine = render_items([i for i in paper if i.construction == name], "paper-tsv")
                theirs = published.read_text(encoding="utf-8").replace("\r\n", "\n")
                out[published.name] = "identical" if mine == theirs else "DIFFERENT"
    elif suite == SuiteName.SYNTAX and (reference / ARCHIVE).is_file():
        archived, problems = parse_item_file(reference / ARCHIVE, lexicon)
        out["archive"] = {"file": str(ARCHIVE), "rows": len(archived.items),
                          "unreadable_rows": len(problems),
                          **differences(archived.items, ours, lexicon)}
        del out["archive"]["added"]
        canon = _canon(lexicon)
        archived_keys = {_match_key(i, canon) for i in archived.items}
        out["archive"]["not_in_archive"] = dict(Counter(  # our rows with no counterpart in the archive
            f"{i.manipulation} / {i.modal}" for i in ours
            if isinstance(i, SyntaxItem) and _match_key(i, canon) not in archived_keys))
    return out


# ---------------------------------------------------------------- markdown

def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(f"{v:,}" if isinstance(v, int) else str(v) for v in row) + " |"
              for row in rows]
    return "\n".join(lines)


def _counts_section(data: dict[str, Any]) -> list[str]:
    """Tables of item counts per counted field."""
    return [line for name, counts in data["counts"].items()
            for line in (f"### Items per {name}", "", _table([name, "items"], list(counts.items())), "")]


def _examples(items: Sequence[Item]) -> list[str]:
    """A worked example of the suite's items: one block, one base's manipulations, or one affinity item."""
    first = items[0]
    if isinstance(first, SemanticItem):
        block = [i for i in items if isinstance(i, SemanticItem) and i.block_id == first.block_id]
        return ["One block (8 rows; each row is scored with the blank = " +
                " / ".join(first.fills) + "):", "",
                _table(["connective", "context order", "follow-up order", "sentence"],
                       [(i.connective, i.context_order, i.followup_order, i.sentence)
                        for i in block]), ""]
    if isinstance(first, SyntaxItem):
        base = [i for i in items if isinstance(i, SyntaxItem) and i.base_id == first.base_id]
        rows = [(m, *(i.sentence for i in base if i.manipulation == m
                      and i.construction in (first.construction, SYNTAX_CONTROL))) for m in MANIPULATIONS]
        return ["One example of each manipulation (one base sentence, its construction and the "
                "control \"and\"):", "",
                _table(["manipulation", f"+Cxn ({first.connective})", f"-Cxn ({SYNTAX_CONTROL})"],
                       rows), ""]
    marked = first.sentence
    for start, end in reversed(first.spans):
        marked = f"{marked[:start]}**{marked[start:end]}**{marked[end:]}"
    return [f"Example: {marked} (fixed words {list(first.words)}, spans {list(first.spans)})", ""]


def _differences_section(diff: dict[str, Any], label: str, unit: str) -> list[str]:
    """Markdown for a `differences` result (without "added" when the result has none listed)."""
    parts = [f"{label}: {diff['published_items']:,} items there, {diff['items']:,} here.", ""]
    sections = [("Dropped (there, not here)", diff["dropped"])]
    if "added" in diff:
        sections.append(("Added (here, not there)", diff["added"]))
    for title, groups in sections:
        if not groups:
            parts += [f"- {title}: none.", ""]
            continue
        summary: dict[tuple[Any, ...], list[int]] = defaultdict(lambda: [0, 0])
        for g in groups:
            counts = summary[(g["frame"], g["weak_adj"], g["strong_adj"], g["repeat"])]
            counts[0] += 1
            counts[1] += g["items"]
        parts += [f"- {title}: {sum(g['items'] for g in groups):,} items in {len(groups):,} "
                  f"{unit} (each is listed in the JSON card):", "",
                  _table(["frame", "weak", "strong", "repeat", unit, "items"],
                         [(*k, *n) for k, n in summary.items()]), ""]
    if diff["changed"]:
        parts += ["- Changed (same item, different words):", "",
                  _table(["field", "published", "now", "items"],
                         [(c["field"], c["published"], c["now"], c["items"])
                          for c in diff["changed"]]), ""]
    else:
        parts += ["- Changed: none.", ""]
    return parts


def render_markdown(data: dict[str, Any], items: Sequence[Item]) -> str:
    """The human-readable card."""
    suite = SuiteName(data["kind"])
    lexicon = data["lexicon"]
    unit = "base sentences" if suite == SuiteName.SYNTAX else "blocks"
    parts = [f"# {TITLES[suite]}: dataset card", "",
             f"Generated by `{data['command']}` from `{lexicon['path']}` version "
             f"{lexicon['version']} (sha256 {lexicon['sha256'][:12]}). Do not edit: regenerate.",
             "", "Constructions, each from its definition: " + ", ".join(
                 f"{c['name']} (`{c['file']}`, {c['origin']}, sha256 {c['sha256'][:12]})"
                 for c in data["constructions"]) + ".", "", f"Items: {data['items']:,}."]
    if "blocks" in data:
        parts[-1] += " Blocks of 8 per construction: " + ", ".join(
            f"{k} {v:,}" for k, v in data["blocks"].items()) + "."
    parts += ["", *_examples(items), "## Counts", "", *_counts_section(data),
              "## Differences from the published set", ""]
    if data["differences_from_published"] is None:
        parts += ["This lexicon has no `paper_compatible` section: no published set to compare.", ""]
    else:
        parts += ["The published set is what `--paper-compatible` generates from the same lexicon "
                  "(its `paper_compatible` section records the published inventory, misspelling "
                  "and repeated adjectives).", "",
                  *_differences_section(data["differences_from_published"], "Published set", unit)]
    check = data.get("reference_check", {})
    published = {k: v for k, v in check.items() if k.endswith(".tsv")}
    if published:
        parts += ["Checked against the published files in `" + check["reference"] + "`: " +
                  ", ".join(f"{k} {v}" for k, v in published.items()) +
                  " (paper-compatible output, row for row).", ""]
    if "archive" in check:
        archive = check["archive"]
        parts += ["## Compared with the archived syntactic set", "",
                  f"`{archive['file']}`: {archive['rows']:,} rows "
                  f"({archive['unreadable_rows']} unreadable).", "",
                  *_differences_section(archive, "Archive", unit),
                  "Rows here with no counterpart in the archive (manipulation / modal):", "",
                  _table(["manipulation / modal", "items"],
                         list(archive["not_in_archive"].items())), "",
                  f"Why: {ARCHIVE_WHY}", ""]
    if suite == SuiteName.SYNTAX:
        labels = ", ".join(f"`{paper}` = {ours}" for paper, ours in PAPER_MANIPULATIONS.items()
                           if paper != ours)
        parts += [f"Paper TSVs keep the authors' manipulation labels: {labels}.", ""]
    return "\n".join(parts).rstrip() + "\n"
