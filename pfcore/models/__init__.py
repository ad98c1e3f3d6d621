"""pfcore.models."""
