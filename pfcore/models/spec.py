"""What identifies a model to load: name or path, revision, dtype, device and kind."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from pfcore.names import ModelKind, named

# The embedded default: SmolLM2-135M-Instruct, quantized to 4 bits (Q4_1) in its GGUF file and
# dequantized to float32 here; instruction tuning and quantization both set it apart from the
# paper's base models, so it is named for what it is.
DEFAULT_MODEL = "smollm2-135m-instruct-q4_1"
DEFAULT_MODEL_TITLE = "SmolLM2-135M-Instruct (4-bit Q4_1 GGUF, dequantized to float32)"
ALIASES = {"smollm2-135m": DEFAULT_MODEL}  # the short name earlier versions used
DTYPES = ("float32", "bfloat16", "float16")


@dataclass(frozen=True)
class ModelSpec:
    """A model to load. `name` is the embedded default (DEFAULT_MODEL, or its old alias), a local
    folder or GGUF file, or a hub id."""

    name: str = DEFAULT_MODEL
    revision: str | None = None
    dtype: str = "float32"
    device: str = "cpu"
    kind: ModelKind = ModelKind.CAUSAL
    trust_remote_code: bool = False

    def __post_init__(self) -> None:
        """The default's old alias becomes its name; a kind given as text becomes a ModelKind."""
        object.__setattr__(self, "name", ALIASES.get(self.name, self.name))
        object.__setattr__(self, "kind", named(ModelKind, self.kind, "model kind"))

    def as_dict(self) -> dict[str, object]:
        """Plain dict for manifests and cache keys."""
        return asdict(self)

    @property
    def label(self) -> str:
        """Short human label: name, plus @revision when one is set."""
        return f"{self.name}@{self.revision}" if self.revision else self.name
