"""AppTest of the Run page's Sweep section (through a small script calling render_sweep_section):
no plan, a bad plan, a plan's jobs, Start on a real local Ray instance with its summary, Start again
(every job skipped), and Stop with nothing running."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pfcore.store.results import load_results
from tests.app_helpers import no_errors, page, texts
from tests.tiny_models import build_checkpoint_series

pytestmark = pytest.mark.xdist_group("ray")  # one worker: one local Ray at a time


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plan over the tiny checkpoint series (steps 0/8/32), semantic suite on 2 blocks."""
    folder = tmp_path_factory.mktemp("sweep-app")
    series = build_checkpoint_series(folder / "ckpts")
    shutil.rmtree(series / "_base")
    path = folder / "plan.yaml"
    path.write_text("name: app-sweep\nsuites:\n  semantic: {limit-blocks: 2}\nresources: {cpus: 1}\n"
                    "models:\n  - checkpoint-dir: ckpts\n    name: tiny-app\n")
    return path


def section(tmp_path: Path) -> AppTest:
    """An AppTest of a script that renders only the Sweep section."""
    script = tmp_path / "sweep.py"
    script.write_text("from pfcore.ui.sweep_view import render_sweep_section\nrender_sweep_section()\n")
    return page(script)


@pytest.mark.slow  # a real local Ray
def test_sweep_section_starts_a_plan_on_ray_and_sums_up(ray_instance, plan: Path, cache_dir: Path,
                                                        tmp_path: Path) -> None:
    """On the session's Ray instance (a sweep started where Ray is up uses it; a sweep's own start and
    stop of a local instance are tested in tests/cli/test_sweep_processes.py)."""
    at = section(tmp_path).run()
    no_errors(at)
    assert any("Give a sweep plan" in i for i in texts(at.info))
    assert at.file_uploader(key="sweep_plan_upload").proto.max_upload_size_mb == 1  # a plan's cap, not "200MB"

    at.text_input(key="sweep_plan_path").input(str(tmp_path / "nowhere.yaml")).run()
    assert not at.exception
    assert len(at.error) == 1 and "cannot read the sweep plan" in at.error[0].value

    at.text_input(key="sweep_plan_path").input(str(plan)).run()
    no_errors(at)
    assert texts(at.caption)[0].startswith("app-sweep: 1 model(s), 3 job(s)")
    assert list(at.dataframe[0].value["revision"]) == ["step0", "step8", "step32"]

    at.button(key="sweep_start").click().run()
    no_errors(at)
    assert texts(at.success)[0].startswith("3 done, 0 skipped, 0 failed")
    assert list(at.dataframe[1].value["status"]) == ["done"] * 3
    assert set(load_results()["revision"]) == {"step0", "step8", "step32"}

    at.button(key="sweep_start").click().run()
    no_errors(at)
    assert texts(at.success)[0].startswith("0 done, 3 skipped, 0 failed")

    at.button(key="sweep_stop").click().run()
    no_errors(at)
    assert "Nothing is running." in texts(at.info)
