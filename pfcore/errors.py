"""Errors that carry a message meant for the user (shown without a traceback), and the reading of
the machine's own refusals (a full disk, a read-only folder, no permission, a name too long) as the
user's setting to fix, not as a bug in pfcore."""
from __future__ import annotations

import errno
import sqlite3

# errno -> what to do about it (one line, after the path and the system's reason)
REMEDIES: dict[int, str] = {
    errno.ENOSPC: "the disk is full: free some space there (or set PFCORE_CACHE to a folder on another disk) "
                  "and run again",
    errno.EDQUOT: "the disk quota is used up: free some space there and run again",
    errno.EROFS: "that file system is read-only: choose a writable folder (or set PFCORE_CACHE)",
    errno.EACCES: "permission denied: choose a folder you can write to, or change its permissions",
    errno.EPERM: "operation not permitted: choose a folder you can write to, or change its permissions",
    errno.ENAMETOOLONG: "the name is too long for the file system: choose a shorter name or path",
    errno.EIO: "the disk reported an input/output error (a full or failing disk): free some space there or "
               "choose another disk, and run again",
}
# SQLite's and safetensors' words for the same refusals (they raise without an errno)
MESSAGES: tuple[tuple[str, int], ...] = (
    ("database or disk is full", errno.ENOSPC),
    ("no space left on device", errno.ENOSPC),
    ("disk quota exceeded", errno.EDQUOT),
    ("attempt to write a readonly database", errno.EROFS),
    ("read-only file system", errno.EROFS),
    ("unable to open database file", errno.EACCES),
    ("permission denied", errno.EACCES),
    ("file name too long", errno.ENAMETOOLONG),
    ("disk i/o error", errno.EIO),
)


class PfcoreError(Exception):
    """Base class: the message says what went wrong and what to do."""


class ModelLoadError(PfcoreError):
    """A model could not be found or loaded."""


class InputError(PfcoreError):
    """Text or a file given by the user cannot be used as it is."""


class EnvironmentProblem(InputError):
    """The machine refused a read or write (full disk, read-only folder, permission, name too
    long): the message names the path and the remedy; work already saved is kept."""


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (its type's name when the message is empty)."""
    return (str(exc).splitlines() or [type(exc).__name__])[0]


def environment_errno(exc: BaseException) -> int | None:
    """The refusal an error stands for (an errno of REMEDIES), or None when it is something else:
    OSError by its errno, SQLite and safetensors errors (and their causes) by their words."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in REMEDIES:
            return exc.errno
        if isinstance(exc, (OSError, sqlite3.Error)) or type(exc).__name__ == "SafetensorError":
            text = str(exc).lower()
            found = next((code for words, code in MESSAGES if words in text), None)
            if found is not None:
                return found
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return None


def environment_problem(exc: BaseException, path: object = None, what: str = "",
                        action: str = "write") -> EnvironmentProblem | None:
    """The user-facing error for a refusal of the machine (see `environment_errno`), naming the
    path (the error's own filename when none is given) and the remedy; None for other errors."""
    code = environment_errno(exc)
    if code is None:
        return None
    where = path if path is not None else getattr(exc, "filename", None)
    target = " ".join(str(p) for p in (what, where) if p) or "a file"
    reason = getattr(exc, "strerror", None) or first_line(exc)
    return EnvironmentProblem(f"cannot {action} {target} ({reason}): {REMEDIES[code]}; nothing saved "
                              "before was changed")


# What a parsed value is, in words, for messages that must not repeat it; JSON says "object" and "null"
# where YAML says "mapping" and "nothing".
VALUE_TYPES = ((bool, "true/false"), (int, "a whole number"), (float, "a decimal number"), (str, "text"),
               (list, "a list"), (dict, "a mapping"))
JSON_WORDS = {"a mapping": "an object", "nothing": "null"}


def type_name(value: object, *, json: bool = False) -> str:
    """What a YAML (or, with `json`, JSON) value is, in words ("a whole number", "a mapping")."""
    name = next((name for kind, name in VALUE_TYPES if isinstance(value, kind)),
                "nothing" if value is None else f"a {type(value).__name__}")
    return JSON_WORDS.get(name, name) if json else name


def expected_name(kind: type, *, json: bool = False) -> str:
    """What a value of a Python type is called in such messages (dict: "a mapping", or "an object" in JSON)."""
    name = next(name for each, name in VALUE_TYPES if each is kind)
    return JSON_WORDS.get(name, name) if json else name


MEMORY_WORDS = ("out of memory", "cannot allocate memory", "can't allocate memory", "not enough memory")


def out_of_memory(exc: BaseException) -> bool:
    """Whether an error means the machine (or the GPU) ran out of memory: MemoryError, torch's
    OutOfMemoryError, or an allocator's words; never a reason to delete files."""
    text = str(exc).lower()
    return (isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryError"
            or any(words in text for words in MEMORY_WORDS))
