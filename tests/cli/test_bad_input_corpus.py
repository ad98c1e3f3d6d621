"""The bad-input corpus (issue 16): every CLI command given bad input answers with its exit status
(2 bad input, 1 for `items check` findings, 0 for odd but valid text), one line on stderr, no
traceback, and leaves existing caches and records as they were (but for the documented move-aside
of a corrupt file). Commands run in-process through the CLI's error boundary; one case runs in a
real subprocess with invalid UTF-8 bytes from the shell."""
from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest

from pfcore.cli import main
from pfcore.items import default_items, write_items
from pfcore.models import ModelSpec
from pfcore.runs.runner import run_suite
from pfcore.scoring.models import MODELS
from pfcore.store.cache import TABLE
from pfcore.suites.base import RunConfig

Setup = Callable[[Path, Path, Path], list[str]]  # (workdir, tiny model, cache) -> argv


@dataclass(frozen=True)
class Case:
    """One bad input: how to build the command line, and the exit status it must give."""

    name: str
    argv: Setup
    exit: int = 2
    moved_aside: str = ""  # a file the command may move aside (name prefix), documented
    env: dict[str, str] = field(default_factory=dict)


def model_args(tiny: Path) -> list[str]:
    """The tiny GPT-2 as the model of a command."""
    return ["--model", str(tiny)]


def score(text: str, **extra: str) -> Setup:
    """`score --sentence TEXT --json` on the tiny model."""
    return lambda _w, tiny, _c: ["score", "--sentence", text, "--json", *model_args(tiny)]


def run_items(make: Callable[[Path], Path], suite: str = "semantic") -> Setup:
    """`run --suite SUITE --items FILE` with a file the case writes."""
    return lambda w, tiny, _c: ["run", "--suite", suite, "--items", str(make(w)), "--json", *model_args(tiny)]


def write(name: str, data: bytes | str) -> Callable[[Path], Path]:
    """A file the case writes into its work folder."""
    def make(work: Path) -> Path:
        path = work / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
        return path
    return make


def semantic_jsonl(work: Path, transform: Callable[[str], str] = lambda line: line,
                   name: str = "items.jsonl", duplicate: bool = False) -> Path:
    """The first semantic block as JSONL, its lines changed by `transform`."""
    items = default_items("semantic", "let_alone")[:8]
    path = work / name
    write_items(items + (items[:1] if duplicate else []), path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], *map(transform, lines[1:])]) + "\n")
    return path


def lexicon(text: str) -> Setup:
    """`items semantic --lexicon FILE` with the case's lexicon text."""
    return lambda w, _t, _c: ["items", "semantic", "--lexicon", str(write("lexicon.yaml", text)(w)),
                              "--out", str(w / "out.jsonl")]


LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8))
PUBLISHED_HEADER = "revision\tconstruction\tworld_knowledge_filter\taccuracy\n"


def published(body: str) -> Setup:
    """`results import FOLDER` with one summary file holding `body`."""
    def argv(work: Path, _t: Path, _c: Path) -> list[str]:
        path = work / "pub" / "EleutherAI" / "pythia-12b" / "accuracy_summary.tsv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
        return ["results", "import", str(work / "pub")]
    return argv


def folder_model(files: dict[str, str]) -> Setup:
    """`score` with a model folder holding just these files (copied from the tiny model)."""
    def argv(work: Path, tiny: Path, _c: Path) -> list[str]:
        folder = work / "model"
        folder.mkdir(exist_ok=True)
        for name, source in files.items():
            shutil.copy(tiny / source, folder / name) if source else (folder / name).write_bytes(b"\x80\x02.")
        return ["score", "--sentence", "The cat sat.", "--model", str(folder)]
    return argv


def corrupt(name: str, then: Setup) -> Setup:
    """Damage a file of the cache, then run a command."""
    def argv(work: Path, tiny: Path, cache: Path) -> list[str]:
        (cache / name).write_bytes(b"this is not what it should be" * 10)
        return then(work, tiny, cache)
    return argv


CASES = [
    # ----- score: text
    Case("empty text", score("")),
    Case("whitespace only", score("   \t  ")),
    Case("100,000 characters", score("rock " * 20_000)),
    Case("one token, no BOS", score("a")),
    Case("NUL character", score("The cat\0sat.")),
    Case("unpaired surrogate", score("The cat \udcff sat.")),
    Case("beyond the model's context", score("the cat sat on the mat " * 150)),
    Case("control characters", score("The cat\x07 sat\x08 on the\x1b mat."), exit=0),
    Case("right-to-left text", score("הוא לא אוהב שרימפס, שלא לדבר על דיונון."), exit=0),
    Case("HTML", score("<b>He</b> doesn't like <script>alert(1)</script> shrimp."), exit=0),
    Case("emoji", score("He doesn't like 🦐, let alone 🦑."), exit=0),
    Case("sentence and prefix together", lambda _w, t, _c: ["score", "a b", "c d", "--sentence", "x y",
                                                             *model_args(t)]),
    Case("empty prefix", lambda _w, t, _c: ["score", "", "The cat sat.", *model_args(t)]),
    # ----- models
    Case("unknown hub model", lambda _w, _t, _c: ["score", "--sentence", "The cat sat.", "--model",
                                                  "no-such-org/no-such-model-xyz"]),
    Case("missing model path", lambda _w, _t, _c: ["score", "--sentence", "The cat sat.", "--model", "./nope/x"]),
    Case("a .gguf that is text", lambda w, _t, _c: ["score", "--sentence", "The cat sat.", "--model",
                                                    str(write("notes.gguf", "plain text")(w))]),
    Case("folder with only a config", folder_model({"config.json": "config.json"})),
    Case("folder with pickled weights only", folder_model({"config.json": "config.json", "pytorch_model.bin": ""})),
    Case("unknown dtype", lambda _w, t, _c: ["score", "--sentence", "x y", "--dtype", "int3", *model_args(t)]),
    Case("masked kind for a causal model", lambda _w, t, _c: ["run", "--kind", "masked", "--json", *model_args(t)]),
    # ----- the command line
    Case("unknown command", lambda _w, _t, _c: ["frobnicate"]),
    Case("unknown option", lambda _w, t, _c: ["run", "--nope", *model_args(t)]),
    Case("--chunk 0", lambda _w, t, _c: ["run", "--chunk", "0", *model_args(t)]),
    Case("negative --chunk", lambda _w, t, _c: ["run", "--chunk", "-5", *model_args(t)]),
    Case("--limit-blocks 0", lambda _w, t, _c: ["run", "--limit-blocks", "0", *model_args(t)]),
    Case("--limit-blocks not a number", lambda _w, t, _c: ["run", "--limit-blocks", "ten", *model_args(t)]),
    Case("unknown suite", lambda _w, t, _c: ["run", "--suite", "nope", *model_args(t)]),
    Case("unknown construction", lambda _w, t, _c: ["run", "--construction", "so_much_less", *model_args(t)]),
    Case("scoring that does not fit the model", lambda _w, t, _c: ["run", "--scoring", "masked-token",
                                                                   "--limit-blocks", "1", *model_args(t)]),
    Case("affinity on a causal model", lambda _w, t, _c: ["run", "--suite", "affinity", *model_args(t)]),
    # ----- item files
    Case("missing item file", lambda w, t, _c: ["run", "--items", str(w / "none.jsonl"), *model_args(t)]),
    Case("empty item file", run_items(write("empty.jsonl", b""))),
    Case("whitespace-only item file", run_items(write("blank.csv", "  \n\n  \n"))),
    Case("garbage JSONL", run_items(write("garbage.jsonl", bytes(range(256)) * 8))),
    Case("garbage CSV", run_items(write("garbage.csv", "a,b\n\x00\x01,\"unclosed\n"))),
    Case("garbage TSV", run_items(write("garbage.tsv", "Swapped_Condition\tfoo\n1\t2\t3\n"))),
    Case("truncated gzip", run_items(lambda w: write("cut.jsonl.gz", gzip.compress(
        semantic_jsonl(w).read_bytes())[:120])(w))),
    Case("truncated JSONL line", run_items(lambda w: write("cut.jsonl", semantic_jsonl(w).read_bytes()[:-60])(w))),
    Case("truncated paper TSV", run_items(write("cut.tsv", "Swapped_Condition\tSwapped_Stimulus\tLet-Alone\t"
                                                           "Sentence\tPlain Verb\tNoun\tPronoun\tModal\n"
                                                           "0\t0\t1\tYou"))),
    Case("CSV cell over 131,072 characters", run_items(lambda w: semantic_csv_with_huge_cell(w))),
    Case("JSONL with a lone surrogate", run_items(lambda w: semantic_jsonl(
        w, lambda line: line.replace('"context": "', '"context": "\\ud800')))),
    Case("semantic row without the blank", run_items(lambda w: semantic_jsonl(
        w, lambda line: line.replace("<MASK>", "easy")))),
    Case("duplicate item ids", run_items(lambda w: semantic_jsonl(w, duplicate=True))),
    Case("syntax items given to the semantic suite", run_items(lambda w: write_syntax(w))),
    Case("BLiMP folder without paradigms", lambda w, t, _c: ["run", "--suite", "blimp", "--items",
                                                             str(make_dir(w / "empty-blimp")), *model_args(t)]),
    # ----- where records go
    Case("--out is a file", lambda w, t, _c: ["run", "--limit-blocks", "1", "--out",
                                              str(write("a-file", "x")(w)), *model_args(t)]),
    Case("PFCORE_CACHE is a file", lambda _w, t, _c: ["run", "--limit-blocks", "1", *model_args(t)],
         env={"PFCORE_CACHE": "{work}/cache-file"}),
    Case("items --out where no folder can be made", lambda _w, _t, _c: ["items", "semantic", "--out",
                                                                         "/proc/no/such/items.jsonl"]),
    # ----- lexicons
    Case("lexicon with nested aliases", lexicon(LAUGHS)),
    Case("lexicon with a NUL", lexicon("version: 1\nscales:\x00 {}\n")),
    Case("lexicon with a list as a key", lexicon("? [a, b]\n: 1\n")),
    Case("lexicon that is not YAML", lexicon("{{{{ : : ]]\n")),
    Case("unknown construction for items", lambda w, _t, _c: ["items", "semantic", "--construction", "nope",
                                                              "--out", str(w / "x.jsonl")]),
    Case("items check of garbage", lambda w, _t, _c: ["items", "check", str(write("g.jsonl", b"\xff\xfe")(w))], exit=1),
    # ----- published results and analyses
    Case("import of a missing folder", lambda w, _t, _c: ["results", "import", str(w / "none")]),
    Case("published summary cut mid-number", published(PUBLISHED_HEADER + "step1\tletalone\tall\t0.5\nstep2\tl")),
    Case("published summary with a missing cell", published(PUBLISHED_HEADER + "step1\tletalone\tall\n")),
    Case("published summary that is binary", published("\x00\x01\x02\x03")),
    Case("correlation for an unknown model", lambda _w, _t, _c: ["analyze", "fdcorr", "--model", "x/y", "--x",
                                                                 "pf_avg:aligned", "--y", "blimp:all"]),
    Case("a malformed series name", lambda _w, _t, _c: ["analyze", "fdcorr", "--model", "x/y", "--x", "oops",
                                                        "--y", "blimp:all"]),
    Case("trajectory with revisions and a folder", lambda w, t, _c: ["trajectory", "--revisions", "step1",
                                                                     "--checkpoint-dir", str(w), *model_args(t)]),
    Case("trajectory of an empty folder", lambda w, t, _c: ["trajectory", "--checkpoint-dir",
                                                            str(make_dir(w / "ckpt")), *model_args(t)]),
    # ----- damaged files: moved aside with a warning, the command goes on
    Case("corrupt score cache", corrupt("scores.sqlite", score("The cat sat on the mat.")), exit=0,
         moved_aside="scores.sqlite"),
    Case("corrupt results table", corrupt("results/results.parquet", published(
        PUBLISHED_HEADER + "step1\tletalone\tall\t0.5\n")), exit=0, moved_aside="results/results.parquet"),
]


def semantic_csv_with_huge_cell(work: Path) -> Path:
    """The first semantic block as CSV, one context 140,000 characters long."""
    path = work / "items.csv"
    write_items(default_items("semantic", "let_alone")[:8], path)
    lines = path.read_text().splitlines()
    cells = lines[2].split(",")
    cells[8] = "x" * 140_000
    path.write_text("\n".join([*lines[:2], ",".join(cells), *lines[3:]]) + "\n")
    return path


def write_syntax(work: Path) -> Path:
    """A small file of syntactic items."""
    path = work / "syntax.jsonl"
    write_items(default_items("syntax", "let_alone")[:12], path)
    return path


def make_dir(path: Path) -> Path:
    """An empty folder."""
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def baseline(tiny_gpt2: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache with scores, a run record and a results table in it, made once."""
    cache = tmp_path_factory.mktemp("corpus-baseline")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PFCORE_CACHE", str(cache))
        run_suite(ModelSpec(str(tiny_gpt2)), RunConfig(constructions=("let_alone",), limit_blocks=1))
    MODELS.clear()
    return cache


def snapshot(cache: Path, moved_aside: str = "") -> dict[str, object]:
    """What a command must not change: the stored scores, the results table, the run records."""
    state: dict[str, object] = {}
    db = cache / "scores.sqlite"
    if db.is_file() and moved_aside != "scores.sqlite":
        with sqlite3.connect(db) as conn:
            state["scores"] = sorted(conn.execute(f"SELECT key, checksum FROM {TABLE}"))
    table = cache / "results" / "results.parquet"
    if table.is_file() and moved_aside != "results/results.parquet":
        state["results"] = pd.read_parquet(table).to_dict(orient="records")
    state["runs"] = {str(p.relative_to(cache)): hashlib.sha256(p.read_bytes()).hexdigest()
                     for p in sorted((cache / "runs").rglob("*")) if p.is_file()}
    return state


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input(case: Case, baseline: Path, tiny_gpt2: Path, tmp_path: Path,
                   monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    shutil.copytree(baseline, cache)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("PFCORE_CACHE", str(cache))
    for name, value in case.env.items():
        value = value.format(work=work)
        if name == "PFCORE_CACHE":
            Path(value).write_text("a file, not a folder")
        monkeypatch.setenv(name, value)
    before = snapshot(cache, case.moved_aside)
    argv = case.argv(work, tiny_gpt2, cache)
    if case.moved_aside:  # under pytest the warning is captured, not printed as its one line
        with pytest.warns(UserWarning, match="moved it to"):
            code = main(argv)
    else:
        code = main(argv)
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == case.exit, (code, err)
    assert "Traceback" not in out + err
    if case.exit:
        assert len(lines) == 1 and lines[0].startswith("error:") or case.exit == 1, err
    else:
        assert all(line.startswith("warning:") for line in lines), err
        if "--json" in argv:
            result = json.loads(out)
            assert all(isinstance(v, float) for v in result["logprobs"])
    if case.moved_aside:
        assert list(cache.glob(f"{case.moved_aside}.corrupt-*"))
    monkeypatch.setenv("PFCORE_CACHE", str(cache))
    after = snapshot(cache, case.moved_aside)
    if case.exit:
        assert after == before  # a refused command changes nothing
    else:  # odd but valid text may add scores; nothing stored before is changed
        assert set(before.get("scores", [])) <= set(after.get("scores", []))
        assert {k: v for k, v in after.items() if k != "scores"} == {k: v for k, v in before.items() if k != "scores"}


def test_the_corpus_covers_the_reported_cases() -> None:
    names = {c.name for c in CASES}
    reported = {"one token, no BOS", "a .gguf that is text", "unpaired surrogate", "JSONL with a lone surrogate",
                "semantic row without the blank", "CSV cell over 131,072 characters", "--chunk 0",
                "negative --chunk", "lexicon with a NUL", "lexicon with a list as a key",
                "lexicon with nested aliases", "items --out where no folder can be made",
                "folder with only a config", "--limit-blocks 0", "--out is a file", "PFCORE_CACHE is a file"}
    assert reported <= names
    assert len(CASES) >= 60


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX argv bytes")
def test_invalid_utf8_from_the_shell_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pfcore", "score", "--sentence", b"caf\xe9 au lait"],
                          capture_output=True, text=True, env={"PFCORE_CACHE": str(tmp_path), "PATH": ""})
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "not valid UTF-8" in done.stderr
    assert "Traceback" not in done.stderr
