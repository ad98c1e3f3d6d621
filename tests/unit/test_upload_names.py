"""Upload names (issue 28): a name that cannot name a file is refused with its reason before anything
is written, so no message quotes the server's temporary folder, and a NUL is not reported as a bug."""
from __future__ import annotations

import tempfile

import pytest

from pfcore.errors import InputError
from pfcore.files import upload_name
from pfcore.store.published import uploaded_published
from pfcore.views.stimuli import stimuli_from_upload

REFUSED = {"..": "no name of its own", ".": "no name of its own", "": "no name of its own",
           "deep/..": "no name of its own", "a" * 300 + ".csv": "304 characters long", "x\x00.csv": "control character",
           "x\udcff.csv": "not text"}


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_name_that_cannot_name_a_file_is_refused(name: str) -> None:
    for read in (lambda: stimuli_from_upload(name, b"sentence\nThe key is here.\n"),
                 lambda: uploaded_published([(name, b"revision\tconstruction\n")], "ORG/tiny")):
        with pytest.raises(InputError, match=REFUSED[name]) as caught:
            read()
        assert tempfile.gettempdir() not in str(caught.value) and "rename the file" in str(caught.value)


def test_a_name_keeps_only_its_last_part() -> None:
    assert upload_name("../../etc/passwd.csv") == "passwd.csv" and upload_name("é" * 125 + ".csv") == "é" * 125 + ".csv"
    with pytest.raises(InputError, match="more than a file name may be"):
        upload_name("é" * 126 + ".csv")  # 256 bytes in UTF-8
