"""pfcore.ui."""
