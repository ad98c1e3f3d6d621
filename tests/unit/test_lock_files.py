"""Lock files are never opened through what someone planted at their name (issue 38): a symbolic
link, a hard link or a FIFO at a lock's predictable name in a shared folder is refused with one
line, and what it leads to keeps every byte."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from pfcore.errors import InputError
from pfcore.files import locked


def test_a_symbolic_link_at_the_locks_name_is_refused_and_its_target_kept(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "x.lock").symlink_to(victim)
    with pytest.raises(InputError, match="is a symbolic link; pfcore does not follow it"), \
            locked(tmp_path / "x.lock", holder="a test"):
        pass
    assert victim.read_text() == "precious\n"


def test_a_hard_link_at_the_locks_name_is_refused_and_its_file_kept(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    os.link(victim, tmp_path / "x.lock")
    with pytest.raises(InputError, match="hard link"), locked(tmp_path / "x.lock", holder="a test"):
        pass
    assert victim.read_text() == "precious\n"


def test_a_fifo_at_the_locks_name_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.lock")
    with pytest.raises(InputError, match="not a plain file"), locked(tmp_path / "x.lock", holder="a test"):
        pass


def test_a_plain_lock_names_its_holder_and_is_taken_again_after(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    lock.write_text("pid 1: an older holder, since then, and a longer line than the new one")
    with locked(lock, holder="a test"):
        assert lock.read_text().startswith(f"pid {os.getpid()}: a test, since ")
    with locked(lock, wait=False):
        pass
