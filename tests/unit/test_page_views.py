"""What the pages show beside their charts, in words (issue 37): the note for a model without
meaning results, the Models tables' column names and decimals."""
from __future__ import annotations

import pandas as pd

from pfcore.store.published import labelled, read_bundle
from pfcore.views.models import column_titles, value_format
from pfcore.views.trajectories import missing_series_notes


def test_a_model_without_meaning_results_is_said_side_by_side() -> None:
    """Issue 37: adding a Pythia-deduped model added a syntax curve only, with no word why."""
    bundle = read_bundle()
    table = labelled(bundle.rows, bundle.label)
    scopes = [f"{bundle.label}|EleutherAI/pythia-12b", f"{bundle.label}|EleutherAI/pythia-14m-deduped"]
    notes = missing_series_notes(table, scopes, ["pf_avg:aligned", "syntax:Avg_Test"])
    assert notes == ["EleutherAI/pythia-14m-deduped (published @ a6b6990) has no PF meaning, plausible (it has no "
                     "meaning results at all, only other tests): those curves are not drawn for it."]
    assert missing_series_notes(table, scopes[:1], ["pf_avg:aligned", "syntax:Avg_Test"]) == []


def test_models_tables_name_their_columns_in_words() -> None:
    """Issue 37: the Models page's table columns were raw (`letalone`)."""
    assert column_titles(["model", "letalone", "muchless", "nottomention", "nevermind", "avg", "source"]) == {
        "letalone": "Let alone", "muchless": "Much less", "nottomention": "Not to mention",
        "nevermind": "Never mind", "avg": "mean of the four"}


def test_models_tables_print_the_papers_decimals() -> None:
    """The Models table printed Table 6's 41.0 as "41" beside "48.9": values keep the paper's decimals
    (percentages 1, Table 8's probabilities 3), and Table 9's counts print as they are."""
    assert [value_format(t) for t in ("Table 5", "Table 6", "Table 7", "Table 8", "Table 9")] == [
        "%.1f", "%.1f", "%.1f", "%.3f", None]


def test_tables_print_each_column_to_one_number_of_decimals() -> None:
    """The Items page printed -2.986 beside -3.0025 in one column of bits (streamlit trims zeros), the
    Lesson's numbers 1400000000 parameters, 71.275 beside 52 in its accuracies (percent), and 2097152
    tokens seen and 0.5062746 in its curves: bits print to 4 decimals, percentages to 2, whole numbers
    (held as integers or as floats) localized, other fractions to 4."""
    from pfcore.ui.tables import number_columns

    table = pd.DataFrame({"row": ["a", "b"], "logp_bits": [-2.986, 0.0], "surprisal_bits_uncorrected": [1.5, 2.0],
                          "parameters": [1_400_000_000, 70_000_000], "accuracy": [71.275, 52.0],
                          "probability_percent": [float("nan"), 29.6], "tokens_seen": [2097152.0, float("nan")],
                          "value": [0.5062746, 0.5], "correct": [True, False]})
    assert {c: v["type_config"]["format"] for c, v in number_columns(table).items()} == {
        "logp_bits": "%.4f", "surprisal_bits_uncorrected": "%.4f", "parameters": "localized",
        "accuracy": "%.2f", "probability_percent": "%.2f", "tokens_seen": "localized", "value": "%.4f"}
