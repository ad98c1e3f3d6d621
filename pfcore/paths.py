"""Where pfcore keeps what it makes at run time (converted models, score cache, run records)."""
from __future__ import annotations

import fcntl
import json
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pfcore.errors import InputError, environment_problem

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "data"


def cache_root() -> Path:
    """The cache folder: $PFCORE_CACHE if set, else cache/ at the repository root; created on use
    (InputError when it cannot be, e.g. PFCORE_CACHE names a file)."""
    root = Path(os.environ.get("PFCORE_CACHE") or REPO_ROOT / "cache")
    return make_folder(root, "the cache folder (PFCORE_CACHE)")


def cache_subdir(name: str) -> Path:
    """A named folder under the cache root (models, runs, results...), created on use."""
    return make_folder(cache_root() / name, f"the cache's {name} folder")


def models_dir() -> Path:
    """Where converted models live: $PFCORE_MODELS if set, else the cache's models folder (a
    sweep's jobs each have a cache of their own but share the main cache's converted models)."""
    folder = os.environ.get("PFCORE_MODELS")
    return make_folder(Path(folder), "the models folder (PFCORE_MODELS)") if folder else cache_subdir("models")


def make_folder(path: Path, what: str) -> Path:
    """A folder, created with its parents when missing; InputError saying why it cannot be (a
    file in the way, or the machine's refusal: see `errors.environment_problem`)."""
    try:
        if path.exists() and not path.is_dir():
            raise InputError(f"cannot use {path} as {what}: it is a file, not a folder")
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise environment_problem(exc, path, what, "create") or InputError(
            f"cannot use {path} as {what}: {exc.strerror or exc}") from exc
    if not path.is_dir():
        raise InputError(f"cannot use {path} as {what}: it is a file, not a folder")
    return path


SLUG_CHARS = 48  # of a text kept readable in a file name made for it


def file_slug(text: str, chars: int = SLUG_CHARS) -> str:
    """The readable part of a file name made for any text: its runs of other characters than letters,
    digits, '.', '_' and '-' become '-', and only the last `chars` are kept (a digest of the text after
    it keeps distinct texts apart)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text)[-chars:].strip("-.") or "_"


TMP_NAME_CHARS = 64  # of the target's name in its temporary file's name (which must stay under NAME_MAX)


@contextmanager
def atomic_path(path: Path, what: str = "a file") -> Iterator[Path]:
    """A temporary file beside `path` for the block to write; when the block ends it is synced to
    disk and renamed over `path` in one step, so a reader sees the old file or the whole new one,
    never a part. On any failure it is removed and `path` is left as it was; a refusal of the
    machine (full disk, read-only) becomes an EnvironmentProblem naming `path`."""
    path = Path(path)
    make_folder(path.parent, f"the folder of {what}")
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:TMP_NAME_CHARS]}.", suffix=".tmp")
    except OSError as exc:
        raise environment_problem(exc, path, what) or InputError(f"cannot write {what} {path}: "
                                                                 f"{exc.strerror or exc}") from exc
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        _sync(tmp)
        os.chmod(tmp, 0o666 & ~UMASK)
        os.replace(tmp, path)
        _sync_folder(path.parent)
    except OSError as exc:
        raise environment_problem(exc, path, what) or InputError(f"cannot write {what} {path}: "
                                                                 f"{exc.strerror or exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)


def write_atomic(path: Path, data: bytes | str, what: str = "a file") -> Path:
    """Write bytes (or UTF-8 text) to `path` through `atomic_path`: all of it or nothing."""
    with atomic_path(path, what) as tmp:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


@contextmanager
def locked(path: Path, *, wait: bool = True, busy: str = "") -> Iterator[None]:
    """Hold an exclusive lock (an flock on the file `path`, created when missing) for the block, so
    one process at a time reads, changes and writes what it guards; the lock goes with its process.
    With wait=False a lock held elsewhere raises InputError(`busy`) at once instead of waiting."""
    path = Path(path)
    make_folder(path.parent, "the folder of a lock file")
    try:
        handle = open(path, "a")  # noqa: SIM115 - closed below, after the lock is released
    except OSError as exc:
        raise environment_problem(exc, path, "a lock file", "open") or InputError(
            f"cannot open the lock file {path}: {exc.strerror or exc}") from exc
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise InputError(busy or f"{path} is locked by another process; try again when it ends") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _sync(path: Path) -> None:
    """Flush a written file's data to the disk (so a rename cannot publish a file still in memory)."""
    with path.open("rb+") as handle:
        os.fsync(handle.fileno())


def _sync_folder(folder: Path) -> None:
    """Flush a folder's entries (the rename) to the disk, where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    """The process umask (read by setting and restoring it, once, at import), so that written files
    get ordinary permissions rather than mkstemp's private ones."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


UMASK = _umask()


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """A small file's bytes; InputError when it cannot be read or is over `limit` bytes (refused
    unread, so that a wrong path such as a device file cannot stall the program)."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(limit + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from exc
    if len(raw) > limit:
        raise InputError(f"{path}: the {what} is larger than {limit / 2**20:g} MiB; is this the right file?")
    return raw


def published_results_dir() -> str:
    """The folder of the paper's published per-checkpoint summaries the app offers to import:
    $PFCORE_PUBLISHED_RESULTS, or "" (the user types or fetches it)."""
    return os.environ.get("PFCORE_PUBLISHED_RESULTS", "")


class JsonMemo:
    """A small JSON object kept in the cache folder to remember work between processes (weight
    hashes, scorer checks); unreadable means empty, and a failed write only costs redoing it."""

    def __init__(self, name: str) -> None:
        self.path = cache_root() / name

    def read(self) -> dict[str, Any]:
        """The remembered object ({} when missing or unreadable)."""
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def write(self, data: dict[str, Any]) -> None:
        """Store the object atomically (`write_atomic`); a failed write is let go (it only costs redoing)."""
        try:
            write_atomic(self.path, json.dumps(data), "a memo")
        except InputError:
            return
