"""The Paired-Focus suites in lm-evaluation-harness and back (issue 42): `export lm-eval` writes tasks that
lm_eval itself runs (its CLI, `hf` backend, offline, on the tiny GPT-2), and `run --scores` reads its sample
logs to the same decisions and accuracies as pfcore's own run, each log-likelihood within 1e-4 of pfcore's;
bad logs are one line and exit 2. The fast tests write logs in lm-eval 0.4.13's layout themselves."""
from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from pfcore.cli import main
from pfcore.errors import InputError
from pfcore.items.constructions import EXAMPLES_DIR
from pfcore.models.spec import ModelSpec
from pfcore.runs.lm_eval import PROVENANCE, request_of
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS
from pfcore.store.runs import load_run

BLOCKS = ["--limit-blocks", "2"]
STAMP = "2026-12-04T10-00-00.000000"
ROOT = Path(__file__).resolve().parents[2]


def export(folder: Path, suite: str, construction: str, *extra: str) -> None:
    """`pfcore export lm-eval` of a few blocks of one construction."""
    assert main(["export", "lm-eval", str(folder), "--suite", suite, "--construction", construction,
                 *BLOCKS, *extra]) == 0


def run_lm_eval(model: Path, tasks: Path, out: Path) -> Path:
    """lm_eval's own command line on the exported tasks (hf backend, CPU, offline); its output folder."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "lm_eval", "--model", "hf", "--model_args",
                           f"pretrained={model},dtype=float32", "--include_path", str(tasks), "--tasks",
                           "paired_focus_semantic,paired_focus_syntax", "--device", "cpu", "--batch_size", "8",
                           "--output_path", str(out), "--log_samples"],
                          env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    [folder] = [p for p in out.iterdir() if p.is_dir()]
    return folder


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    """A `pfcore run ... --json` summary."""
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def samples(folder: Path, suite: str) -> list[Path]:
    """A suite's sample logs in lm-eval's output folder."""
    return sorted(folder.glob(f"samples_paired_focus_{suite}_*.jsonl"))


@pytest.mark.slow
def test_lm_eval_runs_the_exported_tasks_and_pfcore_reads_them_back(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Two of the paper's constructions (their "or" rows are the same texts) and one written definition,
    exported together and run in one lm_eval process (until 2026-12-05 two runs: the pair, then the
    definition alone; lm_eval's start is most of a run)."""
    construction, extra = "let_alone,much_less,still_less", ["--constructions", str(EXAMPLES_DIR)]
    tasks = tmp_path / "tasks"
    for suite in ("semantic", "syntax"):
        export(tasks, suite, construction, *extra)
    capsys.readouterr()
    folder = run_lm_eval(tiny_gpt2, tasks, tmp_path / "out")
    for suite, bos in (("semantic", []), ("syntax", ["--bos"])):  # lm-eval scores a sentence's first token
        logs = samples(folder, suite)
        argv = ["run", "--suite", suite, "--construction", construction, *BLOCKS, *extra]
        here = run_json([*argv, "--model", str(tiny_gpt2), "--no-cache", *bos], capsys)
        there = run_json([*argv, "--scores", str(logs[0])], capsys)
        assert there["accuracy"] == here["accuracy"] and there["ci95"] == here["ci95"]
        ours, theirs = load_run(here["record"]), load_run(there["record"])
        assert theirs.tables["decisions"]["correct"].tolist() == ours.tables["decisions"]["correct"].tolist()
        exact = ["construction", "filter", "accuracy", "ci_low", "ci_high", "n"]
        pd.testing.assert_frame_equal(theirs.summary[exact], ours.summary[exact], check_exact=True)
        pd.testing.assert_frame_equal(theirs.summary, ours.summary, atol=1e-4, rtol=0)  # mean rises: scores'
        columns = ["logp_easier", "logp_harder"] if suite == "semantic" else ["score"]
        pd.testing.assert_frame_equal(theirs.tables["rows"][columns], ours.tables["rows"][columns], atol=1e-4, rtol=0)
        _same_loglikelihoods(logs, tiny_gpt2, bos=bool(bos))
        provenance = json.loads(Path(there["record"], PROVENANCE).read_text())
        assert provenance["lm_eval_version"] == importlib.metadata.version("lm_eval")
        assert str(tiny_gpt2) in provenance["model_args"]
        assert provenance["sample_logs_sha256"] == hashlib.sha256(b"".join(p.read_bytes() for p in logs)).hexdigest()
        assert provenance["token_counts"] == "from the model's tokenizer"
        assert there["model"] == f"{tiny_gpt2} (lm-eval, {logs[0].name})"
        assert theirs.manifest.settings["bos"] is bool(bos)


def _same_loglikelihoods(logs: list[Path], model: Path, *, bos: bool) -> None:
    """Each log-likelihood lm-eval logged is pfcore's summed log-probability of the request, within 1e-4."""
    rows = [json.loads(line) for path in logs for line in path.read_text().splitlines()]
    requests = [request_of(row["doc"]) for row in rows]
    scorer = MODELS.scorer(ModelSpec(str(model)), ScoringMethod.CAUSAL, bos=bos)
    ours = [float(s.logprobs.sum()) for s in scorer.score(requests)]
    theirs = [float(row["filtered_resps"][0][0]) for row in rows]
    assert len(rows) > 20 and max(abs(a - b) for a, b in zip(ours, theirs)) < 1e-4


def write_log(tasks: Path, out: Path, model: Path, suite: str, *, bos: bool) -> list[Path]:
    """Sample logs as lm-eval 0.4.13 writes them (a request's arguments as gen_args_0, responses as text)
    for the exported tasks, each log-likelihood pfcore's; and its results file beside them."""
    scorer = MODELS.scorer(ModelSpec(str(model)), ScoringMethod.CAUSAL, bos=bos)
    written = []
    for data in sorted(tasks.glob(f"paired_focus_{suite}_*.jsonl")):
        docs = [json.loads(line) for line in data.read_text().splitlines()]
        values = [float(s.logprobs.sum()) for s in scorer.score([request_of(d) for d in docs])]
        lines = [json.dumps({"doc_id": i, "doc": d, "target": d["continuation"],
                             "arguments": {"gen_args_0": {"arg_0": d["context"], "arg_1": d["continuation"]}},
                             "resps": [[[str(v), "False"]]], "filtered_resps": [[str(v), "False"]],
                             "filter": "none", "metrics": ["summed_loglikelihood"], "summed_loglikelihood": v})
                 for i, (d, v) in enumerate(zip(docs, values))]
        written.append(out / f"samples_{data.stem}_{STAMP}.jsonl")
        written[-1].write_text("\n".join(lines) + "\n")
    (out / f"results_{STAMP}.json").write_text(json.dumps({
        "config": {"model": "hf", "model_args": f"pretrained={model},dtype=float32"}, "lm_eval_version": "0.4.13"}))
    return written


@pytest.fixture()
def semantic_log(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path) -> list[Path]:
    """A semantic sample log of let_alone's first two blocks, in lm-eval's layout."""
    export(tmp_path / "tasks", "semantic", "let_alone")
    (tmp_path / "out").mkdir()
    return write_log(tmp_path / "tasks", tmp_path / "out", tiny_gpt2, "semantic", bos=False)


RUN = ["run", "--suite", "semantic", "--construction", "let_alone", *BLOCKS]


def test_without_a_tokenizer_the_run_sums_and_says_so(semantic_log: list[Path], tiny_gpt2: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    here = run_json([*RUN, "--model", str(tiny_gpt2), "--no-cache", "--reduction", "sum"], capsys)
    assert main([*RUN, "--scores", str(semantic_log[0]), "--model", "not-here/no-such-model", "--json"]) == 0
    out, err = capsys.readouterr()
    there = json.loads(out)
    assert "uses summed log-probabilities" in err and there["accuracy"] == here["accuracy"]
    assert there["lm_eval"]["token_counts"] == "none: summed log-probabilities"
    assert load_run(there["record"]).manifest.settings["reduction"] == "sum"
    assert there["model"] == f"not-here/no-such-model (lm-eval, {semantic_log[0].name})"


def _bad(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line a bad log gets, with exit status 2."""
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def _lines(path: Path) -> list[str]:
    """A log's lines."""
    return path.read_text().splitlines()


def test_a_truncated_log(semantic_log: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    text = semantic_log[0].read_text()
    semantic_log[0].write_text(text[:len(text) - 40])
    assert "not a whole JSON line (a truncated log?)" in _bad([*RUN, "--scores", str(semantic_log[0])], capsys)


def test_a_log_of_another_task(semantic_log: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / f"samples_hellaswag_{STAMP}.jsonl"
    other.write_text(json.dumps({"doc_id": 0, "doc": {"ctx": "A man", "endings": ["runs"]}}) + "\n")
    assert "not a sample log of a paired_focus_semantic task" in _bad([*RUN, "--scores", str(other)], capsys)
    renamed = tmp_path / "out" / f"samples_paired_focus_semantic_hellaswag_{STAMP}.jsonl"
    renamed.write_text(other.read_text())
    assert "not a document of `pfcore export lm-eval`" in _bad([*RUN, "--scores", str(renamed)], capsys)


def test_a_log_of_another_item_set(semantic_log: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    err = _bad(["run", "--suite", "semantic", "--construction", "let_alone", "--limit-blocks", "1",
                "--scores", str(semantic_log[0])], capsys)
    assert "is a log of another item set" in err


def test_missing_documents(semantic_log: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    lines = _lines(semantic_log[0])
    semantic_log[0].write_text("\n".join(lines[3:]) + "\n")
    first = json.loads(lines[0])["doc"]["pfcore_id"]
    err = _bad([*RUN, "--scores", str(semantic_log[0])], capsys)
    assert f"lack 3 of the {len(lines)} documents" in err and first in err


def test_a_document_twice(semantic_log: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    lines = _lines(semantic_log[0])
    semantic_log[0].write_text("\n".join([*lines, lines[5]]) + "\n")
    err = _bad([*RUN, "--scores", str(semantic_log[0])], capsys)
    assert f":{len(lines) + 1}: document {json.loads(lines[5])['doc']['pfcore_id']} appears twice" in err


@pytest.mark.parametrize("value", ["nan", "inf", "0.5", "many"])
def test_a_loglikelihood_that_is_not_one(value: str, semantic_log: list[Path],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    lines = _lines(semantic_log[0])
    sample = json.loads(lines[2])
    sample["filtered_resps"] = [[value, "False"]]
    semantic_log[0].write_text("\n".join([*lines[:2], json.dumps(sample), *lines[3:]]) + "\n")
    err = _bad([*RUN, "--scores", str(semantic_log[0])], capsys)
    assert f":3: document {sample['doc']['pfcore_id']}" in err


def test_a_request_changed_after_the_export(semantic_log: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    lines = _lines(semantic_log[0])
    sample = json.loads(lines[0])
    sample["arguments"]["gen_args_0"]["arg_1"] = sample["doc"]["continuation"].strip()  # no space before it
    semantic_log[0].write_text("\n".join([json.dumps(sample), *lines[1:]]) + "\n")
    assert "request is not its context and continuation" in _bad([*RUN, "--scores", str(semantic_log[0])], capsys)


def test_the_export_is_lm_eval_tasks_with_ids_and_a_version_of_the_items(tmp_path: Path, cache_dir: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    export(tmp_path / "a", "semantic", "let_alone,much_less")
    export(tmp_path / "b", "semantic", "let_alone,much_less", "--limit-blocks", "3")
    group = (tmp_path / "a" / "paired_focus_semantic.yaml").read_text()
    assert "  - paired_focus_semantic_let_alone\n  - paired_focus_semantic_much_less\n" in group
    task = (tmp_path / "a" / "paired_focus_semantic_let_alone.yaml").read_text()
    assert "output_type: loglikelihood" in task and "metric: summed_loglikelihood" in task
    docs = [json.loads(line) for line in (tmp_path / "a" / "paired_focus_semantic_let_alone.jsonl").open()]
    assert docs[0]["continuation"].startswith(" ") and not docs[0]["context"].endswith(" ")
    assert {d["construction"] for d in docs} == {"let_alone"} and len({d["pfcore_id"] for d in docs}) == len(docs)
    version = [line for line in task.splitlines() if "version:" in line]
    other = (tmp_path / "b" / "paired_focus_semantic_let_alone.yaml").read_text()
    assert version and version[0] not in other  # more items, another version
    assert main(["export", "lm-eval", str(tmp_path / "c"), "--suite", "affinity"]) == 2


def test_a_damaged_results_file_beside_the_logs(semantic_log: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    results = semantic_log[0].parent / f"results_{STAMP}.json"
    for text in ('{"config": {"model_args"', "[1, 2]"):
        results.write_text(text)
        assert "results file is not a JSON object" in _bad([*RUN, "--scores", str(semantic_log[0])], capsys)


def test_logs_uploaded_in_the_app_run_as_the_command_does(semantic_log: list[Path], tiny_gpt2: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from pfcore.runs.lm_eval import run_from_uploads
    from pfcore.suites.base import RunConfig

    config = RunConfig(suite="semantic", constructions=("let_alone",), limit_blocks=2)
    here = run_json([*RUN, "--scores", str(semantic_log[0])], capsys)
    files = [(p.name, p.read_bytes()) for p in sorted(semantic_log[0].parent.iterdir())]
    record, provenance = run_from_uploads(files, None, config, print)
    assert record.manifest.model.name == f"{tiny_gpt2} (lm-eval, {semantic_log[0].name})"
    assert provenance["sample_logs_sha256"] == here["lm_eval"]["sample_logs_sha256"]
    assert provenance["lm_eval_version"] == "0.4.13" and provenance["token_counts"] == "from the model's tokenizer"
    pd.testing.assert_frame_equal(record.summary, load_run(here["record"]).summary)
    with pytest.raises(InputError, match="upload lm-eval's samples_paired_focus_semantic_"):
        run_from_uploads([("results.json", b"{}")], None, config, print)


def test_constructions_sharing_their_or_rows(tiny_gpt2: Path, cache_dir: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    export(tmp_path / "tasks", "semantic", "let_alone,much_less")  # the "or" rows of both are the same texts
    (tmp_path / "out").mkdir()
    logs = write_log(tmp_path / "tasks", tmp_path / "out", tiny_gpt2, "semantic", bos=False)
    capsys.readouterr()
    argv = ["run", "--suite", "semantic", "--construction", "let_alone,much_less", *BLOCKS]
    here = run_json([*argv, "--model", str(tiny_gpt2), "--no-cache"], capsys)
    there = run_json([*argv, "--scores", str(logs[1])], capsys)
    assert there["accuracy"] == here["accuracy"] and len(there["accuracy"]) == 2


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["export", "lm-eval", "--help"]])
def test_pfcore_imports_nothing_of_lm_eval(argv: list[str]) -> None:
    probe = ("import contextlib, io, sys\nfrom pfcore.cli import main\n"
             f"with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()): main({argv!r})\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('lm_eval', 'datasets', 'evaluate')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert done.stdout.strip() == "[]"
