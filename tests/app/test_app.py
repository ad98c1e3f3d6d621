"""AppTests for every page of the explorer, on tiny local models (the default model: slow)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from pfcore.items.schema import CONSTRUCTIONS
from pfcore.models import ModelSpec
from pfcore.plots.export import browser_path
from pfcore.probe import FRAME_EXAMPLE
from pfcore.progress import ProgressMeter, format_seconds
from pfcore.runs.runner import RunConfig, run_suite
from pfcore.scoring.kinds.fake import ENABLE_VAR, FAKE_MODEL
from pfcore.store.model_sizes import extra_models_path
from pfcore.store.runs import list_runs
from tests.app_helpers import ROOT, TIMEOUT, frame_with, no_errors, page, texts

PROBE_KEY = f"probe_cxn_{FRAME_EXAMPLE}"


# ----- home page and the shared sidebar -----

def test_home_explains_and_links_the_pages(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("app.py", tiny_gpt2).run()
    no_errors(at)
    intro = " ".join(texts(at.markdown))
    for words in CONSTRUCTIONS.values():
        assert words in intro
    links = [link.proto.label for link in at.get("page_link")]
    assert [label.split("**")[1] for label in links][:4] == ["Probe", "Items", "Run", "Models"]
    ready = texts(at.sidebar.success)
    assert ready and "(causal) ready" in ready[0] and "parameters" in ready[0]


@pytest.mark.parametrize("name, expected", [
    ("/no/such/model", "model path not found"),
    ("", "Type a model name"),
])
def test_bad_model_is_a_plain_message(name: str, expected: str, cache_dir: Path) -> None:
    at = page("app.py", name).run()
    assert not at.exception
    assert any(expected in e for e in texts(at.sidebar.error))
    assert any("No model is loaded" in w for w in texts(at.warning))


def test_kind_mismatch_is_explained(tiny_bert: Path, cache_dir: Path) -> None:
    at = page("app.py", tiny_bert, kind="causal").run()
    assert not at.exception
    assert any("masked model" in e and "masked" in e for e in texts(at.sidebar.error))


def test_eta_counts_only_fresh_work() -> None:
    clock = iter([0.0, 10.0])
    shown: list = []
    meter = ProgressMeter(shown.append, clock=lambda: next(clock))
    meter(40, 100)
    assert shown[-1].text() == "40 of 100 requests · 40 from the score cache · ETA estimating..."
    meter(60, 100)
    assert shown[-1].text() == "60 of 100 requests · 40 from the score cache · 2.0 requests/s · ETA 20 s"
    assert format_seconds(185) == "3 min 05 s" and format_seconds(3720) == "1 h 02 min"
    assert format_seconds(0.21) == "0.2 s" and format_seconds(42.4) == "42 s" and format_seconds(-1) == "0.0 s"


# ----- Probe -----

def test_probe_gives_the_balanced_verdict_on_a_frame_sentence(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/1_Probe.py", tiny_gpt2).run()
    no_errors(at)
    decisions = frame_with(at, "shift_construction_bits_per_token")  # every column, folded away
    assert list(decisions["condition"]) == ["aligned1", "aligned2", "misaligned1", "misaligned2"]
    assert list(decisions["effect_bits_per_token"]) == pytest.approx(list(
        decisions["shift_construction_bits_per_token"] - decisions["shift_control_bits_per_token"]))
    banner = texts(at.success) + texts(at.warning) + texts(at.info)
    n_correct = int(decisions["correct"].sum())
    verdict = "consistent" if n_correct == 4 else "against" if n_correct == 0 else "mixed"
    assert any(f"**{tiny_gpt2}: {verdict}**" in b and f"{n_correct} of 4 decisions" in b for b in banner)
    assert any("One sentence is not a measurement" in c for c in texts(at.caption))
    assert len(at.get("plotly_chart")) == 4  # words, follow-ups, sentences alone, manipulations
    rises = frame_with(at, "manipulation")
    assert list(rises["manipulation"]) == ["NPI", "Pseudocleft", "CP Conjunction", "VP Conjunction",
                                           "VP Gap Conjunction"]
    assert {"rise_construction_bits", "rise_and_bits"} <= set(rises.columns)
    assert not {"rise_construction", "rise_and", "logprob"} & set(rises.columns)  # nats stay in the engine
    moved = frame_with(at, "change_bits")
    assert len(moved) == 5 and {"token", "change_bits"} <= set(moved.columns)
    shown_as = json.loads(next(f for f in at.dataframe if "change_bits" in f.value.columns).proto.columns)
    assert shown_as["surprisal_bits_control"]["type_config"]["format"] == "%.4f"  # 0.515 beside 1.0077 until now
    assert (shown_as["surprisal_bits_construction"]["label"], shown_as["surprisal_bits_control"]["label"]) == (
        "with 'let alone' (bits)", "with 'or' (bits)")  # as the words table names them (raw names until 2026-12-05)
    words = json.loads(next(f for f in at.dataframe if "surprisal_or_bits" in f.value.columns).proto.columns)
    assert {words[c]["type_config"]["format"] for c in ("surprisal_construction_bits", "surprisal_or_bits")} == {
        "%.4f"}  # the page's bits alike (2 decimals here, 4 in the table of tokens, until 2026-12-05)
    downloads = [b.proto.label for b in at.get("download_button")]
    assert {"Decisions (CSV)", "Verdict (JSON)", "Per-token surprisals (CSV)"} <= set(downloads)


def test_probe_switches_construction_in_one_click(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/1_Probe.py", tiny_gpt2).run()
    at.segmented_control(key=PROBE_KEY).set_value("much_less").run()
    no_errors(at)
    assert all("much less" in c for c in frame_with(at, "context")["context"])
    assert any("much less a huge one" in m for m in texts(at.markdown))


def test_probe_free_sentence_with_one_pair_is_read_in_both_orders(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/1_Probe.py", tiny_gpt2).run()
    sentence = "He doesn't like shrimp, let alone squid."
    at.text_input(key="probe_text").input(sentence).run()
    assert any("Type a follow-up pair" in i for i in texts(at.info))
    words = frame_with(at, "difference_bits")  # the sentence word by word, before any follow-up
    assert list(words["word"]) == ["He", "doesn't", "like", "shrimp,", "let alone", "squid."]
    assert list(words["word_or"])[4] == "or" and list(words["focus2"]) == [False] * 5 + [True]
    at.number_input(key=f"probe_npairs_{sentence}").set_value(1)
    at.text_input(key=f"probe_ent_0_{sentence}").input("Squid is worse than shrimp.")
    at.text_input(key=f"probe_con_0_{sentence}").input("Shrimp is worse than squid.").run()
    no_errors(at)
    decisions = frame_with(at, "condition")  # the pair on the sentence as typed and with its foci swapped
    assert list(decisions["context"]) == [sentence, "He doesn't like squid, let alone shrimp."]
    assert any("One sentence is not a measurement" in c for c in texts(at.caption))
    assert any("paper's frame" in i for i in texts(at.info))  # no manipulations outside the frame


@pytest.mark.parametrize("text, where, expected", [
    ("The weather is nice today.", "warning", "No Paired-Focus construction found"),
    ("", "info", "Type a sentence above"),
])
def test_probe_bad_input_gets_a_clear_message(text: str, where: str, expected: str,
                                              tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/1_Probe.py", tiny_gpt2).run()
    at.text_input(key="probe_text").input(text).run()
    assert not at.exception
    assert any(expected in m for m in texts(getattr(at, where)))
    assert not at.dataframe


def test_probe_keeps_an_over_long_paste_and_says_why(tiny_gpt2: Path, cache_dir: Path) -> None:
    pasted = "You couldn't lift a tiny rock, let alone a huge one. " * 50  # 2,650 characters
    at = page("pages/1_Probe.py", tiny_gpt2).run()
    at.text_input(key="probe_text").input(pasted).run()
    assert not at.exception
    assert any("2,650 characters" in e and "at most 500" in e for e in texts(at.error))
    assert at.text_input(key="probe_text").value == pasted and not at.dataframe


def test_probe_with_a_masked_model(tiny_bert: Path, cache_dir: Path) -> None:
    at = page("pages/1_Probe.py", tiny_bert, kind="masked").run()
    no_errors(at)
    assert len(frame_with(at, "condition")) == 4
    assert any("pseudo-log-likelihood" in c for c in texts(at.caption))


# ----- Items -----

def test_items_browse_filter_and_score_a_block(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/2_Items.py", tiny_gpt2).run()
    no_errors(at)
    assert texts(at.caption)[0].startswith("53,280 of 53,280 semantic items match")
    at.multiselect(key="items_cxn_semantic").set_value(["much_less"])
    at.multiselect(key="items_scale_semantic").set_value(["small-large"])
    at.text_input(key="items_search_semantic").input("rock").run()
    no_errors(at)
    shown = at.dataframe[0].value
    assert set(shown["construction"]) == {"much_less"} and set(shown["scale"]) == {"small-large"}
    assert shown["context"].str.contains("rock").all()
    rows, decisions = at.dataframe[1].value, at.dataframe[2].value
    assert len(rows) == 8 and rows["row"].str.startswith("much less").sum() == 4
    assert list(decisions["condition"]) == ["aligned1", "aligned2", "misaligned1", "misaligned2"]
    assert at.metric[0].value == f"{int(decisions['correct'].sum())} of 4"
    printed = {c: v["type_config"]["format"] for c, v in json.loads(at.dataframe[1].proto.columns).items()
               if "type_config" in v}
    assert printed == {"logodds_bits": "%.4f", "logp_easier_bits": "%.4f", "logp_harder_bits": "%.4f"}  # -3.0000
    assert len(at.get("plotly_chart")) == 1


def test_items_a_clicked_row_opens_its_block_and_the_cap_is_said(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/2_Items.py", tiny_gpt2).run()
    assert any("The first 500 of 6,660 blocks are listed" in c for c in texts(at.caption))
    table = at.dataframe[0].value
    at.session_state["items_table_semantic"] = {"selection": {"rows": [1999], "columns": [], "cells": []}}
    at.run()
    no_errors(at)
    assert at.selectbox(key="items_group_semantic").value == table.iloc[1999]["block_id"]
    rows = at.dataframe[1].value
    assert list(rows.columns[:3]) == ["model", "row", "logodds_bits"]  # the numbers people compare come first
    assert table.iloc[1999]["context"] in set(rows["context"])


def test_items_a_filter_that_hides_the_open_block_opens_the_first_match(tiny_gpt2: Path, fake_model: str,
                                                                       cache_dir: Path) -> None:
    at = page("pages/2_Items.py", fake_model).run()
    first = at.selectbox(key="items_group_semantic").value
    at.text_input(key="items_search_semantic").input("rock").run()
    no_errors(at)
    block = at.selectbox(key="items_group_semantic")
    assert block.value != first and "rock" in block.options[block.index]
    assert not any("is not among the items shown" in c for c in texts(at.caption))  # said only for a link
    linked = page("pages/2_Items.py", fake_model)
    linked.query_params["block"] = "no-such-block"
    linked.run()
    assert any("block='no-such-block' is not among the items shown" in c for c in texts(linked.caption))


def test_items_syntax_base_and_empty_state(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/2_Items.py", tiny_gpt2).run()
    at.segmented_control(key="items_kind").set_value("syntax").run()
    no_errors(at)
    decisions = at.dataframe[2].value
    assert set(decisions["manipulation"]) == {"NPI", "Pseudocleft", "CP Conjunction", "VP Conjunction",
                                              "VP Gap Conjunction"}
    assert len(at.get("plotly_chart")) == 1
    at.text_input(key="items_search_syntax").input("no sentence says this").run()
    assert not at.exception
    assert any("No item matches" in i for i in texts(at.info))
    at.text_input(key="items_search_syntax").input("x" * 300).run()
    assert any("too long" in e for e in texts(at.error))


# ----- Run -----

def _start_small_run(at: AppTest) -> AppTest:
    """Choose both item suites, one construction and one block, and press Run."""
    at.multiselect(key="run_suites").set_value(["semantic", "syntax"])
    at.multiselect(key="run_constructions").set_value(["let_alone"])
    at.number_input(key="run_blocks").set_value(1)
    return at.button(key="run_start").click().run()


def test_run_page_runs_and_shows_results(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/3_Run.py", tiny_gpt2).run()
    no_errors(at)
    assert any("No runs yet" in i for i in texts(at.info))
    _start_small_run(at)
    no_errors(at)
    assert [s.split(":")[0] for s in texts(at.success)[:2]] == ["semantic", "syntax"]
    assert len(list_runs()) == 2
    assert len(at.get("plotly_chart")) == 1
    summary = at.dataframe[0].value
    assert set(summary["filter"]) >= {"NPI", "Avg_Test"}  # the newest run (syntax) is shown
    assert summary["ci_low"].le(summary["accuracy"]).all()
    labels = [b.proto.label for b in at.get("download_button")]
    images = ["Download chart (SVG)", "Download chart (PNG)"] if browser_path() else []  # kaleido draws them
    assert labels == [*images, "Download chart (HTML)", "Summary (CSV)", "Per-item scores (CSV)",
                      "Manifest (JSON)", "Summary (JSON)"]
    at.selectbox(key="run_pick").set_value(str(list_runs()[1].path)).run()
    assert set(at.dataframe[0].value["filter"]) == {"all", "aligned", "misaligned", "aligned1",
                                                    "aligned2", "misaligned1", "misaligned2"}


def test_a_second_run_is_the_one_shown_and_runs_are_named(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/3_Run.py", tiny_gpt2).run()
    at.multiselect(key="run_suites").set_value(["semantic"])
    at.multiselect(key="run_constructions").set_value(["let_alone"])
    at.number_input(key="run_blocks").set_value(1).run()
    assert any("No earlier run of this model measured its speed" in c for c in texts(at.caption))
    at.button(key="run_start").click().run()
    first = list_runs()[0]
    at.multiselect(key="run_constructions").set_value(["never_mind"]).run()
    assert any("already in the score cache" in c for c in texts(at.caption))
    at.button(key="run_start").click().run()
    no_errors(at)
    second = list_runs()[0]
    assert second.path != first.path
    assert at.selectbox(key="run_pick").value == str(second.path)
    assert set(at.dataframe[0].value["construction"]) == {"never_mind"}
    label = at.selectbox(key="run_pick").format_func(str(second.path))
    assert "semantic (never mind)" in label and "8 items" in label


def test_run_stop_and_resume_keep_the_work(tiny_gpt2: Path, cache_dir: Path) -> None:
    # What Stop leaves behind: the remaining runs in the queue, and scores in the cache.
    config = RunConfig(suite="semantic", constructions=("let_alone",), limit_blocks=2)
    at = page("pages/3_Run.py", tiny_gpt2).run()
    at.session_state["run_queue"] = [config]
    at.button(key="run_stop").click().run()
    assert any("Stopped" in w and "Resume" in w for w in texts(at.warning))
    at.run()
    assert any("unfinished run is waiting" in i for i in texts(at.info))
    at.button(key="run_resume").click().run()
    no_errors(at)
    assert texts(at.success)[0].startswith("semantic: 16 items scored")
    assert at.session_state["run_queue"] == []
    # Run again: everything comes back from the score cache.
    at.button(key="run_start").click().run()
    progress = [p.proto.text for p in at.get("progress")]
    assert any("from the score cache" in t for t in progress), progress


def test_run_page_refuses_an_empty_choice(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/3_Run.py", tiny_gpt2).run()
    at.multiselect(key="run_suites").set_value([]).run()
    assert not at.exception
    assert any("at least one suite" in e for e in texts(at.error))


# ----- Models -----

def test_models_page_reference_tables_and_figure(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/4_Models.py", tiny_gpt2).run()
    no_errors(at)
    table = at.dataframe[0].value
    assert set(table["source"]) == {"Table 6"} and len(table) == 36
    shown_as = json.loads(at.dataframe[0].proto.columns)  # the paper's decimals: "41.0" beside "48.9", not "41"
    assert {c: shown_as[c]["type_config"]["format"] for c in ("letalone", "avg")} == {"letalone": "%.1f", "avg": "%.1f"}
    assert any("None of your runs" in i for i in texts(at.info))
    assert any("Spearman's ρ" in m and "**0.689**" in m and "n = 36" in m for m in texts(at.markdown))
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {t["name"] for t in figure["data"]} == {"MLM", "CausalLM"}
    mixed = at.dataframe[1].value
    assert {"fit", "term", "coef", "p"} <= set(mixed.columns) and "ln parameters" in set(mixed["term"])
    at.selectbox(key="models_table").set_value("Table 9").run()
    assert len(at.dataframe[0].value) == 36 and "hf_id" in at.dataframe[0].value.columns


def test_models_page_sets_own_runs_beside_the_paper(tiny_gpt2: Path, cache_dir: Path) -> None:
    spec = ModelSpec(name=str(tiny_gpt2))
    run_suite(spec, RunConfig(suite="semantic", limit_blocks=1))
    at = page("pages/4_Models.py", tiny_gpt2).run()
    no_errors(at)
    table = at.dataframe[0].value
    own = table[table["origin"] == "your run"]
    assert len(own) == 1 and own["source"].iloc[0].startswith("pfcore run ")
    assert json.loads(at.dataframe[1].proto.columns)["ci_low"]["type_config"]["format"] == "%.1f"  # its values alike
    assert any("Not placed" in w and str(tiny_gpt2) in w for w in texts(at.warning))
    pd.DataFrame([{"hf_id": str(tiny_gpt2), "parameters": 1e5, "pretraining_tokens": 1e4,
                   "model_type": "CausalLM"}]).to_csv(extra_models_path(), index=False)
    at.run()
    no_errors(at)
    assert not at.warning
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "CausalLM (your run)" in {t["name"] for t in figure["data"]}
    assert any("n = 37 models" in m for m in texts(at.markdown))


# ----- the default model -----

@pytest.mark.slow
def test_probe_with_the_default_model(default_model_cache: Path) -> None:
    at = AppTest.from_file(str(ROOT / "pages/1_Probe.py"), default_timeout=300).run()
    no_errors(at)
    assert "smollm2-135m-instruct-q4_1" in texts(at.sidebar.success)[0]
    assert len(frame_with(at, "condition")) == 4 and len(at.get("plotly_chart")) == 4


def test_run_page_with_a_masked_model_offers_global_affinity(tiny_bert: Path, cache_dir: Path) -> None:
    at = page("pages/3_Run.py", tiny_bert, kind="masked").run()
    assert "Global Affinity (masked models)" in at.multiselect(key="run_suites").options
    at.multiselect(key="run_suites").set_value(["affinity"])
    at.multiselect(key="run_constructions").set_value(["much_less"])
    at.number_input(key="run_blocks").set_value(2)
    at.button(key="run_start").click().run()
    no_errors(at)
    assert texts(at.success)[0].startswith("affinity: 2 items scored")
    summary = at.dataframe[0].value
    assert set(summary["construction"]) == {"much_less"} and "all" in set(summary["filter"])


def test_unexpected_errors_become_one_message(tmp_path: Path) -> None:
    script = tmp_path / "boom.py"
    script.write_text("from pfcore.ui.errors import shown_errors\nimport streamlit as st\n"
                      "with shown_errors():\n    raise KeyError('settings')\nst.write('after')\n")
    at = AppTest.from_file(str(script), default_timeout=TIMEOUT).run()
    assert not at.exception
    assert texts(at.error) == ["Unexpected error (KeyError: 'settings'); please report it with the steps "
                               "that led here."]
    assert texts(at.markdown) == ["after"]


def test_models_page_leaves_out_a_run_of_some_constructions(tiny_gpt2: Path, cache_dir: Path) -> None:
    run_suite(ModelSpec(name=str(tiny_gpt2)), RunConfig(suite="semantic", constructions=("let_alone",),
                                                        limit_blocks=1))
    at = page("pages/4_Models.py", tiny_gpt2).run()
    no_errors(at)
    assert any("not all four constructions were run" in w and str(tiny_gpt2) in w for w in texts(at.warning))
    assert any("n = 36 models" in m for m in texts(at.markdown))  # kept out of rho


def test_charts_export_svg_or_png_with_a_telling_name_and_title(tiny_gpt2: Path, cache_dir: Path) -> None:
    at = page("pages/1_Probe.py", tiny_gpt2).run()
    chart = at.get("plotly_chart")[0].proto
    config = json.loads(chart.config)
    assert config["toImageButtonOptions"]["format"] == "svg"
    assert config["toImageButtonOptions"]["filename"] == "probe_words"
    title = json.loads(chart.spec)["layout"]["title"]["text"].replace("<br>", " ")  # wrapped to fit
    assert FRAME_EXAMPLE in title and str(tiny_gpt2) in title  # the exported file says what it shows
    at.sidebar.radio(key="chart_format").set_value("png").run()
    assert json.loads(at.get("plotly_chart")[0].proto.config)["toImageButtonOptions"]["format"] == "png"


def test_the_fake_scorer_is_offered_only_to_tests(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENABLE_VAR, raising=False)
    at = page("pages/1_Probe.py", FAKE_MODEL).run()
    assert not at.exception and at.sidebar.error  # an unknown model to a user
    monkeypatch.setenv(ENABLE_VAR, "1")
    at = page("pages/1_Probe.py", FAKE_MODEL).run()
    no_errors(at)
    assert "not a language model" in " ".join(texts(at.sidebar.warning))


def test_a_link_reopens_the_probe_view(fake_model: str, cache_dir: Path) -> None:
    at = page("pages/1_Probe.py", fake_model)
    at.query_params["sentence"] = "He doesn't like shrimp, let alone squid."
    at.query_params["construction"] = "much_less"
    at.query_params["entailed"] = "He doesn't like squid either."
    at.query_params["contradicted"] = "He likes squid."
    at.query_params["reduction"] = "sideways"
    at.query_params["colour"] = "blue"
    at.run()
    assert not at.exception
    assert any("He doesn't like shrimp, much less squid." in m for m in texts(at.markdown))
    contexts = list(frame_with(at, "condition")["context"])  # the pair from the link is scored, in both orders
    assert contexts == ["He doesn't like shrimp, much less squid.", "He doesn't like squid, much less shrimp."]
    notes = " ".join(texts(at.caption))
    assert "colour (not a setting of this page)" in notes and "reduction='sideways'" in notes
    assert at.query_params["construction"] == ["much_less"] or at.query_params["construction"] == "much_less"


def test_links_reopen_items_and_run_views(tiny_gpt2: Path, fake_model: str, cache_dir: Path) -> None:
    at = page("pages/2_Items.py", fake_model)
    at.query_params["suite"] = "syntax"
    at.query_params["construction"] = ["never_mind"]
    at.run()
    no_errors(at)
    assert at.segmented_control(key="items_kind").value == "syntax"
    assert at.multiselect(key="items_cxn_syntax").value == ["never_mind"]
    assert set(at.dataframe[0].value["construction"]) == {"never_mind"}
    assert not any("Session State API" in w for w in texts(at.warning))

    first = run_suite(ModelSpec(name=str(tiny_gpt2)), RunConfig(constructions=("let_alone",), limit_blocks=1))
    run_suite(ModelSpec(name=str(tiny_gpt2)), RunConfig(constructions=("much_less",), limit_blocks=1))
    at = page("pages/3_Run.py", tiny_gpt2)
    at.query_params["run"] = first.path.name
    at.run()
    no_errors(at)
    assert at.selectbox(key="run_pick").value == str(first.path)
    at = page("pages/3_Run.py", tiny_gpt2)
    at.query_params["run"] = "no-such-run"
    at.run()
    assert not at.exception and any("run='no-such-run'" in c for c in texts(at.caption))
