"""A model's training checkpoints, as `trajectory`, `probe --revisions` and sweeps read them: hub
revisions of one id (a list or the paper's log-spaced Pythia steps) or a folder of saved checkpoints,
each with the step it stands for; and the steps whose weights repeat an earlier step's. Light to
import: reading checkpoints loads no suite."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from pfcore.errors import InputError
from pfcore.models.identity import same_weights
from pfcore.models.loading import check_revision
from pfcore.models.spec import ModelSpec
from pfcore.store.result_rows import step_from_revision

# The log-spaced Pythia checkpoints the paper used for Pythia-12b (step1 ... step143000).
PYTHIA_LOG = tuple(f"step{2 ** k}" for k in range(10)) + tuple(
    f"step{s}" for s in (1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 143000))
CHECKPOINT_DIR = re.compile(r"(?:step|checkpoint)[-_]?(\d+)$")


@dataclass(frozen=True)
class Checkpoint:
    """One point of a trajectory: the spec to load and the training step it stands for."""

    label: str
    step: int | None
    spec: ModelSpec


def checkpoints(base: ModelSpec, revisions: str | None, checkpoint_dir: str | None) -> list[Checkpoint]:
    """Checkpoints from --revisions (a list or `pythia-log`) of a hub id, or a folder of saved
    checkpoints, sorted by step number (never by listing order)."""
    if bool(revisions) == bool(checkpoint_dir):
        raise InputError("give either --revisions or --checkpoint-dir")
    if checkpoint_dir:
        if base.revision:
            raise InputError(f"--revision {base.revision} does not apply to a checkpoint folder: its step<N> "
                             "subfolders are the checkpoints; leave --revision out")
        points = _folder_checkpoints(Path(checkpoint_dir), base)
    else:
        names = PYTHIA_LOG if revisions == "pythia-log" else [r.strip() for r in str(revisions).split(",")
                                                              if r.strip()]
        if not names:
            raise InputError("--revisions is empty")
        check_revision(base, given=names)
        points = [Checkpoint(r, _step(r), replace(base, revision=r)) for r in names]
    return sorted(points, key=lambda c: (c.step is None, c.step or 0, c.label))


def series_name(base: ModelSpec, checkpoint_dir: str | None, name: str | None = None) -> str:
    """The trajectory's model name in the results table: the given name, else the checkpoint
    folder's name, else the model's."""
    return name or (Path(checkpoint_dir).resolve().name if checkpoint_dir else base.name)


def _step(revision: str) -> int | None:
    """The training step a revision names, if any."""
    step = step_from_revision(revision)
    return None if step != step else int(step)


def _folder_checkpoints(folder: Path, base: ModelSpec) -> list[Checkpoint]:
    """Sub-folders named step<N> / checkpoint-<N> holding a saved model."""
    if not folder.is_dir():
        raise InputError(f"checkpoint folder not found: {folder}")
    found = [Checkpoint(sub.name, int(match.group(1)), replace(base, name=str(sub.resolve())))
             for sub in folder.iterdir()
             if (match := CHECKPOINT_DIR.search(sub.name)) and (sub / "config.json").is_file()]
    if not found:
        raise InputError(f"{folder} holds no checkpoint folders (named step<N> or checkpoint-<N> "
                         "with a config.json)")
    return found


@dataclass(frozen=True)
class DuplicateCheckpoint:
    """A checkpoint whose weights are the very same as an earlier step's (a published revision
    that served other weights under its name): its changes are false zeros in a correlation."""

    model: str
    step: int
    same_as: int
    weights_sha256: str

    def finding(self) -> str:
        """What was found, in words; how to leave the step out is each interface's to say."""
        return (f"{self.model}: step {self.step} has the same weights as step {self.same_as} (sha256 "
                f"{self.weights_sha256[:12]}...); its changes are false zeros in first-difference "
                "correlations")


def duplicate_checkpoints(table: pd.DataFrame, model: str) -> list[DuplicateCheckpoint]:
    """The steps of one model's trajectory whose weight hash equals an earlier step's."""
    rows = table[(table["model"] == model) & table["step"].notna() & (table["weights_sha256"] != "")]
    steps = sorted((int(step), str(digest)) for step, digest in rows.groupby("step")["weights_sha256"].first().items())
    return [DuplicateCheckpoint(model, step, first, digest) for step, first, digest in same_weights(steps)]
