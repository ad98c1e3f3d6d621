"""Every number of a scores file and a surprisal file has a bound (issue 38): `n_tokens` of `²` was
"unexpected ValueError ... a bug in pfcore" (exit 1), 99999999999999 and 200000000 an "unexpected
MemoryError" after 3.4 GB; a real 1e308 surprisal printed `inf`, two 1.7e308 tokens summed to inf,
`--json` wrote a bare `Infinity` and the Stimuli regions CSV held `inf`, all with exit 0. Now each is
one line and exit status 2, and no JSON pfcore writes holds `Infinity` or `NaN`."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.output import json_text
from pfcore.scoring.kinds.scores import MAX_TOKENS
from pfcore.scoring.lmzoo import MAX_TOKEN_BITS
from pfcore.views.stimuli import analyse_surprisal_upload, stimuli_from_upload
from tests.cli.test_scores_file import BLOCKS, needed, scores_from
from tests.unit.test_lmzoo import gym_suite, lmzoo_file

HEADER = "id\tlogprob\tn_tokens\n"


@pytest.mark.parametrize(("n_tokens", "words"), [
    ("²", "n_tokens must be a whole number of at least 1 and at most"),
    ("٣", "n_tokens must be a whole number of at least 1 and at most"),
    ("99999999999999", "n_tokens must be a whole number of at least 1 and at most"),
    ("200000000", "n_tokens must be a whole number of at least 1 and at most"),
    (str(MAX_TOKENS + 1), "n_tokens must be a whole number of at least 1 and at most"),
])
def test_a_token_count_out_of_bounds_is_one_line_and_exit_2(n_tokens: str, words: str, cache_dir: Path,
                                                            tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "scores.tsv"
    path.write_text(f"{HEADER}abc\t-1.5\t{n_tokens}\n", encoding="utf-8")
    assert main(["run", "--suite", "semantic", *BLOCKS, "--scores", str(path), "--model", "m"]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "unexpected" not in err


def test_a_token_count_beyond_its_texts_length_is_refused(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Within the read bound, but more tokens than the text has bytes: refused when the text is known,
    before any array of that size is made."""
    sentences = tmp_path / "sentences.tsv"
    assert main(["items", "semantic", "--construction", "let_alone", "--sentences", "--out", str(sentences)]) == 0
    scores = scores_from(tiny_gpt2, needed(sentences, "semantic"), tmp_path / "scores.tsv")
    table = pd.read_csv(scores, sep="\t")
    table.loc[0, "n_tokens"] = MAX_TOKENS
    table.to_csv(scores, sep="\t", index=False)
    capsys.readouterr()
    assert main(["run", "--suite", "semantic", *BLOCKS, "--scores", str(scores), "--model", "m"]) == 2
    err = capsys.readouterr().err
    assert f"id {table['id'][0]} has n_tokens {MAX_TOKENS:,}, more than its text has bytes" in err
    assert [line for line in err.splitlines() if "error:" in line] == [err.splitlines()[-1]]


@pytest.mark.parametrize("logprob", ["-1e308", "-1.7e308", f"-{MAX_TOKEN_BITS * 3:.0f}"])
def test_a_log_probability_no_model_gives_is_refused(logprob: str, cache_dir: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "scores.tsv"
    path.write_text(f"{HEADER}abc\t{logprob}\t2\n")
    assert main(["run", "--suite", "semantic", *BLOCKS, "--scores", str(path), "--model", "m"]) == 2
    assert ":2: logprob is below" in capsys.readouterr().err


SENTENCES = [["The cat", "sleeps"], ["The dog", "sleeps"]]
HUGE = {"one 1e308 token": [[("The", 1.0), ("cat", 1e308), ("sleeps", 2.0)],
                            [("The", 1.0), ("dog", 2.0), ("sleeps", 3.0)]],
        "two 1.7e308 tokens": [[("The", 1.0), ("cat", 2.0), ("sleeps", 2.0)],
                               [("The", 1.0), ("dog", 2.0), ("sle", 1.7e308), ("eps", 1.7e308)]]}


@pytest.mark.parametrize("case", list(HUGE))
@pytest.mark.parametrize("as_json", [False, True])
def test_huge_surprisals_are_refused_and_no_json_holds_infinity(case: str, as_json: bool, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    suite = gym_suite(tmp_path, SENTENCES, formulas=["(2;%a%) < (2;%b%)"])
    rows = [[(token, bits) for token, bits in sentence] for sentence in HUGE[case]]
    surprisals = tmp_path / "surprisals.tsv"
    surprisals.write_text("sentence_id\ttoken_id\ttoken\tsurprisal\n" + "".join(
        f"{s}\t{t}\t{token}\t{bits!r}\n" for s, sentence in enumerate(rows, start=1)
        for t, (token, bits) in enumerate(sentence, start=1)))
    out = tmp_path / "out.json"
    argv = ["syntaxgym", "evaluate", str(suite), "--surprisals", str(surprisals), "--out", str(out)]
    assert main([*argv, *(["--json"] if as_json else [])]) == 2
    err = capsys.readouterr().err
    assert "more than any model gives" in err and err.count("\n") == 1 and not out.exists()


def test_surprisals_at_the_bound_give_finite_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The largest surprisals a file may hold give finite sums, and JSON every parser reads."""
    suite = gym_suite(tmp_path, SENTENCES, formulas=["(2;%a%) < (2;%b%)"])
    surprisals = lmzoo_file(tmp_path, [[("The", MAX_TOKEN_BITS), ("cat", MAX_TOKEN_BITS), ("sleeps", 2.0)],
                                       [("The", 1.0), ("dog", 2.0), ("sle", MAX_TOKEN_BITS), ("eps", MAX_TOKEN_BITS)]])
    out = tmp_path / "out.json"
    assert main(["syntaxgym", "evaluate", str(suite), "--surprisals", str(surprisals), "--json",
                 "--out", str(out)]) == 0
    text = out.read_text()
    assert "Infinity" not in text and "NaN" not in text
    values = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))
    sums = [r["metric_value"]["sum"] for item in values["items"] for c in item["conditions"] for r in c["regions"]]
    assert all(math.isfinite(v) for v in sums) and max(sums) == pytest.approx(2 * MAX_TOKEN_BITS)


def test_the_stimuli_pages_upload_of_huge_surprisals_is_refused(tmp_path: Path) -> None:
    """The Stimuli page's regions CSV held `inf`; the upload is now refused with the file's line."""
    stimuli = stimuli_from_upload("suite.json", gym_suite(tmp_path, SENTENCES).read_bytes())
    data = lmzoo_file(tmp_path, HUGE["two 1.7e308 tokens"]).read_bytes()
    with pytest.raises(InputError, match=r"^surprisals\.tsv:7: the surprisal is .* more than any model gives"):
        analyse_surprisal_upload(stimuli, "surprisals.tsv", data)


def test_json_text_refuses_infinity_and_nan() -> None:
    assert json_text({"a": 1.5}) == '{"a": 1.5}'
    for bad in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match="JSON compliant"):
            json_text({"a": [bad]})
