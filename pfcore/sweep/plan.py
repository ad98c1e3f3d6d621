"""A sweep plan (YAML): the models (hub id, local folder, .gguf file, or a folder of checkpoints)
with their revisions, the suites with their settings, and what each job asks Ray for. Read with
the strict YAML reader and validated; every problem names the plan file, its line, the field and
the model, and all of them are reported at once."""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pfcore.errors import InputError, type_name
from pfcore.files import MIB, FileKind, read_bounded, too_large, upload_name, write_atomic
from pfcore.items.constructions import constructions
from pfcore.items.safe_yaml import compose
from pfcore.items.yaml_check import Where, YamlChecker
from pfcore.models.spec import DEFAULT_MODEL, DTYPES, ModelSpec
from pfcore.names import ModelKind, SuiteName
from pfcore.paths import cache_subdir
from pfcore.runs.checkpoints import Checkpoint, checkpoints
from pfcore.scoring.kinds import all_methods, named_kinds
from pfcore.scoring.requests import Reduction
from pfcore.store.cache import CHUNK
from pfcore.suites.base import RunConfig
from pfcore.suites.registry import SUITES, get_suite

PLAN_FILE = FileKind("sweep plan", MIB)  # a plan of the paper's whole study is about 2 kB

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
PLAN_KEYS = {"name", "suites", "models", "resources", "retries"}
MODEL_KEYS = {"model", "checkpoint-dir", "name", "kind", "dtype", "revisions", "trust-remote-code",
              "resources"}
SUITE_KEYS = {"constructions", "items", "limit-blocks", "scoring", "reduction", "bos", "chunk"}
RESOURCE_KEYS = {"cpus", "gpus"}
RETRIES = 3  # times Ray reruns a job whose worker process died


@dataclass(frozen=True)
class Resources:
    """What one job asks Ray for: CPUs (also its torch threads) and GPUs (a GPU job runs on cuda)."""

    cpus: float = 1.0
    gpus: float = 0.0

    @property
    def threads(self) -> int:
        """Torch threads for a job given these CPUs (at least one)."""
        return max(1, int(self.cpus))


@dataclass(frozen=True)
class ModelEntry:
    """One model of the plan: its name in the results table, its checkpoints, its resources."""

    name: str
    points: tuple[Checkpoint, ...]
    resources: Resources


@dataclass(frozen=True)
class SweepPlan:
    """A validated plan: each model's checkpoints, each suite's run settings, retries per job."""

    path: Path
    name: str
    suites: tuple[RunConfig, ...]
    models: tuple[ModelEntry, ...]
    retries: int = RETRIES


class _PlanChecker(YamlChecker):
    """The YAML checker (lines, duplicate and non-text keys, bad scalars) with the plan's
    value types added, and each model's problems naming the model."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.models: dict[int, str] = {}  # index in `models` -> the model as the plan names it

    def fail(self, where: Where, problem: str, line: int | None = None) -> None:
        """Record a problem; one inside a model entry starts with that model's name."""
        if len(where) > 1 and where[0] == "models" and where[1] in self.models:
            problem = f"({self.models[int(where[1])]}) {problem}"
        super().fail(where, problem, line)

    def whole(self, value: Any, where: Where, minimum: int) -> int | None:
        """A whole number of at least `minimum`; None when absent (or wrong, with a problem)."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            found = "a smaller one" if isinstance(value, int) and not isinstance(value, bool) else type_name(value)
            self.fail(where, f"expected a whole number of at least {minimum}, found {found}")
            return None
        return value

    def amount(self, value: Any, where: Where, *, positive: bool) -> float | None:
        """A number above zero (or at least zero); None when absent (or wrong, with a problem)."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or (positive and value == 0):
            number = isinstance(value, int | float) and not isinstance(value, bool)
            found = "a smaller one" if number else type_name(value)
            self.fail(where, f"expected a number {'above' if positive else 'of at least'} 0, found {found}")
            return None
        return float(value)

    def flag(self, value: Any, where: Where) -> bool:
        """true or false (false when absent)."""
        if value is None or isinstance(value, bool):
            return bool(value)
        self.fail(where, f"expected true or false, found {type_name(value)}")
        return False

    def choice(self, value: Any, where: Where, options: Sequence[str], default: str) -> str:
        """One of the options (the default when absent)."""
        if value is None:
            return default
        if value not in options:
            self.fail(where, f"expected one of {', '.join(options)}, found another value")
            return default
        return str(value)


def load_plan(path: str | Path) -> SweepPlan:
    """Read and validate a sweep plan; InputError listing every problem with its line."""
    path = Path(path).expanduser()
    node = compose(_plan_text(path), path)
    checker = _PlanChecker(path)
    plan = _build(checker, checker.plain(node, ()) if node is not None else None, path)
    if checker.problems or plan is None:
        raise InputError(f"{path}: invalid sweep plan:\n" + "\n".join(checker.problems))
    return plan


def save_uploaded_plan(file_name: str, data: bytes) -> Path:
    """Keep a plan uploaded in the app under the cache (cache/sweeps/uploads/) and return its path."""
    safe = "".join(c if c.isalnum() or c in "-._" else "_" for c in upload_name(file_name))
    if len(data) > PLAN_FILE.cap:
        raise too_large(Path(safe), PLAN_FILE)
    return write_atomic(cache_subdir("sweeps") / "uploads" / safe, data, "the uploaded plan")


def _plan_text(path: Path) -> str:
    """The plan file as text; InputError when unreadable, too large or not UTF-8."""
    raw = read_bounded(path, PLAN_FILE)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: the plan is not UTF-8 text ({exc.reason})") from exc


def _build(checker: _PlanChecker, data: Any, path: Path) -> SweepPlan | None:
    """The plan from its YAML data (None when the top level is not a mapping)."""
    if not isinstance(data, dict) or not data:
        checker.fail((), "a sweep plan is a mapping with `suites` and `models` (see docs/sweeps.md)")
        return None
    checker.keys(data, (), PLAN_KEYS)
    name = _plan_name(checker, data.get("name"), path)
    suites = _suites(checker, data.get("suites"), path.parent)
    resources = _resources(checker, data.get("resources"), ("resources",), Resources())
    retries = checker.whole(data.get("retries"), ("retries",), 0)
    entries = [_model(checker, value, ("models", i), suites, resources, path.parent)
               for i, value in enumerate(checker.sequence(data.get("models"), ("models",)))]
    models = tuple(e for e in entries if e is not None)
    _no_repeats(checker, models)
    return SweepPlan(path, name, suites, models, RETRIES if retries is None else retries)


def _plan_name(checker: _PlanChecker, value: Any, path: Path) -> str:
    """The sweep's name (its folder under cache/sweeps/): as given, or the file's name."""
    if value is None:
        return re.sub(r"[^A-Za-z0-9._-]+", "-", path.stem).strip("-.") or "sweep"
    if not isinstance(value, str) or not NAME.match(value):
        checker.fail(("name",), f"expected a name of letters, digits, '.', '_' or '-', found {type_name(value)}"
                     + (" with other characters" if isinstance(value, str) else ""))
        return "sweep"
    return value


def _suites(checker: _PlanChecker, value: Any, base: Path) -> tuple[RunConfig, ...]:
    """The suites to run: a mapping of suite name to its settings (or a plain list of names)."""
    where: Where = ("suites",)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = dict.fromkeys(value)
    table = checker.mapping(value, where)
    if isinstance(value, dict) and not value:
        checker.fail(where, "name at least one suite")
    configs = []
    for suite, settings in table.items():
        if suite not in SUITES:
            checker.fail(where + (suite,), f"unknown suite (choose from {', '.join(SUITES)})")
            continue
        configs.append(_settings(checker, SuiteName(suite), settings, where + (suite,), base))
    return tuple(configs)


def _settings(checker: _PlanChecker, suite: SuiteName, value: Any, where: Where, base: Path) -> RunConfig:
    """One suite's run settings (absent ones as `pfcore run` has them)."""
    settings = {} if value is None else checker.mapping(value, where)
    checker.keys(settings, where, SUITE_KEYS)
    items = settings.get("items")
    chunk = checker.whole(settings.get("chunk"), where + ("chunk",), 1)
    return RunConfig(
        suite=suite, constructions=_constructions(checker, settings.get("constructions"), where),
        items_path=_local_or_as_is(checker.text(items, where + ("items",)), base) if items is not None else None,
        limit_blocks=checker.whole(settings.get("limit-blocks"), where + ("limit-blocks",), 1),
        scoring=(checker.choice(settings.get("scoring"), where + ("scoring",), [m.value for m in all_methods()], "")
                 or None),
        reduction=Reduction(checker.choice(settings.get("reduction"), where + ("reduction",), tuple(Reduction),
                                           Reduction.MEAN)),
        bos=checker.flag(settings.get("bos"), where + ("bos",)), chunk=chunk or CHUNK,
        password=os.environ.get("PFCORE_EWOK_PASSWORD") if suite == SuiteName.EWOK else None)


def _constructions(checker: _PlanChecker, value: Any, where: Where) -> tuple[str, ...]:
    """The constructions to run: `all` (or absent) for every one, else a list of names."""
    if value is None or value == "all":
        return ()
    where = where + ("constructions",)
    names = [checker.text(v, where + (i,)) for i, v in enumerate(checker.sequence(value, where))]
    for i, name in enumerate(names):
        if name and name not in constructions():
            checker.fail(where + (i,), f"unknown construction (choose from {', '.join(constructions())}; a "
                         "definition of your own: --constructions DIR)")
    return tuple(names)


def _resources(checker: _PlanChecker, value: Any, where: Where, default: Resources) -> Resources:
    """CPUs and GPUs per job (those not given as in `default`)."""
    if value is None:
        return default
    table = checker.mapping(value, where)
    checker.keys(table, where, RESOURCE_KEYS)
    cpus = checker.amount(table.get("cpus"), where + ("cpus",), positive=True)
    gpus = checker.amount(table.get("gpus"), where + ("gpus",), positive=False)
    return Resources(default.cpus if cpus is None else cpus, default.gpus if gpus is None else gpus)


def _model(checker: _PlanChecker, value: Any, where: Where, suites: Sequence[RunConfig],
           default: Resources, base: Path) -> ModelEntry | None:
    """One model entry and its checkpoints; None (with problems) when it cannot be used."""
    entry = checker.mapping(value, where)
    if not entry:
        return None
    known = [str(entry[k]) for k in ("name", "model", "checkpoint-dir") if isinstance(entry.get(k), str)]
    checker.models[int(where[1])] = known[0] if known else f"entry {int(where[1]) + 1}"
    checker.keys(entry, where, MODEL_KEYS)
    if ("model" in entry) == ("checkpoint-dir" in entry):
        checker.fail(where, "give either `model` (a hub id, local folder or .gguf file) or `checkpoint-dir`")
        return None
    field = "model" if "model" in entry else "checkpoint-dir"
    written = checker.text(entry[field], where + (field,))
    if not written:
        return None
    resources = _resources(checker, entry.get("resources"), where + ("resources",), default)
    spec = _spec(checker, entry, where, _local_or_as_is(written, base) if field == "model" else DEFAULT_MODEL,
                 resources)
    folder = _local_or_as_is(written, base) if field == "checkpoint-dir" else None
    named = Path(folder).name if folder else written  # as `trajectory` names them by default
    name = checker.text(entry["name"], where + ("name",)) if "name" in entry else named
    revisions = _revisions(checker, entry.get("revisions"), where + ("revisions",))
    if folder and revisions:
        checker.fail(where + ("revisions",), "a checkpoint-dir names its checkpoints itself; leave out `revisions`")
    for config in suites:
        try:
            get_suite(config.suite).method(spec, config.scoring)
        except InputError as exc:
            checker.fail(where + ("kind",), str(exc))
    try:
        points = checkpoints(spec, revisions, folder) if revisions or folder else [Checkpoint("main", None, spec)]
    except InputError as exc:
        checker.fail(where + (field if folder else "revisions",), str(exc))
        return None
    return ModelEntry(name, tuple(points), resources)


def _spec(checker: _PlanChecker, entry: dict[str, Any], where: Where, name: str, resources: Resources) -> ModelSpec:
    """The model to load (for a checkpoint folder: the settings its checkpoints share)."""
    return ModelSpec(name=name, dtype=checker.choice(entry.get("dtype"), where + ("dtype",), DTYPES, "float32"),
                     device="cuda" if resources.gpus else "cpu",
                     kind=checker.choice(entry.get("kind"), where + ("kind",), tuple(named_kinds()), ModelKind.CAUSAL),
                     trust_remote_code=checker.flag(entry.get("trust-remote-code"), where + ("trust-remote-code",)))


def _revisions(checker: _PlanChecker, value: Any, where: Where) -> str | None:
    """The revisions as `checkpoints` takes them: `pythia-log`, or a list joined by commas."""
    if value is None or isinstance(value, str):
        return value
    names = [checker.text(v, where + (i,)) for i, v in enumerate(checker.sequence(value, where))]
    for i, name in enumerate(names):
        if "," in name:
            checker.fail(where + (i,), "a revision name cannot hold a comma")
    return ",".join(names)


def _local_or_as_is(value: str, base: Path) -> str:
    """A value naming an existing file or folder (beside the plan, else from the current folder) as
    an absolute path, so that every worker finds it; anything else (a hub id) as written."""
    for candidate in (base / Path(value).expanduser(), Path(value).expanduser()):
        if candidate.exists():
            return str(candidate.resolve())
    return value


def _no_repeats(checker: _PlanChecker, models: Sequence[ModelEntry]) -> None:
    """A (name, revision) pair may appear once: two jobs would write the same results-table rows."""
    seen: set[tuple[str, str]] = set()
    for entry in models:
        for point in entry.points:
            key = (entry.name, point.label)
            if key in seen:
                checker.fail(("models",), f"{entry.name} at revision {point.label} appears twice; give one "
                             "of the entries another `name`")
            seen.add(key)
