"""pfcore.suites."""
