"""`make test` runs on two pytest-xdist workers with `--dist loadgroup`, and the tests that must not run
beside each other (one live app server per browser module, one local Ray at a time) carry an
`xdist_group` mark. With pytest 9.2.0 and xdist 3.8.0 the mark was silently ignored (xdist issue
1386: the group suffix of the node id no longer takes effect): the browser modules started their
servers on both workers and two Rays could run at once. requirements.txt pins a pytest that honours it;
this test runs a tiny suite as `make test` does and fails where a group is split."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

GROUPED = '''
import os, pytest, time
pytestmark = pytest.mark.xdist_group("together")

@pytest.mark.parametrize("i", range(6))
def test_grouped(i):
    time.sleep(0.1)
    print("worker", os.environ["PYTEST_XDIST_WORKER"])
'''
LOOSE = '''
import pytest, time

@pytest.mark.parametrize("i", range(6))
def test_loose(i):
    time.sleep(0.1)
'''


def test_an_xdist_group_runs_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "test_grouped.py").write_text(GROUPED)
    (tmp_path / "test_loose.py").write_text(LOOSE)
    # pytest and xdist alone (the other plugins, hypothesis's and anyio's, schedule nothing): 1 s, not 5
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "xdist", "-n", "2", "--dist", "loadgroup", "-v",
                           "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": "", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    workers = set(re.findall(r"\[(gw\d)\] .*PASSED .*test_grouped", done.stdout))
    assert len(re.findall(r"PASSED .*test_grouped", done.stdout)) == 6
    assert len(workers) == 1, f"the group ran on {sorted(workers)}"
