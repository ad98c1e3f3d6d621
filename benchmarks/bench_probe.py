"""Benchmark: the Probe's latency with the model loaded, on fresh sentences of the paper's frame (a
private score cache, so nothing is cached), as the page goes: the word chart first, then every
section (verdict, one decision in detail, manipulations). "after" is `probe_sections` (the words,
then the rest in one scorer call); "before" is the earlier path, one call per section
(`score_sentences`, `probe_sentence`, `score_probe`, `score_manipulations`). Then a cached CLI
probe's wall time, in a fresh process each time (this tree, and with --before-repo a checkout of
the code before, e.g. main). Medians; prints a table, then one JSON line.

    python benchmarks/bench_probe.py [--sentences 5] [--cli-runs 5] [--before-repo ../main]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pfcore.items import default_items
from pfcore.models import DEFAULT_MODEL, ModelSpec
from pfcore.paths import REPO_ROOT, models_dir
from pfcore.probe import analyze_sentence, probe_sentence, score_manipulations, score_probe
from pfcore.probe.sections import ALL_SECTIONS, Section, probe_sections
from pfcore.probe.words import score_sentences
from pfcore.scoring.causal import CausalScorer
from pfcore.scoring.models import load_model
from pfcore.store.cache import ScoreCache

Timed = Callable[[str, ScoreCache], tuple[float, float]]


def parse() -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sentences", type=int, default=5, help="fresh frame sentences to time (the median counts)")
    p.add_argument("--cli-runs", type=int, default=5, help="timed runs of the cached CLI probe")
    p.add_argument("--before-repo", type=Path, help="a checkout of the earlier code, for the CLI's 'before'")
    p.add_argument("--model", default=DEFAULT_MODEL)
    return p.parse_args()


def frame_sentences(n: int) -> list[str]:
    """n + 1 distinct frame sentences spread over the shipped let_alone blocks (the first warms up)."""
    contexts = list(dict.fromkeys(i.context for i in default_items("semantic", "let_alone") if i.is_construction))
    step = len(contexts) // (n + 1)
    return contexts[::step][:n + 1]


def after(scorer: CausalScorer) -> Timed:
    """The new path: the words, then every section in one call; seconds to words and to all."""
    def run(text: str, cache: ScoreCache) -> tuple[float, float]:
        start = time.perf_counter()
        probe = analyze_sentence(text)
        probe_sections(scorer, probe, sections={Section.WORDS}, cache=cache)
        words = time.perf_counter() - start
        probe_sections(scorer, probe, sections=ALL_SECTIONS, cache=cache)
        return words, time.perf_counter() - start
    return run


def before(scorer: CausalScorer) -> Timed:
    """The earlier path: one call per section, in the page's order."""
    def run(text: str, cache: ScoreCache) -> tuple[float, float]:
        start = time.perf_counter()
        probe = analyze_sentence(text)
        score_sentences(scorer, probe, cache)
        words = time.perf_counter() - start
        first = probe_sentence(scorer, probe, (), cache).decisions[0]
        score_probe(scorer, probe if first.context == probe.text else analyze_sentence(first.context),
                    first.entailed, first.contradicted, cache)
        score_manipulations(scorer, probe, cache)
        return words, time.perf_counter() - start
    return run


def medians(run: Timed, sentences: list[str], folder: Path) -> tuple[float, float]:
    """Median seconds to words and to every section over fresh sentences (a new cache each)."""
    with ScoreCache(folder / "warm.sqlite") as cache:
        run(sentences[0], cache)  # one-time work: which tokens begin a word, the tree check
    times = []
    for number, text in enumerate(sentences[1:]):
        with ScoreCache(folder / f"fresh-{number}.sqlite") as cache:
            times.append(run(text, cache))
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def cli_seconds(repo: Path, sentence: str, runs: int, models: Path) -> float:
    """Median wall time of `python -m pfcore probe SENTENCE --json` in a fresh process, every score
    cached (a first run fills a private cache)."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PYTHONPATH": str(repo), "PFCORE_CACHE": cache, "PFCORE_MODELS": str(models)}
        command = [sys.executable, "-m", "pfcore", "probe", sentence, "--json"]
        subprocess.run(command, cwd=repo, env=env, check=True, capture_output=True)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(command, cwd=repo, env=env, check=True, capture_output=True)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    """Time both paths on the same fresh sentences, then the cached CLI; print the table and JSON."""
    args = parse()
    sentences = frame_sentences(args.sentences)
    models = models_dir()
    scorer = CausalScorer(load_model(ModelSpec(args.model)))
    out: dict[str, dict[str, float]] = {"words_s": {}, "all_s": {}, "cli_cached_s": {}}
    with tempfile.TemporaryDirectory() as folder:
        for name, path in (("before", before(scorer)), ("after", after(scorer))):
            (Path(folder) / name).mkdir()
            out["words_s"][name], out["all_s"][name] = medians(path, sentences, Path(folder) / name)
    repos = {"after": REPO_ROOT, **({"before": args.before_repo.resolve()} if args.before_repo else {})}
    for name, repo in sorted(repos.items(), reverse=True):
        out["cli_cached_s"][name] = cli_seconds(repo, sentences[1], args.cli_runs, models)
    print(f"model {args.model}; median of {args.sentences} fresh frame sentences; cached CLI: median of "
          f"{args.cli_runs} runs")
    print(f"{'what':<44}{'before':>10}{'after':>10}")
    for key, label in (("words_s", "to the word chart (s)"), ("all_s", "to every section (s)"),
                       ("cli_cached_s", "cached CLI probe, wall (s)")):
        cells = "".join(f"{out[key].get(n, float('nan')):>10.2f}" for n in ("before", "after"))
        print(f"{label:<44}{cells}")
    print(json.dumps({"model": args.model, "sentences": args.sentences,
                      **{k: {n: round(v, 3) for n, v in d.items()} for k, d in out.items()}}))


if __name__ == "__main__":
    main()
