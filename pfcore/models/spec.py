"""What identifies a model to load: name or path, revision, dtype, device and kind."""
from __future__ import annotations

import ast
import functools
import importlib.util
import os
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from pfcore.names import DEFAULT_MODEL, ModelKind
from pfcore.names import DTYPES as DTYPES  # the precisions, spelled once in pfcore.names (the floor reads them too)

# The embedded default (DEFAULT_MODEL): SmolLM2-135M-Instruct, quantized to 4 bits (Q4_1) in its GGUF
# file and dequantized to float32 here; instruction tuning and quantization both set it apart from the
# paper's base models, so it is named for what it is.
DEFAULT_MODEL_TITLE = "SmolLM2-135M-Instruct (4-bit Q4_1 GGUF, dequantized to float32)"
ALIASES = {"smollm2-135m": DEFAULT_MODEL}  # the short name earlier versions used
AUTO = "auto"  # the device a command loads on by default: CUDA where torch sees it, else the CPU


@dataclass(frozen=True)
class ModelSpec:
    """A model to load. `name` is the embedded default (DEFAULT_MODEL, or its old alias), a local
    folder or GGUF file, or a hub id."""

    name: str = DEFAULT_MODEL
    revision: str | None = None
    dtype: str = "float32"
    device: str = "cpu"
    kind: str = ModelKind.CAUSAL  # a name of pfcore.scoring.kinds.KINDS (checked where the model is used)
    trust_remote_code: bool = False

    def __post_init__(self) -> None:
        """The default's old alias becomes its name."""
        object.__setattr__(self, "name", ALIASES.get(self.name, self.name))

    def as_dict(self) -> dict[str, object]:
        """Plain dict for manifests and cache keys."""
        return asdict(self)

    @property
    def label(self) -> str:
        """Short human label: name, plus @revision when one is set."""
        return f"{self.name}@{self.revision}" if self.revision else self.name

    def with_label(self, label: str) -> ModelSpec:
        """The spec of the model a label names, with this one's kind, precision and device (see `split_label`)."""
        name, revision = split_label(label)
        return replace(self, name=name, revision=revision)


def split_label(label: str) -> tuple[str, str | None]:
    """A label's model name and revision, the inverse of `ModelSpec.label`: "name@revision" splits at
    its last "@" (a hub id holds none, a local path may); a file or folder that exists, or a text with
    nothing before its "@", is a name alone."""
    name, _, revision = label.rpartition("@")
    if not name or os.path.exists(os.path.expanduser(label)):  # never raises, unlike Path.exists
        return label, None
    return name, revision or None


def available_devices() -> tuple[str, ...]:
    """The devices a model can load on here: "cpu", and "cuda" where torch sees a GPU. A CPU-only
    build of torch says so in its version file, which is read instead of importing torch (seconds),
    so a page that only shows the choice does not wait for it."""
    if "torch" not in sys.modules and not _gpu_build():
        return ("cpu",)
    import torch

    return ("cpu", "cuda") if torch.cuda.is_available() else ("cpu",)


def resolve_device(device: str) -> str:
    """The device a model loads on: `AUTO` becomes "cuda" where torch sees a GPU, else "cpu"; any
    other name as given. What manifests and run lists record is this, the device actually used."""
    if device != AUTO:
        return device
    return "cuda" if "cuda" in available_devices() else "cpu"


@functools.cache
def _gpu_build() -> bool:
    """Whether the installed torch was built for CUDA or ROCm (torch/version.py names a version);
    True when that cannot be read, so that torch itself is asked."""
    found = importlib.util.find_spec("torch")
    if found is None or not found.submodule_search_locations:
        return True
    try:
        tree = ast.parse((Path(next(iter(found.submodule_search_locations))) / "version.py").read_text())
    except (OSError, SyntaxError, ValueError):
        return True
    values = {node.target.id: node.value for node in tree.body
              if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}
    values |= {target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
               for target in node.targets if isinstance(target, ast.Name)}
    builds = [values.get(name) for name in ("cuda", "hip")]  # a name missing: cannot tell
    return any(v is None or not (isinstance(v, ast.Constant) and v.value is None) for v in builds)
