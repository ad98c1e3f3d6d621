"""Browser tests: the served app driven in a real headless chromium."""
