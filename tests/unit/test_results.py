"""The results table: importing published summaries, appending own runs, fetching from GitHub."""
from __future__ import annotations

import io
import json
import urllib.error
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pfcore.analysis.base_rates import base_rates
from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.models import ModelSpec
from pfcore.models.spec import DEFAULT_MODEL
from pfcore.runs.runner import run_suite
from pfcore.store import fetch
from pfcore.store import results as res
from pfcore.store.published import collection_of, content_digest, file_of, import_label, read_bundle
from pfcore.store.published_tsv import PUBLISHED_COMMIT, model_from_path, read_published
from pfcore.store.result_rows import RESULT_COLUMNS, step_from_revision
from pfcore.store.runs import RUN_ROWS, load_run
from pfcore.suites.base import RunConfig

SEMANTIC = ("revision\tconstruction\tworld_knowledge_filter\taccuracy\n"
            "step2\tletalone\tall\t0.6\n"
            "step1\tletalone\tall\t0.5\n"
            "step2\tewok\tdomain_physical-relations\t0.3\n"
            "step1\tewok\tdomain_physical-relations\t0.25\n")
SYNTAX = ("revision\tconstruction\ttest_type\taccuracy\tdelta_surps\tdelta_surps_and\n"
          "step1\tlet alone\tAvg_Test\t0.4\t0.1\t0.2\n"
          "step2\tlet alone\tAvg_Test\t0.9\t0.3\t0.1\n")
OLMO = ("revision\tconstruction\tworld_knowledge_filter\taccuracy\n"
        "stage1-step900-tokens4B\tnevermind\taligned\t0.5\n"
        "main\tnevermind\taligned\t0.7\n")


def write(root: Path, rel: str, text: str) -> Path:
    """Write one fixture summary file under root."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture()
def published(tmp_path: Path) -> Path:
    """A small outputs_summary folder in the published layouts (model folders, output_summaries)."""
    root = tmp_path / "outputs_summary"
    write(root, "EleutherAI/pythia-12b/accuracy_summary_la.tsv", SEMANTIC)
    write(root, "EleutherAI/pythia-12b/accuracy_summary_syntax.tsv", SYNTAX)
    write(root, "allenai/OLMo-2-1124-7B/olmo_accuracy.tsv", OLMO)
    write(root, "jhu-clsp/output_summaries/accuracy_summary_decoder400m.tsv", SEMANTIC)
    return root


@pytest.mark.parametrize("revision, step", [
    ("step1", 1), ("step143000", 143000), ("step2999", 2999),
    ("stage1-step477000-tokens2001B", 477000), ("main", None), ("NONE", None)])
def test_step_from_revision(revision: str, step: int | None) -> None:
    got = step_from_revision(revision)
    assert (np.isnan(got) if step is None else got == step)


def test_model_from_path_uses_folders_or_the_summary_file_name() -> None:
    assert model_from_path(Path("x/EleutherAI/pythia-12b/a.tsv")) == "EleutherAI/pythia-12b"
    assert (model_from_path(Path("jhu-clsp/output_summaries/accuracy_summary_decoder1b.tsv"))
            == "jhu-clsp/ettin-decoder-1b")
    with pytest.raises(InputError, match="which model"):
        model_from_path(Path("jhu-clsp/output_summaries/accuracy_summary.tsv"))


def test_import_reads_every_layout_into_long_rows(published: Path, cache_dir: Path) -> None:
    rows = res.import_published(published)
    assert list(rows.columns) == list(RESULT_COLUMNS)
    assert set(rows["model"]) == {"EleutherAI/pythia-12b", "allenai/OLMo-2-1124-7B",
                                  "jhu-clsp/ettin-decoder-400m"}
    syntax = rows[rows["suite"] == "syntax"]
    assert set(syntax["construction"]) == {"let_alone"}  # "let alone" reads as its name, as "letalone" does
    assert set(syntax["metric"]) == {"accuracy", "delta_surps", "delta_surps_and"}
    assert set(rows.loc[rows["construction"] == "ewok", "suite"]) == {"ewok"}
    olmo = rows[rows["model"] == "allenai/OLMo-2-1124-7B"].set_index("revision")["step"]
    assert olmo["stage1-step900-tokens4B"] == 900 and pd.isna(olmo["main"])
    assert {file_of(s) for s in rows["source"]} == {
        LA, "EleutherAI/pythia-12b/accuracy_summary_syntax.tsv", "allenai/OLMo-2-1124-7B/olmo_accuracy.tsv",
        "jhu-clsp/output_summaries/accuracy_summary_decoder400m.tsv"}
    assert {collection_of(s) for s in rows["source"]} == {import_label(content_digest(read_published(published)))}
    assert res.results_path().parent.parent == cache_dir
    stored = res.load_results()
    pd.testing.assert_frame_equal(stored[list(RESULT_COLUMNS)], rows)
    assert set(stored["weights_sha256"]) == {""}  # published summaries name no checkpoint content


def test_reimport_with_replace_swaps_the_folders_rows_and_keeps_own_runs(published: Path, cache_dir: Path) -> None:
    first = res.import_published(published)
    assert res.import_published(published).equals(first)  # the same files again: nothing changes
    run = first.head(3).assign(source="pfcore run r1", value=0.9)
    res.append_results(run)
    write(published, LA, SEMANTIC.replace("0.6", "0.65"))
    res.import_published(published, replace=True)
    table = res.load_results()
    assert len(table) == len(first) + 3
    la = table[table["source"].str.endswith(LA)]
    assert 0.65 in set(la["value"]) and 0.6 not in set(la["value"])
    assert (table["source"] == "pfcore run r1").sum() == 3


def test_append_results_replaces_a_source_only_when_asked_and_checks_columns(cache_dir: Path) -> None:
    row = {"model": "m", "revision": "main", "step": None, "suite": "semantic",
           "construction": "letalone", "filter": "all", "metric": "accuracy", "value": 0.7,
           "source": "pfcore run a"}
    res.append_results(pd.DataFrame([row]))
    res.append_results(pd.DataFrame([row]))  # the same rows again: idempotent
    with pytest.raises(InputError, match=r"would replace the stored rows of 1 source\(s\) \(pfcore run a\)"):
        res.append_results(pd.DataFrame([row | {"value": 0.8}]))
    with pytest.raises(InputError, match="with different ones"):
        res.append_results(pd.DataFrame([row, row | {"filter": "aligned"}]))  # a row added is a change too
    assert res.load_results()["value"].tolist() == [0.7]
    res.append_results(pd.DataFrame([row | {"value": 0.8}]), replace=True)
    table = res.load_results()
    assert table["value"].tolist() == [0.8]
    with pytest.raises(InputError, match="lack the columns"):
        res.append_results(pd.DataFrame([{"model": "m"}]))
    with pytest.raises(InputError, match="non-empty source"):
        res.append_results(pd.DataFrame([row | {"source": " "}]))
    with pytest.raises(InputError, match="whole numbers"):
        res.append_results(pd.DataFrame([row | {"step": "step1000"}]))
    assert res.load_results()["value"].tolist() == [0.8]


def test_records_under_the_default_models_earlier_name_read_back_under_its_name(
        tiny_gpt2: Path, cache_dir: Path) -> None:
    """The default model was renamed (smollm2-135m -> its real name): earlier runs must still match it."""
    record = run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(constructions=("let_alone",), limit_blocks=1))
    manifest = json.loads((record.path / "manifest.json").read_text())
    manifest["model"]["name"] = "smollm2-135m"
    (record.path / "manifest.json").write_text(json.dumps(manifest))
    assert load_run(record.path).manifest.model.name == DEFAULT_MODEL
    rows = pd.read_csv(record.path / RUN_ROWS, dtype={"revision": str}).assign(model="smollm2-135m")
    res.append_results(rows, replace=True)  # the run's rows as an earlier version wrote them
    table = res.load_results()
    assert set(table["model"]) == {DEFAULT_MODEL}
    assert not base_rates(table, DEFAULT_MODEL, "let_alone").empty


def test_bad_files_raise_input_errors_naming_them(tmp_path: Path, cache_dir: Path) -> None:
    with pytest.raises(InputError, match="no .tsv"):
        res.import_published(tmp_path)
    bad = write(tmp_path, "org/model/a.tsv", "revision\taccuracy\nstep1\t0.5\n")
    with pytest.raises(InputError, match=str(bad)):
        res.import_published(tmp_path)
    write(tmp_path, "org/model/a.tsv", SEMANTIC.replace("0.6", "n/a"))
    with pytest.raises(InputError, match="not numbers"):
        res.import_published(tmp_path)
    assert res.load_results().empty  # a failed import changes nothing


def test_corrupt_table_is_moved_aside_and_reported(cache_dir: Path) -> None:
    """Issue 16, defect 8: a damaged table no longer blocks every later command."""
    res.results_path().write_bytes(b"not parquet")
    with pytest.warns(UserWarning, match="unreadable.*moved it to results.parquet.corrupt-"):
        assert res.load_results().empty
    assert list(res.results_path().parent.glob("results.parquet.corrupt-*"))


def test_fetch_offline_says_what_to_do(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def offline(url: str, timeout: float) -> None:
        raise urllib.error.URLError("Name or service not known")
    monkeypatch.setattr(fetch.urllib.request, "urlopen", offline)
    with pytest.raises(InputError, match="could not reach github.com.*results import PATH"):
        fetch.fetch_published(tmp_path)


def test_fetch_reports_http_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def limited(url: str, timeout: float) -> None:
        raise urllib.error.HTTPError(url, 403, "rate limit exceeded", {}, None)
    monkeypatch.setattr(fetch.urllib.request, "urlopen", limited)
    with pytest.raises(InputError, match="answered 403 rate limit exceeded"):
        fetch.fetch_published(tmp_path)


def test_fetch_writes_the_summaries_at_the_pinned_commit(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path, cache_dir: Path) -> None:
    tree = {"tree": [
        {"path": "outputs_summary/EleutherAI/pythia-12b/accuracy_summary_la.tsv", "type": "blob"},
        {"path": "outputs_summary/EleutherAI", "type": "tree"},
        {"path": "data/let_alone.tsv", "type": "blob"}]}
    asked = []

    def fake(url: str, timeout: float) -> io.BytesIO:
        asked.append(url)
        assert PUBLISHED_COMMIT in url
        return io.BytesIO(json.dumps(tree).encode() if "api.github.com" in url
                          else SEMANTIC.encode())
    monkeypatch.setattr(fetch.urllib.request, "urlopen", fake)
    files = fetch.fetch_published(tmp_path / "dest")
    assert files == [tmp_path / "dest/EleutherAI/pythia-12b/accuracy_summary_la.tsv"]
    assert len(asked) == 2
    assert main(["results", "import", str(tmp_path / "dest")]) == 0
    assert set(res.load_results()["model"]) == {"EleutherAI/pythia-12b"}


def test_cli_import_json(published: Path, cache_dir: Path,
                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["results", "import", str(published), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rows"] == 16 and summary["sources"] == 4
    assert summary["models"]["EleutherAI/pythia-12b"]["suites"] == ["ewok", "semantic", "syntax"]
    assert main(["results", "import", str(published / "missing")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_import_of_all_published_summaries(shared_data: Path, cache_dir: Path) -> None:
    root = shared_data / "meaning_alone" / "outputs_summary"
    rows = res.import_published(root)
    summary = res.summarize(rows)
    assert summary["sources"] == len(list(root.rglob("*.tsv"))) == 20
    assert len(summary["models"]) == 12
    assert summary["models"]["EleutherAI/pythia-12b"]["revisions"] == 19
    assert summary["models"]["jhu-clsp/ettin-decoder-1b"]["revisions"] == 50
    assert summary["models"]["EleutherAI/pythia-14m-deduped"]["suites"] == ["syntax"]
    assert rows["value"].notna().all()
    # only OLMo's "main" and "NONE" revisions name no step
    assert set(rows.loc[rows["step"].isna(), "revision"]) == {"main", "NONE"}
    assert {collection_of(s) for s in rows["source"]} == {read_bundle().label}  # the bundled numbers, so their label
    assert res.import_published(root).shape == rows.shape
    assert len(res.load_results()) == len(rows)  # idempotent


LA = "EleutherAI/pythia-12b/accuracy_summary_la.tsv"
TAKEN = SEMANTIC.replace("0.6\n", "0.999\n").replace("0.5\n", "0.999\n")  # the attack's values
KEPT = ["model", "revision", "suite", "construction", "filter", "metric", "value"]


def kept_intact(before: pd.DataFrame, table: pd.DataFrame) -> bool:
    """Whether every row of `before` is still in the table, under its own source, with its value."""
    return len(before.merge(table, on=[*KEPT, "source"])) == len(before)


def attack(tmp_path: Path) -> Path:
    """Issue 22: a folder that repeats a published file's relative path with other values."""
    root = tmp_path / "attack"
    write(root, LA, TAKEN)
    return root


def test_an_import_repeating_the_published_paths_replaces_nothing(published: Path, tmp_path: Path,
                                                                  cache_dir: Path) -> None:
    """Issue 22: importing such a folder replaced the published rows for every user, and the rebuild
    (imports.json) brought the replacement back; now each folder is a source of its own."""
    before = res.import_published(published)
    taken = res.import_published(attack(tmp_path))
    table = res.load_results()
    assert kept_intact(before, table) and kept_intact(taken, table)
    assert not set(taken["source"]) & set(before["source"])
    assert len(table) == len(before) + len(taken)
    res.results_path().write_bytes(b"not parquet")
    with pytest.warns(UserWarning, match="rebuilt it"):
        rebuilt = res.load_results()
    assert kept_intact(before, rebuilt) and kept_intact(taken, rebuilt) and len(rebuilt) == len(table)


def test_the_attack_through_the_cli_keeps_the_published_rows(published: Path, tmp_path: Path, cache_dir: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["results", "import", str(published)]) == 0
    before = res.load_results()
    assert main(["results", "import", str(attack(tmp_path))]) == 0
    assert kept_intact(before, res.load_results())


def test_a_changed_folder_replaces_its_earlier_import_only_when_asked(published: Path, cache_dir: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    before = res.import_published(published)
    write(published, LA, TAKEN)
    capsys.readouterr()
    assert main(["results", "import", str(published)]) == 2
    err = capsys.readouterr().err
    assert "imported before" in err and "--replace" in err and len(err.strip().splitlines()) == 1
    pd.testing.assert_frame_equal(res.load_results()[list(RESULT_COLUMNS)], before)
    assert main(["results", "import", str(published), "--replace"]) == 0
    table = res.load_results()
    assert len(table) == len(before)
    assert set(table.loc[table["source"].str.endswith(LA) & (table["revision"] == "step1")
                         & (table["construction"] == "let_alone"), "value"]) == {0.999}
