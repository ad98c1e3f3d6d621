"""pfcore.items."""
