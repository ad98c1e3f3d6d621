"""What identifies a model to load: name or path, revision, dtype, device and kind."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

DEFAULT_MODEL = "smollm2-135m"
Kind = Literal["causal", "masked"]
DTYPES = ("float32", "bfloat16", "float16")


@dataclass(frozen=True)
class ModelSpec:
    """A model to load. `name` is `smollm2-135m`, a local folder or GGUF file, or a hub id."""

    name: str = DEFAULT_MODEL
    revision: str | None = None
    dtype: str = "float32"
    device: str = "cpu"
    kind: Kind = "causal"
    trust_remote_code: bool = False

    def as_dict(self) -> dict[str, object]:
        """Plain dict for manifests and cache keys."""
        return asdict(self)

    @property
    def label(self) -> str:
        """Short human label: name, plus @revision when one is set."""
        return f"{self.name}@{self.revision}" if self.revision else self.name
