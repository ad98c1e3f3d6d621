"""Tests that need a CUDA device (skipped where torch sees none)."""
