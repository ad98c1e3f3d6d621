"""`python -m pfcore score` with words and files: the issue's sentence against a direct computation
and minicons, the long CSV round trip, SyntaxGym inputs, JSON shapes, several models, a cached rerun
that loads no model, entropy and top-k, and bad input as one line."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from minicons import scorer as mscorer

from pfcore.cli import main
from pfcore.items.syntaxgym import read_suite, write_long_csv
from pfcore.models import ModelSpec
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.models import MODELS, load_model
from pfcore.scoring.requests import Request
from pfcore.scoring.words import score_texts
from pfcore.views.stimuli import read_stimuli_file
from tests import tiny_models
from tests.unit.test_syntaxgym_suite import suite_data, write_suite
from tests.unit.test_words import ISSUE_SENTENCE, direct_words

VALUES = ["start", "end", "surprisal_bits", "surprisal_bits_uncorrected", "n_tokens", "model", "revision"]
WORD_KEYS = {"word", "start", "end", "surprisal_bits", "surprisal_bits_uncorrected", "tokens"}


@pytest.fixture(scope="module")
def second_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Another tiny GPT-2 (other weights), for several models at once."""
    return tiny_models.build_gpt2(tmp_path_factory.mktemp("tiny-gpt2-b"), seed=1)


@pytest.fixture()
def stimuli_csv(tmp_path: Path) -> Path:
    """A stimuli CSV with extra columns around the sentence (one cell quoted with a comma)."""
    path = tmp_path / "stimuli.csv"
    path.write_text('item,sentence,condition\n1,"The keys to the cabinet are here.",match\n'
                    '1,"The keys to the cabinet is here.",mismatch\n2,"He doesn\'t like shrimp, let alone squid.",x\n')
    return path


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    """Run the command and parse its JSON output."""
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_issue_sentence_words(tiny_gpt2: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`score --sentence S --words --json`: the words list matches a direct computation from full
    softmax distributions, and its uncorrected values are minicons' token surprisals summed per word."""
    out = run_json(capsys, "score", "--sentence", ISSUE_SENTENCE, "--words", "--json", "--model", str(tiny_gpt2))
    words = out["words"]
    assert all(set(w) == WORD_KEYS for w in words)
    assert [w["word"] for w in words] == ISSUE_SENTENCE.split()
    assert all(ISSUE_SENTENCE[w["start"]:w["end"]] == w["word"] for w in words)
    assert ["".join(w["tokens"]).strip() for w in words] == ISSUE_SENTENCE.split()
    loaded = load_model(ModelSpec(str(tiny_gpt2)))
    direct = direct_words(loaded, ISSUE_SENTENCE, bos=False)
    assert words[0]["surprisal_bits"] is None and words[0]["surprisal_bits_uncorrected"] is None
    np.testing.assert_allclose([w["surprisal_bits"] for w in words[1:]], [-c / math.log(2) for _, _, c in direct[1:]],
                               atol=1e-4)
    np.testing.assert_allclose([w["surprisal_bits_uncorrected"] for w in words[1:]],
                               [-u / math.log(2) for _, u, _ in direct[1:]], atol=1e-4)
    reference = mscorer.IncrementalLMScorer(loaded.model, tokenizer=loaded.tokenizer, device="cpu")
    tokens = [-s for _, s in reference.token_score([ISSUE_SENTENCE], base_two=True)[0]]
    position = len(words[0]["tokens"])
    for word in words[1:]:
        n = len(word["tokens"])
        assert word["surprisal_bits_uncorrected"] == pytest.approx(sum(tokens[position:position + n]), abs=1e-4)
        position += n
    assert out["sum_logprob"] == pytest.approx(-sum(tokens) * math.log(2), abs=1e-4)  # today's keys stay


def test_words_with_bos_and_after_a_prefix(tiny_gpt2: Path, cache_dir: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "score", "--sentence", ISSUE_SENTENCE, "--words", "--bos", "--json",
                   "--model", str(tiny_gpt2))
    assert out["words"][0]["surprisal_bits"] is not None and out["first_token_policy"] == "bos"
    prefix, text = "You couldn't lift a tiny rock, let alone a huge one.", "Lifting a rock is easy."
    out = run_json(capsys, "score", prefix, text, "--words", "--json", "--model", str(tiny_gpt2))
    assert [w["word"] for w in out["words"]] == text.split()
    assert all(w["surprisal_bits"] is not None for w in out["words"])


def test_entropy_and_top_k(tiny_gpt2: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "score", "--sentence", ISSUE_SENTENCE, "--entropy", "--top-k", "--json",
                   "--model", str(tiny_gpt2))
    assert len(out["entropy_bits"]) == len(out["tokens"]) == len(out["top_k"])
    assert all(len(top) == 5 and {"token", "logprob"} == set(top[0]) for top in out["top_k"])
    assert all(0 < e <= math.log2(400) + 1e-6 for e in out["entropy_bits"])
    assert main(["score", "--sentence", ISSUE_SENTENCE, "--top-k", "2", "--model", str(tiny_gpt2)]) == 0
    assert "most likely tokens" in capsys.readouterr().out


def test_long_csv_round_trip(tiny_gpt2: Path, stimuli_csv: Path, tmp_path: Path, cache_dir: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    """`score --file --out`: one row per word, the input columns first, values as score_texts gives."""
    out = tmp_path / "words.csv"
    assert main(["score", "--file", str(stimuli_csv), "--out", str(out), "--model", str(tiny_gpt2)]) == 0
    assert "rows (words) written" in capsys.readouterr().out
    table = pd.read_csv(out, keep_default_na=False, na_values=[""])
    assert list(table.columns) == ["sentence", "item", "condition", "word", *VALUES]
    sentences = pd.read_csv(stimuli_csv)["sentence"]
    assert len(table) == sum(len(s.split()) for s in sentences)
    assert table.groupby("sentence", sort=False)["word"].apply(" ".join).tolist() == list(sentences)
    scored = score_texts(CausalScorer(load_model(ModelSpec(str(tiny_gpt2)))), [Request("", s) for s in sentences])
    expected = [w.surprisal_bits for s in scored for w in s.words]
    np.testing.assert_allclose(table["surprisal_bits"], expected, atol=1e-9, equal_nan=True)
    assert table["surprisal_bits"].isna().sum() == len(sentences)  # the first words
    assert set(table["model"]) == {str(tiny_gpt2)} and (table["condition"].tolist()[:1] == ["match"])
    assert not list(tmp_path.glob("*.tmp*"))


def test_syntaxgym_inputs_give_regions(tiny_gpt2: Path, tmp_path: Path, cache_dir: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A suite JSON and its long CSV give the same region table; regions sum their words."""
    suite_path = write_suite(tmp_path, suite_data())
    long_csv = tmp_path / "long.csv"
    write_long_csv(read_suite(suite_path), long_csv)
    from_json = run_json(capsys, "score", "--file", str(suite_path), "--json", "--model", str(tiny_gpt2))
    from_csv = run_json(capsys, "score", "--file", str(long_csv), "--json", "--model", str(tiny_gpt2))
    assert from_json["level"] == "regions" and from_json["rows"] == from_csv["rows"]
    regions = pd.DataFrame(from_json["rows"])
    assert list(regions.columns) == ["item_number", "condition_name", "region_number", "region_name", "content",
                                     "region", *VALUES]
    words = pd.DataFrame(run_json(capsys, "score", "--file", str(suite_path), "--words", "--json",
                                  "--model", str(tiny_gpt2))["rows"])
    assert {"region_number", "region_name", "word"} <= set(words.columns)
    sums = words.groupby(["item_number", "condition_name", "region_number"], sort=False)[
        ["surprisal_bits", "surprisal_bits_uncorrected", "n_tokens"]].sum(min_count=1)
    merged = regions.merge(sums.reset_index(), on=["item_number", "condition_name", "region_number"],
                           suffixes=("", "_words"))
    scored = merged.dropna(subset=["surprisal_bits"])
    np.testing.assert_allclose(scored["surprisal_bits"], scored["surprisal_bits_words"], atol=1e-9)
    assert (merged["n_tokens"] == merged["n_tokens_words"]).all()
    empty = regions[regions["region"] == ""]
    assert (empty["surprisal_bits"] == 0).all() and (empty["n_tokens"] == 0).all()


def test_several_models_and_stdout_csv(tiny_gpt2: Path, second_gpt2: Path, stimuli_csv: Path, cache_dir: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "score", "--file", str(stimuli_csv), "--json", "--model", str(tiny_gpt2),
                   "--model", str(second_gpt2))
    assert [r["model"] for r in out["results"]] == [str(tiny_gpt2), str(second_gpt2)]
    assert out["results"][0]["rows"] != out["results"][1]["rows"]
    assert main(["score", "--file", str(stimuli_csv), "--model", str(tiny_gpt2), "--model", str(second_gpt2)]) == 0
    table = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert table["model"].value_counts().tolist() == [len(table) // 2] * 2
    sentence = run_json(capsys, "score", "--sentence", ISSUE_SENTENCE, "--json", "--model", str(tiny_gpt2),
                        "--model", str(second_gpt2))
    assert [r["model"] for r in sentence["results"]] == [str(tiny_gpt2), str(second_gpt2)]


def test_cached_rerun_loads_no_model(tiny_gpt2: Path, stimuli_csv: Path, cache_dir: Path,
                                     capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["score", "--file", str(stimuli_csv), "--json", "--model", str(tiny_gpt2)]
    first = run_json(capsys, *argv)
    sentence = ["score", "--sentence", ISSUE_SENTENCE, "--words", "--json", "--model", str(tiny_gpt2)]
    words = run_json(capsys, *sentence)
    monkeypatch.setattr(MODELS, "loaded", lambda spec: pytest.fail("the model was loaded"))
    assert run_json(capsys, *argv) == first
    assert run_json(capsys, *sentence) == words


def test_no_corrected_reports_plain_sums(tiny_gpt2: Path, stimuli_csv: Path, cache_dir: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    rows = pd.DataFrame(run_json(capsys, "score", "--file", str(stimuli_csv), "--json", "--no-corrected",
                                 "--model", str(tiny_gpt2))["rows"])
    np.testing.assert_array_equal(rows["surprisal_bits"], rows["surprisal_bits_uncorrected"])


def test_stimuli_rows_name_their_place(stimuli_csv: Path) -> None:
    stimuli = read_stimuli_file(stimuli_csv)
    assert stimuli.default_level == "words" and stimuli.texts[1].where.endswith("row 2")


@pytest.mark.parametrize("content, extra, expected", [
    ("", [], "empty"),
    ("item,sentence\n", [], "no sentences"),
    ("item,text\n1,hello there\n", [], "no 'sentence' column"),
    ("sentence\nhello there\n", ["--regions"], "no regions"),
    ("sentence,model\nhello there,mine\n", [], "column 'model' is one the scored table adds"),
    ("sentence\nhello there\n", ["--words", "--regions"], "not both"),
    ("sentence\nhello there\n", ["--entropy"], "per token"),
    ("sentence\nhello there\n" + "rock " * 300 + "\n", [], "row 2: text is"),
])
def test_bad_files_are_one_line(content: str, extra: list[str], expected: str, tmp_path: Path, tiny_gpt2: Path,
                                cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "stimuli.csv"
    path.write_text(content)
    assert main(["score", "--file", str(path), "--model", str(tiny_gpt2), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert expected in err and "Traceback" not in err
    if expected not in ("not both", "per token"):
        assert str(path) in err


def test_bad_suite_file_names_suite_item_formula(tmp_path: Path, tiny_gpt2: Path, cache_dir: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data = suite_data()
    data["predictions"][0]["formula"] = "(2;%good%) < (7;%bad%)"
    assert main(["score", "--file", str(write_suite(tmp_path, data)), "--model", str(tiny_gpt2)]) == 2
    err = capsys.readouterr().err
    assert all(t in err for t in ("suite.json", "item 1", "prediction 1", "region 7")), err
    assert "%good%" not in err and "handmade" not in err  # the file's text is never repeated


def test_out_and_regions_need_a_file(tiny_gpt2: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "--sentence", "a b c", "--regions", "--model", str(tiny_gpt2)]) == 2
    assert "--file" in capsys.readouterr().err
