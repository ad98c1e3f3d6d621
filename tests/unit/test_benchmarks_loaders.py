"""Loaders of the comparison benchmarks: local folders, files, zips, the hub layouts, and bad input."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import huggingface_hub.constants
import pandas as pd
import pytest

from pfcore.errors import InputError
from pfcore.suites import benchmarks_common, blimp, comps, ewok

FIXTURES = Path(__file__).parents[1] / "fixtures"
COMPS_SAMPLE = FIXTURES / "comps_base_sample.jsonl"
EWOK_ZIP = "ewok/ewok-core-1.0_rebuilt_password-protected.zip"
EWOK_PASSWORD = "ewok"  # published in section 3 of EWoK's terms of use
INVENTED_EWOK = pd.DataFrame({  # made-up rows in EWoK's column format; not EWoK items
    "Domain": ["toy-domain", "toy-domain"], "Context1": ["The box is red.", "Sam is tall."],
    "Context2": ["The box is blue.", "Sam is short."], "Target1": ["It is red.", "Sam is tall."],
    "Target2": ["It is blue.", "Sam is short."],
})


def fake_snapshot(monkeypatch: pytest.MonkeyPatch, files: dict[str, pd.DataFrame],
                  root: Path) -> list[dict]:
    """Replace the hub download with one that writes `files` (relative path -> table) as parquet."""
    calls: list[dict] = []

    def snapshot_download(repo_id: str, **kwargs: object) -> str:
        """Record the call and write the tables where the real download would."""
        calls.append({"repo_id": repo_id, **kwargs})
        folder = Path(kwargs["local_dir"]) if kwargs.get("local_dir") else root
        for name, frame in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            frame.to_parquet(folder / name)
        return str(folder)

    monkeypatch.setattr(benchmarks_common, "snapshot_download", snapshot_download)
    return calls


# ---------------------------------------------------------------- BLiMP

def test_blimp_selected_paradigms_with_limit(blimp_folder: Path) -> None:
    items = blimp.load_blimp(blimp_folder, paradigms=["passive_1", "wh_island"], limit=5)
    assert items["paradigm"].value_counts().to_dict() == {"passive_1": 5, "wh_island": 5}
    assert list(items.columns) == blimp.COLUMNS
    assert items["item_id"].is_unique
    again = blimp.load_blimp(blimp_folder, paradigms=["wh_island"], limit=5)
    assert again["item_id"].tolist() == items.loc[items["paradigm"] == "wh_island", "item_id"].tolist()
    first = items.iloc[0]
    assert (first["pair_id"], first["field"]) == ("0", "syntax")
    assert first["sentence_good"] != first["sentence_bad"]


def test_blimp_folder_reads_all_paradigms_and_skips_other_jsonl(shared_data: Path) -> None:
    items = blimp.load_blimp(shared_data / "blimp", limit=1)
    assert len(items) == 67
    assert "models_summary" not in set(items["paradigm"])


def test_blimp_single_file(shared_data: Path) -> None:
    items = blimp.load_blimp(shared_data / "blimp" / "causative.jsonl")
    assert len(items) == 1000 and set(items["paradigm"]) == {"causative"}


def test_blimp_hub_layout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    table = pd.DataFrame({"sentence_good": ["Dogs bark."], "sentence_bad": ["Dogs barks."],
                          "pair_id": [7], "linguistics_term": ["agreement"]})
    calls = fake_snapshot(monkeypatch, {"toy_paradigm/train-00000-of-00001.parquet": table}, tmp_path)
    items = blimp.load_blimp("nyu-mll/blimp", paradigms=["toy_paradigm"])
    assert calls[0]["repo_id"] == "nyu-mll/blimp" and calls[0]["repo_type"] == "dataset"
    assert calls[0]["allow_patterns"] == ["toy_paradigm/*.parquet"]
    assert items.iloc[0][["paradigm", "pair_id", "field"]].tolist() == ["toy_paradigm", "7", ""]


def test_blimp_unknown_paradigm(blimp_folder: Path) -> None:
    with pytest.raises(InputError, match="unknown BLiMP paradigm.*not_a_paradigm"):
        blimp.load_blimp(blimp_folder, paradigms=["not_a_paradigm"])


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "folder"
    with pytest.raises(InputError, match=f"no such file or folder: {missing}"):
        blimp.load_blimp(missing)


def test_corrupt_jsonl_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "toy.jsonl"
    path.write_text('{"sentence_good": "A cat sleeps.", "sentence_bad": "A cat sleep."}\n'
                    '{"sentence_good": "truncated\n')
    with pytest.raises(InputError, match=f"{path}:2: not valid JSON"):
        blimp.load_blimp(tmp_path)


def test_missing_field_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "toy.jsonl"
    path.write_text('\n{"sentence_good": "A cat sleeps."}\n')
    with pytest.raises(InputError, match=f"{path}:2: missing text field\\(s\\) sentence_bad"):
        blimp.load_blimp(path)


def test_bad_limit(blimp_folder: Path) -> None:
    with pytest.raises(InputError, match="limit"):
        blimp.load_blimp(blimp_folder, limit=0)


def test_hub_unreachable_is_one_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf"))
    for load, repo in ((blimp.load_blimp, "nyu-mll/blimp"), (comps.load_comps, "kanishka/comps"),
                       (ewok.load_ewok, "ewok-core/ewok-core-1.0")):
        with pytest.raises(InputError, match=f"could not reach the Hugging Face hub for {repo}: "
                                             "pass a local path"):
            load(repo)


# ---------------------------------------------------------------- COMPS

def test_comps_published_format() -> None:
    items = comps.load_comps(COMPS_SAMPLE)
    assert list(items.columns) == comps.COLUMNS and len(items) == 6
    first = items.iloc[0]
    assert (first["sentence_good"], first["sentence_bad"]) == ("A robin can fly.", "A penguin can fly.")
    assert items.iloc[5]["sentence_good"] == "An axe is used for cutting."
    assert set(items["negative_sample_type"]) == {"taxonomic", "random", "overlap", "co-occurrence"}
    assert items["item_id"].is_unique


def test_comps_capitalize_matches_the_paper() -> None:
    sentences = comps.comps_sentences(pd.Series(["a TV remote"]), pd.Series(["has buttons."]))
    assert sentences.tolist() == ["A tv remote has buttons."]  # str.capitalize, as predict_comps.py


def test_comps_folder_layouts_agree(tmp_path: Path) -> None:
    reference = comps.load_comps(COMPS_SAMPLE)
    github = tmp_path / "github"
    github.mkdir()
    (github / "comps_base.jsonl").write_text(COMPS_SAMPLE.read_text())
    hub = tmp_path / "hub" / "base" / "train"
    hub.mkdir(parents=True)
    pd.read_json(COMPS_SAMPLE, lines=True).to_parquet(hub / "0000.parquet")
    pd.testing.assert_frame_equal(comps.load_comps(github), reference)
    pd.testing.assert_frame_equal(comps.load_comps(tmp_path / "hub"), reference)
    assert len(comps.load_comps(github, limit=2)) == 2


def test_comps_hub_reads_the_parquet_export(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    table = pd.read_json(COMPS_SAMPLE, lines=True)
    calls = fake_snapshot(monkeypatch, {"base/train/0000.parquet": table}, tmp_path)
    items = comps.load_comps("kanishka/comps")
    assert calls[0]["revision"] == "refs/convert/parquet"
    assert len(items) == 6


def test_comps_folder_without_data(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no COMPS 'base' data"):
        comps.load_comps(tmp_path)


# ---------------------------------------------------------------- EWoK

def test_ewok_zip_is_read_in_memory(shared_data: Path, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    temp, work = tmp_path / "tmp", tmp_path / "cwd"
    temp.mkdir()
    work.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.chdir(work)
    before = sorted(os.listdir(shared_data / "ewok"))
    items = ewok.load_ewok(shared_data / EWOK_ZIP, password=EWOK_PASSWORD)
    assert len(items) == 4374 and items["item_id"].is_unique
    counts = items["domain"].value_counts().to_dict()
    published = (shared_data / "ewok" / "ewok-core-1.0_rebuilt_counts.txt").read_text()
    for domain, n in counts.items():
        assert f"('testsuite-{domain.replace('-', '_')}', {n})" in published
    assert list(temp.iterdir()) == [] and list(work.iterdir()) == []
    assert sorted(os.listdir(shared_data / "ewok")) == before


def test_ewok_password_errors(shared_data: Path) -> None:
    with pytest.raises(InputError, match="wrong password"):
        ewok.load_ewok(shared_data / EWOK_ZIP, password="not-the-password")
    with pytest.raises(InputError, match="password-protected"):
        ewok.load_ewok(shared_data / EWOK_ZIP)


def test_ewok_domains_match_the_published_filters(shared_data: Path) -> None:
    items = ewok.load_ewok(shared_data / EWOK_ZIP, password=EWOK_PASSWORD)
    summary = ewok.summarize_ewok(items.assign(correct=True))
    published = pd.read_csv(shared_data / "meaning_alone/outputs_summary/EleutherAI/pythia-12b/"
                            "accuracy_summary_la.tsv", sep="\t")
    expected = set(published.loc[published["construction"] == "ewok", "world_knowledge_filter"])
    assert set(summary["filter"]) == expected


def test_ewok_hub_download_is_deleted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls = fake_snapshot(monkeypatch, {"data/test-00000-of-00001.parquet": INVENTED_EWOK}, tmp_path)
    items = ewok.load_ewok("ewok-core/ewok-core-1.0")
    assert items["target2"].tolist() == ["It is blue.", "Sam is short."]
    assert not Path(calls[0]["local_dir"]).exists()


def test_ewok_csv_with_canary_line(tmp_path: Path) -> None:
    path = tmp_path / "toy.csv"
    path.write_text("# canary line\n" + INVENTED_EWOK.assign(ContextType="direct").to_csv(index=False))
    items = ewok.load_ewok(path, limit=1)
    assert items.iloc[0][["domain", "context_type", "concept_a"]].tolist() == ["toy-domain", "direct", ""]


def test_ewok_csv_errors_name_the_column_and_line(tmp_path: Path) -> None:
    path = tmp_path / "toy.csv"
    path.write_text("# canary line\n" + INVENTED_EWOK.drop(columns="Target2").to_csv(index=False))
    with pytest.raises(InputError, match=f"{path}: missing column\\(s\\) Target2"):
        ewok.load_ewok(path)
    broken = INVENTED_EWOK.copy()
    broken.loc[1, "Context1"] = ""
    path.write_text("# canary line\n" + broken.to_csv(index=False))
    with pytest.raises(InputError, match=f"{path}: line 4: empty Context1"):
        ewok.load_ewok(path)


def test_ewok_not_a_zip(tmp_path: Path) -> None:
    path = tmp_path / "items.zip"
    path.write_text("not a zip")
    with pytest.raises(InputError, match="not a zip file"):
        ewok.load_ewok(path)
