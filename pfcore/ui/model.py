"""The sidebar model picker shared by every page, and the app's scorer factory over the process's one
model cache (pfcore.scoring.models): every page, the Run page included, scores through `scorer`."""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from functools import cached_property

import streamlit as st

from pfcore.deployment import PUBLIC_NOTE, deployment
from pfcore.errors import ModelLoadError, PfcoreError
from pfcore.models import DEFAULT_MODEL, LoadedModel, ModelSpec
from pfcore.models.spec import AUTO, DEFAULT_MODEL_TITLE, DTYPES, available_devices, resolve_device, split_label
from pfcore.names import ModelKind
from pfcore.scoring.factory import LazyScorer, scorer_for
from pfcore.scoring.kinds import kind_of, named_kinds
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.models import MODELS
from pfcore.scoring.requests import RequestScorer
from pfcore.ui.downloads import EXPORT_FORMATS
from pfcore.ui.errors import message_for
from pfcore.ui.text import plain

log = logging.getLogger(__name__)
MAX_COMPARED = 3  # models beside the sidebar model: four side by side in all
NAME_HELP = (f"`{DEFAULT_MODEL}` is the embedded default, {DEFAULT_MODEL_TITLE}: no download; instruction "
             "tuning and 4-bit quantization set it apart from the paper's base models. Or a Hugging Face id "
             "such as `EleutherAI/pythia-160m`, a local model folder, or a .gguf file.")


@dataclass(frozen=True)
class ModelChoice:
    """The sidebar's model, ready to score: its spec and parameter count (None where its kind cannot
    count them)."""

    spec: ModelSpec
    parameters: int | None
    compared: tuple[ModelSpec, ...] = ()  # more models to score side by side (loaded only when needed)

    @property
    def specs(self) -> tuple[ModelSpec, ...]:
        """The sidebar model first, then the models compared with it."""
        return (self.spec, *self.compared)


@dataclass(frozen=True)
class Models:
    """The models a view scores, by label, in the sidebar's order (the first is the main one)."""

    specs: tuple[ModelSpec, ...]

    @property
    def labels(self) -> list[str]:
        """Each model's label (name@revision)."""
        return [s.label for s in self.specs]

    @cached_property
    def scorers(self) -> dict[str, RequestScorer]:
        """A scorer per model that loads its model only when a score is not in the score cache."""
        return {s.label: lazy_scorer(s) for s in self.specs}

    def named(self) -> str:
        """The models for a title: one name, or 'a, b and c'."""
        labels = self.labels
        return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def model_picker() -> ModelSpec | None:
    """Sidebar widgets (kept across pages) -> the chosen ModelSpec; None when no name is given.
    In public mode the model is picked from the allow-list (no free text, no revision box)."""
    side = st.sidebar
    side.subheader("Model")
    if deployment().picks_from_allow_list:
        return _allowed_picker()
    name = side.text_input("Hub id or local path", value=DEFAULT_MODEL, key="model_name",
                           persist_state="session", help=NAME_HELP)
    kind = _kind_picker()
    chart_format_picker()
    with side.expander("Revision, precision, device"):
        revision = st.text_input("Revision", value="", key="model_revision", persist_state="session",
                                 help="a hub branch, tag or checkpoint such as step1000 (optional)")
        dtype, device = _precision_device()
    if not name.strip():
        side.error(f"Type a model name or path (the default is `{DEFAULT_MODEL}`).")
        return None
    return ModelSpec(name=name.strip(), revision=revision.strip() or None, dtype=dtype,
                     device=device, kind=kind)


def chart_format_picker() -> None:
    """The sidebar's choice of what every chart's camera button saves."""
    st.sidebar.radio("Chart export", list(EXPORT_FORMATS), format_func=EXPORT_FORMATS.__getitem__,
                     key="chart_format", persist_state="session",
                     help="what the camera button of every chart's toolbar saves")


def _allowed_picker() -> ModelSpec:
    """Public mode's picker: one of the allowed models (a value from a link or an earlier page that
    is not allowed is replaced by the first allowed, with the reason), its kind, dtype and device."""
    side, policy = st.sidebar, deployment()
    if st.session_state.get("model_name", policy.models_allowed[0]) not in policy.models_allowed:
        st.session_state["model_name"] = policy.models_allowed[0]
        side.warning(policy.refusal())
    label = side.selectbox("Model", policy.models_allowed, key="model_name", persist_state="session",
                           help="the models this class server offers (its teacher chose them)")
    kind, dtype = policy.variant(label)  # the teacher's, not a visitor's: no other variant loads
    side.caption(f"{kind}, {dtype}, as this class server offers it")
    chart_format_picker()
    with side.expander("Device"):
        device = _device_picker()
    return ModelSpec(dtype=dtype, device=device, kind=kind).with_label(label)


def _kind_picker() -> str:
    """The sidebar's model kind (kept across pages), one of the table of kinds."""
    kinds = named_kinds()
    kind = st.sidebar.radio("Kind", tuple(kinds), horizontal=True, key="model_kind", persist_state="session",
                            help=" ".join(f"{name}: {kind.help}." for name, kind in kinds.items()))
    return str(kind or ModelKind.CAUSAL)


def _precision_device() -> tuple[str, str]:
    """The dtype and device pickers (kept across pages), in the caller's expander."""
    dtype = st.selectbox("dtype", DTYPES, key="model_dtype", persist_state="session")
    return str(dtype), _device_picker()


def _device_picker() -> str:
    """The device picker (kept across pages): auto (CUDA where torch sees it, else the CPU) or one device."""
    device = st.selectbox("Device", (AUTO, *available_devices()), key="model_device", persist_state="session")
    return resolve_device(str(device))


def apply_models_link(query: dict[str, list[str]]) -> list[str]:
    """Put a link's `models` (name or name@revision; the first is the sidebar model) into the
    sidebar before it is drawn; a note when more than the sidebar can compare were given. In
    public mode a model not on the allow-list is refused (the note names none of it) and never loads."""
    models = [m.strip() for m in query.get("models", []) if m.strip()]
    if not models:
        return []
    policy = deployment()
    if policy.picks_from_allow_list:
        allowed = [m for m in models if m in policy.models_allowed]
        if allowed != models:
            return [policy.refusal()] + (apply_models_link({"models": allowed}) if allowed else [])
    name, revision = split_label(models[0])
    wanted = {"model_name": (name, DEFAULT_MODEL), "model_revision": (revision or "", ""),
              "model_compare": (models[1:MAX_COMPARED + 1], [])}
    for key, (value, default) in wanted.items():
        if st.session_state.get(key, default) != value:  # writing what the widget shows anyway makes streamlit warn
            st.session_state[key] = value
    extra = models[MAX_COMPARED + 1:]
    return [f"models {', '.join(extra)} (at most {MAX_COMPARED + 1} side by side)"] if extra else []


def models_query(choice: ModelChoice | None) -> dict[str, list[str]]:
    """The models a view shows, as the link's `models` values (sidebar model first)."""
    return {"models": [spec.label for spec in choice.specs]} if choice else {}


def compare_picker(primary: ModelSpec) -> tuple[ModelSpec, ...]:
    """Up to MAX_COMPARED more models (name, folder, .gguf or hub id, with @revision) to score
    side by side with the sidebar model, of the same kind, precision and device."""
    policy = deployment()
    listed = policy.picks_from_allow_list
    options = list([m for m in policy.models_allowed if policy.variant(m) == policy.variant(primary.label)]
                   if listed else dict.fromkeys([DEFAULT_MODEL, *st.session_state.get("model_compare", [])]))
    if listed:
        st.session_state["model_compare"] = [m for m in st.session_state.get("model_compare", []) if m in options]
    picked = st.sidebar.multiselect(
        "Compare with", [o for o in options if o != primary.label], key="model_compare",
        accept_new_options=not listed, max_selections=MAX_COMPARED, persist_state="session",
        help=f"up to {MAX_COMPARED} more models, one per entry: a hub id (add @revision, e.g. "
             "EleutherAI/pythia-160m@step1000), a local folder or a .gguf file; each loads only when a "
             "score is not in the score cache, and at most two stay in memory")
    return tuple(primary.with_label(label) for label in picked if label.strip() and label != primary.label)


def cached_model(spec: ModelSpec) -> LoadedModel:
    """The loaded model for a spec (the process's model cache, shared by reruns and sessions); in
    public mode only an allowed model ever loads (so no link or page can evict the class's model)."""
    if not deployment().is_allowed(spec):
        raise ModelLoadError(deployment().refusal())
    try:
        return MODELS.loaded(spec)
    except PfcoreError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to load is a load error for the user
        raise ModelLoadError(message_for(exc)) from exc


def scorer(spec: ModelSpec, method: ScoringMethod | None = None, *, bos: bool = False) -> RequestScorer:
    """The app's scorer of a model (the kind's default method unless one is given), one per
    process, shared by every page and session and by the server's warm-up; also the
    `ScorerSource` the Run page hands to the runner."""
    cached_model(spec)  # load failures read as the sidebar reads them
    return scorer_for(spec, method or kind_of(spec.kind).text_method, bos=bos)


def lazy_scorer(spec: ModelSpec) -> RequestScorer:
    """A scorer that loads its model (through the app's cache) only when a score is not in the
    score cache: compared models come back from the cache without taking memory."""
    return LazyScorer(spec, kind_of(spec.kind).text_method, source=scorer)


def public_load_error(exc: PfcoreError) -> str:
    """Public mode's account of a failed load: the reason goes to the server's log (it may name the
    server's folders), the visitor reads what to do."""
    log.warning("model load failed: %s", exc)
    text = str(exc)
    return text if text.startswith(PUBLIC_NOTE) else (
        f"{PUBLIC_NOTE}: the model could not be loaded; the server's log has the reason for the teacher.")


POLL_S = 0.5  # how often the sidebar's seconds are counted while the model loads
_PENDING = threading.local()  # this script run's model still loading, and its sidebar status slot
FIRST_PAGE = threading.Event()  # a page that does not wait for the model has been drawn: the warm-up may begin


def sidebar_model(*, wait: bool = True) -> ModelChoice | None:
    """Picker, load (cached) and status in the sidebar; None, with the reason shown, on failure.
    With wait=False (the Home page), a model that another thread is loading (the server's warm-up,
    another session) is shown as loading and the page goes on at once (None); the page then ends
    with `wait_for_model`."""
    spec = model_picker()
    _PENDING.value = None
    if spec is None:
        return None
    if not wait and MODELS.being_loaded(spec):
        _PENDING.value = (spec, st.sidebar.empty())
        _loading_note(spec, 0.0)
        return None
    try:
        with st.sidebar, st.spinner(f"Loading {plain(spec.label)}..."):
            loaded = cached_model(spec)
    except PfcoreError as exc:
        st.sidebar.error(plain(exc) if deployment().allows_paths else public_load_error(exc))
        return None
    parameters, note = kind_of(spec.kind).parameters(loaded), kind_of(spec.kind).note
    size = f"{parameters / 1e6:,.1f}M parameters" if parameters is not None else "parameters unknown"
    ready = f"**{plain(spec.label)}** ({spec.kind}) ready: {size}, {load_time(loaded)}"
    st.sidebar.warning(f"{ready}: {note}") if note else st.sidebar.success(ready)
    if deployment().allows_paths:
        st.sidebar.caption(f"from `{loaded.source}`")
    return ModelChoice(spec, parameters, compare_picker(spec))


def load_time(loaded: LoadedModel) -> str:
    """How long the model took to load, its GGUF file's first conversion included and named."""
    converting = f" (of which {loaded.converting_s:.1f} s converting the GGUF file once)" if loaded.converting_s else ""
    return f"loaded in {loaded.seconds:.1f} s{converting}"


def model_loading() -> bool:
    """Whether this run's sidebar showed the model as still loading (see `sidebar_model`)."""
    return getattr(_PENDING, "value", None) is not None


def wait_for_model() -> None:
    """The end of a page that did not wait for its model (it is drawn: the server's warm-up may begin):
    while the load goes on, the sidebar counts its seconds (each update answers a click at once, so the
    page stays usable, and costs next to nothing, so the load is not slowed); the moment it ends, the
    page is drawn again, ready."""
    FIRST_PAGE.set()
    if not model_loading():
        return
    spec, _ = _PENDING.value
    started = time.monotonic()
    while not MODELS.wait_while_loading(spec, POLL_S):
        _loading_note(spec, time.monotonic() - started)
    st.rerun()


def _loading_note(spec: ModelSpec, seconds: float) -> None:
    """The sidebar's status while the model loads."""
    _, slot = _PENDING.value
    waited = f" ({seconds:.0f} s so far)" if seconds >= 1 else ""
    slot.info(f"Loading **{plain(spec.label)}**{waited}: the pages that score use it once it is loaded. "
              "You can look around meanwhile.", icon=":material/hourglass_top:")
