"""The typed reference tables agree with the paper's text, value by value."""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from pfcore.analysis.reference import load_reference
from pfcore.errors import InputError

ROWS = {"Table 5": 12 * 5, "Table 6": 36 * 5, "Table 7": 35 * 5, "Table 8": 12 * 4}
LABEL_FIELDS = {"Table 5": 2, "Table 6": 3, "Table 7": 3, "Table 8": 2, "Table 9": 3}


@pytest.fixture(scope="module")
def paper_tables(paper_text: Path) -> dict[str, list[tuple[str, list[str]]]]:
    """Each appendix table of the paper as (row label, printed cells) in printed order."""
    lines = paper_text.read_text().split("\n")
    tables: dict[str, list[tuple[str, list[str]]]] = {}
    for i, line in enumerate(lines):
        match = re.match(r"(Table [5-9]):", line)
        if not match:
            continue
        name, n_label = match.group(1), LABEL_FIELDS[match.group(1)]
        start = max(j for j in range(i) if lines[j].startswith(("Architecture\t", "Model Type\t")))
        rows, group = [], ""
        for row in lines[start + 1:i]:
            if not row.strip():
                continue
            cells = row.split("\t")
            group = cells[0] or group
            label = f"{group} {cells[1]}" if n_label == 2 else cells[2]
            rows.append((label, cells[n_label:]))
        tables[name] = rows
    return tables


def test_row_counts_per_table() -> None:
    values = load_reference()
    assert values.groupby("source").size().to_dict() == ROWS
    models = load_reference("Table 9")
    assert len(models) == 36 and models["hf_id"].is_unique and models["model"].is_unique
    assert models["model_type"].value_counts().to_dict() == {"CausalLM": 24, "MLM": 12}
    assert set(values["model"]) <= set(models["model"])
    assert len(load_reference("6")) == ROWS["Table 6"]


def test_unknown_table_is_an_input_error() -> None:
    with pytest.raises(InputError, match="Table 4"):
        load_reference("Table 4")


def test_spot_values() -> None:
    t6 = load_reference("Table 6").set_index(["model", "construction"])["value"]
    assert t6["Pythia-12b", "letalone"] == 98.9 and t6["Pythia-12b", "avg"] == 96.5
    assert t6["Ettin-Dec-150M", "nottomention"] == 46.0
    t7 = load_reference("Table 7").set_index(["model", "construction"])["value"]
    assert t7["Pythia-70m", "nottomention"] == 83.3 and "Olmo2-13b" not in t7.index
    t8 = load_reference("Table 8").set_index(["model", "construction"])
    assert t8.loc[("BERT-base-uncased", "nevermind"), ["value", "ci_halfwidth"]].tolist() == \
        [0.502, 0.008]
    t9 = load_reference("Table 9").set_index("model")
    assert t9.loc["GPT2-xl", "parameters"] == 1_500_000_000
    assert t9.loc["Olmo2-13b", "pretraining_tokens"] == 5 * 10**12


@pytest.mark.parametrize("table", ["Table 5", "Table 6", "Table 7", "Table 8"])
def test_every_value_matches_the_paper(table: str, paper_tables: dict) -> None:
    typed = load_reference(table)
    printed = paper_tables[table]
    labels = list(dict.fromkeys(typed["paper_label"]))
    assert labels == [label for label, _ in printed]
    for label, cells in printed:
        rows = typed[typed["paper_label"] == label]
        numbers = [re.findall(r"[\d.]+", cell) for cell in cells]
        assert rows["value"].tolist() == [float(n[0]) for n in numbers], label
        if table == "Table 8":
            assert rows["ci_halfwidth"].tolist() == [float(n[1]) for n in numbers], label


def test_model_info_matches_the_paper(paper_tables: dict) -> None:
    typed = load_reference("Table 9")
    printed = paper_tables["Table 9"]
    assert typed["model"].tolist() == [label for label, _ in printed]
    assert typed["parameters_label"].tolist() == [cells[0] for _, cells in printed]
    assert typed["tokens_label"].tolist() == [cells[1] for _, cells in printed]
    scale = {"M": 1e6, "B": 1e9, "T": 1e12}
    expected = [int(float(p[:-1]) * scale[p[-1]]) for p in typed["parameters_label"]]
    assert typed["parameters"].tolist() == expected
    assert pd.Series(typed["model_type"]).isin(["MLM", "CausalLM"]).all()
