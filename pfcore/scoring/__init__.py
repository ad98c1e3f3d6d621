"""pfcore.scoring."""
