"""The page boundary: errors become one plain message, never a traceback (as the CLI's boundary
in pfcore.cli: pfcore's own errors are shown as they are, anything else as a bug to report)."""
from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from pfcore.errors import PfcoreError, environment_problem
from pfcore.ui.text import plain

log = logging.getLogger(__name__)


def message_for(exc: Exception) -> str:
    """What the user reads: pfcore's own message, or a short account of an unexpected error."""
    if isinstance(exc, PfcoreError):
        return str(exc)
    problem = environment_problem(exc)
    if problem is not None:
        return str(problem)
    text = str(exc).splitlines()[0] if str(exc) else ""
    return (f"Unexpected error ({type(exc).__name__}{': ' + text if text else ''}); please report it "
            "with the steps that led here.")


@contextmanager
def shown_errors() -> Iterator[None]:
    """Run a block of a page; any error ends the block with st.error, its message shown as text (it
    may quote a name from a link or an upload) and without server folders in public mode; the page
    goes on."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - the page boundary: no traceback reaches a user
        if not isinstance(exc, PfcoreError) and environment_problem(exc) is None:
            log.exception("unexpected error in the app")
        st.error(plain(message_for(exc)))
