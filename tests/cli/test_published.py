"""The bundled published results: made by pfcore from the published folder, checked on load, given
to a new cache once; and every source of published numbers kept apart from the others."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from pfcore.analysis.trajectories import bundled_scope
from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.store import published as pub
from pfcore.store import results as res
from pfcore.store.published_tsv import PUBLISHED_COMMIT, PUBLISHED_REPO, read_published
from tests.unit.test_results import LA, SEMANTIC, SYNTAX, TAKEN, kept_intact, write

COMMIT = "0123456789abcdef0123456789abcdef01234567"
LABEL = "published@0123456"


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    """A small outputs_summary folder standing in for the published one."""
    root = tmp_path / "outputs_summary"
    write(root, LA, SEMANTIC)
    write(root, "EleutherAI/pythia-12b/accuracy_summary_syntax.tsv", SYNTAX)
    return root


@pytest.fixture()
def bundle(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder bundled by pfcore into a table of its own, used in place of the shipped one."""
    path = tmp_path / "reference" / pub.BUNDLE_PATH.name
    pub.bundle_published(folder, commit=COMMIT, path=path)
    monkeypatch.setattr(pub, "BUNDLE_PATH", path)
    return path


def damage(path: Path) -> None:
    """Flip one byte in the middle of a file."""
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))


def test_the_bundled_table_equals_the_published_files(shared_data: Path) -> None:
    root = shared_data / "meaning_alone" / "outputs_summary"
    shipped = pub.read_bundle()
    published = pub.canonical(read_published(root))
    pd.testing.assert_frame_equal(shipped.rows, published)  # row for row
    manifest = shipped.manifest
    assert (manifest["rows"], manifest["files"], manifest["models"]) == (136_100, 20, 12)
    assert manifest["commit"] == PUBLISHED_COMMIT and manifest["repository"] == PUBLISHED_REPO
    assert manifest["content_sha256"] == pub.content_digest(published)
    assert shipped.label == "published@a6b6990"


def test_the_shipped_bundle_matches_its_checksum() -> None:
    assert pub.bundle_problem() == ""
    assert pub.bundled_label() == "published@a6b6990"
    assert bundled_scope("EleutherAI/pythia-12b") == "published@a6b6990|EleutherAI/pythia-12b"
    rows = pub.read_bundle().rows
    assert len(rows) == pub.read_manifest()["rows"] and rows["value"].notna().all()


def test_bundle_command_makes_a_table_that_reads_back(folder: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["results", "bundle", "--from", str(folder), "--commit", COMMIT, "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == ["published_item_counts.csv", "published_results.json",
                                                     "published_results.parquet"]
    made = pub.read_bundle(out / pub.BUNDLE_PATH.name)
    pd.testing.assert_frame_equal(made.rows, pub.canonical(read_published(folder)))
    assert made.label == LABEL and made.manifest["licence"] == "Apache-2.0"


def test_an_edited_or_damaged_bundle_is_refused(bundle: Path) -> None:
    damage(bundle)
    with pytest.raises(InputError, match="do not match the sha256 in published_results.json: the file was edited"):
        pub.read_bundle()
    assert "edited or damaged" in pub.bundle_problem()
    pub.manifest_path(bundle).unlink()
    with pytest.raises(InputError, match="no manifest"):
        pub.read_bundle()


def test_a_new_cache_gets_the_bundled_rows_once(bundle: Path, folder: Path, bundled_cache: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    table = res.load_results()
    assert {pub.collection_of(s) for s in table["source"]} == {LABEL} and len(table) == 10
    assert {pub.file_of(s) for s in table["source"]} == {LA, "EleutherAI/pythia-12b/accuracy_summary_syntax.tsv"}
    res.results_path().unlink()
    assert res.load_results().empty  # once: a table removed later is not filled again
    assert main(["results", "import", "--bundled"]) == 0
    assert f"as source {LABEL}" in capsys.readouterr().out
    assert len(res.load_results()) == 10
    same = res.import_published(folder)  # the bundled numbers from a folder: the bundled source itself
    assert {pub.collection_of(s) for s in same["source"]} == {LABEL} and len(res.load_results()) == 10


def test_a_first_run_on_a_new_cache_keeps_the_bundled_rows(bundle: Path, bundled_cache: Path) -> None:
    row = {"model": "m", "revision": "main", "step": None, "suite": "semantic", "construction": "letalone",
           "filter": "all", "metric": "accuracy", "value": 0.7, "source": "pfcore run a"}
    table = res.append_results(pd.DataFrame([row]))
    assert len(table) == 11 and (table["source"] == "pfcore run a").sum() == 1


def test_without_a_usable_bundle_the_table_works_and_says_why(bundle: Path, bundled_cache: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    damage(bundle)
    with pytest.warns(UserWarning, match="edited or damaged"):
        assert res.load_results().empty
    assert main(["results", "import", "--bundled"]) == 2
    err = capsys.readouterr().err
    assert "edited or damaged" in err and len(err.strip().splitlines()) == 1
    with pytest.warns(UserWarning, match="edited or damaged"):  # not marked as given: said again next time
        assert res.load_results().empty


def test_the_attack_leaves_the_bundled_rows_alone(bundle: Path, bundled_cache: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 22's attack on a new cache: the bundled Pythia-12b rows stay as they are."""
    before = res.load_results()
    attack = tmp_path / "attack"
    write(attack, LA, TAKEN)
    assert main(["results", "import", str(attack)]) == 0
    assert "as source import@" in capsys.readouterr().out
    table = res.load_results()
    assert kept_intact(before, table) and len(table) == len(before) + 4
    forged = before.assign(value=0.999)  # the bundled sources' names with other values, through the API
    with pytest.raises(InputError, match="would replace the stored rows of 2 source"):
        res.append_results(forged)
    assert kept_intact(before, res.load_results())


def test_the_rebuild_keeps_sources_apart_and_leaves_out_a_changed_folder(bundle: Path, bundled_cache: Path,
                                                                         tmp_path: Path) -> None:
    bundled = res.load_results()
    other = tmp_path / "other"
    write(other, LA, TAKEN)
    taken = res.import_published(other)
    memo = json.loads((bundled_cache / "results" / res.IMPORTS).read_text())
    assert memo["bundled"]["label"] == LABEL and memo["imports"][str(other.resolve())]["label"].startswith("import@")
    res.results_path().write_bytes(b"not parquet")
    with pytest.warns(UserWarning, match="rebuilt it"):
        rebuilt = res.load_results()
    assert kept_intact(bundled, rebuilt) and kept_intact(taken, rebuilt) and len(rebuilt) == 14
    write(other, LA, SEMANTIC)  # the imported folder changed after its import
    res.results_path().write_bytes(b"not parquet")
    with pytest.warns(UserWarning, match="rebuilt it"), pytest.warns(UserWarning, match="has changed since"):
        rebuilt = res.load_results()
    pd.testing.assert_frame_equal(rebuilt, bundled)


def test_import_takes_a_folder_or_bundled(capsys: pytest.CaptureFixture[str], cache_dir: Path) -> None:
    assert main(["results", "import"]) == 2
    assert "--bundled" in capsys.readouterr().err
    assert main(["results", "import", "x", "--bundled"]) == 2
    assert "not both" in capsys.readouterr().err
