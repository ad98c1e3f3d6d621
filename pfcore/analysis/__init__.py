"""pfcore.analysis."""
