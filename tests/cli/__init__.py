"""Command-line tests: `pfcore COMMAND` end to end, its exit statuses and messages."""
