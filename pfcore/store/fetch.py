"""Downloading the paper's published summaries from GitHub (at the pinned commit), and importing them."""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

from pfcore.errors import InputError
from pfcore.files import write_atomic
from pfcore.paths import cache_subdir
from pfcore.store.published_tsv import PUBLISHED_COMMIT, PUBLISHED_FOLDER, PUBLISHED_REPO
from pfcore.store.results import import_note, import_published

OFFLINE_HINT = ("could not reach github.com: download the repository and run "
                "`python -m pfcore results import PATH`")


def _get(url: str, timeout: float = 60.0) -> bytes:
    """Body of a GET request; InputError with the offline hint when GitHub cannot be reached."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read()
    except urllib.error.HTTPError as exc:
        raise InputError(f"github.com answered {exc.code} {exc.reason} for {url}; try again later, "
                         "or download the repository and run `python -m pfcore results import "
                         "PATH`") from exc
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        raise InputError(f"{OFFLINE_HINT} ({url}: {exc})") from exc


def published_files() -> list[str]:
    """Paths of the summary TSVs in the paper's repository at the pinned commit."""
    tree = json.loads(_get(f"https://api.github.com/repos/{PUBLISHED_REPO}/git/trees/{PUBLISHED_COMMIT}?recursive=1"))
    return sorted(item["path"] for item in tree.get("tree", [])
                  if item.get("type") == "blob" and item["path"].endswith(".tsv")
                  and item["path"].startswith(f"{PUBLISHED_FOLDER}/"))


def fetch_published(dest: Path) -> list[Path]:
    """Download the published summaries into dest (laid out as outputs_summary/ is); returns files.

    Import them afterwards with `python -m pfcore results import DEST`.
    """
    dest = Path(dest)
    written = []
    for remote in published_files():
        body = _get(f"https://raw.githubusercontent.com/{PUBLISHED_REPO}/{PUBLISHED_COMMIT}/{remote}")
        target = dest / Path(remote).relative_to(PUBLISHED_FOLDER)
        written.append(write_atomic(target, body, "the published summary"))
    if not written:
        raise InputError(f"github.com lists no summary files under {PUBLISHED_FOLDER}/ at "
                         f"{PUBLISHED_REPO}@{PUBLISHED_COMMIT[:7]}")
    return written


def fetch_and_import(*, replace: bool = False) -> str:
    """Download the published summaries from the paper's repository into the cache and import
    them; InputError (with what to do instead) when github.com cannot be reached."""
    dest = cache_subdir("published")
    fetch_published(dest)
    return import_note(import_published(dest, replace=replace), f"downloaded from {PUBLISHED_REPO} into {dest}")
