"""`python -m pfcore.ui.serve [--public] [streamlit options]`: serve the explorer (what `make app` runs;
`--public`, what `make app-public` runs, sets PFCORE_PUBLIC=1: public mode for a class server).

The server starts loading the default model in a background thread at once, so that the import of
torch and transformers and the load overlap the browser connecting; the page's own loader then
finds the model loaded (or waits for the load in progress) instead of starting it."""
from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from pfcore.errors import InputError
from pfcore.models import load_model
from pfcore.paths import MIB, REPO_ROOT
from pfcore.suites.deployment import PUBLIC_VAR, deployment

APP = REPO_ROOT / "app.py"


def warm_up() -> None:
    """Load the default model into the process's model cache; a failure is left for the page,
    which reports it in the sidebar."""
    try:
        load_model(deployment().first_model())
    except Exception:  # noqa: BLE001 - the page shows the same failure with its message
        return


def use_app_navigation() -> None:
    """Make every first request run app.py's st.navigation. With a pages/ folder, streamlit runs a
    deep link (/Probe) on a fresh server as an old-style page with its own menu ("app" in it), until
    some visit to the home page runs st.navigation; this sets the flag that call would set."""
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False


def main(argv: Sequence[str] | None = None) -> int:
    """Check the deployment settings (exit 2 with the reason when one is bad; `--public` turns
    public mode on), start the warm-up, then streamlit on app.py with the other options."""
    options = list(sys.argv[1:] if argv is None else argv)
    if "--public" in options:
        options = [o for o in options if o != "--public"]
        os.environ[PUBLIC_VAR] = "1"
    try:
        policy = deployment()
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if policy.public and not any(o.startswith("--server.maxUploadSize") for o in options):
        options.append(f"--server.maxUploadSize={max(1, policy.upload_cap // MIB)}")  # streamlit refuses more
    threading.Thread(target=warm_up, name="pfcore-warm-up", daemon=True).start()
    use_app_navigation()
    from streamlit.web import cli as streamlit_cli

    sys.argv = ["streamlit", "run", str(Path(APP)), *options]
    return int(streamlit_cli.main() or 0)


if __name__ == "__main__":
    sys.exit(main())
