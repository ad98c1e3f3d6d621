"""A sweep that pfcore starts on a local Ray instance leaves no process behind when it is interrupted
(Ctrl-C or SIGTERM): the driver runs in a subprocess with a Ray temp folder of its own, and every
process of THAT Ray session (found by the folder in its command line, and their descendants, whose
titles name no folder) must be gone soon after. Other Ray instances on the machine are not looked at.
The helpers of pfcore.sweep.processes are tested on plain child processes, without Ray."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from pfcore.sweep.processes import end, family, ray_children, signals_held, terminate_as_interrupt

pytestmark = pytest.mark.xdist_group("ray")  # one worker: one local Ray at a time

ROOT = Path(__file__).resolve().parents[2]
SLEEPER = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)"
# `python -m pfcore` with Ctrl-C's usual handler: a command started in the background of a shell script
# (`make test &`) begins with SIGINT ignored, and so would every process it starts
DRIVER = [sys.executable, "-c", "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
          "sys.argv[0] = 'pfcore'; runpy.run_module('pfcore', run_name='__main__', alter_sys=True)"]
START_S = 240  # Ray's start and a worker importing torch, on a busy 2-core machine
GONE_S = 15  # after the driver exits: its processes end, and the system reaps the orphans


@pytest.fixture()
def ray_temp() -> Iterator[Path]:
    """A Ray temp folder unique to the test, short enough for Ray's socket paths (107 bytes); what
    a failed test left running there is killed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="pfray-", dir="/tmp"))
    yield folder
    for process in session_processes(folder):
        with contextlib.suppress(psutil.Error):
            process.kill()
    shutil.rmtree(folder, ignore_errors=True)


def session_processes(temp: Path) -> list[psutil.Process]:
    """The running processes of the Ray session under `temp`: those whose command line names the
    folder (GCS, raylet, monitors) and their descendants (agents and workers)."""
    roots = []
    for process in psutil.process_iter():
        try:
            if any(str(temp) in part for part in process.cmdline()):
                roots.append(process)
        except psutil.Error:
            continue
    return running(family(roots))


def running(processes: list[psutil.Process]) -> list[psutil.Process]:
    """Those still running (a zombie waiting to be reaped has ended)."""
    alive = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.Error:
            continue
    return alive


def wait_for_jobs(temp: Path, driver: subprocess.Popen[str]) -> list[psutil.Process]:
    """The session's processes once a sweep job runs in one of them (its title names the job)."""
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline and driver.poll() is None:
        processes = session_processes(temp)
        with_titles = [" ".join(p.cmdline()) for p in processes if p.is_running()]
        if any(title.startswith("ray::pfcore-sweep") for title in with_titles):
            return processes
        time.sleep(0.5)
    raise AssertionError(f"no sweep job started within {START_S} s (driver exit status {driver.poll()})")


def gone_within(processes: list[psutil.Process], seconds: float) -> list[psutil.Process]:
    """The processes still running after waiting up to `seconds` for them to end."""
    deadline = time.monotonic() + seconds
    while running(processes) and time.monotonic() < deadline:
        time.sleep(0.2)
    return running(processes)


@pytest.mark.slow  # a real local Ray whose workers import torch
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_sweep_leaves_no_ray_process_behind(sig: signal.Signals, checkpoint_series: Path,
                                                           cache_dir: Path, ray_temp: Path, tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"  # every semantic block: the jobs run long enough to be interrupted
    plan.write_text(f"name: interrupted\nsuites: [semantic]\nresources: {{cpus: 1}}\n"
                    f"models:\n  - checkpoint-dir: {checkpoint_series}\n    name: tiny-series\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_TMPDIR": str(ray_temp)}
    driver = subprocess.Popen([*DRIVER, "sweep", str(plan)], cwd=ROOT, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        session = wait_for_jobs(ray_temp, driver)
        titles = {p.pid: " ".join(p.cmdline()) for p in session}
        driver.send_signal(sig)
        _, err = driver.communicate(timeout=120)
    finally:
        if driver.poll() is None:
            driver.kill()
    left = gone_within(session, GONE_S)
    assert not left, f"left running: {[titles.get(p.pid, p.pid) for p in left]}"
    assert not session_processes(ray_temp)
    assert any(title.startswith("ray::DashboardAgent") for title in titles.values())  # the ones that used to stay
    assert driver.returncode == 130 and "interrupted" in err, (driver.returncode, err[-2000:])


def sleeper(*args: str) -> subprocess.Popen[bytes]:
    """A child process that ignores SIGTERM and sleeps, as Ray's agents do."""
    return subprocess.Popen([sys.executable, "-c", SLEEPER, *args])


def test_end_waits_the_grace_then_kills_what_is_left() -> None:
    child = sleeper()
    try:
        process = psutil.Process(child.pid)
        started = time.monotonic()
        killed = end([process], grace_s=0.5)
        assert [p.pid for p in killed] == [child.pid]
        assert killed[0].returncode == -signal.SIGKILL  # end() reaped its own child
        assert 0.5 <= time.monotonic() - started < 5
    finally:
        child.kill()


def test_ray_children_are_the_new_children_running_rays_programs() -> None:
    import ray

    before = {p.pid for p in psutil.Process().children()}
    plain, rays = sleeper(), sleeper(str(Path(ray.__file__).parent / "core" / "fake-raylet"))
    try:
        assert [p.pid for p in ray_children(before)] == [rays.pid]
        assert ray_children(before | {rays.pid}) == []
    finally:
        plain.kill()
        rays.kill()
        plain.wait()
        rays.wait()


def test_sigterm_interrupts_as_ctrl_c_inside_the_block_only() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), terminate_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises here, at once
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_signal_during_the_clean_up_waits_for_its_end() -> None:
    finished = []
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C's usual handler, whatever we got
    try:
        with pytest.raises(KeyboardInterrupt), signals_held():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
            finished.append(True)
        assert finished == [True]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # what was there before, again
    finally:
        signal.signal(signal.SIGINT, inherited)
