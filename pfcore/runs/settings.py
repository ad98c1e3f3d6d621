"""The settings of a run that change its numbers, listed once: what a trajectory's "done" entries and
a sweep's job ids are keyed by, so that a rerun with anything different runs again and says what
changed, while one that changes nothing (a chunk size, the cache switch) is served from what is done."""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pfcore.models.spec import ModelSpec
from pfcore.store.manifest import Manifest, item_set_hash
from pfcore.suites.base import RunConfig
from pfcore.suites.registry import get_suite

NO_EFFECT = ("password", "out", "chunk", "use_cache", "shared")  # RunConfig fields that change no number


def run_settings(spec: ModelSpec, config: RunConfig) -> dict[str, Any]:
    """Every setting of (model, run) that changes the numbers, as plain JSON values, found without
    loading anything: the run's fields but NO_EFFECT, the scoring method and reduction as the suite
    resolves them, and the model's name (none for a local path: its weights name it), revision, dtype
    and kind. The device is left out, as the score cache leaves it out."""
    suite = get_suite(config.suite)
    method = suite.method(spec, config.scoring)
    run = {k: v for k, v in asdict(config).items() if k not in NO_EFFECT}
    run |= {"constructions": sorted(config.constructions), "scoring": method.value,
            "reduction": str(suite.reduction(config, method))}
    model = {"model": None if _is_path(spec.name) else spec.name, "revision": spec.revision, "dtype": spec.dtype,
             "kind": spec.kind, "trust_remote_code": spec.trust_remote_code}
    return json.loads(json.dumps({**run, **model}))  # as a stored entry reads back


def manifest_settings(manifest: Manifest) -> dict[str, Any]:
    """`run_settings` of the run a manifest records (its settings are the RunConfig's fields)."""
    known = set(RunConfig.__dataclass_fields__) - set(NO_EFFECT)
    fields = {k: v for k, v in manifest.settings.items() if k in known}
    fields["constructions"] = tuple(fields.get("constructions") or ())
    m = manifest.model
    spec = ModelSpec(m.name, m.revision, m.dtype, m.device, m.kind, m.trust_remote_code)
    return run_settings(spec, RunConfig(**{**fields, "suite": manifest.suite}))


def item_set(config: RunConfig) -> str:
    """The digest of the items a run of `config` scores (as its manifest records it); loads them."""
    suite = get_suite(config.suite)
    return item_set_hash(suite.item_ids(suite.load(config)))


def changes(before: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """What differs between two `run_settings`, in words ("limit_blocks was 1, now 2")."""
    keys = [*now, *(k for k in before if k not in now)]
    return [f"{k} was {_shown(before.get(k))}, now {_shown(now.get(k))}" for k in keys if before.get(k) != now.get(k)]


def weights_change(before: str, now: str) -> str:
    """How two weight identities (`models.identity.weights_identity`) differ, in words; '' unless both
    are known and unequal ('' on either side cannot tell, so what was done stands)."""
    return f"weights changed (sha256 {before[:12]}..., now {now[:12]}...)" if before and now and before != now else ""


def _shown(value: Any) -> str:
    """A setting's value as a user reads it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list):
        return f"[{', '.join(map(str, value))}]"
    return "none" if value is None else str(value)


def _is_path(name: str) -> bool:
    """Whether a model name is a local path (a folder or a .gguf file) rather than a hub id or the default."""
    return name.startswith((".", "/", "~")) or name.endswith(".gguf") or Path(name).expanduser().exists()
