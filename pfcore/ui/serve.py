"""`python -m pfcore.ui.serve [streamlit options]`: serve the explorer (what `make app` runs).

The server starts a warm-up thread at once: it loads the default model and builds the scorer
every session shares, so that the import of torch and transformers, the load and the scorer's
one-time work overlap the browser connecting. The Home page does not wait for it (its sidebar says
the model is loading); a page that scores finds the model and its scorer ready, or waits for the
warm-up in progress instead of starting its own."""
from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from pfcore.models import ModelSpec
from pfcore.paths import REPO_ROOT
from pfcore.scoring.factory import shared_scorer
from pfcore.scoring.methods import text_method
from pfcore.scoring.requests import Request

APP = REPO_ROOT / "app.py"
WARM_UP_TEXT = "The explorer is getting ready."  # scored once, outside the score cache


def warm_up(spec: ModelSpec | None = None) -> None:
    """Load a model (the default), build the scorer the sessions share (its checks and word-start
    tokens) and run one text through it and its word variant; a failure is left for the page, which
    reports it in the sidebar."""
    spec = spec or ModelSpec()
    try:
        scorer = shared_scorer(spec, text_method(spec.kind))
        (scorer.bow_scorer() or scorer).score([Request("", WARM_UP_TEXT)])
    except Exception:  # noqa: BLE001 - the page shows the same failure with its message
        return


def use_app_navigation() -> None:
    """Make every first request run app.py's st.navigation. With a pages/ folder, streamlit runs a
    deep link (/Probe) on a fresh server as an old-style page with its own menu ("app" in it), until
    some visit to the home page runs st.navigation; this sets the flag that call would set."""
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False


def main(argv: Sequence[str] | None = None) -> int:
    """Start the warm-up, then streamlit on app.py with the given streamlit options."""
    threading.Thread(target=warm_up, name="pfcore-warm-up", daemon=True).start()
    use_app_navigation()
    from streamlit.web import cli as streamlit_cli

    sys.argv = ["streamlit", "run", str(Path(APP)), *(sys.argv[1:] if argv is None else argv)]
    return int(streamlit_cli.main() or 0)


if __name__ == "__main__":
    sys.exit(main())
