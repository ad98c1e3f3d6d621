"""What a trajectory remembers between runs: which (checkpoint, suite) runs are done, each with the
settings and the weights that made its numbers, in one file per name (a safe file name, the name as
typed inside), written by one process at a time. The run records are the truth it indexes: a
missing or damaged state file is rebuilt from them (a damaged one moved aside first)."""
from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pfcore.errors import InputError
from pfcore.files import MIB, FileKind, file_slug, locked, read_bounded, write_atomic
from pfcore.paths import cache_subdir
from pfcore.runs.settings import changes, manifest_settings, weights_change
from pfcore.store.manifest import read_manifest
from pfcore.store.results import run_rows
from pfcore.store.runs import RUN_ROWS

STATE_FILE = FileKind("trajectory state", 64 * MIB)  # 19 checkpoints x 7 suites: about 100 kB

Entry = dict[str, Any]  # record, step, model, revision, dtype, device (the one used), settings, items, weights
Report = Callable[[str], None]
FORMAT = 2  # of the state file: {"name", "format", "done": {"<checkpoint>|<suite>": Entry}}
ENTRY_KEYS = {"record": str, "settings": dict, "items": str, "weights": str}


def state_path(name: str) -> Path:
    """Where a trajectory's state lives: a slug of its name and a digest of the whole name, short
    enough for any file system, so a hub id ("ORG/NAME") or a long name is one plain file."""
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return cache_subdir("trajectories") / f"{file_slug(name)}-{digest}.json"


@contextmanager
def writing(name: str) -> Iterator[None]:
    """Hold the trajectory's lock for a whole run; a second process running the same name is
    refused at once (waiting would run its checkpoints again after the first finished them)."""
    lock = state_path(name).with_suffix(".lock")
    busy = (f"trajectory {name!r} is being run by another process now (lock {lock}); wait for it to end and "
            "run the command again (it resumes from there), or give another --name")
    with locked(lock, wait=False, busy=busy):
        yield


def load_state(name: str, report: Report) -> dict[str, Entry]:
    """The done entries: from the state file, else rebuilt from the run records (a damaged file is
    moved aside with a warning first)."""
    path = state_path(name)
    if path.exists():
        try:
            return _read(path, name)
        except InputError as exc:
            aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
            path.replace(aside)
            done = rebuilt(name)
            report(f"warning: the state of trajectory {name!r} was unreadable ({exc}); moved it aside to "
                   f"{aside.name} and rebuilt it from the run records ({len(done)} finished runs)")
    else:
        done = rebuilt(name)
    if done:
        save_state(name, done)
    return done


def save_state(name: str, done: Mapping[str, Entry]) -> None:
    """Write the state whole (a temporary file of this process, then one rename)."""
    body = json.dumps({"name": name, "format": FORMAT, "done": dict(done)}, indent=1)
    write_atomic(state_path(name), body, "the trajectory's state")


def _read(path: Path, name: str) -> dict[str, Entry]:
    """The entries of a state file; InputError saying what is wrong when it is not one of `name`."""
    try:
        data = json.loads(read_bounded(path, STATE_FILE))
    except ValueError as exc:
        raise InputError(f"not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("name") != name or not isinstance(data.get("done"), dict):
        raise InputError(f"not the state of trajectory {name!r}")
    for key, entry in data["done"].items():
        if not isinstance(entry, dict) or any(not isinstance(entry.get(k), t) for k, t in ENTRY_KEYS.items()):
            raise InputError(f"entry {key!r} is malformed")
    return dict(data["done"])


def rebuilt(name: str) -> dict[str, Entry]:
    """The done entries the run records hold: every run whose results rows carry the trajectory's
    name as their model (the newest for each checkpoint and suite); damaged records are passed over."""
    done: dict[str, Entry] = {}
    for folder in sorted(cache_subdir("runs").iterdir()):  # run ids sort by time: the newest last
        if not (folder / "manifest.json").is_file() or not (folder / RUN_ROWS).is_file():
            continue
        try:
            rows = run_rows(folder / RUN_ROWS)
            if rows.empty or rows["model"].iloc[0] != name:
                continue
            manifest = read_manifest(folder / "manifest.json")
            step = rows["step"].iloc[0]
            done[f"{rows['revision'].iloc[0]}|{manifest.suite}"] = {
                "record": str(folder), "step": None if step != step else int(step), "model": manifest.model.name,
                "revision": manifest.model.revision, "settings": manifest_settings(manifest),
                "items": manifest.items.hash, "weights": manifest.model.weights_sha256}
        except (InputError, OSError, ValueError, KeyError, TypeError):
            continue
    return done


def why_again(entry: Entry, settings: Mapping[str, Any], weights: Callable[[], str],
              items: Callable[[], str]) -> str:
    """Why a done entry no longer stands for this run ('' when it does): other settings, other
    weights ('' on either side: cannot tell, so it stands), or another item set."""
    if differ := changes(entry["settings"], settings):
        return "; ".join(differ)
    if changed := weights_change(entry["weights"], weights()):
        return changed
    item_set = items()
    if entry["items"] != item_set:
        return f"the items changed (item set {entry['items']}, now {item_set})"
    return ""

