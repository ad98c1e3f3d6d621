"""Model specs and loading (the embedded default, local folders, GGUF files, hub ids)."""
from pfcore.models.loading import LoadedModel, clear_loaded, load_model
from pfcore.models.spec import DEFAULT_MODEL, ModelSpec

__all__ = ["DEFAULT_MODEL", "LoadedModel", "ModelSpec", "clear_loaded", "load_model"]
