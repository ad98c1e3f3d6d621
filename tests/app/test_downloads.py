"""Downloads are safe to open (issue 28): a CSV the app offers never holds a cell that a spreadsheet
runs as a formula (OWASP's rule: a cell beginning with =, +, -, @, a tab or a carriage return gets a
leading single quote), and numbers stay numbers."""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd
import pytest
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from pfcore.ui import downloads
from pfcore.ui.downloads import csv_bytes
from tests.app_helpers import no_errors, page

FORMULAS = ['=HYPERLINK("https://evil.example","open")', "=cmd|' /C calc'!A0", "@SUM(1+1)", "+1+cmd|x",
            "-2+3+cmd|x", "\t=1+1", "\r=1+1"]


def cells(data: bytes) -> list[list[str]]:
    """A CSV's rows of cells, as a spreadsheet reads the file."""
    return list(csv.reader(io.StringIO(data.decode("utf-8"))))


def test_formula_cells_are_neutralised_and_numbers_stay_numbers() -> None:
    table = pd.DataFrame({"text": [*FORMULAS, "-1.5", "plain", None], "number": [-1.5, 2.0, -3.0, 4, 5, 6, 7, 8, 9, 10],
                          "kind": pd.Categorical(["=A1", *["ok"] * 9]), "flag": [True] * 10})
    table["=HYPERLINK(1)"] = -7
    rows = cells(csv_bytes(table))
    assert rows[0] == ["text", "number", "kind", "flag", "'=HYPERLINK(1)"]
    assert [r[0] for r in rows[1:8]] == ["'" + f for f in FORMULAS]
    assert rows[8][0] == "-1.5" and rows[9][0] == "plain" and rows[10][0] == ""  # a number written as text stays
    assert rows[1][2] == "'=A1" and rows[2][2] == "ok"
    back = pd.read_csv(io.BytesIO(csv_bytes(table)))
    assert back["number"].tolist() == table["number"].tolist() and back["'=HYPERLINK(1)"].eq(-7).all()
    assert table["text"][0] == FORMULAS[0]  # the table shown is left as it is


def test_a_tables_csv_is_written_when_clicked_and_holds_the_table_as_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page's rerun writes no CSV (the Items page wrote its tables' CSVs on every rerun); the click
    gets the table as it was when the button was drawn, whatever the page did to it after."""
    offers: dict[str, object] = {}
    written: list[pd.DataFrame] = []
    monkeypatch.setattr(st, "download_button",
                        lambda label, data, file_name, **kwargs: offers.update({file_name: data}))
    monkeypatch.setattr(downloads, "csv_bytes", lambda df: written.append(df) or csv_bytes(df))
    table = pd.DataFrame({"item": ["=1+1"], "n": [1]})
    downloads.download_csv(table, "items.csv")
    table["later"] = 2
    table.loc[0, "n"] = 5
    assert written == [] and callable(offers["items.csv"])
    assert cells(offers["items.csv"]()) == [["item", "n"], ["'=1+1", "1"]]  # type: ignore[operator]


@pytest.fixture
def offered(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """Every download the page offers, by file name, as the bytes the visitor gets."""
    seen: dict[str, bytes] = {}
    original = st.download_button

    def spy(label: str, data: object, file_name: str | None = None, **kwargs: object) -> bool:
        content = data() if callable(data) else data  # a table's CSV is written when clicked
        if isinstance(content, bytes) and file_name:
            seen[file_name] = content
        return original(label, data, file_name=file_name, **kwargs)

    monkeypatch.setattr(st, "download_button", spy)
    return seen


def test_an_uploaded_files_formulas_leave_as_text(fake_model: str, cache_dir: Path, offered: dict[str, bytes]) -> None:
    """Cells carried through from an uploaded stimuli file reach the words table's download."""
    upload = io.StringIO()
    csv.writer(upload).writerows([["sentence", "note", "weight"],
                                  *([f"The key {i} is here.", formula, "-1.5"] for i, formula in enumerate(FORMULAS))])
    at = page("pages/6_Stimuli.py", fake_model).run()
    at.file_uploader(key="stimuli_upload").set_value(("stimuli.csv", upload.getvalue().encode(), "text/csv"))
    at.run()
    no_errors(at)
    rows = cells(offered[next(name for name in offered if name.endswith("_words.csv"))])
    note, weight = rows[0].index("note"), rows[0].index("weight")
    assert {r[note] for r in rows[1:]} == {"'" + f for f in FORMULAS}
    assert {r[weight] for r in rows[1:]} == {"-1.5"}
    assert not [c for r in rows for c in r if c[:1] in ("=", "+", "@", "\t", "\r")]


def test_a_linked_sentence_that_is_a_formula_leaves_as_text(fake_model: str, cache_dir: Path,
                                                             offered: dict[str, bytes]) -> None:
    """A class link whose sentence begins with a formula: the Probe's downloads hold it as text."""
    at = page("pages/1_Probe.py", fake_model)
    at.query_params["sentence"] = '=HYPERLINK("https://evil.example") He doesn\'t like shrimp, let alone squid.'
    at.query_params["entailed"] = "@SUM(1) He doesn't like squid either."
    at.query_params["contradicted"] = "+cmd|x He likes squid."
    at.run()
    no_errors(at)
    decisions = cells(offered["probe_decisions.csv"])
    shown = [c for r in decisions for c in r if "HYPERLINK" in c or "SUM(1)" in c or "cmd|x" in c]
    assert shown and all(c.startswith("'") for c in shown)
    assert not [c for name, data in offered.items() if name.endswith(".csv") for r in cells(data) for c in r
                if c[:1] in ("=", "+", "@", "\t", "\r")]


def test_downloads_are_named_without_a_doubled_extension(fake_model: str, cache_dir: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: the Stimuli download was named my_stimuli.csv_words.csv; a chart's HTML download
    said nothing of its 4.8 MB."""
    names: dict[str, str] = {}
    original = DeltaGenerator.download_button  # buttons in a row are drawn by the row's own method

    def spy(self: DeltaGenerator, label: str, data: object, file_name: str | None = None, **kwargs: object) -> bool:
        names[label] = f"{file_name} {kwargs.get('help') or ''}"
        return original(self, label, data, file_name=file_name, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(DeltaGenerator, "download_button", spy)
    monkeypatch.setattr(st, "download_button", lambda *args, **kwargs: spy(st._main, *args, **kwargs))
    upload = "sentence\nThe key is here.\nThe keys are here.\n"
    at = page("pages/6_Stimuli.py", fake_model).run()
    at.file_uploader(key="stimuli_upload").set_value(("my_stimuli.csv", upload.encode(), "text/csv")).run()
    no_errors(at)
    assert names["Download the words (CSV)"].split()[0] == "my_stimuli_words.csv"
    html = names["Download chart (HTML)"]
    assert html.startswith("my_stimuli_words.html ") and " MB" in html
    assert all(".csv_" not in name and ".html." not in name for name in names.values())
