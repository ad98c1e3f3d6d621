"""Masked (BERT-style) models: loaded by AutoModelForMaskedLM, scored by pseudo-log-likelihood (both of
minicons' metrics), by the masked-token readout of a blank, or read directly (Global Affinity)."""
from __future__ import annotations

from pfcore.errors import InputError
from pfcore.models.loading import Architecture, LoadedModel
from pfcore.names import ModelKind
from pfcore.scoring.kinds.base import TransformersKind
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import RequestScorer


def masked_scorer(loaded: LoadedModel, method: ScoringMethod, bos: bool) -> RequestScorer:
    """The PLL or blank-readout scorer (Global Affinity reads the model itself: no request scorer)."""
    from pfcore.scoring.pll import BlankRequestScorer, PllRequestScorer

    if method is ScoringMethod.MASKED_TOKEN:
        return BlankRequestScorer(loaded)
    if method.is_pll:
        return PllRequestScorer(loaded, method)
    raise InputError(f"{method.value!r} has no request scorer: it reads the model directly")


KIND = TransformersKind(
    name=ModelKind.MASKED, help="BERT-style models",
    methods=(ScoringMethod.MASKED_TOKEN, ScoringMethod.PLL_ORIGINAL, ScoringMethod.PLL_L2R,
             ScoringMethod.GLOBAL_AFFINITY),
    architecture=Architecture("AutoModelForMaskedLM", foreign=(("CausalLM", ModelKind.CAUSAL),
                                                                ("LMHeadModel", ModelKind.CAUSAL))),
    build=masked_scorer)
