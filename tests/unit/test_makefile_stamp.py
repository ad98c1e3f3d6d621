"""The environment's stamp (issue 38): `make app` and `make test` rebuilt the virtual environment
whenever requirements.txt was newer than the stamp (a fresh copy, a `touch`), against the README's
"rebuilt only when requirements.txt changes". The stamp is named by the file's content alone now;
`make -n` in a copy of the Makefile shows what make would do, without doing it."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def planned(folder: Path) -> str:
    """What `make -n venv` would run in `folder` (nothing when the environment is up to date)."""
    done = subprocess.run(["make", "-n", "-s", "venv"], cwd=folder, capture_output=True, text=True, timeout=60,
                          check=True)
    return done.stdout


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """A copy of the Makefile and requirements.txt whose environment was built (its stamp made by make's own rule)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    for name in ("Makefile", "requirements.txt"):
        shutil.copy2(REPO / name, tmp_path / name)
    (tmp_path / ".venv").mkdir()
    stamp = subprocess.run(["make", "-s", "-f", "Makefile", "-f", "-", "print-stamp"], cwd=tmp_path, text=True,
                           input="print-stamp:\n\t@echo $(STAMP)\n", capture_output=True, check=True).stdout.strip()
    (tmp_path / stamp).touch()
    return tmp_path


def test_a_newer_requirements_file_of_the_same_content_rebuilds_nothing(built: Path) -> None:
    assert planned(built) == ""
    later = time.time() + 60
    os.utime(built / "requirements.txt", (later, later))  # a `touch`, or a fresh copy's time
    assert planned(built) == ""


def test_a_change_of_content_rebuilds_the_environment(built: Path) -> None:
    with (built / "requirements.txt").open("a") as handle:
        handle.write("# a change\n")
    assert "pip install" in planned(built)
