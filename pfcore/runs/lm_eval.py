"""The Paired-Focus suites in EleutherAI's lm-evaluation-harness (lm-eval), both ways. `export_tasks`
writes task files and their documents, so that lm-eval requests exactly the log-likelihoods a suite's
decisions need; `read_log` reads lm-eval's sample logs (`--log_samples`) back, checked document by
document against the items, as the scores of those requests. Nothing here imports lm_eval."""
from __future__ import annotations

import glob
import hashlib
import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pfcore.errors import InputError, PfcoreError
from pfcore.files import MIB, FileKind, make_folder, read_bounded, too_large, upload_name, write_atomic
from pfcore.models.spec import ModelSpec
from pfcore.names import Reduction, SuiteName
from pfcore.paths import cache_subdir
from pfcore.progress import ProgressView
from pfcore.runs.runner import run_suite
from pfcore.scoring.kinds import scores
from pfcore.scoring.kinds.scores import text_id
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS
from pfcore.scoring.requests import Request
from pfcore.store.runs import RunRecord
from pfcore.suites.base import RunConfig, Suite
from pfcore.suites.registry import get_suite

EXPORTED = (SuiteName.SEMANTIC, SuiteName.SYNTAX)
PREFIX = "paired_focus"
METRIC = "summed_loglikelihood"  # lm-eval's own number here (mean over documents); not the paper's decision
METRIC_MODULE = "paired_focus_metric"
SAMPLE_LOG = FileKind("lm-eval sample log", 512 * MIB)
RESULTS_FILE = FileKind("lm-eval results file", 64 * MIB)
SHOWN = 3  # documents a message quotes
PROVENANCE = "lm_eval.json"  # beside a run record made from lm-eval's logs: where its scores came from
METRIC_SOURCE = f'''"""lm-eval's own number on pfcore's Paired-Focus tasks: each request's summed log-likelihood
(its mean over documents when aggregated). It is not the paper's decision: pfcore makes those from
the sample log (`pfcore run --suite SUITE --scores samples_....jsonl`)."""


def process_results(doc, results):
    """The request's summed log-likelihood, under the metric's name."""
    loglikelihood, _ = results[0]
    return {{"{METRIC}": loglikelihood}}
'''


def item_set_sha256(item_ids: Sequence[str]) -> str:
    """The sha256 of an item set, order-free (its first 16 characters are a run record's items hash)."""
    return hashlib.sha256("\n".join(sorted(item_ids)).encode()).hexdigest()


def exported_suite(name: str) -> Suite:
    """The suite of that name, when lm-eval can run it; InputError otherwise."""
    suite = get_suite(name)
    if suite.name not in EXPORTED:
        raise InputError(f"lm-eval runs the {' and '.join(EXPORTED)} suites; {suite.name} is not one of them")
    return suite


def documents(suite: Suite, items: Sequence[Any]) -> list[dict[str, Any]]:
    """One lm-eval document per request of the suite's causal scoring, in order: pfcore's item id, the
    request's place in its item, the item set's sha256, and the context and continuation lm-eval scores
    (the continuation starts with the space pfcore and minicons put after a non-empty context)."""
    requests: list[Request] = suite.requests(items, ScoringMethod.CAUSAL) or []
    per, rest = divmod(len(requests), len(items))
    if rest or not per:
        raise InputError(f"the {suite.name} suite's requests do not split evenly over its items")
    sha = item_set_sha256([i.item_id for i in items])
    return [{"pfcore_id": f"{item.item_id}:{k}", "item_id": item.item_id, "request": k,
             "suite": str(suite.name), "construction": item.construction, "item_set_sha256": sha,
             "context": req.prefix, "continuation": f" {req.text}" if req.prefix else req.text}
            for index, req in enumerate(requests)
            for item, k in [(items[index // per], index % per)]]


def request_of(doc: dict[str, Any]) -> Request:
    """The pfcore request a document stands for."""
    text = doc["continuation"][1:] if doc["context"] else doc["continuation"]
    return Request(doc["context"], text)


def task_name(suite: SuiteName, construction: str) -> str:
    """An exported task's name: paired_focus_SUITE_CONSTRUCTION."""
    return f"{PREFIX}_{suite}_{construction}"


def group_name(suite: SuiteName) -> str:
    """The group of a suite's tasks: paired_focus_SUITE."""
    return f"{PREFIX}_{suite}"


def version_of(sha: str) -> int:
    """The tasks' metadata version: a number from the item set's sha256, so it changes with the items."""
    return int(sha[:8], 16)


def export_tasks(name: str, config: RunConfig, folder: Path) -> list[Path]:
    """Write a suite's lm-eval tasks into `folder` (one task per construction, a group for the suite,
    the documents as JSON lines, the metric's module); the paths written, the group's file first."""
    suite = exported_suite(name)
    docs = documents(suite, suite.load(config))
    make_folder(folder, "the export folder")
    folder = folder.resolve()
    by_task: dict[str, list[dict[str, Any]]] = {}
    for doc in docs:
        by_task.setdefault(task_name(suite.name, doc["construction"]), []).append(doc)
    sha = docs[0]["item_set_sha256"]
    written = [write_atomic(folder / f"{group_name(suite.name)}.yaml", _group_yaml(suite.name, list(by_task), sha),
                            "an lm-eval group file")]
    for task, part in by_task.items():
        data = folder / f"{task}.jsonl"
        written.append(write_atomic(data, "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in part),
                                    "an lm-eval documents file"))
        written.append(write_atomic(folder / f"{task}.yaml", _task_yaml(task, data, sha), "an lm-eval task file"))
    written.append(write_atomic(folder / f"{METRIC_MODULE}.py", METRIC_SOURCE, "the tasks' metric module"))
    return written


def _task_yaml(task: str, data: Path, sha: str) -> str:
    """One task's YAML: local JSON documents, one log-likelihood request each, the named metric."""
    return "\n".join([
        f"task: {task}",
        "dataset_path: json",
        "dataset_kwargs:",
        "  data_files:",
        f"    test: {json.dumps(str(data))}",
        "test_split: test",
        "output_type: loglikelihood",
        "doc_to_text: context",
        "doc_to_target: continuation",
        'target_delimiter: ""',
        f"process_results: !function {METRIC_MODULE}.process_results",
        "metric_list:",
        f"  - metric: {METRIC}",
        "    aggregation: mean",
        "    higher_is_better: true",
        "metadata:",
        f"  version: {version_of(sha)}",
        f"  item_set_sha256: {sha}",
        ""])


def _group_yaml(suite: SuiteName, tasks: list[str], sha: str) -> str:
    """A suite's group YAML: its tasks, one per construction."""
    return "\n".join([f"group: {group_name(suite)}", "task:", *[f"  - {t}" for t in tasks], "metadata:",
                      f"  version: {version_of(sha)}", f"  item_set_sha256: {sha}", ""])


@dataclass(frozen=True)
class LmEvalLog:
    """lm-eval's sample logs of one run of a suite's tasks: each document's log-likelihood, the files'
    digest, and what lm-eval's results file beside them says of the run (None where it is absent)."""

    files: tuple[Path, ...]
    sha256: str
    loglikelihoods: dict[str, float]
    item_set: str
    lm_eval_version: str | None
    model_args: str | None
    model_name: str | None


def is_sample_log(path: str | Path) -> bool:
    """Whether a --scores file is an lm-eval sample log (JSON lines) rather than a scores table."""
    return Path(path).suffix.lower() == ".jsonl"


def log_files(path: Path, suite: SuiteName) -> tuple[tuple[Path, ...], str]:
    """The sample logs of the run a log belongs to (every task of the suite's group that lm-eval logged
    at the same time beside it) and that time; InputError for a log of another task."""
    stem = path.name[:-len(".jsonl")]
    task, _, stamp = stem.removeprefix("samples_").rpartition("_")
    group = group_name(suite)
    if not stem.startswith("samples_") or not task.startswith(group + "_"):
        raise InputError(f"{path} is not a sample log of a {group} task (lm-eval names them "
                         f"samples_{group}_CONSTRUCTION_DATE.jsonl): a log of another task?")
    return tuple(sorted(path.parent.glob(f"samples_{group}_*_{glob.escape(stamp)}.jsonl"))) or (path,), stamp


def read_log(path: str | Path, suite: SuiteName) -> LmEvalLog:
    """The sample logs of a suite's run that `path` is one of; InputError naming the file and line of
    the first problem: a truncated line, a document of another task, a request pfcore does not make,
    a log-likelihood that is not a finite number, a document twice, two item sets."""
    files, stamp = log_files(Path(path), suite)
    digest, values, sets = hashlib.sha256(), {}, set()
    for file in files:
        raw = read_bounded(file, SAMPLE_LOG)
        digest.update(raw)
        for line, sample in _samples(file, raw):
            doc, value = _sample(file, line, sample)
            if doc["pfcore_id"] in values:
                raise InputError(f"{file}:{line}: document {doc['pfcore_id']} appears twice")
            values[doc["pfcore_id"]] = value
            sets.add(doc["item_set_sha256"])
    if not values:
        raise InputError(f"{path}: the sample log holds no documents")
    if len(sets) > 1:
        raise InputError(f"{path}: the sample logs beside it hold documents of {len(sets)} item sets; "
                         "keep one run's logs in a folder")
    version, args, model = _results_beside(Path(path).parent / f"results_{stamp}.json")
    return LmEvalLog(files, digest.hexdigest(), values, sets.pop(), version, args, model)


def _samples(file: Path, raw: bytes) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each sample of a log with its line number; InputError for a line that is not a whole JSON object."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{file}: the sample log is not UTF-8 text") from None
    for line, row in enumerate(text.splitlines(), start=1):
        if not row.strip():
            continue
        try:
            sample = json.loads(row)
        except json.JSONDecodeError:
            raise InputError(f"{file}:{line}: not a whole JSON line (a truncated log?)") from None
        if not isinstance(sample, dict):
            raise InputError(f"{file}:{line}: not an lm-eval sample (a JSON object)")
        yield line, sample


def _sample(file: Path, line: int, sample: dict[str, Any]) -> tuple[dict[str, Any], float]:
    """A sample's document and log-likelihood, checked: a pfcore document, its request as exported."""
    doc = sample.get("doc")
    keys = ("pfcore_id", "item_set_sha256", "context", "continuation")
    if not isinstance(doc, dict) or not all(isinstance(doc.get(k), str) for k in keys):
        raise InputError(f"{file}:{line}: not a document of `pfcore export lm-eval` (a log of another task?)")
    if _arguments(sample.get("arguments")) != [[doc["context"], doc["continuation"]]]:
        raise InputError(f"{file}:{line}: document {doc['pfcore_id']}'s request is not its context and "
                         "continuation: run the tasks as exported, with no few-shot examples, chat template or "
                         "system instruction")
    try:
        value = float(sample["filtered_resps"][0][0])
    except (KeyError, IndexError, TypeError, ValueError):
        raise InputError(f"{file}:{line}: document {doc['pfcore_id']} has no log-likelihood "
                         "(filtered_resps)") from None
    if not math.isfinite(value) or value > 0:
        raise InputError(f"{file}:{line}: document {doc['pfcore_id']}'s log-likelihood is {value}, not a "
                         "finite log-probability (0 or below)")
    return doc, value


def _arguments(logged: object) -> object:
    """A sample's requests as [[context, continuation], ...]: lm-eval logs them as a list of pairs, or
    (0.4.9 on) as {"gen_args_0": {"arg_0": context, "arg_1": continuation}, ...}."""
    if isinstance(logged, dict):
        return [list(a.values()) if isinstance(a, dict) else a for a in logged.values()]
    return logged


def _results_beside(path: Path) -> tuple[str | None, str | None, str | None]:
    """lm-eval's version, model arguments and model name from the results file written with the logs."""
    if not path.is_file():
        return None, None, None
    try:
        data = json.loads(read_bounded(path, RESULTS_FILE))
    except (json.JSONDecodeError, UnicodeDecodeError):
        data = None
    if not isinstance(data, dict):
        raise InputError(f"{path}: lm-eval's results file is not a JSON object (a truncated file?)")
    config = data.get("config")
    args = config.get("model_args") if isinstance(config, dict) else None
    return (_text(data.get("lm_eval_version")), json.dumps(args) if isinstance(args, dict) else _text(args),
            _text(data.get("model_name")))


def _text(value: object) -> str | None:
    """A value as text, None when absent."""
    return None if value is None else str(value)


TokenCounter = Callable[[Sequence[Request]], list[int]]
"""How many tokens lm-eval scored of each request (from the model's tokenizer)."""


def scores_rows(log: LmEvalLog, suite: Suite, items: Sequence[Any],
                count: TokenCounter | None) -> list[tuple[str, float, int]]:
    """The scores-file rows (text id, summed log-probability, tokens) of every request the items
    need, from the log, each text once (the "or" rows of several constructions are the same texts: the
    first document's number); InputError for a log of another item set or one that lacks documents.
    Without a token counter each count is 1, so a mean is the sum."""
    docs = documents(suite, items)
    sha = docs[0]["item_set_sha256"]
    if log.item_set != sha:
        raise InputError(f"{log.files[0]} is a log of another item set (sha256 {log.item_set[:16]}, this run's "
                         f"is {sha[:16]}): give --construction and --limit-blocks as for the export")
    missing = [d["pfcore_id"] for d in docs if d["pfcore_id"] not in log.loglikelihoods]
    if missing:
        raise InputError(f"the sample logs lack {len(missing):,} of the {len(docs):,} documents this run needs, "
                         f"e.g. {', '.join(missing[:SHOWN])}: run every task of the group")
    requests = [request_of(d) for d in docs]
    counts = count(requests) if count else [1] * len(requests)
    rows: dict[str, tuple[float, int]] = {}
    for r, d, n in zip(requests, docs, counts):  # a text items share (the constructions' "or" rows) once
        rows.setdefault(text_id(r.prefix, r.text), (log.loglikelihoods[d["pfcore_id"]], n))
    return [(key, value, n) for key, (value, n) in rows.items()]


def token_counts(tokenizer: Any) -> TokenCounter:
    """How many tokens lm-eval's hf model scores of each request: the continuation's, given a context,
    as the whole text's tokens less the context's; of a whole sentence, all of them (lm-eval puts
    its prefix token before)."""
    def encode(texts: list[str]) -> list[list[int]]:
        return tokenizer(texts, add_special_tokens=False)["input_ids"] if texts else []

    def count(requests: Sequence[Request]) -> list[int]:
        whole = encode([f"{r.prefix} {r.text}" if r.prefix else r.text for r in requests])
        contexts = dict(zip(prefixes := sorted({r.prefix for r in requests if r.prefix}), encode(prefixes)))
        return [len(ids) - len(contexts[r.prefix]) if r.prefix else len(ids) for r, ids in zip(requests, whole)]
    return count


@dataclass(frozen=True)
class Attached:
    """A run from lm-eval sample logs: the model spec its scores are, the run's configuration (the
    reduction it can compute, the first token as lm-eval scored it) and the provenance to record."""

    spec: ModelSpec
    config: RunConfig
    provenance: dict[str, Any]


def attach_log(path: str | Path, model: str | None, config: RunConfig, say: Callable[[str], None]) -> Attached:
    """The run of a suite from lm-eval sample logs: the logs read and checked against the run's items,
    written as a scores file, and the spec of "MODEL (lm-eval, FILE)" over it. The mean reduction
    needs each request's token count, from the model's tokenizer; without one, the run sums (and says
    so)."""
    suite = exported_suite(config.suite)
    log = read_log(path, suite.name)
    name = model or _pretrained(log.model_args)
    if not name:
        raise InputError(f"name the model of {path} with --model NAME (lm-eval's results file beside it, "
                         "which names it, is absent)")
    counter = _counter(name, say) if config.reduction == Reduction.MEAN else None
    if config.reduction == Reduction.MEAN and counter is None:
        config = replace(config, reduction=Reduction.SUM)
    rows = scores_rows(log, suite, suite.load(config), counter)
    table = "id\tlogprob\tn_tokens\n" + "".join(f"{k}\t{v!r}\t{n}\n" for k, v, n in rows)
    digest = hashlib.sha256(table.encode()).hexdigest()[:16]  # token counts depend on the tokenizer too
    scores_path = write_atomic(cache_subdir("lm-eval") / f"{digest}.tsv", table, "the scores read from lm-eval's logs")
    spec = scores.KIND.attach(f"{name} (lm-eval, {Path(path).name})", scores_path)
    provenance = {"lm_eval_version": log.lm_eval_version, "model_args": log.model_args,
                  "model_name": log.model_name, "sample_logs": [str(f) for f in log.files],
                  "sample_logs_sha256": log.sha256, "item_set_sha256": log.item_set,
                  "reduction": str(config.reduction),
                  "token_counts": "from the model's tokenizer" if counter else "none: summed log-probabilities"}
    return Attached(spec, replace(config, bos=suite.name == SuiteName.SYNTAX), provenance)


def _pretrained(model_args: str | None) -> str | None:
    """The model lm-eval loaded, from its model arguments (pretrained=...)."""
    if not model_args:
        return None
    if model_args.startswith("{"):
        value = json.loads(model_args).get("pretrained")
        return str(value) if value else None
    found = [a.split("=", 1)[1] for a in model_args.split(",") if a.strip().startswith("pretrained=")]
    return found[0].strip() if found else None


def _counter(model: str, say: Callable[[str], None]) -> TokenCounter | None:
    """Token counts from the model's tokenizer, or None (said) when it cannot be loaded here."""
    try:
        return token_counts(MODELS.tokenizer(ModelSpec(model)))
    except (PfcoreError, OSError, ValueError) as exc:
        say(f"note: no tokenizer for {model} here ({str(exc).splitlines()[0]}); the run uses summed "
            "log-probabilities (--reduction sum), as the log gives them")
        return None


def run_from_log(path: str | Path, model: str | None, config: RunConfig, say: Callable[[str], None],
                 progress: ProgressView | None = None) -> tuple[RunRecord, dict[str, Any]]:
    """Run a suite from lm-eval sample logs (`attach_log`), and write where its scores came from
    beside the run's record; the record and that provenance."""
    attached = attach_log(path, model, config, say)
    record = run_suite(attached.spec, attached.config, progress)
    write_atomic(record.path / PROVENANCE, json.dumps(attached.provenance, indent=2), "the run's lm-eval provenance")
    return record, attached.provenance


def run_from_uploads(files: Sequence[tuple[str, bytes]], model: str | None, config: RunConfig,
                     say: Callable[[str], None]) -> tuple[RunRecord, dict[str, Any]]:
    """Run a suite from lm-eval logs uploaded in the app (its sample logs, and its results file if
    given), kept under the cache by their content; InputError when no sample log of the suite is
    among them."""
    named = [(upload_name(name), data) for name, data in files]
    prefix = f"samples_{group_name(config.suite)}_"
    logs = [name for name, _ in named if name.startswith(prefix) and is_sample_log(name)]
    if not logs:
        raise InputError(f"upload lm-eval's samples_{group_name(config.suite)}_..._DATE.jsonl logs (and its "
                         "results_DATE.json), as `lm_eval --log_samples` wrote them")
    digest = hashlib.sha256(b"".join(hashlib.sha256(d).digest() for _, d in sorted(named))).hexdigest()[:16]
    folder = make_folder(cache_subdir("lm-eval") / f"uploads-{digest}", "the folder of uploaded lm-eval logs")
    for name, data in named:
        if len(data) > SAMPLE_LOG.cap:
            raise too_large(Path(name), SAMPLE_LOG)
        write_atomic(folder / name, data, "an uploaded lm-eval log")
    return run_from_log(folder / sorted(logs)[0], model, config, say)
