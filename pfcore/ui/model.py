"""The sidebar model picker shared by every page, and the app's one cached model loader and scorer
factory (every page, the Run page included, scores through `scorer`)."""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import cached_property

import streamlit as st

from pfcore.errors import ModelLoadError, PfcoreError
from pfcore.models import DEFAULT_MODEL, LoadedModel, ModelSpec, load_model
from pfcore.models.spec import DEFAULT_MODEL_TITLE, DTYPES
from pfcore.names import ModelKind
from pfcore.scoring.factory import LazyScorer, make_scorer
from pfcore.scoring.fake import FAKE_MODEL, FakeScorer, fake_enabled
from pfcore.scoring.methods import ScoringMethod, text_method
from pfcore.scoring.requests import RequestScorer
from pfcore.ui.downloads import EXPORT_FORMATS
from pfcore.ui.errors import message_for

MAX_COMPARED = 3  # models beside the sidebar model: four side by side in all
NAME_HELP = (f"`{DEFAULT_MODEL}` is the embedded default, {DEFAULT_MODEL_TITLE}: no download; instruction "
             "tuning and 4-bit quantization set it apart from the paper's base models. Or a Hugging Face id "
             "such as `EleutherAI/pythia-160m`, a local model folder, or a .gguf file.")


@dataclass(frozen=True)
class ModelChoice:
    """The sidebar's model, ready to score: its spec and parameter count (None for the test
    stand-in, which has no weights)."""

    spec: ModelSpec
    parameters: int | None
    compared: tuple[ModelSpec, ...] = ()  # more models to score side by side (loaded only when needed)

    @property
    def specs(self) -> tuple[ModelSpec, ...]:
        """The sidebar model first, then the models compared with it."""
        return (self.spec, *self.compared)

    @property
    def is_fake(self) -> bool:
        """Whether this is the deterministic stand-in the tests use, not a language model."""
        return self.parameters is None


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


def devices() -> tuple[str, ...]:
    """Devices this machine offers."""
    import torch

    return ("cpu", "cuda") if torch.cuda.is_available() else ("cpu",)


def model_picker() -> ModelSpec | None:
    """Sidebar widgets (kept across pages) -> the chosen ModelSpec; None when no name is given."""
    side = st.sidebar
    side.subheader("Model")
    name = side.text_input("Hub id or local path", value=DEFAULT_MODEL, key="model_name",
                           persist_state="session", help=NAME_HELP)
    kind = side.radio("Kind", tuple(ModelKind), horizontal=True, key="model_kind", persist_state="session",
                      help="causal: next-word models (GPT-style). masked: BERT-style models.")
    side.radio("Chart export", list(EXPORT_FORMATS), format_func=EXPORT_FORMATS.__getitem__, key="chart_format",
               persist_state="session", help="what the camera button of every chart's toolbar saves")
    with side.expander("Revision, precision, device"):
        revision = st.text_input("Revision", value="", key="model_revision", persist_state="session",
                                 help="a hub branch, tag or checkpoint such as step1000 (optional)")
        dtype = st.selectbox("dtype", DTYPES, key="model_dtype", persist_state="session")
        device = st.selectbox("Device", devices(), key="model_device", persist_state="session")
    if not name.strip():
        side.error(f"Type a model name or path (the default is `{DEFAULT_MODEL}`).")
        return None
    return ModelSpec(name=name.strip(), revision=revision.strip() or None, dtype=dtype,
                     device=device, kind=kind or ModelKind.CAUSAL)


def apply_models_link(query: dict[str, list[str]]) -> list[str]:
    """Put a link's `models` (name or name@revision; the first is the sidebar model) into the
    sidebar before it is drawn; a note when more than the sidebar can compare were given."""
    models = [m.strip() for m in query.get("models", []) if m.strip()]
    if not models:
        return []
    name, _, revision = models[0].partition("@")
    wanted = {"model_name": (name, DEFAULT_MODEL), "model_revision": (revision, ""),
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
    options = list(dict.fromkeys([DEFAULT_MODEL, *st.session_state.get("model_compare", [])]))
    picked = st.sidebar.multiselect(
        "Compare with", [o for o in options if o != primary.label], key="model_compare", accept_new_options=True,
        max_selections=MAX_COMPARED, persist_state="session",
        help=f"up to {MAX_COMPARED} more models, one per entry: a hub id (add @revision, e.g. "
             "EleutherAI/pythia-160m@step1000), a local folder or a .gguf file; each loads only when a "
             "score is not in the score cache, and at most two stay in memory")
    return tuple(replace(primary, name=name.rpartition("@")[0] or name, revision=name.rpartition("@")[2] or None)
                 if "@" in name else replace(primary, name=name, revision=None)
                 for name in picked if name.strip() and name != primary.label)


@st.cache_resource(max_entries=2, show_spinner=False)
def _load(spec: ModelSpec) -> tuple[LoadedModel, float]:
    """Load a model once per process; returns it with the seconds the load took."""
    started = time.monotonic()
    loaded = load_model(spec)
    return loaded, time.monotonic() - started


def cached_model(spec: ModelSpec) -> tuple[LoadedModel, float]:
    """The loaded model for a spec (cached across reruns and sessions) and its load time."""
    try:
        return _load(spec)
    except PfcoreError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to load is a load error for the user
        raise ModelLoadError(message_for(exc)) from exc


@st.cache_resource(max_entries=2, show_spinner=False)  # at most two models held in memory
def _scorer(spec: ModelSpec, method: ScoringMethod, bos: bool) -> RequestScorer:
    """One request scorer per (model, method, BOS), shared by every page and session."""
    if is_fake(spec):
        return FakeScorer()
    loaded, _ = cached_model(spec)
    return make_scorer(loaded, method, bos=bos)


def scorer(spec: ModelSpec, method: ScoringMethod | None = None, *, bos: bool = False) -> RequestScorer:
    """The app's cached scorer of a model (the kind's default method unless one is given); also
    the `ScorerSource` the Run page hands to the runner."""
    return _scorer(spec, method or text_method(spec.kind), bos)


def lazy_scorer(spec: ModelSpec) -> RequestScorer:
    """A scorer that loads its model (through the app's cache) only when a score is not in the
    score cache: compared models come back from the cache without taking memory."""
    if is_fake(spec):
        return FakeScorer()
    return LazyScorer(spec, text_method(spec.kind), False, scorer)


def is_fake(spec: ModelSpec) -> bool:
    """Whether the spec names the test stand-in and the environment allows it."""
    return spec.name == FAKE_MODEL and fake_enabled()


def parameter_count(loaded: LoadedModel) -> int:
    """Number of parameters of a loaded model."""
    return int(sum(p.numel() for p in loaded.model.parameters()))


def sidebar_model() -> ModelChoice | None:
    """Picker, load (cached) and status in the sidebar; None, with the reason shown, on failure."""
    spec = model_picker()
    if spec is None:
        return None
    if is_fake(spec):
        st.sidebar.warning(f"**{spec.name}** ready: a deterministic stand-in for tests, not a "
                           "language model; its numbers mean nothing.")
        return ModelChoice(spec, None, compare_picker(spec))
    try:
        with st.sidebar, st.spinner(f"Loading {spec.label}..."):
            loaded, seconds = cached_model(spec)
    except PfcoreError as exc:
        st.sidebar.error(str(exc))
        return None
    parameters = parameter_count(loaded)
    st.sidebar.success(f"**{spec.label}** ({spec.kind}) ready: {parameters / 1e6:,.1f}M "
                       f"parameters, loaded in {seconds:.1f} s")
    st.sidebar.caption(f"from `{loaded.source}`")
    return ModelChoice(spec, parameters, compare_picker(spec))
