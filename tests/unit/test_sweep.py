"""Sweeps on a real local Ray instance (the session's `ray_instance`: 2 CPUs, no dashboard) over the
tiny GPT-2 checkpoint series (the session's `checkpoint_series`: steps 0/8/32), semantic and
syntactic suites on 3 blocks: the merged results equal a sequential
trajectory; a rerun scores nothing; a worker killed mid-job is retried and rescores only what it
had not committed; a bad model fails alone; Ctrl-C cancels and the next run resumes. Plan
validation is tested without Ray."""
from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path

import pandas as pd
import pytest

from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.models import ModelSpec
from pfcore.runs.checkpoints import checkpoints
from pfcore.runs.trajectory import run_trajectory
from pfcore.scoring.models import MODELS
from pfcore.store.cache import TABLE
from pfcore.store.result_rows import RESULT_COLUMNS
from pfcore.store.results import load_results
from pfcore.store.runs import list_runs
from pfcore.suites.base import RunConfig
from pfcore.sweep.driver import run_sweep
from pfcore.sweep.jobs import DONE, FAILED, PID_FILE, SKIPPED, plan_jobs, shard_folder
from pfcore.sweep.merge import merge_shard
from pfcore.sweep.plan import load_plan
from pfcore.sweep.progress import SweepProgress
from tests.hub_cache import HubSeries
from tests.ray_faults import commits

pytestmark = pytest.mark.xdist_group("ray")  # one worker: one local Ray at a time

ROOT = Path(__file__).resolve().parents[2]
NAME = "tiny-series"
SUITES = ["semantic", "syntax"]
BLOCKS = 3
KEYS = [c for c in RESULT_COLUMNS if c != "source"]


@pytest.fixture(scope="module")
def sequential(checkpoint_series: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[pd.DataFrame, set[str]]:
    """The sequential path: `run_trajectory` over the series; its results rows and score keys."""
    with pytest.MonkeyPatch.context() as mp:
        cache = tmp_path_factory.mktemp("sequential")
        mp.setenv("PFCORE_CACHE", str(cache))
        run_trajectory(NAME, checkpoints(ModelSpec(), None, str(checkpoint_series)), SUITES,
                       RunConfig(limit_blocks=BLOCKS), report=lambda _msg: None)
        return rows(load_results()), score_keys(cache)


def rows(table: pd.DataFrame) -> pd.DataFrame:
    """The results rows without their source (run ids differ between two runs), in a fixed order."""
    return table[KEYS].sort_values(KEYS[:-1]).reset_index(drop=True)


def whole(table: pd.DataFrame) -> pd.DataFrame:
    """The results table with its sources, in a fixed order (a re-merge may append in another order)."""
    return table.sort_values(list(RESULT_COLUMNS)).reset_index(drop=True)


def score_keys(cache: Path) -> set[str]:
    """Every request key in a cache folder's score cache."""
    with sqlite3.connect(cache / "scores.sqlite") as conn:
        return {k for (k,) in conn.execute(f"SELECT key FROM {TABLE}")}


def write_plan(folder: Path, series: Path, chunk: int = 2048, extra: str = "") -> Path:
    """A plan over the series (semantic and syntax on BLOCKS blocks), plus extra model entries."""
    path = folder / "plan.yaml"
    settings = f"{{limit-blocks: {BLOCKS}, chunk: {chunk}}}"
    path.write_text(f"name: tiny\nsuites:\n  semantic: {settings}\n  syntax: {settings}\n"
                    f"resources: {{cpus: 1}}\nretries: 2\n"
                    f"models:\n  - checkpoint-dir: {series}\n    name: {NAME}\n{extra}")
    return path


def cpus_back(ray, timeout: float = 20.0) -> bool:
    """Whether both CPUs are free again within the timeout (no task left running)."""
    deadline = time.monotonic() + timeout
    while ray.available_resources().get("CPU", 0) < 2:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


# ----- the plan, without Ray -----

def test_the_papers_plan_reads_as_152_jobs_with_stable_ids() -> None:
    plan = load_plan(ROOT / "docs" / "plans" / "pythia-paper.yaml")
    jobs = plan_jobs(plan)
    assert len(jobs) == 8 * 19 and len({j.id for j in jobs}) == len(jobs)
    assert [c.suite for c in plan.suites] == ["semantic", "syntax", "blimp", "comps", "ewok"]
    assert jobs[0].label == "EleutherAI/pythia-70m@step1" and jobs[0].resources.gpus == 0
    assert jobs[-1].point.spec.dtype == "bfloat16" and jobs[-1].point.spec.device == "cuda"
    assert [j.id for j in plan_jobs(load_plan(ROOT / "docs" / "plans" / "pythia-paper.yaml"))] == [j.id for j in jobs]
    assert len(plan_jobs(load_plan(ROOT / "docs" / "plans" / "example.yaml"))) == 1


def test_job_ids_change_with_settings_not_with_chunk(checkpoint_series: Path, tmp_path: Path) -> None:
    ids = [j.id for j in plan_jobs(load_plan(write_plan(tmp_path, checkpoint_series)))]
    assert ids == [j.id for j in plan_jobs(load_plan(write_plan(tmp_path, checkpoint_series, chunk=8)))]
    path = tmp_path / "plan.yaml"
    path.write_text(path.read_text().replace("limit-blocks: 3", "limit-blocks: 2"))
    assert not set(ids) & {j.id for j in plan_jobs(load_plan(path))}
    assert ids[0].startswith(f"{NAME}-step0-")


@pytest.mark.parametrize("text, expected", [
    ("suites: [semantic]\nmodels:\n  - model: org/m\n    revisions: 7\n",
     "plan.yaml:4: models[0].revisions: (org/m) expected a non-empty list"),
    ("suites: {semantic: {limit-blocks: 0}}\nmodels: [{model: org/m}]\n",
     "plan.yaml:1: suites.semantic.limit-blocks: expected a whole number of at least 1, found a smaller one"),
    ("suites: {semantics: }\nmodels: [{model: org/m}]\n", "suites.semantics: unknown suite"),
    ("suites: [semantic]\nmodels:\n  - {model: org/m, checkpoint-dir: x}\n", "models[0]: (org/m) give either `model`"),
    ("suites: [affinity]\nmodels:\n  - {model: org/m, name: mine}\n",
     "models[0].kind: (mine) the affinity suite needs a masked model"),
    ("suites: [semantic]\nmodels:\n  - {model: org/m, resources: {cpus: 0}}\n",
     "models[0].resources.cpus: (org/m) expected a number above 0"),
    ("suites: [semantic]\nmodels:\n  - {model: org/m, revison: step1}\n",
     "plan.yaml:3: models[0]: (org/m) unknown key"),
    ("suites: [semantic]\nmodels:\n  - {checkpoint-dir: /no/such/folder, name: x}\n",
     "models[0].checkpoint-dir: (x) checkpoint folder not found: /no/such/folder"),
    ("suites: [semantic]\nmodels:\n  - {model: org/m, revisions: [step1]}\n  - {model: org/m, revisions: [step1]}\n",
     "org/m at revision step1 appears twice"),
    ("suites: [semantic]\nmodels:\n  - &m {model: org/m}\n  - *m\n", "plan.yaml:3: anchors and aliases"),
    ("suites: [semantic]\n1: x\nmodels: [{model: org/m}]\n", "a key must be text"),
    ("- just a list\n", "a sweep plan is a mapping with `suites` and `models`"),
])
def test_bad_plans_name_the_file_line_model_and_field(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "plan.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_plan(path)
    assert expected in str(caught.value)
    assert str(path) in str(caught.value)


def test_bad_plan_file_is_one_line_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", str(tmp_path / "missing.yaml")]) == 2
    assert "cannot read the sweep plan" in capsys.readouterr().err


def test_an_address_where_nothing_answers_is_one_line(checkpoint_series: Path, cache_dir: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    plan = str(write_plan(tmp_path, checkpoint_series))
    assert main(["sweep", plan, "--address", "127.0.0.1:1"]) == 2
    assert "nothing answers at 127.0.0.1:1" in capsys.readouterr().err
    assert main(["sweep", plan, "--address", "head-node"]) == 2
    assert "--address must be 'auto' or HOST:PORT" in capsys.readouterr().err


# ----- sweeps on Ray -----

@pytest.mark.slow  # a real local Ray: workers import torch
def test_sweep_equals_the_sequential_trajectory_and_a_rerun_scores_nothing(
        ray_instance, checkpoint_series: Path, sequential: tuple[pd.DataFrame, set[str]], cache_dir: Path,
        tmp_path: Path) -> None:
    plan = load_plan(write_plan(tmp_path, checkpoint_series))
    seen: list[SweepProgress] = []
    summary = run_sweep(plan, on_update=seen.append)
    assert [r.status for r in summary.reports] == [DONE] * 3, summary.reports
    expected_rows, expected_keys = sequential
    pd.testing.assert_frame_equal(rows(load_results()), expected_rows)
    assert score_keys(cache_dir) == expected_keys
    assert summary.scores == len(expected_keys) and seen[-1].headline().startswith("3 of 3 jobs finished")
    runs = sorted(r.path.name for r in list_runs())
    assert len(runs) == 6  # the shards' run records, copied so the app lists them

    table = whole(load_results())
    for job in plan_jobs(plan):  # merging a shard twice changes nothing
        merge_shard(shard_folder(Path(summary.out), job), SUITES)
    pd.testing.assert_frame_equal(whole(load_results()), table)
    assert score_keys(cache_dir) == expected_keys and sorted(r.path.name for r in list_runs()) == runs

    again = run_sweep(plan)
    assert [r.status for r in again.reports] == [SKIPPED] * 3 and again.scores == 0
    assert sorted(r.path.name for r in list_runs()) == runs
    pd.testing.assert_frame_equal(whole(load_results()), table)


@pytest.mark.slow  # a real local Ray: workers import torch
def test_a_worker_killed_mid_job_is_retried_and_rescoring_only_what_is_missing(
        ray_instance, checkpoint_series: Path, sequential: tuple[pd.DataFrame, set[str]], sweep_faults: Path,
        cache_dir: Path, tmp_path: Path) -> None:
    plan = load_plan(write_plan(tmp_path, checkpoint_series, chunk=8))
    target = plan_jobs(plan)[1]  # step8
    (sweep_faults / "puts.log").unlink(missing_ok=True)
    (sweep_faults / "arm").write_text(f"{target.id} 3")
    summary = run_sweep(plan)
    assert [r.status for r in summary.reports] == [DONE] * 3, summary.reports
    assert not (sweep_faults / "arm").exists(), "the worker was never killed"
    shard = shard_folder(Path(summary.out), target)
    assert (shard / PID_FILE).read_text() != (sweep_faults / "killed").read_text()  # the retry ran elsewhere
    scored = commits(sweep_faults, target.id)
    assert sum(scored) == len(score_keys(shard)) > sum(scored[:3])  # nothing committed was scored again
    table = load_results()
    pd.testing.assert_frame_equal(rows(table), sequential[0])
    assert not table.duplicated(KEYS[:-1]).any()


@pytest.mark.slow  # a real local Ray: workers import torch
def test_a_bad_model_fails_alone_with_its_reason(ray_instance, checkpoint_series: Path, cache_dir: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    shutil.copy(checkpoint_series / "step0" / "config.json", broken)
    (broken / "model.safetensors").write_bytes(b"not a safetensors file")
    plan = write_plan(tmp_path, checkpoint_series, extra=f"  - model: {broken}\n    name: broken\n")
    assert main(["sweep", str(plan), "--json"]) == 2
    out = capsys.readouterr()
    summary = json.loads(out.out)
    assert [j["label"] for j in summary["done"]] == [f"{NAME}@step0", f"{NAME}@step8", f"{NAME}@step32"]
    assert [j["label"] for j in summary["failed"]] == ["broken@main"]
    assert str(broken) in summary["failed"][0]["reason"]
    assert "1 of 4 jobs failed" in out.err
    assert set(load_results()["model"]) == {NAME}


@pytest.mark.slow  # a real local Ray: workers import torch
def test_an_interrupted_sweep_cancels_its_jobs_and_the_next_run_resumes(
        ray_instance, checkpoint_series: Path, sequential: tuple[pd.DataFrame, set[str]], cache_dir: Path,
        tmp_path: Path) -> None:
    plan = load_plan(write_plan(tmp_path, checkpoint_series))

    def stop_after_first(progress: SweepProgress) -> None:
        if progress.count(DONE):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_sweep(plan, on_update=stop_after_first)
    assert cpus_back(ray_instance), "the cancelled jobs still hold their CPUs"
    summary = run_sweep(plan)
    statuses = [r.status for r in summary.reports]
    assert statuses.count(SKIPPED) >= 1 and FAILED not in statuses
    pd.testing.assert_frame_equal(rows(load_results()), sequential[0])


@pytest.mark.slow  # a real local Ray: workers import torch
def test_a_sweep_over_hub_revisions_loads_them_offline_in_the_workers(
        ray_instance, hub_series: HubSeries, cache_dir: Path, tmp_path: Path) -> None:
    """The workers read the session's Hugging Face cache (HF_HOME, HF_HUB_OFFLINE=1), and each run
    records its revision's weight identity, so the results table can tell the checkpoints apart."""
    plan = tmp_path / "plan.yaml"
    plan.write_text("name: hub\nsuites:\n  semantic: {limit-blocks: 1, constructions: [let_alone]}\n"
                    "resources: {cpus: 1}\n"
                    f"models:\n  - model: {hub_series.repo_id}\n    revisions: [step0, step8]\n")
    summary = run_sweep(load_plan(plan))
    assert [r.status for r in summary.reports] == [DONE] * 2, summary.reports
    table = load_results()
    hashes = table[table["model"] == hub_series.repo_id].groupby("step")["weights_sha256"].first().to_dict()
    assert hashes == {step: MODELS.weights(ModelSpec(hub_series.repo_id, revision=f"step{step}"))
                      for step in (0, 8)}
    assert hashes[0] != hashes[8] and all(len(h) == 64 for h in hashes.values())
