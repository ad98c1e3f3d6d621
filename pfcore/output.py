"""pfcore's JSON output: its layout where models are compared, shared by the command line (which
prints it: cli_common.print_envelope) and the app (whose downloads hold the same), and the writer that
keeps NaN and infinities out of every JSON text pfcore prints or saves."""
from __future__ import annotations

import json
from collections.abc import Sequence


def envelope(objects: Sequence[object]) -> object:
    """One model's JSON object as it is, several models' as {"results": [...]}, in their order."""
    return objects[0] if len(objects) == 1 else {"results": list(objects)}


def json_text(data: object, **options: object) -> str:
    """JSON as every reader takes it: a NaN or an infinity (which `json.dumps` writes as the bare `NaN`
    and `Infinity` no JSON parser accepts) is refused as a bug, never written."""
    return json.dumps(data, allow_nan=False, **options)  # type: ignore[arg-type]
