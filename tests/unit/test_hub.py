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
from pfcore.errors import ModelLoadError
from pfcore.models import ModelSpec
from pfcore.models.identity import weights_sha256
from pfcore.models.loading import default_gguf
from pfcore.models.spec import DEFAULT_MODEL
from pfcore.probe import FRAME_EXAMPLE
from pfcore.runs.checkpoints import checkpoints
from pfcore.scoring.factory import cache_identity
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS
from pfcore.store.results import load_results
from pfcore.store.runs import list_runs, load_run
from pfcore.sweep.plan import load_plan
from tests.app_helpers import frame_with, no_errors, page, texts
from tests.hub_cache import HubSeries, add_revision

SEMANTIC_ONE_BLOCK = ["--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1"]


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    """A command that must exit 0, and its JSON output."""
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """A command that must exit 2 with one error line on stderr (after any progress); that line."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and "error: " in err, err
    line = err[err.index("error: "):]
    assert line.count("\n") == 1, err
    return line


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

def test_a_hub_revision_is_identified_by_its_local_snapshot(hub_series: HubSeries, checkpoint_series: Path,
                                                            cache_dir: Path, tmp_path: Path) -> None:
    at = {rev: MODELS.weights(ModelSpec(hub_series.repo_id, revision=rev)) for rev in hub_series.commits}
    assert at["step8"] == weights_sha256(str(checkpoint_series / "step8"))  # the same files, the same identity
    assert at["step16"] == at["step8"] != at["step0"] and at["main"] == at["step32"]
    assert len(set(at.values())) == 3 and all(len(v) == 64 for v in at.values())
    assert MODELS.weights(ModelSpec(hub_series.repo_id, revision="step9")) == ""  # not in the cache
    assert MODELS.weights(ModelSpec("pfcore-tests/not-cached")) == ""
    partial = tmp_path / "partial"  # a download stopped before the weights: no identity yet
    partial.mkdir()
    (partial / "config.json").write_bytes((checkpoint_series / "step8" / "config.json").read_bytes())
    add_revision(hub_series.cache, "pfcore-tests/partial", "step8", partial)
    assert MODELS.weights(ModelSpec("pfcore-tests/partial", revision="step8")) == ""


def test_a_sharded_hub_revision_has_an_identity_only_with_every_shard(hub_series: HubSeries, cache_dir: Path,
                                                                      tmp_path: Path) -> None:
    shards = [f"model-0000{i}-of-00002.safetensors" for i in (1, 2)]
    index = json.dumps({"metadata": {}, "weight_map": {"h.0.w": shards[0], "h.1.w": shards[1]}})
    for revision, present in (("half", shards[:1]), ("whole", shards)):
        folder = tmp_path / revision
        folder.mkdir()
        (folder / "model.safetensors.index.json").write_text(index)
        for shard in present:
            (folder / shard).write_bytes(shard.encode())  # hashed, never loaded
        add_revision(hub_series.cache, "pfcore-tests/sharded", revision, folder)
    assert MODELS.weights(ModelSpec("pfcore-tests/sharded", revision="half")) == ""
    assert MODELS.weights(ModelSpec("pfcore-tests/sharded", revision="whole")) == weights_sha256(
        str(tmp_path / "whole"))  # both shards, as a folder's


def test_the_score_cache_keys_of_a_hub_id_stay_its_name_and_revision(hub_series: HubSeries,
                                                                    cache_dir: Path) -> None:
    key = cache_identity(ModelSpec(hub_series.repo_id, revision="step8"), ScoringMethod.CAUSAL)
    assert {k: key[k] for k in ("name", "revision", "weights_sha256")} == {
        "name": hub_series.repo_id, "revision": "step8", "weights_sha256": ""}


# ----- run -----

def test_run_loads_a_hub_revision_offline_and_records_its_weights(
        hub_series: HubSeries, checkpoint_series: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hub = run_json(["run", "--model", hub_series.repo_id, "--revision", "step8", *SEMANTIC_ONE_BLOCK], capsys)
    assert (hub["model"], hub["revision"]) == (hub_series.repo_id, "step8")
    local = run_json(["run", "--model", str(checkpoint_series / "step8"), *SEMANTIC_ONE_BLOCK], capsys)
    assert hub["accuracy"] == local["accuracy"]  # the revision's weights, not another's
    early = run_json(["run", "--model", hub_series.repo_id, "--revision", "step0", *SEMANTIC_ONE_BLOCK], capsys)
    assert load_run(hub["record"]).manifest.model.weights_sha256 == weights_sha256(str(checkpoint_series / "step8"))
    assert load_run(early["record"]).manifest.model.weights_sha256 == weights_sha256(str(checkpoint_series / "step0"))
    rows = load_results()
    rows = rows[rows["model"] == hub_series.repo_id]
    assert set(zip(rows["revision"], rows["step"])) == {("step8", 8), ("step0", 0)}


def test_a_revision_the_cache_lacks_offline_is_one_line_naming_those_it_holds(
        hub_series: HubSeries, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(["run", "--model", hub_series.repo_id, "--revision", "step9", *SEMANTIC_ONE_BLOCK], capsys)
    assert f"revision 'step9' of {hub_series.repo_id} is not in the local Hugging Face cache" in err
    assert "main, step0, step16, step32, step8" in err and "HF_HUB_OFFLINE" in err
    err = refused(["probe", FRAME_EXAMPLE, "--model", hub_series.repo_id, "--revisions", "step0,step9"], capsys)
    assert "revision 'step9'" in err
    assert not list_runs()


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


def test_probe_draws_two_revisions_of_the_same_weights_once(hub_series: HubSeries, cache_dir: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["probe", FRAME_EXAMPLE, "--model", hub_series.repo_id, "--revisions", "step0,step8,step16",
                 "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [r["step"] for r in json.loads(out)["checkpoints"]] == [0, 8]
    assert "warning: step16 has the same weights as step8" in err and "shown once, as step8" in err


# ----- trajectory -----

def trajectory(hub_series: HubSeries, *extra: str) -> list[str]:
    """The trajectory command of the issue's "Done when" over step0 and step8 of the hub id."""
    return ["trajectory", "--model", hub_series.repo_id, "--revisions", "step0,step8", "--suite", "semantic",
            *extra]


def test_a_hub_trajectory_records_both_checkpoints_and_reruns_only_when_settings_change(
        hub_series: HubSeries, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's "Done when" (passes with the trajectory state of branch trajstate: today the "/"
    of the hub id breaks the state file's path after the first checkpoint)."""
    assert main(trajectory(hub_series, "--limit-blocks", "1")) == 0, capsys.readouterr().err
    capsys.readouterr()
    rows = load_results()
    rows = rows[rows["model"] == hub_series.repo_id]
    assert set(zip(rows["revision"], rows["step"])) == {("step0", 0), ("step8", 8)}
    runs = len(list_runs())
    assert runs == 2

    assert main(trajectory(hub_series, "--limit-blocks", "1")) == 0
    assert "done before" in capsys.readouterr().out and len(list_runs()) == runs  # scores nothing

    assert main(trajectory(hub_series, "--limit-blocks", "2")) == 0
    out = capsys.readouterr().out
    assert len(list_runs()) == runs + 2  # both checkpoints again, and why
    assert out.count("run again") == 2 and "limit_blocks" in out


def test_a_hub_trajectory_finds_a_revision_that_repeats_another_ones_weights(
        hub_series: HubSeries, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trajectory", "--model", hub_series.repo_id, "--revisions", "step8,step16", "--name", "tiny-hub",
                 *SEMANTIC_ONE_BLOCK]) == 0
    err = capsys.readouterr().err
    assert "warning: tiny-hub: step 16 has the same weights as step 8" in err
    table = load_results()
    hashes = table[table["model"] == "tiny-hub"].groupby("step")["weights_sha256"].first()
    assert hashes[8] == hashes[16] == MODELS.weights(ModelSpec(hub_series.repo_id, revision="step8"))


# ----- a sweep plan -----

def test_a_sweep_plan_names_hub_revisions(hub_series: HubSeries, cache_dir: Path, tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"suites: [semantic]\nmodels:\n  - model: {hub_series.repo_id}\n    revisions: [step8, step0]\n")
    (entry,) = load_plan(plan).models
    assert entry.name == hub_series.repo_id
    assert [(p.label, p.step, p.spec.name, p.spec.revision) for p in entry.points] == [
        ("step0", 0, hub_series.repo_id, "step0"), ("step8", 8, hub_series.repo_id, "step8")]


# ----- revisions of a model that has none -----

def test_revisions_of_the_embedded_default_are_refused_before_anything_is_converted(
        cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Defect 8: `step1000,step8000` on the default model were two "checkpoints" of one GGUF file."""
    with pytest.raises(ModelLoadError, match=f"the embedded default {DEFAULT_MODEL} has no revisions "
                                             r"\(step1000, step8000 given\).*--checkpoint-dir"):
        checkpoints(ModelSpec(), "step1000,step8000", None)
    err = refused(["probe", FRAME_EXAMPLE, "--revisions", "step1000,step8000"], capsys)
    assert "has no revisions" in err
    err = refused(["trajectory", "--revisions", "pythia-log", *SEMANTIC_ONE_BLOCK], capsys)
    assert "(step1, step2, step4, ... given)" in err
    assert not (cache_dir / "models").exists()  # refused before the model was converted


def test_a_revision_of_a_local_folder_or_gguf_file_is_refused(
        checkpoint_series: Path, cache_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = str(checkpoint_series / "step8")
    err = refused(["run", "--model", folder, "--revision", "step8", *SEMANTIC_ONE_BLOCK], capsys)
    assert f"the local folder {folder} has no revisions (step8 given)" in err
    err = refused(["run", "--model", str(default_gguf()), "--revision", "main", *SEMANTIC_ONE_BLOCK], capsys)
    assert "the GGUF file" in err and "has no revisions (main given)" in err
    err = refused(["probe", FRAME_EXAMPLE, "--model", folder, "--revisions", "step0,step8"], capsys)
    assert "has no revisions (step0, step8 given)" in err
    err = refused(["trajectory", "--checkpoint-dir", str(checkpoint_series), "--revision", "step8",
                   *SEMANTIC_ONE_BLOCK], capsys)
    assert "--revision step8 does not apply to a checkpoint folder" in err
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"suites: [semantic]\nmodels:\n  - model: {folder}\n    revisions: [step0]\n")
    assert "has no revisions (step0 given)" in refused(["sweep", str(plan)], capsys)
    assert not list_runs()


# ----- the Probe page -----

def test_probe_page_follows_a_sentence_over_hub_revisions_and_draws_repeated_weights_once(
        hub_series: HubSeries, cache_dir: Path) -> None:
    at = page("pages/1_Probe.py", hub_series.repo_id).run()
    at.text_input(key="probe_ckpt_revisions").input("step0,step8,step16").run()
    at.button(key="probe_ckpt_go").click().run()
    no_errors(at)
    series = frame_with(at, "focus2_or_bits")
    assert list(series["checkpoint"]) == ["step0", "step8"] and (series["n_decisions"] == 4).all()
    assert any("step16 has the same weights as step8" in w for w in texts(at.warning))
    at.toggle(key="probe_ckpt_open").set_value(True).run()
    assert at.select_slider(key="probe_ckpt_pick").options == ["step0", "step8"]


def test_probe_page_refuses_revisions_of_a_local_folder_and_goes_on(checkpoint_series: Path,
                                                                    cache_dir: Path) -> None:
    at = page("pages/1_Probe.py", checkpoint_series / "step8").run()
    at.text_input(key="probe_ckpt_revisions").input("step1000,step8000").run()
    assert any("has no revisions (step1000, step8000 given)" in e for e in texts(at.error))
    assert not [b for b in at.button if b.key == "probe_ckpt_go"]  # nothing to score, no curve
    assert not [f for f in at.dataframe if "focus2_or_bits" in f.value.columns]
    assert frame_with(at, "difference_bits") is not None  # the rest of the page is drawn


@pytest.mark.slow  # the default model in the sidebar
def test_probe_page_refuses_revisions_of_the_default_model(default_model_cache: Path) -> None:
    """Defect 8 as it was seen: "2 checkpoints scored", and one GGUF file drawn as a training curve."""
    at = page("pages/1_Probe.py", DEFAULT_MODEL).run(timeout=300)
    at.text_input(key="probe_ckpt_revisions").input("step1000,step8000").run(timeout=300)
    assert any(f"the embedded default {DEFAULT_MODEL} has no revisions" in e for e in texts(at.error))
    assert not [b for b in at.button if b.key == "probe_ckpt_go"]

