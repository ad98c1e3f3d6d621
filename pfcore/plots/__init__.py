"""pfcore.plots."""
