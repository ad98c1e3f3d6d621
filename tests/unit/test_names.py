"""The names of pfcore/names.py are the one spelling of model kinds, suites, reductions and
constructions: what they write into cache keys and manifests is the text written before them,
byte for byte (the pinned values below were printed by the code that compared strings)."""
from __future__ import annotations

import json
from dataclasses import replace

from pfcore.models.spec import ModelSpec
from pfcore.names import construction_name, construction_title, construction_words, published_name
from pfcore.runs.runner import _manifest
from pfcore.scoring.factory import cache_identity
from pfcore.scoring.methods import ScoringMethod
from pfcore.store.cache import namespace, request_key
from pfcore.store.manifest import Timings
from pfcore.suites.base import RunConfig
from pfcore.suites.registry import get_suite

MASKED = ModelSpec("acme/tiny-bert", kind="masked")
CAUSAL = ModelSpec("acme/tiny-gpt", revision="step8")


def test_a_spec_serialises_as_before() -> None:
    """ModelSpec.as_dict, as manifests and cache keys write it."""
    assert json.dumps(MASKED.as_dict()) == (
        '{"name": "acme/tiny-bert", "revision": null, "dtype": "float32", "device": "cpu", "kind": "masked", '
        '"trust_remote_code": false}')
    assert json.dumps(CAUSAL.as_dict()) == (
        '{"name": "acme/tiny-gpt", "revision": "step8", "dtype": "float32", "device": "cpu", "kind": "causal", '
        '"trust_remote_code": false}')


def test_cache_keys_are_as_before(cache_dir: object) -> None:
    """The score cache's namespace and a request's key, for a masked and a causal hub model."""
    masked = namespace(cache_identity(MASKED, ScoringMethod.PLL_ORIGINAL))
    causal = namespace(cache_identity(CAUSAL, ScoringMethod.CAUSAL, bos=True))
    assert masked == "93336a17ee057379ea92adbe796b369a996c4d468d46830aa5298cd5a73456a6"
    assert request_key(masked, "", "He left.") == "b1017a7aa1f4988a064092b020eaec4c8b31e1dcbf8c09cfc98ad049744f7dd1"
    assert causal == "9564063dfe9db8ba19e11ee77ebea8402978316c58b7857b1f0cfdfc73000f44"
    assert request_key(causal, "", "He left.") == "49a2590095fb2700c6c588530aa2e6d9fc58a18d7967568dbe6f75a998755cc8"


def test_a_manifest_serialises_as_before(cache_dir: object) -> None:
    """A semantic run's manifest.json on a masked model (its volatile fields fixed), as save_run writes it."""
    suite = get_suite("semantic")
    config = RunConfig(suite="semantic", constructions=("let_alone",), limit_blocks=2, corrected=False)
    manifest = _manifest(suite, MASKED, config, suite.method(MASKED, None), ["a", "b"],
                         Timings(1.0, 0.0, 0.5, 1.5, 3))
    manifest = replace(manifest, run_id="r", created="c", versions={}, git_commit=None)
    assert json.dumps(manifest.to_json(), indent=2, default=str) == MANIFEST


MANIFEST = """{
  "run_id": "r",
  "created": "c",
  "suite": "semantic",
  "model": {
    "name": "acme/tiny-bert",
    "revision": null,
    "dtype": "float32",
    "device": "cpu",
    "kind": "masked",
    "trust_remote_code": false,
    "source": "acme/tiny-bert",
    "weights_sha256": ""
  },
  "scoring": "masked-token",
  "items": {
    "count": 2,
    "hash": "7e18f737311b2dc3",
    "source": "shipped defaults (data/items)"
  },
  "settings": {
    "suite": "semantic",
    "constructions": [
      "let_alone"
    ],
    "items_path": null,
    "limit_blocks": 2,
    "scoring": null,
    "reduction": "sum",
    "bos": false,
    "corrected": false,
    "use_cache": true,
    "chunk": 2048,
    "out": null,
    "shared": true,
    "first_token": "no BOS: first token of a whole sentence unscored (minicons default)",
    "precision": "float32 (the paper's precision)"
  },
  "versions": {},
  "git_commit": null,
  "timings_s": {
    "items_s": 1.0,
    "load_s": 0.0,
    "score_s": 0.5,
    "total_s": 1.5,
    "scored": 3,
    "parts": 1
  }
}"""


def test_item_ids_are_as_before() -> None:
    """Each suite's item ids hash the suite's name: the shipped items' ids still come out of their content."""
    from pfcore.items import default_items
    from pfcore.items.schema import computed_ids

    for suite in ("semantic", "syntax", "affinity"):
        item = default_items(suite)[0]
        assert computed_ids(item) == {k: getattr(item, k) for k in computed_ids(item)}


def test_a_construction_column_is_respelled_in_one_place() -> None:
    for label in ("let_alone", "let alone", "letalone", "Let Alone", "Let_Alone"):
        assert (construction_name(label), construction_words(label), published_name(label),
                construction_title(label)) == ("let_alone", "let alone", "letalone", "Let alone")
    for other in ("and", "pf_avg", "blimp", "still_less"):  # the control, an average, a benchmark, a user's own
        assert (construction_name(other) == construction_words(other) == published_name(other)
                == construction_title(other) == other)
