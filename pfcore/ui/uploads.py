"""What an upload widget says it takes: the cap of the files it reads, not Streamlit's 200 MB."""
from __future__ import annotations

import math

import streamlit as st

from pfcore.files import MIB, FileKind


def upload_megabytes(*kinds: FileKind) -> int:
    """The most megabytes a file uploader takes (the widget shows it and refuses more in the browser):
    the largest cap of the kinds of file it reads, rounded up to its unit, and no more than the server
    takes (`server.maxUploadSize`, a class server's upload cap)."""
    server = int(st.get_option("server.maxUploadSize"))
    return max(1, min(server, math.ceil(max(kind.cap for kind in kinds) / MIB)))
