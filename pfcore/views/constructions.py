"""The Run page's trial of a construction of the visitor's own: its definition read from the text they
typed or uploaded, the items it generates, and its first blocks scored beside the paper's four on the
same blocks, for one chart with n and 95% intervals. The definition lives in the visitor's session;
the scored trial is saved as a run, as any run of the page is (docs/constructions.md, In the app)."""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from pfcore.deployment import deployment
from pfcore.errors import InputError
from pfcore.files import file_slug
from pfcore.items import default_items, generate_semantic, load_lexicon
from pfcore.items.constructions import DEFINITION_FILE, Definition, constructions, read_definition
from pfcore.items.definition_checks import definition_problems
from pfcore.items.schema import MASK, SemanticItem
from pfcore.models.spec import ModelSpec
from pfcore.names import SuiteName, construction_title
from pfcore.progress import ProgressView
from pfcore.runs.run_control import private_runs
from pfcore.runs.runner import GivenItems, run_suite
from pfcore.scoring.factory import ScorerSource
from pfcore.store.runs import RunRecord
from pfcore.suites.base import RunConfig
from pfcore.suites.semantic import limit_blocks

SHOWN_FILTERS = ("all", "aligned", "misaligned")
PREVIEW_COLUMNS = ("connective", "context_order", "followup_order", "context")


@dataclass(frozen=True)
class Trial:
    """A definition's trial: what it is, its first block's rows, and (once scored) the summary of it
    and the four on the same blocks, each construction labelled with its origin and n."""

    definition: Definition
    preview: pd.DataFrame
    summary: pd.DataFrame | None = None


TYPED = "the definition you wrote"  # how a message names typed text (no file the visitor knows of)


def definition_from_text(file_name: str | None, data: bytes) -> Definition:
    """A definition from the bytes a visitor uploaded (`file_name`) or typed (None), read as a file
    would be (the same checks, one line per problem, naming the visitor's file or TYPED); a name of
    the four is refused."""
    deployment().check_upload(len(data))
    if len(data) > DEFINITION_FILE.cap:
        raise InputError(f"the definition has {len(data):,} bytes; a definition may have {DEFINITION_FILE.cap:,}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{file_slug(Path(file_name or '').stem) or 'definition'}.yaml"
        path.write_bytes(data)
        try:  # the definition, and its problems now and later (unknown frames), name the visitor's file alone
            definition = replace(read_definition(path), path=Path(path.name if file_name else TYPED))
            problems = definition_problems(definition, constructions().values(), load_lexicon())  # as `check` does
            if problems:
                raise InputError("; ".join(problems))
        except InputError as exc:  # name the visitor's file (or their text), not the server's temporary folder
            message = str(exc).replace(str(Path(folder)) + "/", "")
            raise InputError(message if file_name else message.replace(path.name, TYPED)) from None
    known = constructions()
    if definition.name in known and known[definition.name].built_in:
        raise InputError(f"{definition.path}: name: the name is one of the paper's four; choose another name")
    return definition


def trial_of(definition: Definition) -> Trial:
    """The definition with its first block of semantic items (8 rows: the construction and its control,
    each context order and follow-up order)."""
    items = generate_semantic(load_lexicon(), [definition])
    if not items:
        raise InputError(f"{definition.name} generates no semantic items (check its frames and tests)")
    first = [i for i in items if i.block_id == items[0].block_id]
    return Trial(definition, pd.DataFrame([_preview_row(i) for i in first]))


def _preview_row(item: SemanticItem) -> dict[str, str]:
    """One item as the preview shows it: its follow-up as the model reads it, once with each fill
    (not the template with its blank)."""
    row = {c: str(getattr(item, c)) for c in PREVIEW_COLUMNS}
    return row | {f"follow-up with '{fill}'": item.followup.replace(MASK, fill) for fill in item.fills}


def run_trial(trial: Trial, spec: ModelSpec, blocks: int, scorers: ScorerSource,
              progress: ProgressView | None = None, own_runs: Path | None = None) -> tuple[RunRecord, Trial]:
    """The trial's first `blocks` blocks and the four's first `blocks` run as one semantic run (the
    runner's path: score cache, record, results table) and the trial summarised from its record; a
    public visitor's run goes to their own folder (`own_runs`), its rows kept out of the shared table."""
    deployment().check_blocks(blocks)
    own = limit_blocks(generate_semantic(load_lexicon(), [trial.definition]), blocks)
    four = limit_blocks([i for i in default_items(SuiteName.SEMANTIC) if isinstance(i, SemanticItem)], blocks)
    d = trial.definition
    config = RunConfig(suite=SuiteName.SEMANTIC, constructions=(*dict.fromkeys(i.construction for i in four), d.name),
                       limit_blocks=blocks)
    config = private_runs([config], own_runs)[0] if own_runs else config
    source = (f"shipped defaults (data/items); {d.name} generated in the app from {d.path.name} "
              f"(sha256 {d.sha256}); the first {blocks} blocks of each")
    record = run_suite(spec, config, progress, scorers=scorers, given=GivenItems([*four, *own], source))
    return record, replace(trial, summary=trial_summary(trial, record.summary))


def trial_summary(trial: Trial, summary: pd.DataFrame) -> pd.DataFrame:
    """A run's summary as the trial shows it: the shown filters, each construction's origin, and a bar
    label naming the construction with its n."""
    shown = summary[summary["filter"].isin(SHOWN_FILTERS)].copy()
    shown["origin"] = ["user-defined" if c == trial.definition.name else "the paper's" for c in shown["construction"]]
    decisions = shown[shown["filter"] == "all"].set_index("construction")["n"]  # one label for every filter's bar
    own_title = f"{trial.definition.connective.capitalize()} (yours)"
    shown["label"] = [f"{own_title if o == 'user-defined' else construction_title(c)}, n = {decisions[c]:g}"
                      for c, o in zip(shown["construction"], shown["origin"])]
    return shown.reset_index(drop=True)
