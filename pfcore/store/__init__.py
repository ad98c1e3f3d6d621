"""pfcore.store."""
