"""Text that is not the app's own markdown (a visitor's sentence, a name from a link or an upload, a
file name, a message that may quote them) shown as text: never read as markdown, never a link, an
image or HTML, and on a class server (public mode) never naming the server's folders."""
from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

from pfcore.deployment import deployment
from pfcore.errors import InputError
from pfcore.paths import REPO_ROOT

# What markdown, GitHub's extensions and streamlit's own (:red[...], :material/...:, $math$) read
# anywhere in a line; a backslash makes each a plain character (CommonMark escapes any ASCII punctuation).
INLINE = re.compile(r"([\\`*_\[\]<>|~$:&@])")
# What starts a block at the beginning of a line: a heading, a list item ("-", "+", "1." or "1)"), a rule
# or a setext underline; escaping its first mark makes the line a paragraph's.
LINE_START = re.compile(r"^(\d*)([#+=.)-])")
LINE_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# GitHub's autolinks are found in the text after the escapes are read, so an escape cannot stop them:
# a word joiner (U+2060, shown as nothing) breaks "://", "www." and the "@" of an e-mail address.
AUTOLINKS = re.compile(r"(?i)(?<=:)(?=//)|(?<=www)(?=\.)|(?=@)")
JOINER = "\u2060"
LEFT_OUT = "…"  # in place of a server folder in public mode


def quoted(text: str) -> str:
    """A visitor's sentence as typed, between typographic quotes, for a title or a caption (Python's
    repr escaped a quote mark where the sentence held both kinds)."""
    return f"\u201c{text}\u201d"


def plain(text: object) -> str:
    """`text` as markdown that shows exactly that text: every character markdown could read
    escaped, links broken, each line break a line break; in public mode the server's folders left
    out. For st.markdown, st.caption, st.info/warning/error/success, labels and help."""
    lines = (_escaped_line(line) for line in LINE_BREAKS.split(without_server_folders(str(text))))
    return "  \n".join(line for line in lines if line)


def _escaped_line(line: str) -> str:
    """One line, control characters as spaces, stripped (so no indent makes it code), escaped."""
    line = INLINE.sub(r"\\\1", AUTOLINKS.sub(JOINER, CONTROLS.sub(" ", line).strip()))
    return LINE_START.sub(r"\1\\\2", line, count=1)


def server_folders() -> list[str]:
    """The server's own folders a message may name (the repository, the cache and models, the
    temporary folder, HOME, Python's), each as given and resolved, the longest first."""
    named = [REPO_ROOT, os.environ.get("PFCORE_CACHE") or REPO_ROOT / "cache", os.environ.get("PFCORE_MODELS"),
             os.environ.get("HF_HOME"), tempfile.gettempdir(), Path.home(), sys.prefix]
    folders = {str(form) for folder in named if folder for form in (Path(folder), Path(folder).resolve())}
    return sorted((f for f in folders if f.count(os.sep) >= 1 and len(f) > 1), key=len, reverse=True)


def without_server_folders(text: str) -> str:
    """The text with every server folder replaced by '…' in public mode (a bad setting counts as
    public); as it is on a private workstation, where paths are the user's own."""
    try:
        hidden = deployment().hides_server_folders
    except InputError:
        hidden = True
    if not hidden:
        return text
    for folder in server_folders():
        text = re.sub(re.escape(folder) + r"(?![\w.-])", LEFT_OUT, text)
    return text
