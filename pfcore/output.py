"""The layout of pfcore's JSON output where models are compared, shared by the command line (which
prints it: cli_common.print_envelope) and the app (whose downloads hold the same)."""
from __future__ import annotations

from collections.abc import Sequence


def envelope(objects: Sequence[object]) -> object:
    """One model's JSON object as it is, several models' as {"results": [...]}, in their order."""
    return objects[0] if len(objects) == 1 else {"results": list(objects)}
