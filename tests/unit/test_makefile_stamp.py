"""The environment's stamp (issue 38): `make app` and `make test` rebuilt the virtual environment
whenever requirements.txt was newer than the stamp (a fresh copy, a `touch`), against the README's
"rebuilt only when requirements.txt changes". The stamp is named by the file's content alone now;
`make -n` in a copy of the Makefile shows what make would do, without doing it."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
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


def test_the_environment_writes_the_bytecode_of_what_it_imports(built: Path,
                                                                tmp_path_factory: pytest.TempPathFactory) -> None:
    """pip installs without compiling (compiling all 22,000 installed modules took 39 s), so the line
    `make` puts in the environment lets its processes write bytecode as they import, even where
    PYTHONDONTWRITEBYTECODE is set: else every process would compile torch and the rest again."""
    with (built / "requirements.txt").open("a") as handle:
        handle.write("# a change\n")
    line = re.search(r"echo '(import sys;[^']*)' >[\s\\]*\".*/pfcore-writes-bytecode\.pth\"", planned(built))
    assert line, "make no longer writes the environment's bytecode line"
    site, code = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp("code")
    (site / "pfcore-writes-bytecode.pth").write_text(line.group(1) + "\n")
    (code / "imported_once.py").write_text("VALUE = 1\n")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(code)}
    for sites, written in (([], False), ([str(site)], True)):
        program = f"import site; [site.addsitedir(s) for s in {sites!r}]; import imported_once"
        subprocess.run([sys.executable, "-S", "-c", program], env=env, check=True, timeout=60)  # -S: no site yet
        assert (code / "__pycache__").is_dir() == written
