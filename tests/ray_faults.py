"""The Ray tests' fault injection: the shared local Ray instance (the `ray_instance` fixture) runs
`arm_worker` as each worker's setup hook, so that a test can end a worker mid-job, as a crash would."""
from __future__ import annotations

import os
from pathlib import Path

FAULTS = "PFCORE_TEST_SWEEP_FAULTS"  # the folder through which a test arms a worker's death


def arm_worker() -> None:
    """Ray's worker setup hook of the tests' instance: log each chunk a shard commits to its score
    cache, and, when <faults>/arm names a job, end the worker process (os._exit: no cleanup, as a
    crash) right after that job's Nth commit, once."""
    from pfcore.store.cache import ScoreCache

    folder = Path(os.environ[FAULTS])
    original = ScoreCache.put_many

    def put_many(self, rows) -> None:
        rows = list(rows)
        original(self, rows)
        job = self.path.parent.name
        with open(folder / "puts.log", "a") as log:
            log.write(f"{job} {len(rows)}\n")
        arm = folder / "arm"
        armed, after = arm.read_text().split() if arm.is_file() else ("", "0")
        if armed == job and len(commits(folder, job)) >= int(after):
            arm.unlink()
            (folder / "killed").write_text(str(os.getpid()))
            os._exit(1)

    ScoreCache.put_many = put_many


def commits(folder: Path, job: str) -> list[int]:
    """The size of each chunk a job's shard committed, from the workers' log."""
    log = folder / "puts.log"
    lines = log.read_text().splitlines() if log.is_file() else []
    return [int(n) for j, n in (line.split() for line in lines) if j == job]
