"""The paper's published per-checkpoint summaries bundled with pfcore, and the names that keep every
source of published numbers apart in the results table.

The bundle is one checksummed parquet table under data/reference/, derived by `pfcore results bundle`
from the published outputs_summary folder (rows as `read_published` gives them: `source` is a file's
path under that folder). In the results table each collection of published files has a label of its
own in front of its files' paths: `published@<commit>` for the bundled table, `import@<content>` for
a folder imported by a user. Rows of one collection therefore never replace another's.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from pfcore.errors import InputError
from pfcore.files import MIB, FileKind, atomic_path, read_bounded, upload_name, write_atomic
from pfcore.paths import DATA_DIR
from pfcore.store.published_tsv import (
    PUBLISHED_COMMIT,
    PUBLISHED_FOLDER,
    PUBLISHED_REPO,
    read_published,
    read_published_file,
)
from pfcore.store.result_rows import typed_rows

BUNDLE_FILE = FileKind("bundled published results", 32 * MIB)  # the bundled table is about 0.5 MiB
BUNDLE_MANIFEST = FileKind("bundle manifest", MIB)

BUNDLE_PATH = DATA_DIR / "reference" / "published_results.parquet"
DISABLE_VAR = "PFCORE_BUNDLED"  # "0": a new cache's results table starts empty
SORT_COLUMNS = ("source", "model", "suite", "construction", "filter", "metric", "step", "revision")
CATEGORICAL = ("model", "revision", "suite", "construction", "filter", "metric", "source")
BUNDLED_PREFIX = "published@"
IMPORT_PREFIX = "import@"
EARLIER = "earlier-import"  # rows imported before sources carried a label
LABEL = r"(?:published|import)@[0-9a-f]{7,64}"
LABEL_PATTERN = re.compile(rf"^({LABEL})/")
DIGEST_CHARS = 12  # of the content digest, in an import's label
REMAKE = ("remake it with `pfcore results bundle --from FOLDER` (FOLDER: Meaning_Alone's outputs_summary), "
          "or restore it from the repository; the results table is used without it meanwhile")


def manifest_path(table: Path = BUNDLE_PATH) -> Path:
    """The bundle's manifest (sha256, counts, repository, commit, licence): beside it, .json."""
    return table.with_suffix(".json")


def bundling_enabled() -> bool:
    """Whether a new cache's results table is given the bundled rows ($PFCORE_BUNDLED=0 turns it off)."""
    return os.environ.get(DISABLE_VAR, "1").strip() != "0"


def canonical(rows: pd.DataFrame) -> pd.DataFrame:
    """Published rows in one order (source, model, suite, construction, filter, metric, step,
    revision), index reset: two tables of the same rows compare equal row for row."""
    return rows.sort_values(list(SORT_COLUMNS), na_position="last", kind="stable").reset_index(drop=True)


def content_digest(rows: pd.DataFrame) -> str:
    """sha256 of published rows' content (their canonical CSV text): equal rows, equal digest, wherever
    the files lay; any changed value, row or file name changes it."""
    text = canonical(rows).astype({col: str for col in CATEGORICAL}).to_csv(index=False, lineterminator="\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def import_label(digest: str) -> str:
    """The label of an imported folder's rows, from their content digest ("import@3f9a1c2b7d4e")."""
    return f"{IMPORT_PREFIX}{digest[:DIGEST_CHARS]}"


def labelled(rows: pd.DataFrame, label: str) -> pd.DataFrame:
    """Published rows with the collection's label in front of each file's path ("published@a6b6990/ORG/...")."""
    return rows.assign(source=label + "/" + rows["source"].astype(str))


def collection_of(source: str) -> str:
    """The collection a published row's source belongs to: its label, or "earlier-import" for a row
    imported before labels existed."""
    match = LABEL_PATTERN.match(source)
    return match.group(1) if match else EARLIER


def is_label(text: str) -> bool:
    """Whether a text is a collection's label ("published@a6b6990", "import@3f9a1c2b7d4e")."""
    return re.fullmatch(LABEL, text) is not None


def file_of(source: str) -> str:
    """A published row's file: its source without the collection's label."""
    match = LABEL_PATTERN.match(source)
    return source[match.end():] if match else source


def bundled_label(manifest: dict[str, Any] | None = None) -> str:
    """The label of the bundled rows in the results table ("published@a6b6990"), from a manifest
    (default: the shipped bundle's)."""
    return f"{BUNDLED_PREFIX}{str((manifest or read_manifest())['commit'])[:7]}"


@dataclass(frozen=True)
class Bundle:
    """The bundled published rows (source: the file's path under outputs_summary) and its manifest."""

    rows: pd.DataFrame
    manifest: dict[str, Any]

    @property
    def label(self) -> str:
        """The label its rows carry in the results table: "published@" and the commit's first 7 digits."""
        return bundled_label(self.manifest)

    def table_rows(self) -> pd.DataFrame:
        """Its rows as the results table holds them (sources labelled)."""
        return labelled(self.rows, self.label)


def bundle_published(root: Path, *, repository: str = PUBLISHED_REPO, commit: str = PUBLISHED_COMMIT,
                     path: Path | None = None) -> dict[str, Any]:
    """Make the bundled table from a published outputs_summary folder (sorted, categorical columns,
    zstd) and its manifest with the table's sha256; returns the manifest."""
    path = path or BUNDLE_PATH
    rows = read_published(root)
    table = canonical(rows).astype({col: "category" for col in CATEGORICAL})
    with atomic_path(path, "the bundled published results") as tmp:
        table.to_parquet(tmp, index=False, compression="zstd", compression_level=19)
    raw = read_bounded(path, BUNDLE_FILE)
    manifest = {
        "table": path.name, "sha256": hashlib.sha256(raw).hexdigest(), "bytes": len(raw),
        "rows": len(table), "files": int(table["source"].nunique()), "models": int(table["model"].nunique()),
        "content_sha256": content_digest(rows), "repository": repository, "commit": commit,
        "folder": PUBLISHED_FOLDER, "licence": "Apache-2.0",
        "made_by": f"pfcore results bundle --from <{PUBLISHED_FOLDER}> --commit {commit}",
    }
    write_atomic(manifest_path(path), json.dumps(manifest, indent=1) + "\n", "the bundle's manifest")
    return manifest


def read_manifest(path: Path | None = None) -> dict[str, Any]:
    """The bundle's manifest (of the table at `path`, default the shipped one); InputError when it
    is missing or unreadable."""
    where = manifest_path(path or BUNDLE_PATH)
    if not where.is_file():
        raise InputError(f"the bundled published results have no manifest ({where} is missing): {REMAKE}")
    try:
        manifest = json.loads(read_bounded(where, BUNDLE_MANIFEST))
        str(manifest["sha256"]), str(manifest["commit"]), str(manifest["content_sha256"])
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{where}: the bundle's manifest is not readable ({type(exc).__name__}): {REMAKE}") from exc
    return dict(manifest)


def checked_bytes(path: Path | None = None) -> tuple[bytes, dict[str, Any]]:
    """The bundled table's bytes and manifest, once its sha256 matches the manifest's; InputError
    saying so when the table is missing, edited or damaged."""
    path = path or BUNDLE_PATH
    manifest = read_manifest(path)
    if not path.is_file():
        raise InputError(f"the bundled published results {path} are missing: {REMAKE}")
    raw = read_bounded(path, BUNDLE_FILE)
    if hashlib.sha256(raw).hexdigest() != manifest["sha256"]:
        raise InputError(f"the bundled published results {path} do not match the sha256 in "
                         f"{manifest_path(path).name}: the file was edited or damaged, so none of it was "
                         f"used; {REMAKE}")
    return raw, manifest


def bundle_problem(path: Path | None = None) -> str:
    """Why the bundled table cannot be used ("" when it can), without parsing it."""
    try:
        checked_bytes(path)
    except InputError as exc:
        return str(exc)
    return ""


def read_bundle(path: Path | None = None) -> Bundle:
    """The bundled published rows, checked against the sha256 in its manifest: a damaged or edited
    table is refused (InputError saying so) before it is parsed."""
    raw, manifest = checked_bytes(path)
    try:
        rows = pd.read_parquet(io.BytesIO(raw))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path or BUNDLE_PATH}: the bundled published results cannot be read "
                         f"({type(exc).__name__}); {REMAKE}") from exc
    return Bundle(rows.astype({col: str for col in CATEGORICAL}), manifest)


MODEL_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")


def uploaded_published(files: list[tuple[str, bytes]], model: str) -> pd.DataFrame:
    """Uploaded published summary TSVs of one model (ORG/NAME), as the results table's rows under their
    own content label (import@...), read as the files would be from its folder (constructions by
    name); nothing is stored (public mode keeps them in the visitor's session)."""
    if not MODEL_ID.fullmatch(model.strip()):
        raise InputError("give the hub id of the model the summaries belong to, as ORG/NAME "
                         "(for example EleutherAI/pythia-160m)")
    if not files:
        raise InputError("upload at least one published summary TSV")
    org, name = model.strip().split("/")
    with tempfile.TemporaryDirectory() as folder:
        tables = []
        for upload, data in files:
            relative = f"{org}/{name}/{upload_name(upload)}"
            path = write_atomic(Path(folder) / relative, data, "the uploaded file")
            try:
                tables.append(read_published_file(path, relative))
            except InputError as exc:
                raise InputError(str(exc).replace(f"{folder}/", "")) from None
    rows = pd.concat(tables, ignore_index=True)
    return typed_rows(labelled(rows, import_label(content_digest(rows))))
