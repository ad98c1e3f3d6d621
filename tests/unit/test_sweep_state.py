"""A sweep's run state keyed by what changes the numbers (issue 19), without Ray: job ids come from
the settings that change results (one function with trajectories), and a job merged before whose
checkpoint's weights changed runs again, in its shard too, its earlier rows leaving the table."""
from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pfcore.paths import models_dir
from pfcore.store.results import load_results
from pfcore.sweep.jobs import DONE, finished_suites, plan_jobs, run_job, shard_folder
from pfcore.sweep.merge import merge_shard, merged_before, remember
from pfcore.sweep.plan import load_plan

SUITES = ["semantic"]


@pytest.fixture()
def series(checkpoint_series: Path, tmp_path: Path) -> Path:
    """step0 and step8 copied for this test, so a weight file may change."""
    out = tmp_path / "series"
    for step in ("step0", "step8"):
        shutil.copytree(checkpoint_series / step, out / step)
    return out


@pytest.fixture()
def torch_threads() -> Iterator[None]:
    """run_job sets torch's threads to the job's CPUs: give the test process its own back after."""
    import torch

    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def plan_file(folder: Path, series: Path, settings: str = "{limit-blocks: 1, constructions: [let_alone]}") -> Path:
    """A plan over the series: the semantic suite with these settings."""
    path = folder / "plan.yaml"
    path.write_text(f"name: tiny\nsuites:\n  semantic: {settings}\nresources: {{cpus: 1}}\n"
                    f"models:\n  - checkpoint-dir: {series}\n    name: tiny-series\n")
    return path


def test_job_ids_follow_the_settings_as_the_suite_resolves_them(series: Path, tmp_path: Path) -> None:
    """The causal default named or left out, constructions in any order: the same numbers, the same
    job (before: each spelling was a job of its own, run and merged again)."""
    ids = [j.id for j in plan_jobs(load_plan(plan_file(tmp_path, series,
                                                       "{limit-blocks: 1, constructions: [let_alone, much_less]}")))]
    same = plan_file(tmp_path, series, "{limit-blocks: 1, scoring: causal, constructions: [much_less, let_alone]}")
    assert [j.id for j in plan_jobs(load_plan(same))] == ids
    other = plan_file(tmp_path, series, "{limit-blocks: 1, bos: true, constructions: [let_alone, much_less]}")
    assert not set(ids) & {j.id for j in plan_jobs(load_plan(other))}


def test_a_merged_job_whose_weights_changed_runs_again(series: Path, cache_dir: Path, tmp_path: Path,
                                                       checkpoint_series: Path, torch_threads: None) -> None:
    """Before: a job merged before was skipped whatever its checkpoint now held, and its shard's
    ledger skipped the suites it had finished."""
    jobs = plan_jobs(load_plan(plan_file(tmp_path, series)))
    out = tmp_path / "sweep"
    for job in jobs:  # what the driver does with each job, in this process
        assert run_job(job, str(shard_folder(out, job)), str(models_dir())).status == DONE
        remember(job, merge_shard(shard_folder(out, job), SUITES))
    assert merged_before(jobs) == {job.id: "" for job in jobs}

    shutil.copy(checkpoint_series / "step32" / "model.safetensors", series / "step8" / "model.safetensors")
    before = merged_before(jobs)
    step0, step8 = jobs
    assert before[step0.id] == "" and before[step8.id].startswith("run again: weights changed (sha256 ")
    shard = shard_folder(out, step8)
    first = finished_suites(shard)
    assert run_job(step8, str(shard), str(models_dir())).status == DONE
    assert finished_suites(shard) != first  # the shard ran the suite again on the new weights
    remember(step8, merge_shard(shard, SUITES))
    assert merged_before(jobs) == {job.id: "" for job in jobs}
    table = load_results()
    rows = table[(table["model"] == "tiny-series") & (table["revision"] == "step8")]
    assert rows["weights_sha256"].nunique() == 1 and set(rows["source"]) == {
        f"pfcore run {name}" for name in finished_suites(shard).values()}
