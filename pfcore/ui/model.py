"""The sidebar model picker shared by every page, and the cached model and scorer loaders."""
from __future__ import annotations

import time

import streamlit as st
import torch

from pfcore.errors import ModelLoadError, PfcoreError
from pfcore.models import DEFAULT_MODEL, LoadedModel, ModelSpec, load_model
from pfcore.models.spec import DTYPES
from pfcore.suites.runner import RunConfig, make_scorer
from pfcore.ui.errors import message_for

KINDS = ("causal", "masked")
MASKED_SCORING = "pll-original"  # whole-sentence and continuation scores from a masked LM
NAME_HELP = (f"`{DEFAULT_MODEL}` is the embedded default (SmolLM2-135M, no download). Or a Hugging "
             "Face id such as `EleutherAI/pythia-160m`, a local model folder, or a .gguf file.")


def devices() -> tuple[str, ...]:
    """Devices this machine offers."""
    return ("cpu", "cuda") if torch.cuda.is_available() else ("cpu",)


def model_picker() -> ModelSpec | None:
    """Sidebar widgets (kept across pages) -> the chosen ModelSpec; None when no name is given."""
    side = st.sidebar
    side.subheader("Model")
    name = side.text_input("Hub id or local path", value=DEFAULT_MODEL, key="model_name",
                           persist_state="session", help=NAME_HELP)
    kind = side.radio("Kind", KINDS, horizontal=True, key="model_kind", persist_state="session",
                      help="causal: next-word models (GPT-style). masked: BERT-style models.")
    with side.expander("Revision, precision, device"):
        revision = st.text_input("Revision", value="", key="model_revision", persist_state="session",
                                 help="a hub branch, tag or checkpoint such as step1000 (optional)")
        dtype = st.selectbox("dtype", DTYPES, key="model_dtype", persist_state="session")
        device = st.selectbox("Device", devices(), key="model_device", persist_state="session")
    if not name.strip():
        side.error("Type a model name or path (the default is "
                   f"`{DEFAULT_MODEL}`).")
        return None
    return ModelSpec(name=name.strip(), revision=revision.strip() or None, dtype=dtype,
                     device=device, kind=kind)


@st.cache_resource(max_entries=2, show_spinner=False)
def _load(name: str, revision: str | None, dtype: str, device: str, kind: str) -> tuple[LoadedModel, float]:
    """Load a model once per process; returns it with the seconds the load took."""
    started = time.monotonic()
    loaded = load_model(ModelSpec(name=name, revision=revision, dtype=dtype, device=device, kind=kind))
    return loaded, time.monotonic() - started


def cached_model(spec: ModelSpec) -> tuple[LoadedModel, float]:
    """The loaded model for a spec (cached across reruns and sessions) and its load time."""
    try:
        return _load(spec.name, spec.revision, spec.dtype, spec.device, spec.kind)
    except PfcoreError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to load is a load error for the user
        raise ModelLoadError(message_for(exc)) from exc


@st.cache_resource(max_entries=2, show_spinner=False)
def _scorer(name: str, revision: str | None, dtype: str, device: str, kind: str):
    """One request scorer per model: causal log-probs, or PLL for masked models."""
    loaded, _ = _load(name, revision, dtype, device, kind)
    scoring = "causal" if kind == "causal" else MASKED_SCORING
    return make_scorer(loaded, scoring, RunConfig())


def request_scorer(loaded: LoadedModel):
    """The cached request scorer (CausalScorer or masked PLL) of a loaded model."""
    s = loaded.spec
    return _scorer(s.name, s.revision, s.dtype, s.device, s.kind)


def parameter_count(loaded: LoadedModel) -> int:
    """Number of parameters of a loaded model."""
    return int(sum(p.numel() for p in loaded.model.parameters()))


def sidebar_model() -> LoadedModel | None:
    """Picker, load (cached) and status in the sidebar; None, with the reason shown, on failure."""
    spec = model_picker()
    if spec is None:
        return None
    try:
        with st.sidebar, st.spinner(f"Loading {spec.label}..."):
            loaded, seconds = cached_model(spec)
    except PfcoreError as exc:
        st.sidebar.error(str(exc))
        return None
    st.sidebar.success(f"**{spec.label}** ({spec.kind}) ready: {parameter_count(loaded) / 1e6:,.1f}M "
                       f"parameters, loaded in {seconds:.1f} s")
    st.sidebar.caption(f"from `{loaded.source}`")
    return loaded
