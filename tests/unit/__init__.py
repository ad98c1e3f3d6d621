"""Unit tests: one module of pfcore at a time, no app and no command line."""
