"""What identifies a model's numbers without loading it: its name, revision, dtype and kind, and
the content (sha256) of its weight files. Where the files lie does not enter, so a moved cache or
model folder keeps its scores; a changed weight file does, and a touched one does not. Hashes are
remembered per (path, size, mtime), so each file is read once."""
from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

from pfcore.errors import InputError
from pfcore.models.hub import complete_weights, local_snapshot
from pfcore.models.spec import ModelSpec
from pfcore.paths import JsonMemo

MEMO_FILE = "weight-hashes.json"
K = TypeVar("K")


def file_sha256(path: Path) -> str:
    """The sha256 of a file, streamed; remembered per (path, size, mtime) in the cache folder."""
    stat = path.stat()
    key = f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    memo = JsonMemo(MEMO_FILE)
    known = memo.read()
    if key not in known:
        with path.open("rb") as handle:
            known[key] = hashlib.file_digest(handle, "sha256").hexdigest()
        memo.write(known)
    return str(known[key])


def weights_sha256(source: str) -> str:
    """One digest of a local model folder's weight files (their names and contents); '' for a hub
    id, which the score cache keys by its name and revision (`weights_identity` hashes its snapshot)."""
    folder = Path(source)
    if not folder.is_dir():
        return ""
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        raise InputError(f"{folder} holds no *.safetensors weights")
    joined = ";".join(f"{f.name}:{file_sha256(f)}" for f in files)
    return hashlib.sha256(joined.encode()).hexdigest()


def model_identity(spec: ModelSpec, source: str) -> dict[str, object]:
    """What identifies a model's numbers: its spec and the content of its weights (`loading.resolve_source`
    gives the source without loading the model). A model given by its path is named by its content
    alone, so moving or copying the folder (or the .gguf file) keeps its scores."""
    sha = weights_sha256(source)
    by_path = bool(sha) and Path(spec.name).expanduser().exists()
    return {"name": None if by_path else spec.name, "revision": spec.revision, "dtype": spec.dtype,
            "kind": spec.kind, "weights_sha256": sha}


def weights_identity(spec: ModelSpec, source: str, local: bool) -> str:
    """The content hash of the weights a spec loads from `source` (as `resolve_source` gives it),
    without loading them (what a run's "done" entry is checked against, so changed weights under the
    same name run again): a hub id's is its revision's local snapshot's, hashed as a folder's; '' when
    that snapshot is not (all) local."""
    if local:
        return weights_sha256(source)
    snapshot = local_snapshot(spec)
    return weights_sha256(str(snapshot)) if snapshot is not None and complete_weights(snapshot) else ""


def same_weights(digests: Iterable[tuple[K, str]]) -> list[tuple[K, K, str]]:
    """Each key whose weights digest equals an earlier key's, with that first key and the digest,
    in order ('' means unknown and equals nothing): checkpoints that are one checkpoint twice."""
    first: dict[str, K] = {}
    repeats = []
    for key, digest in digests:
        if digest and digest in first:
            repeats.append((key, first[digest], digest))
        elif digest:
            first[digest] = key
    return repeats
