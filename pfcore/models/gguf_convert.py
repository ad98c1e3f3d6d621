"""Convert a GGUF checkpoint once into a safetensors folder, atomically, with its tokenizer fixed."""
from __future__ import annotations

import hashlib
import json
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest import mock

from pfcore.errors import ModelLoadError, first_line
from pfcore.files import atomic_folder, check_writable, write_atomic

if TYPE_CHECKING:  # checking a finished conversion needs none of the heavy libraries
    from transformers import PreTrainedTokenizerBase

MARKER = "pfcore-converted.json"
_PATCHING = threading.Lock()  # one conversion at a time patches gguf, so each puts back what it found


@contextmanager
def _parsed_once() -> Iterator[None]:
    """Within it, gguf parses a file once and maps tensor names once per architecture: transformers
    parses the file for the tokenizer, the config and the tensors, and builds the name map for each of
    the model's modules (397 for SmolLM2), some 25 of a conversion's 40 s. Both are read-only."""
    import gguf

    with _PATCHING:
        reader = lru_cache(maxsize=2)(gguf.GGUFReader)
        with mock.patch.object(gguf, "GGUFReader", lambda path, mode="r": reader(str(path), mode)), \
                mock.patch.object(gguf, "get_tensor_name_map", lru_cache(maxsize=4)(gguf.get_tensor_name_map)):
            yield


def _metadata(path: Path) -> dict[str, Any]:
    """The tokenizer facts transformers 4.57 ignores when it reads a GGUF (BOS policy, EOS, PAD)."""
    import gguf

    reader = gguf.GGUFReader(str(path))
    wanted = ("tokenizer.ggml.add_bos_token", "tokenizer.ggml.eos_token_id",
              "tokenizer.ggml.padding_token_id", "tokenizer.ggml.bos_token_id")
    return {key: reader.fields[key].contents() for key in wanted if key in reader.fields}


def fix_tokenizer(tok: PreTrainedTokenizerBase, meta: dict[str, Any]) -> None:
    """Apply the GGUF's own BOS/EOS/PAD settings (SmolLM2: no BOS, eos = pad = <|im_end|>)."""
    if "tokenizer.ggml.add_bos_token" in meta:
        tok.add_bos_token = bool(meta["tokenizer.ggml.add_bos_token"])
        if hasattr(tok, "update_post_processor"):
            tok.update_post_processor()
    for field, attr in (("tokenizer.ggml.eos_token_id", "eos_token"),
                        ("tokenizer.ggml.padding_token_id", "pad_token"),
                        ("tokenizer.ggml.bos_token_id", "bos_token")):
        if field in meta:
            setattr(tok, attr, tok.convert_ids_to_tokens(int(meta[field])))


def fingerprint(path: Path) -> str:
    """Cheap identity of a GGUF file (size, mtime, name) to tell a stale conversion from a good one."""
    st = path.stat()
    return hashlib.sha256(f"{path.name}:{st.st_size}:{int(st.st_mtime)}".encode()).hexdigest()[:16]


def _read_gguf(source: Path) -> tuple[Any, Any]:
    """The tokenizer and float32 model transformers reads from a GGUF file."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tok = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
        model = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name, dtype=torch.float32)
    return tok, model


def check_gguf(path: Path) -> None:
    """Refuse a file that is not GGUF (its first four bytes are b"GGUF") before any conversion."""
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise ModelLoadError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if magic != b"GGUF":
        raise ModelLoadError(f"{path} is not a GGUF file (it does not start with the GGUF magic bytes)")


def is_complete(folder: Path, source: Path) -> bool:
    """True when `folder` holds a finished, intact conversion of exactly this source file: its
    marker, every file at its recorded size, readable safetensors headers and config."""
    try:
        info = json.loads((folder / MARKER).read_text())
    except (OSError, json.JSONDecodeError):
        return False
    if not isinstance(info, dict) or info.get("fingerprint") != fingerprint(source):
        return False
    files = info.get("files", {})
    sizes_ok = bool(files) and all((folder / name).is_file() and (folder / name).stat().st_size == size
                                   for name, size in files.items())
    return sizes_ok and _config_ok(folder) and all(_header_ok(p) for p in folder.glob("*.safetensors"))


def _config_ok(folder: Path) -> bool:
    """Whether config.json parses as a JSON object."""
    try:
        return isinstance(json.loads((folder / "config.json").read_text()), dict)
    except (OSError, ValueError):
        return False


def _header_ok(path: Path) -> bool:
    """Whether a safetensors file's header parses and its tensors end exactly at the file's end."""
    try:
        with path.open("rb") as handle:
            length = int.from_bytes(handle.read(8), "little")
            if not 0 < length <= 100_000_000:
                return False
            header = json.loads(handle.read(length))
        ends = [t["data_offsets"][1] for name, t in header.items() if name != "__metadata__"]
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return False
    return 8 + length + max(ends, default=0) == path.stat().st_size


def convert(source: Path, folder: Path) -> Path:
    """Write a safetensors copy of `source` to `folder` through `files.atomic_folder` (a temporary
    folder and one rename), its marker written last with `write_atomic`. A GGUF transformers
    cannot read is a ModelLoadError; a refusal of the machine (a full disk) an EnvironmentProblem
    naming the folder; either way nothing is left behind. A folder it cannot write to at all is
    refused before the GGUF is read."""
    check_writable(folder.parent, "the models folder (PFCORE_MODELS)")
    try:
        with _parsed_once():
            tok, model = _read_gguf(source)
            meta = _metadata(source)
    except (Exception, MemoryError) as exc:  # noqa: BLE001 - any failure to read the file is reported
        raise ModelLoadError(f"cannot convert {source} to safetensors: {first_line(exc)}") from exc
    fix_tokenizer(tok, meta)
    if model.generation_config is not None:
        model.generation_config.pad_token_id = tok.pad_token_id
    with atomic_folder(folder, "the converted model") as tmp:
        model.save_pretrained(tmp, safe_serialization=True)
        tok.save_pretrained(tmp)
        files = {p.name: p.stat().st_size for p in tmp.iterdir() if p.is_file()}
        write_atomic(tmp / MARKER, json.dumps({"source": str(source), "fingerprint": fingerprint(source),
                                               "files": files}), "the converted model's marker")
    return folder
