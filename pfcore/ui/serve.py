"""`python -m pfcore.ui.serve [--public] [streamlit options]`: serve the explorer (what `make app` runs;
`--public`, what `make app-public` runs, sets PFCORE_PUBLIC=1: public mode for a class server).

The server starts a warm-up thread at once: it loads the default model and builds the scorer
every session shares, so that the import of torch, the load and the scorer's one-time work are done
before a student asks for a score. It lets the first page come first (one process runs one thread
of Python at a time, so the two would slow each other down): it begins when a page that does not
wait for the model (Home) has been drawn, or after WARM_UP_AFTER_S at the latest when nobody comes.
Meanwhile it counts as a load under way, so the Home page does not wait for the model (its sidebar
says it is loading); a page that scores waits for the load (or does it, when it is opened first)."""
from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pfcore.deployment import PUBLIC_VAR, deployment
from pfcore.errors import InputError
from pfcore.files import MIB
from pfcore.models import ModelSpec
from pfcore.paths import REPO_ROOT
from pfcore.scoring.factory import scorer_for
from pfcore.scoring.kinds import kind_of
from pfcore.scoring.models import MODELS
from pfcore.scoring.requests import Request
from pfcore.ui.model import FIRST_PAGE

APP = REPO_ROOT / "app.py"
WARM_UP_TEXT = "The explorer is getting ready."  # scored once, outside the score cache
WARM_UP_AFTER_S = 5.0  # the longest the warm-up waits for a first page
PAGE_SETTLE_S = 0.5  # after a first page's script, the browser fetches its widgets' code from this server
POLL_S = 0.05
# Set by the server itself, whatever the working directory, the config files or STREAMLIT_* variables say
# (an option given on the command line still wins): no error text or traceback in the browser (the page
# boundary shows one line, the server's log the rest) and, in public mode, no table download of streamlit's
# own, whose CSV leaves formula cells as they are (every table's Download CSV button neutralises them).
# Streamlit's full garbage collection after every script run is off: it scanned every object of torch,
# the model and the pages at each click (0.1-0.3 s); Python's own collector still runs as it fills.
SETTINGS = {"client.showErrorDetails": "none", "runner.postScriptGC": "false"}
PUBLIC_SETTINGS = {"client.disableDataExport": "true"}


def warm_up(spec: ModelSpec | None = None, *, after: Callable[[], bool] | None = None,
            at_most_s: float = WARM_UP_AFTER_S, settle_s: float = 0.0) -> None:
    """Load a model (the deployment's first), build the scorer the sessions share (its checks and word-start
    tokens) and run one text through it and its word variant; with `after`, first wait until it
    says yes (at most `at_most_s`) and `settle_s` more, the load counting as under way meanwhile
    (torch's import holds Python's lock for up to 0.25 s at a time, which would hold up the server's
    answers to the browser drawing the first page). A failure is left for the page, which reports
    it in the sidebar."""
    spec = spec or ModelSpec()
    with MODELS.promised(spec):
        deadline = time.monotonic() + at_most_s
        while after is not None and not after() and time.monotonic() < deadline:
            time.sleep(POLL_S)
        if after is not None and after():
            time.sleep(settle_s)
        try:
            scorer = scorer_for(spec, kind_of(spec.kind).text_method)
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
    """Check the deployment settings (exit 2 with the reason when one is bad; `--public` turns
    public mode on), start the warm-up, then streamlit on app.py with SETTINGS (and PUBLIC_SETTINGS)
    before the other options, which win where they set the same."""
    options = list(sys.argv[1:] if argv is None else argv)
    if "--public" in options:
        options = [o for o in options if o != "--public"]
        os.environ[PUBLIC_VAR] = "1"
    try:
        policy = deployment()
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if policy.hardens_server and not any(o.startswith("--server.maxUploadSize") for o in options):
        options.append(f"--server.maxUploadSize={max(1, policy.upload_cap // MIB)}")  # streamlit refuses more
    settings = SETTINGS | (PUBLIC_SETTINGS if policy.hardens_server else {})
    first = ModelSpec().with_label(policy.first_label())
    threading.Thread(target=warm_up, args=(first,), name="pfcore-warm-up", daemon=True,
                     kwargs={"after": FIRST_PAGE.is_set, "settle_s": PAGE_SETTLE_S}).start()
    use_app_navigation()
    from streamlit.web import cli as streamlit_cli

    sys.argv = ["streamlit", "run", str(Path(APP)), *(f"--{k}={v}" for k, v in settings.items()), *options]
    return int(streamlit_cli.main() or 0)


if __name__ == "__main__":
    sys.exit(main())
