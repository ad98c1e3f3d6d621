"""A pre-filled Hugging Face cache for the tests: a checkpoint series laid out under a hub id the way
huggingface_hub lays out what it downloads (HF_HOME/hub/models--ORG--NAME/{blobs,refs,snapshots}),
so that with HF_HUB_OFFLINE=1 the real `from_pretrained(id, revision=...)` path loads it."""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

REPO_ID = "pfcore-tests/tiny-pythia"
LFS_SUFFIXES = (".safetensors", ".bin", ".pt")  # stored with Git LFS on the hub: named by their sha256


@dataclass(frozen=True)
class HubSeries:
    """A hub id in the local cache: its revisions (ref name -> commit hash) and where its repo lies."""

    repo_id: str
    cache: Path  # the hub cache (HF_HUB_CACHE)
    commits: Mapping[str, str]

    @property
    def repo_folder(self) -> Path:
        """models--ORG--NAME inside the hub cache."""
        return self.cache / ("models--" + self.repo_id.replace("/", "--"))

    def snapshot(self, revision: str) -> Path:
        """The snapshot folder a revision's ref points at."""
        return self.repo_folder / "snapshots" / self.commits[revision]


def blob_name(path: Path) -> str:
    """A file's name under blobs/, as the hub gives it (its ETag): the sha256 of an LFS file, the
    git blob sha1 of any other."""
    data = path.read_bytes()
    if path.suffix in LFS_SUFFIXES:
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _commit(files: Mapping[str, str], revision: str) -> str:
    """A made-up 40-digit commit hash for a revision's files (unique per revision, as on the hub)."""
    listing = "\n".join(f"{name} {blob}" for name, blob in sorted(files.items()))
    return hashlib.sha1(f"{revision}\n{listing}".encode()).hexdigest()


def add_revision(cache: Path, repo_id: str, revision: str, folder: Path) -> str:
    """Store a saved model folder as one revision of `repo_id`: each file once under blobs/, the
    snapshot of symlinks to them, and refs/<revision> holding the commit; returns the commit."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    files = {f.name: blob_name(f) for f in sorted(folder.iterdir()) if f.is_file()}
    commit = _commit(files, revision)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True, exist_ok=True)
    for name, blob in files.items():
        target = repo / "blobs" / blob
        if not target.exists():
            target.write_bytes((folder / name).read_bytes())
        link = snapshot / name
        if not link.is_symlink():
            link.symlink_to(Path("..") / ".." / "blobs" / blob)
    (repo / "refs" / revision).write_text(commit)
    return commit


def build_hub_series(cache: Path, series: Path, revisions: Mapping[str, str],
                     repo_id: str = REPO_ID) -> HubSeries:
    """A hub id whose revisions (ref name -> a step<N> folder of `series`) are in the cache; `main`
    points at the last one's commit, as a finished training run's does."""
    commits = {revision: add_revision(cache, repo_id, revision, series / step)
               for revision, step in revisions.items()}
    main = HubSeries(repo_id, cache, commits).repo_folder / "refs" / "main"
    main.write_text(list(commits.values())[-1])
    return HubSeries(repo_id, cache, {**commits, "main": main.read_text()})

