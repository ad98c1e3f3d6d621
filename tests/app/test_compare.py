"""One sentence across models and checkpoints (issue "Compare and share"), and the sentence word by
word against "or" (issue "Words, regions and SyntaxGym", in the app): the engine, `pfcore probe`
and the Probe page, on tiny local models and a three-checkpoint local series (the default model: slow)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from pfcore.cli import main
from pfcore.errors import ModelLoadError
from pfcore.models import ModelSpec
from pfcore.models.spec import DEFAULT_MODEL
from pfcore.probe import FRAME_EXAMPLE, analyze_sentence
from pfcore.probe.words import score_sentences, sentence_token_table, word_table
from pfcore.scoring.factory import LazyScorer
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS
from pfcore.scoring.requests import LN2, Request
from tests.app_helpers import frame_with, no_errors, page, texts

SHRIMP = "He doesn't like shrimp, let alone squid."
PAIR = ["--entailed", "He doesn't like squid either.", "--contradicted", "He likes squid."]


# ----- the sentence word by word -----

def test_words_pair_up_around_the_connective_and_sum_their_tokens(tiny_gpt2: Path, cache_dir: Path) -> None:
    probe = analyze_sentence(SHRIMP)
    scorer = LazyScorer(ModelSpec(str(tiny_gpt2)), ScoringMethod.CAUSAL)
    words = word_table(probe, *score_sentences(scorer, probe, None, corrected=False), corrected=False)
    assert list(words["word"]) == ["He", "doesn't", "like", "shrimp,", "let alone", "squid."]
    assert list(words["word_or"]) == ["He", "doesn't", "like", "shrimp,", "or", "squid."]
    assert list(words["region"]) == ["before"] * 4 + ["connective", "after"]
    assert list(words["focus2"]) == [False] * 5 + [True]
    assert np.isnan(words["surprisal_construction_bits"].iloc[0])  # no context for the first word
    assert (words["difference_bits"].iloc[1:4] == 0).all()  # the same words after the same context
    # uncorrected words are sums of token surprisals, scored here directly and independently
    direct = [scorer.score([Request("", text)])[0] for text in (probe.text, probe.control)]
    total = [float(-s.logprobs.sum() / LN2) for s in direct]
    assert words["surprisal_construction_bits"].iloc[1:].sum() == pytest.approx(total[0], abs=1e-4)
    assert words["surprisal_or_bits"].iloc[1:].sum() == pytest.approx(total[1], abs=1e-4)
    tokens = sentence_token_table(probe, *score_sentences(scorer, probe, None))
    marked = tokens[tokens["focus2"]]
    assert set(marked["sentence"]) == {"with 'let alone'", "with 'or'"}
    assert all("squid" in "".join(part["token"]) for _, part in marked.groupby("sentence"))


def test_the_corrected_words_of_a_frame_sentence_add_up_to_the_sentence(tiny_gpt2: Path) -> None:
    """With the correction, the words' surprisals telescope: their sum is the tokens' sum plus the
    final beginning-of-word term, so before the connective the two sentences agree word for word."""
    probe = analyze_sentence(FRAME_EXAMPLE)
    scorer = LazyScorer(ModelSpec(str(tiny_gpt2)), ScoringMethod.CAUSAL)
    words = word_table(probe, *score_sentences(scorer, probe, None))
    assert list(words.loc[words["focus2"], "word"]) == ["a", "huge", "one."]
    before = words[words["region"] == "before"].iloc[1:]
    assert (before["difference_bits"] == 0).all()
    assert words["difference_bits"].iloc[-3:].abs().sum() > 0  # after the connective, the contexts differ


# ----- several models, through the CLI -----

def test_probe_cli_gives_one_result_per_model_with_its_words(checkpoint_series: Path, cache_dir: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    first, last = str(checkpoint_series / "step0"), str(checkpoint_series / "step32")
    assert main(["probe", SHRIMP, *PAIR, "--model", first, "--model", last, "--words", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert [r["model"] for r in results] == [first, last]
    assert [len(r["decisions"]) for r in results] == [2, 2]  # as typed and swapped
    assert results[0]["decisions"][0]["effect_bits_per_token"] != results[1]["decisions"][0]["effect_bits_per_token"]
    words = results[1]["words"]
    assert [w["word"] for w in words] == ["He", "doesn't", "like", "shrimp,", "let alone", "squid."]
    assert words[0]["surprisal_construction_bits"] is None and words[-1]["focus2"] is True


# ----- one sentence across checkpoints, through the CLI -----

def test_probe_cli_over_checkpoints_is_cached_and_reads_the_suite_trajectory(
        checkpoint_series: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["probe", FRAME_EXAMPLE, "--checkpoint-dir", str(checkpoint_series), "--json"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    first = json.loads(out)
    rows = first["checkpoints"]
    assert [r["step"] for r in rows] == [0, 8, 32] and first["series"] == "tiny-series"
    assert all(r["n_decisions"] == 4 for r in rows) and first["effect_unit"] == "bits per token"
    assert all(r["suite_accuracy"] is None for r in rows)  # no trajectory in the results table yet
    assert "[3/3] step32" in err
    assert rows[0]["focus2_construction_bits"] != rows[2]["focus2_construction_bits"]  # training moved it

    assert main(["trajectory", "--checkpoint-dir", str(checkpoint_series), "--suite", "semantic",
                 "--limit-blocks", "1", "--json"]) == 0
    capsys.readouterr()

    def refuse(spec: ModelSpec) -> None:
        raise ModelLoadError(f"{spec.name} was loaded: its scores should come from the cache")

    monkeypatch.setattr(MODELS, "loaded", refuse)
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)["checkpoints"]
    for before, after in zip(rows, again):
        assert after["effect_bits_per_token"] == pytest.approx(before["effect_bits_per_token"], abs=1e-9)
        assert 0 <= after["suite_accuracy"] <= 1  # read from the trajectory, not recomputed


def test_probe_cli_checkpoints_take_one_model(checkpoint_series: Path, cache_dir: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", FRAME_EXAMPLE, "--checkpoint-dir", str(checkpoint_series),
                 "--model", "a", "--model", "b"]) == 2
    assert "one model" in capsys.readouterr().err


# ----- the Probe page -----

def compared(script: str, model: Path | str, other: Path | str, timeout: float | None = None) -> AppTest:
    """A page run with `model` in the sidebar and `other` compared beside it, checked for errors."""
    at = page(script, model)
    at.session_state["model_compare"] = [str(other)]
    at.run(timeout=timeout)
    no_errors(at)
    return at


def test_probe_page_scores_two_models_side_by_side_and_links_them(tiny_gpt2: Path, checkpoint_series: Path,
                                                                  cache_dir: Path) -> None:
    other = str(checkpoint_series / "step32")
    at = compared("pages/1_Probe.py", tiny_gpt2, other)
    words = frame_with(at, "difference_bits")
    assert list(dict.fromkeys(words["model"])) == [str(tiny_gpt2), other]
    decisions = frame_with(at, "condition")
    assert len(decisions) == 8 and list(dict.fromkeys(decisions["model"])) == [str(tiny_gpt2), other]
    banners = " ".join(texts(at.success) + texts(at.warning) + texts(at.info))
    assert f"**{tiny_gpt2}:" in banners and f"**{other}:" in banners
    assert set(frame_with(at, "manipulation")["model"]) == {str(tiny_gpt2), other}
    assert at.query_params["models"] == [str(tiny_gpt2), other]

    linked = page("pages/1_Probe.py")
    linked.query_params["sentence"] = SHRIMP
    linked.query_params["models"] = [other, str(tiny_gpt2)]
    linked.run()
    no_errors(linked)
    assert linked.session_state["model_name"] == other
    assert list(dict.fromkeys(frame_with(linked, "difference_bits")["model"])) == [other, str(tiny_gpt2)]


def test_a_folder_with_an_at_sign_is_compared_and_linked_whole(tiny_gpt2: Path, checkpoint_series: Path,
                                                              tmp_path: Path, cache_dir: Path) -> None:
    """The picker split "name@revision" at the last "@" and the link at the first: a folder whose path
    holds "@" was neither compared nor opened from a link."""
    other = tmp_path / "run@2"
    other.symlink_to(checkpoint_series / "step32")
    at = compared("pages/2_Items.py", tiny_gpt2, other)
    assert [m.label for m in at.metric][1] == f"Correct pairs in this block ({other})"
    linked = page("pages/1_Probe.py")
    linked.query_params["models"] = [f"{other}", f"{tiny_gpt2}"]
    linked.run()
    no_errors(linked)
    assert (linked.session_state["model_name"], linked.session_state["model_revision"]) == (str(other), "")


def test_probe_page_follows_the_sentence_across_checkpoints(checkpoint_series: Path, cache_dir: Path) -> None:
    at = page("pages/1_Probe.py", checkpoint_series / "step0").run()
    at.text_input(key="probe_ckpt_dir").input(str(checkpoint_series)).run()
    at.button(key="probe_ckpt_go").click().run()
    no_errors(at)
    series = frame_with(at, "focus2_or_bits")
    assert list(series["step"]) == [0, 8, 32] and (series["n_decisions"] == 4).all()
    titles = [json.loads(c.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert any("over training" in t for t in titles)
    chart = next(json.loads(c.spec) for c in at.get("plotly_chart")
                 if "over training" in json.loads(c.spec)["layout"]["title"]["text"])
    for axis in ("xaxis", "xaxis2"):  # both rows on one log axis (the top row was drawn linear)
        assert chart["layout"][axis]["type"] == "log"
        assert chart["layout"][axis]["tickvals"] == [1, 8, 32] and chart["layout"][axis]["ticktext"] == ["0", "8", "32"]
    at.toggle(key="probe_ckpt_open").set_value(True).run()
    at.select_slider(key="probe_ckpt_pick").set_value("step8").run()
    no_errors(at)
    assert any("checkpoint **step8**" in i for i in texts(at.info))
    step8 = str((checkpoint_series / "step8").resolve())
    assert set(frame_with(at, "condition")["model"]) == {step8}
    effect = frame_with(at, "condition")["effect_bits_per_token"].mean()
    assert effect == pytest.approx(float(series.loc[series["step"] == 8, "effect_bits_per_token"].iloc[0]), abs=1e-6)


@pytest.mark.slow
def test_the_default_model_beside_a_tiny_one_in_the_cli_and_the_app(tiny_gpt2: Path, default_model_cache: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", FRAME_EXAMPLE, "--model", DEFAULT_MODEL, "--model", str(tiny_gpt2), "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert [r["model"] for r in results] == [DEFAULT_MODEL, str(tiny_gpt2)]
    at = compared("pages/1_Probe.py", DEFAULT_MODEL, tiny_gpt2, timeout=300)
    decisions = frame_with(at, "condition")
    for result in results:  # the page and the CLI give the same numbers
        shown = decisions[decisions["model"] == result["model"]]["effect_bits_per_token"].tolist()
        assert shown == pytest.approx([d["effect_bits_per_token"] for d in result["decisions"]], abs=1e-6)


def test_items_block_is_scored_by_every_chosen_model(tiny_gpt2: Path, checkpoint_series: Path,
                                                     cache_dir: Path) -> None:
    other = str(checkpoint_series / "step32")
    at = compared("pages/2_Items.py", tiny_gpt2, other)
    decisions = frame_with(at, "cxn_logodds_bits")
    assert len(decisions) == 8 and list(dict.fromkeys(decisions["model"])) == [str(tiny_gpt2), other]
    assert [m.label for m in at.metric] == [f"Correct pairs in this block ({tiny_gpt2})",
                                            f"Correct pairs in this block ({other})"]
    tokens = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert any(other in a["text"] for a in tokens["layout"]["annotations"])  # one column per model
