"""One naming of constructions in every table (issue 40): pfcore's tables name a construction by its
name (`let_alone`, a definition's own `still_less`), whatever spelling the rows were written or
imported in; only the files in the paper's layout keep the paper's spellings."""
from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from pfcore.cli import main
from pfcore.items.constructions import EXAMPLES_DIR
from pfcore.runs.report import shown_summary
from pfcore.store import results as res
from pfcore.store.runs import PUBLISHED, RUN_ROWS, list_runs
from pfcore.suites import semantic, syntax

NAMES = {"let_alone", "still_less"}


def constructions(table: pd.DataFrame) -> set[str]:
    """The construction labels of a table."""
    return set(table["construction"].astype(str))


def test_a_built_in_and_a_users_construction_are_named_alike(tiny_gpt2: Path, cache_dir: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    for construction in ("let_alone", "still_less"):
        assert main(["run", "--suite", "semantic", "--construction", construction, "--limit-blocks", "1", "--json",
                     "--model", str(tiny_gpt2), "--constructions", str(EXAMPLES_DIR)]) == 0
    capsys.readouterr()
    assert constructions(res.load_results()) == NAMES
    runs = list_runs()
    assert set().union(*(constructions(r.summary) for r in runs)) == NAMES
    assert set().union(*(constructions(shown_summary(r.summary, ["all"])) for r in runs)) == NAMES
    assert set().union(*(constructions(pd.read_csv(r.path / RUN_ROWS)) for r in runs)) == NAMES
    layouts = set().union(*(constructions(pd.read_csv(r.path / PUBLISHED, sep="\t")) for r in runs))
    assert layouts == {"letalone", "still_less"}  # the paper's layout: its spelling for the built-ins


def test_an_old_table_and_old_records_read_in_names_without_duplicates(tiny_gpt2: Path, cache_dir: Path,
                                                                       tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A cache made before names were used: its table and its run records spell the built-ins "letalone"."""
    assert main(["run", "--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1", "--json",
                 "--model", str(tiny_gpt2)]) == 0
    capsys.readouterr()
    [record] = list_runs()
    rows = pd.read_csv(record.path / RUN_ROWS)
    elsewhere = tmp_path / "kept" / record.path.name  # the same record kept outside the cache, in names
    shutil.copytree(record.path, elsewhere)
    res.add_run_rows(elsewhere, rows)
    old = rows.assign(construction="letalone")
    old.to_csv(record.path / RUN_ROWS, index=False)
    old.to_parquet(res.results_path(), index=False)
    table = res.load_results()
    assert constructions(table) == {"let_alone"} and len(table) == len(rows)
    res.results_path().write_bytes(b"not a parquet file")
    with pytest.warns(UserWarning, match="rebuilt it"):
        rebuilt = res.load_results()
    assert constructions(rebuilt) == {"let_alone"} and len(rebuilt) == len(rows)
    assert not rebuilt.duplicated(subset=res.KEYS).any()


def test_published_rows_in_either_spelling_read_as_names(tmp_path: Path, cache_dir: Path) -> None:
    root = tmp_path / "outputs_summary" / "EleutherAI" / "pythia-12b"
    root.mkdir(parents=True)
    (root / "accuracy_summary_la.tsv").write_text("revision\tconstruction\tworld_knowledge_filter\taccuracy\n"
                                                  "step1\tletalone\tall\t0.5\nstep1\tewok\tall\t0.4\n")
    (root / "accuracy_summary_syntax.tsv").write_text("revision\tconstruction\ttest_type\taccuracy\n"
                                                      "step1\tlet alone\tAvg_Test\t0.9\nstep1\tand\tAvg_Test\t0.8\n")
    rows = res.import_published(tmp_path / "outputs_summary")
    assert set(zip(rows["suite"], rows["construction"])) == {
        ("semantic", "let_alone"), ("ewok", "ewok"), ("syntax", "let_alone"), ("syntax", "and")}
    assert constructions(res.load_results()) == {"let_alone", "ewok", "and"}


def test_the_papers_layouts_keep_the_papers_spellings() -> None:
    summary = pd.DataFrame({"construction": ["let_alone", "never_mind"], "filter": "all", "accuracy": 0.5,
                            "delta_surps": 0.1, "delta_surps_and": 0.2})
    assert semantic.published_summary(summary, "main")["construction"].tolist() == ["letalone", "nevermind"]
    assert syntax.published_summary(summary, "main")["construction"].tolist() == ["let alone", "never mind"]
