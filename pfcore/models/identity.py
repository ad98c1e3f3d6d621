"""What identifies a model's numbers without loading it: its spec, where it loads from, and its
weight files (the score cache's key material)."""
from __future__ import annotations

from pathlib import Path

from pfcore.models.spec import ModelSpec


def weights_fingerprint(source: str) -> str:
    """Sizes and times of the weight files of a local model folder ('' for hub ids)."""
    folder = Path(source)
    if not folder.is_dir():
        return ""
    files = sorted(folder.glob("*.safetensors"))
    return ";".join(f"{f.name}:{f.stat().st_size}:{int(f.stat().st_mtime)}" for f in files)


def model_identity(spec: ModelSpec, source: str) -> dict[str, object]:
    """What identifies a model's numbers: its spec, where it loads (or loaded) from, and its
    weight files; `resolve_source` gives the source without loading the model."""
    return {"name": spec.name, "revision": spec.revision, "dtype": spec.dtype, "kind": spec.kind,
            "source": source, "weights": weights_fingerprint(source)}
