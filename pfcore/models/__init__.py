"""Model specs and loading (the embedded default, local folders, GGUF files, hub ids)."""
from pfcore.models.loading import LoadedModel
from pfcore.models.spec import DEFAULT_MODEL, ModelSpec

__all__ = ["DEFAULT_MODEL", "LoadedModel", "ModelSpec"]
