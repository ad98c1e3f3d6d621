"""File helpers every part of pfcore uses: folders made on use, atomic writes (a file, a folder, a set of
files), locks, and bounded reads of a user's file. Each reader names its kind of file and owns its size
cap (a `FileKind` beside the reader), so a new kind of file touches only its own module."""
from __future__ import annotations

import errno
import fcntl
import gzip
import io
import os
import re
import shutil
import stat
import tempfile
import time
import unicodedata
import zlib
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager, nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pfcore.errors import InputError, PfcoreError, environment_problem

MIB = 2**20
MAX_HOLDER = 500  # characters of a lock's holder read back for a message


@dataclass(frozen=True)
class FileKind:
    """A kind of file pfcore reads for a user: its name in messages ("item file") and the most bytes
    it may hold (after decompression), far above any real file of the kind."""

    name: str
    cap: int

    def __str__(self) -> str:
        return self.name


def make_folder(path: Path, what: str) -> Path:
    """A folder, created with its parents when missing; InputError saying why it cannot be (a
    file in the way, or the machine's refusal: see `errors.environment_problem`)."""
    try:
        if path.is_symlink() and not path.exists():
            raise InputError(f"cannot use {path} as {what}: it is a symbolic link that leads nowhere (to a missing "
                             "place, or round in a loop); remove the link or give another folder")
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
    machine (full disk, read-only; also from a library's own writer) becomes an EnvironmentProblem
    naming `path`."""
    path = Path(path)
    make_folder(path.parent, f"the folder of {what}")
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:TMP_NAME_CHARS]}.", suffix=".tmp")
    except OSError as exc:
        raise _os_refused(exc, path, what) from exc
    os.close(fd)
    tmp = Path(name)
    try:
        with _refused_as(path, what):
            yield tmp
            _sync(tmp)
            os.chmod(tmp, 0o666 & ~UMASK)
            os.replace(tmp, path)
            _sync_folder(path.parent)
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def atomic_folder(folder: Path, what: str) -> Iterator[Path]:
    """A temporary folder beside `folder` for the block to fill; when the block ends it replaces
    `folder` (removed first when there) by one rename. On any failure the temporary folder is
    removed and `folder` left as it was; a refusal of the machine becomes an EnvironmentProblem."""
    folder = Path(folder)
    make_folder(folder.parent, f"the folder of {what}")
    tmp = folder.parent / f".tmp-{folder.name[:TMP_NAME_CHARS]}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        with _refused_as(folder, what):
            tmp.mkdir()
            yield tmp
            if folder.exists():
                shutil.rmtree(folder)
            os.replace(tmp, folder)
            _sync_folder(folder.parent)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def _refused_as(path: Path, what: str) -> Iterator[None]:
    """A failure of the block that is the machine's refusal (or a library's words for one) becomes
    one line naming `path`; pfcore's own errors and any other failure go on as they are."""
    try:
        yield
    except PfcoreError:
        raise
    except Exception as exc:
        # any OSError in one line (the machine's refusal with its remedy), else a library's words for one
        problem = _os_refused(exc, path, what) if isinstance(exc, OSError) else environment_problem(exc, path, what)
        if problem is None:
            raise
        raise problem from exc


def _os_refused(exc: OSError, path: Path, what: str) -> InputError:
    """A failed write or folder operation in one line: the machine's refusal (see
    `errors.environment_problem`) with its remedy, else the system's reason."""
    return environment_problem(exc, path, what) or InputError(f"cannot write {what} {path}: {exc.strerror or exc}")


def check_writable_file(path: Path, what: str) -> Path:
    """A file pfcore will write later: its folder proven writable now (`check_writable`), and its
    name one the file system takes (a name too long is refused now, not after the work)."""
    path = Path(path)
    check_writable(path.parent, f"the folder of {what}")
    try:
        os.lstat(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise _os_refused(exc, path, what) from exc
    return path


def check_writable(folder: Path, what: str) -> Path:
    """A folder pfcore will write into later, created when missing and proven writable now (a
    byte written to a file there, which is then removed), so that a read-only, full or forbidden
    place is refused before any work whose result would be lost."""
    folder = make_folder(Path(folder), what)
    try:
        fd, name = tempfile.mkstemp(dir=folder, prefix=".pfcore-check.", suffix=".tmp")
        try:
            os.write(fd, b"\0")
        finally:
            os.close(fd)
            os.unlink(name)
    except OSError as exc:
        raise _os_refused(exc, folder, what) from exc
    return folder


def write_atomic(path: Path, data: bytes | str, what: str = "a file", *, compress: bool = False) -> Path:
    """Write bytes (or UTF-8 text) to `path` through `atomic_path`: all of it or nothing; with
    `compress`, gzipped reproducibly first (no name or time in the header, so equal data gives equal files)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if compress:
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as packed:
            packed.write(raw)
        raw = buffer.getvalue()
    with atomic_path(path, what) as tmp:
        tmp.write_bytes(raw)
    return Path(path)


def write_output(path: Path, text: str, what: str) -> Path:
    """Write a file the user named (an item file, a table) through `write_atomic`: gzipped when its
    name ends in .gz, so `--out items.jsonl.gz` gives what its name says."""
    return write_atomic(path, text, what, compress=Path(path).suffix == ".gz")


@contextmanager
def locked(path: Path, *, wait: bool = True, busy: str = "", holder: str = "") -> Iterator[None]:
    """Hold an exclusive lock (an flock on the file `path`, created when missing) for the block, so
    one process at a time reads, changes and writes what it guards; the lock goes with its process.
    With wait=False a lock held elsewhere raises InputError(`busy`) at once instead of waiting,
    naming the holder: what the process that holds it wrote in the file (`holder`, its pid, since when)."""
    path = Path(path)
    make_folder(path.parent, "the folder of a lock file")
    with _open_lock(path) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            handle.seek(0)
            held = handle.read(MAX_HOLDER).strip()
            message = busy or f"{path} is locked by another process; try again when it ends"
            raise InputError(f"{message} (held by {held})" if held else message) from None
        if holder:
            handle.truncate(0)
            handle.write(f"pid {os.getpid()}: {holder}, since {time.strftime('%Y-%m-%d %H:%M:%S')}")
            handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


LOCK_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _open_lock(path: Path) -> io.TextIOWrapper:
    """A lock file opened for reading and writing, created when missing, never through a symbolic link
    (O_NOFOLLOW) and never anything but a plain file of one name: a link, a FIFO or a hard link planted
    at its predictable name in a shared folder is refused, so its target is never truncated or written."""
    try:
        fd = os.open(path, LOCK_FLAGS, 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"the lock file {path} is a symbolic link; pfcore does not follow it (someone may "
                             "have planted it): remove the link, or give another folder") from None
        raise environment_problem(exc, path, "a lock file", "open") or InputError(
            f"cannot open the lock file {path}: {exc.strerror or exc}") from exc
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(fd)
        what = "not a plain file" if not stat.S_ISREG(info.st_mode) else "a file with another name too (a hard link)"
        raise InputError(f"the lock file {path} is {what}; pfcore will not write it (someone may have planted it): "
                         "remove it, or give another folder")
    os.set_blocking(fd, True)
    return open(fd, "r+", encoding="utf-8", errors="replace")  # noqa: SIM115 - the caller closes it


def write_atomic_set(files: Sequence[tuple[Path, bytes | str, str]]) -> None:
    """Write several (path, data, what) files as one record whose last file (its manifest) says
    it is whole: every file goes to a temporary file beside it first, so a full disk fails there
    and changes nothing; then the old last file is removed and each file renamed over its target
    in order, the last one last. A folder whose last file is missing is therefore never taken
    for a whole record, and an earlier record in its place stays whole until the new one is."""
    *_, (marker, _, _) = files
    with ExitStack() as stack:
        temps = [(stack.enter_context(atomic_path(path, what)), path, data, what)
                 for path, data, what in reversed(files)]  # entered last, renamed first
        for tmp, path, data, what in temps:
            try:
                tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
            except OSError as exc:
                raise _os_refused(exc, path, what) from exc
        try:
            Path(marker).unlink(missing_ok=True)
        except OSError as exc:
            raise _os_refused(exc, Path(marker), "the old manifest") from exc


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
        with suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _umask() -> int:
    """The process umask (read by setting and restoring it, once, at import), so that written files
    get ordinary permissions rather than mkstemp's private ones."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


UMASK = _umask()


GZIP_MAGIC = b"\x1f\x8b"
NOT_FILES = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a device"),
             (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


class ReadRefused(InputError):
    """A file pfcore will not read for a user (missing, not a regular file, over its kind's cap,
    not UTF-8, broken gzip); `reason` says why without the path, for callers that place it."""

    def __init__(self, path: Path, reason: str, line: int | None = None) -> None:
        super().__init__(f"{path}{f':{line}' if line else ''}: {reason}")
        self.reason, self.line = reason, line


def open_regular(path: Path, kind: FileKind) -> BinaryIO:
    """A regular file opened for reading; anything else (a folder, a FIFO, a device) is refused
    before a byte is read: checked by stat, then opened non-blocking and checked again by fstat,
    so that a FIFO cannot hang the program however it got there."""
    path = Path(path)
    try:
        _refuse_non_file(path, os.stat(path).st_mode, kind)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise environment_problem(exc, path, f"the {kind}", "read") or ReadRefused(
            path, f"cannot read the {kind} ({exc.strerror or exc})") from None
    try:
        _refuse_non_file(path, os.fstat(fd).st_mode, kind)
    except ReadRefused:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _refuse_non_file(path: Path, mode: int, kind: FileKind) -> None:
    """ReadRefused when a file mode is not a regular file's."""
    what = next((name for test, name in NOT_FILES if test(mode)), None if stat.S_ISREG(mode) else "not a file")
    if what is not None:
        raise ReadRefused(path, f"cannot read the {kind} (it is {what}, not a regular file); give the path of a file")


def read_bounded(path: Path, kind: FileKind, *, gunzip: bool = False) -> bytes:
    """A user's file of one kind, whole, refused past its kind's cap (read as a stream that
    stops one byte past the cap, so neither /dev/zero nor a gzip bomb costs more memory); with
    `gunzip`, a gzipped file (by its magic bytes) is decompressed and the cap counts its text."""
    cap = kind.cap
    with open_regular(path, kind) as handle:
        try:
            gzipped = gunzip and handle.read(len(GZIP_MAGIC)) == GZIP_MAGIC
            handle.seek(0)
            with gzip.GzipFile(fileobj=handle) if gzipped else nullcontext(handle) as stream:
                raw = stream.read(cap + 1)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise ReadRefused(path, f"cannot read the {kind} (broken gzip data: {exc})", 1) from None
        except OSError as exc:
            raise environment_problem(exc, path, f"the {kind}", "read") or ReadRefused(
                path, f"cannot read the {kind} ({exc.strerror or exc})") from None
    if len(raw) > cap:
        raise too_large(path, kind)
    return raw


NAME_BYTES = 255  # the longest file name the usual file systems take


def upload_name(name: str) -> str:
    """The file name an upload is kept under while it is read: the last part of the name the browser
    sent. InputError saying what to do when it cannot name a file (empty, '.' or '..', a control
    character such as NUL, over NAME_BYTES bytes), before anything is written, so no message names
    the folder it would have gone to."""
    base = Path(name).name
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in base):
        raise InputError("the uploaded file's name holds a control character (such as NUL) or bytes that are "
                         "not text; rename the file and upload it again")
    if base in ("", ".", ".."):
        raise InputError("the uploaded file has no name of its own (it is empty, '.' or '..'); rename the file "
                         "and upload it again")
    if len(base.encode("utf-8")) > NAME_BYTES:
        raise InputError(f"the uploaded file's name is {len(base):,} characters long, more than a file name may "
                         f"be ({NAME_BYTES} bytes); rename the file and upload it again")
    return base


def size_text(size: int) -> str:
    """A byte count in the unit the docs use: "64 KiB" below a MiB, "64 MiB" from one MiB on."""
    return f"{size / MIB:g} MiB" if size >= MIB else f"{size / 1024:g} KiB"


def too_large(path: Path, kind: FileKind) -> ReadRefused:
    """The refusal of a file over its kind's cap."""
    return ReadRefused(path, f"the {kind} is larger than {size_text(kind.cap)}, the limit for a {kind}; "
                             "is this the right file? (split a larger one)")


def text_lines(path: Path, kind: FileKind) -> Iterator[str]:
    """A user's text file as a stream of UTF-8 lines with their line ends (a byte order mark
    dropped), never holding more than one line; ReadRefused for a line that is not UTF-8 (naming
    it) and once the file passes its kind's cap. Lines end where the csv module ends them in a
    file opened with newline="" (LF, CR LF or a lone CR)."""
    remaining = kind.cap
    number = 0
    with open_regular(path, kind) as handle:
        while raw := _read_line(handle, path, kind, remaining + 1):
            remaining -= len(raw)
            if remaining < 0:
                raise too_large(path, kind)
            for piece in LONE_CR.split(_decoded(raw, path, number + 1, first=number == 0)):
                if piece:
                    number += 1
                    yield piece


LONE_CR = re.compile(r"(?<=\r)(?!\n)")


def _read_line(handle: BinaryIO, path: Path, kind: FileKind, limit: int) -> bytes:
    """The next line of bytes (at most `limit`); the machine's refusal as an InputError."""
    try:
        return handle.readline(limit)
    except OSError as exc:
        raise environment_problem(exc, path, f"the {kind}", "read") or ReadRefused(
            path, f"cannot read the {kind} ({exc.strerror or exc})") from None


def _decoded(raw: bytes, path: Path, line: int, *, first: bool) -> str:
    """One line as text (the first without its byte order mark); ReadRefused naming the line."""
    try:
        return raw.decode("utf-8-sig" if first else "utf-8")
    except UnicodeDecodeError as exc:
        raise ReadRefused(path, f"not UTF-8 text ({exc.reason}); save the file as UTF-8", line) from None


