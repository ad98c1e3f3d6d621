"""Hub ids, offline and for real (issue "Real settings"): the tiny checkpoint series under the hub id
pfcore-tests/tiny-pythia in the session's Hugging Face cache (tests/hub_cache.py), loaded by the real
`from_pretrained(id, revision=...)` path with HF_HUB_OFFLINE=1, through every command that takes a
hub id; the weight identity of a hub revision; and revisions that do not exist, refused."""
from __future__ import annotations

import json
from pathlib import Path

import huggingface_hub
import huggingface_hub.constants
import pytest

from pfcore.cli import main
from pfcore.models import ModelSpec
from pfcore.probe import FRAME_EXAMPLE
from pfcore.scoring.factory import cache_identity
from pfcore.scoring.methods import ScoringMethod
from pfcore.sweep.plan import load_plan
from tests.hub_cache import HubSeries

SEMANTIC_ONE_BLOCK = ["--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1"]


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    """A command that must exit 0, and its JSON output."""
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


# ----- the pre-filled cache itself -----

def test_the_session_is_offline_with_a_private_cache_that_huggingface_hub_reads(hub_series: HubSeries) -> None:
    # huggingface_hub reads these once, at import: set too late, the tests ran on the user's cache
    assert huggingface_hub.constants.HF_HUB_OFFLINE is True
    assert Path(huggingface_hub.constants.HF_HUB_CACHE) == hub_series.cache
    assert Path.home() not in hub_series.cache.parents
    repo = next(r for r in huggingface_hub.scan_cache_dir().repos if r.repo_id == hub_series.repo_id)
    refs = {ref: rev.commit_hash for rev in repo.revisions for ref in rev.refs}
    assert refs == dict(hub_series.commits)
    weights = hub_series.snapshot("step8") / "model.safetensors"
    assert weights.is_symlink() and weights.resolve().parent == hub_series.repo_folder / "blobs"


# ----- weights_identity of a hub revision -----

def test_the_score_cache_keys_of_a_hub_id_stay_its_name_and_revision(hub_series: HubSeries,
                                                                    cache_dir: Path) -> None:
    key = cache_identity(ModelSpec(hub_series.repo_id, revision="step8"), ScoringMethod.CAUSAL)
    assert {k: key[k] for k in ("name", "revision", "weights_sha256")} == {
        "name": hub_series.repo_id, "revision": "step8", "weights_sha256": ""}


# ----- probe --revisions -----

def test_probe_follows_a_sentence_over_hub_revisions(hub_series: HubSeries, checkpoint_series: Path,
                                                     cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hub = run_json(["probe", FRAME_EXAMPLE, "--model", hub_series.repo_id, "--revisions", "step8,step0"], capsys)
    assert hub["series"] == hub_series.repo_id
    assert [(r["checkpoint"], r["step"], r["n_decisions"]) for r in hub["checkpoints"]] == [
        ("step0", 0, 4), ("step8", 8, 4)]
    local = run_json(["probe", FRAME_EXAMPLE, "--checkpoint-dir", str(checkpoint_series)], capsys)["checkpoints"]
    bits = ("focus2_construction_bits", "focus2_or_bits")
    for row, same in zip(hub["checkpoints"], local):  # step0 and step8 of the folder: the same weights
        assert [row[b] for b in bits] == pytest.approx([same[b] for b in bits], abs=1e-6)
    first, last = hub["checkpoints"]
    assert first["focus2_construction_bits"] != pytest.approx(last["focus2_construction_bits"], abs=1e-3)


# ----- a sweep plan -----

def test_a_sweep_plan_names_hub_revisions(hub_series: HubSeries, cache_dir: Path, tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"suites: [semantic]\nmodels:\n  - model: {hub_series.repo_id}\n    revisions: [step8, step0]\n")
    (entry,) = load_plan(plan).models
    assert entry.name == hub_series.repo_id
    assert [(p.label, p.step, p.spec.name, p.spec.revision) for p in entry.points] == [
        ("step0", 0, hub_series.repo_id, "step0"), ("step8", 8, hub_series.repo_id, "step8")]

