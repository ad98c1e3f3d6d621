"""The precision of the own runs a table or a chart shows (read from their records): a column for
it, kept in downloads, and the notes a page shows beside it (`pfcore.models.precision`'s wording)."""
from __future__ import annotations

import pandas as pd

from pfcore.analysis.models import RUN_SOURCE_PREFIX
from pfcore.errors import InputError
from pfcore.models.precision import PAPER_DTYPE, mixed_note, precision_note
from pfcore.store.manifest import read_manifest
from pfcore.store.runs import finished_manifest

MAX_RUN_ID = 255  # longer is no run id (and no file name)
PRECISION = "precision"  # the column: an own run's dtype, '' for values from elsewhere (the paper's are float32)


def run_dtype(source: str) -> str:
    """The dtype of the runs a row's source names ("pfcore run <run id>", several joined by "; ", as
    a chart's point drawn from several runs has): their one dtype, or theirs joined by ", " when they
    differ; '' when it names no run whose record is in the cache's runs folder."""
    found = {dtype for part in source.split("; ") if (dtype := _recorded_dtype(part.strip()))}
    return ", ".join(sorted(found))


def _recorded_dtype(source: str) -> str:
    """The dtype one "pfcore run <run id>" source's record gives; '' for any other source."""
    run_id = source.removeprefix(RUN_SOURCE_PREFIX)
    try:  # the manifest alone: the run's tables are not read for this
        path = finished_manifest(run_id) if run_id != source and len(run_id) <= MAX_RUN_ID else None
        return read_manifest(path).model.dtype if path else ""
    except (InputError, OSError):
        return ""


def with_precision(table: pd.DataFrame) -> pd.DataFrame:
    """The table with a `precision` column after its values: each own run's dtype, read once per run."""
    dtypes = {source: run_dtype(source) for source in table["source"].astype(str).unique()}
    return table.assign(**{PRECISION: table["source"].astype(str).map(dtypes)})


def precision_notes(table: pd.DataFrame) -> list[str]:
    """What to say beside a table with a `precision` column (see `with_precision`): each precision
    that is not the paper's, with its measured effect, and that the table mixes precisions when it
    does (values from elsewhere count as the paper's float32)."""
    cells = table[PRECISION].astype(str) if PRECISION in table else []
    found = {d for cell in cells for d in (cell.split(", ") if cell else [PAPER_DTYPE])}
    notes = [precision_note(d) for d in sorted(found) if d != PAPER_DTYPE]
    return [*notes, mixed_note(found)] if mixed_note(found) else notes
