"""Public mode's allow-list covers a model's kind and dtype (issue 38): the dtype and kind pickers loaded
variants of the allowed models (once evicting the class's model). Now an entry is LABEL[:KIND[:DTYPE]]
(causal, float32 by default), the sidebar shows the teacher's variant with no picker for it, and no
other variant loads."""
from __future__ import annotations

from pathlib import Path

import pytest

from pfcore.deployment import _parse
from pfcore.errors import InputError, ModelLoadError
from pfcore.models import ModelSpec
from pfcore.scoring.kinds import named_kinds
from pfcore.scoring.kinds.fake import ENABLE_VAR, FAKE_MODEL
from pfcore.scoring.models import MODELS
from pfcore.ui import model as ui_model
from tests.app.test_app_public import public  # noqa: F401 - the fixture
from tests.app_helpers import no_errors, page, texts


def policy(models: str):  # noqa: ANN201 - a Deployment
    """Public mode with this allow-list."""
    return _parse(("1", models, "", ""))


def test_an_entry_carries_its_kind_and_dtype() -> None:
    allowed = policy("ORG/gpt, ORG/bert:masked, ORG/big@step8:causal:bfloat16")
    assert allowed.models_allowed == ("ORG/gpt", "ORG/bert", "ORG/big@step8")
    assert [allowed.variant(m) for m in allowed.models_allowed] == [
        ("causal", "float32"), ("masked", "float32"), ("causal", "bfloat16")]


@pytest.mark.parametrize("spec", [ModelSpec("ORG/gpt", dtype="float16"), ModelSpec("ORG/gpt", kind="masked"),
                                  ModelSpec("ORG/bert", kind="causal"), ModelSpec("ORG/bert", dtype="bfloat16",
                                                                                   kind="masked")])
def test_another_variant_of_an_allowed_model_is_not_allowed(spec: ModelSpec) -> None:
    allowed = policy("ORG/gpt,ORG/bert:masked")
    assert not allowed.is_allowed(spec)
    assert allowed.is_allowed(ModelSpec("ORG/gpt")) and allowed.is_allowed(ModelSpec("ORG/bert", kind="masked"))


@pytest.mark.parametrize("entry", ["ORG/gpt:causl", "ORG/gpt:causal:float64", "ORG/gpt:causal:float32:x",
                                   "ORG/gpt:"])
def test_a_bad_entry_is_refused_by_its_number(entry: str) -> None:
    """A malformed entry is refused as the list is read; an unknown kind when the page checks the kinds."""
    with pytest.raises(InputError, match="PFCORE_MODELS_ALLOWED: entry 2 is not LABEL, LABEL:KIND or LABEL:KIND:DTYPE"):
        policy(f"ORG/ok,{entry}").check_kinds(tuple(named_kinds()))


def test_a_variant_never_loads_nor_evicts_the_class_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PFCORE_PUBLIC", "1")
    monkeypatch.setenv("PFCORE_MODELS_ALLOWED", "ORG/gpt")
    monkeypatch.setattr(MODELS, "loaded", lambda spec: pytest.fail(f"a model was loaded: {spec}"))
    with pytest.raises(ModelLoadError, match="it offers only ORG/gpt"):
        ui_model.cached_model(ModelSpec("ORG/gpt", dtype="float16"))


def test_the_sidebar_shows_the_teachers_variant_and_no_picker_for_it(public: str, cache_dir: Path) -> None:  # noqa: F811
    at = page("pages/1_Probe.py", public)
    at.session_state["model_dtype"] = "float16"  # as a link or an earlier private session left them
    at.session_state["model_kind"] = "masked"
    at.run(timeout=240)
    no_errors(at)
    assert not [s for s in at.sidebar.selectbox if s.key == "model_dtype"]
    assert not [r for r in at.sidebar.radio if r.key == "model_kind"]
    assert any("fake, float32, as this class server offers it" in c for c in texts(at.sidebar.caption))


def test_compare_offers_only_the_allowed_models_of_the_same_variant(monkeypatch: pytest.MonkeyPatch,
                                                                    cache_dir: Path) -> None:
    """A model of another kind or dtype would be refused when it loads: it is not offered beside."""
    monkeypatch.setenv(ENABLE_VAR, "1")
    monkeypatch.setenv("PFCORE_PUBLIC", "1")
    monkeypatch.setenv("PFCORE_MODELS_ALLOWED", f"{FAKE_MODEL}:fake,ORG/b:fake,ORG/bert:masked,ORG/c:fake:bfloat16")
    real = MODELS.loaded
    monkeypatch.setattr(MODELS, "loaded", lambda spec: real(spec) if spec.label == FAKE_MODEL
                        else pytest.fail(f"a model was loaded: {spec}"))
    at = page("pages/1_Probe.py", FAKE_MODEL).run(timeout=240)
    no_errors(at)
    assert at.sidebar.multiselect(key="model_compare").options == ["ORG/b"]
