"""Sweeps: a plan of models x checkpoints x suites fanned out on Ray, one task per (model,
revision), each writing a shard of its own that the driver merges into the main cache.

`plan` reads and validates the YAML plan, `jobs` is the Ray task, `merge` brings finished shards
into the score cache, the run records and the results table, `progress` shapes what the CLI and
the app show, and `driver` runs it all (`python -m pfcore sweep PLAN.yaml`)."""
