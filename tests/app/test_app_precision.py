"""AppTests: a bfloat16 run is marked on the Models and Trajectories pages (and in the tables they
download), with the measured effect, and a comparison that mixes precisions says so."""
from __future__ import annotations

from pathlib import Path

from pfcore.models import ModelSpec
from pfcore.models.precision import precision_note
from pfcore.runs.checkpoints import checkpoints
from pfcore.runs.runner import RunConfig, run_suite
from pfcore.runs.trajectory import run_trajectory
from tests.app_helpers import frame_with, no_errors, page, texts
from tests.tiny_models import build_checkpoint_series

NOTE = precision_note("bfloat16")


def test_models_page_marks_a_bfloat16_run_beside_the_papers_float32(tiny_gpt2: Path, cache_dir: Path) -> None:
    run_suite(ModelSpec(name=str(tiny_gpt2), dtype="bfloat16"), RunConfig(suite="semantic", limit_blocks=1))
    at = page("pages/4_Models.py", tiny_gpt2).run()
    no_errors(at)
    warnings = texts(at.warning)
    assert NOTE in warnings and any("mix precisions (bfloat16, float32)" in w for w in warnings), warnings
    table = frame_with(at, "precision")  # the table the page downloads
    assert table.loc[table["source"].str.startswith("pfcore run "), "precision"].tolist() == ["bfloat16"]


def test_trajectories_page_marks_a_bfloat16_trajectory(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path) -> None:
    series = build_checkpoint_series(tmp_path / "ckpts")
    run_trajectory("tiny-bf16", checkpoints(ModelSpec(dtype="bfloat16"), None, str(series)), ["semantic"],
                   RunConfig(limit_blocks=1), report=lambda _msg: None)
    at = page("pages/5_Trajectories.py", tiny_gpt2).run()
    no_errors(at)
    assert at.selectbox(key="traj_model").value == "tiny-bf16"
    assert NOTE in texts(at.warning), texts(at.warning)
