"""What the local Hugging Face cache holds of a hub id, read without the network: the snapshot
folder a revision resolves to, whether its weights are all there, and which revisions are cached
(for the message when a revision is missing offline)."""
from __future__ import annotations

import json
from pathlib import Path

from pfcore.errors import InputError
from pfcore.files import MIB, FileKind, read_bounded
from pfcore.models.spec import ModelSpec

WEIGHTS_INDEX = FileKind("weights index", 16 * MIB)  # a 70B model's index is about 100 kB

INDEX = "model.safetensors.index.json"  # a sharded checkpoint's list of its weight files


def local_snapshot(spec: ModelSpec) -> Path | None:
    """The cached snapshot folder of the spec's hub id at its revision (`main` when none), or None
    when the cache does not hold that revision; never asks the hub."""
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(spec.name, revision=spec.revision, local_files_only=True))
    except (OSError, ValueError):  # not cached (LocalEntryNotFoundError), or not a valid hub id
        return None


def complete_weights(folder: Path) -> bool:
    """Whether a snapshot holds all of its safetensors weights (every shard its index lists, else
    model.safetensors): a revision whose download stopped half-way has no identity yet."""
    index = folder / INDEX
    if not index.is_file():
        return (folder / "model.safetensors").is_file()
    try:
        shards = set(json.loads(read_bounded(index, WEIGHTS_INDEX))["weight_map"].values())
    except (InputError, ValueError, KeyError, TypeError, AttributeError):
        return False
    return bool(shards) and all((folder / shard).is_file() for shard in shards)


def cached_revisions(repo_id: str) -> dict[str, str]:
    """The revisions of a hub id in the local cache, each with its commit: its refs (branches,
    tags) and the commits of its snapshots (a commit names itself); empty when none is cached."""
    from huggingface_hub import CacheNotFound, scan_cache_dir

    try:
        repos = scan_cache_dir().repos
    except (CacheNotFound, OSError, ValueError):
        return {}
    found: dict[str, str] = {}
    for repo in repos:
        if repo.repo_type == "model" and repo.repo_id == repo_id:
            for revision in repo.revisions:
                found.update(dict.fromkeys(revision.refs, revision.commit_hash))
                found[revision.commit_hash] = revision.commit_hash
    return found


def missing_revision(spec: ModelSpec, reason: str) -> str | None:
    """The message for a hub id whose revision the local cache lacks while it holds others (the
    hub could not give it: offline, or no such revision), or None when that is not the case."""
    cached = cached_revisions(spec.name)
    revision = spec.revision or "main"
    if not cached or revision in cached:
        return None
    names = sorted(ref for ref, commit in cached.items() if ref != commit) or sorted(cached)
    return (f"revision {revision!r} of {spec.name} is not in the local Hugging Face cache, which holds "
            f"{', '.join(names)}; and the hub did not give it ({reason}). Choose one of those revisions, "
            "or check the revision's name on the hub and connect to the network (HF_HUB_OFFLINE unset) "
            "to download it.")
