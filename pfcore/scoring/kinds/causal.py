"""Causal (next-word, GPT-style) models: loaded by AutoModelForCausalLM, scored by pfcore's prefix-tree
causal scorer (log P(text | prefix), as minicons scores it)."""
from __future__ import annotations

from pfcore.models.loading import Architecture, LoadedModel
from pfcore.names import ModelKind
from pfcore.scoring.kinds.base import TransformersKind
from pfcore.scoring.methods import ScoringMethod
from pfcore.scoring.requests import RequestScorer


def causal_scorer(loaded: LoadedModel, method: ScoringMethod, bos: bool) -> RequestScorer:
    """The causal scorer (torch is imported only when one is built)."""
    from pfcore.scoring.causal import CausalScorer, ScorerSettings

    return CausalScorer(loaded, ScorerSettings(bos=bos))


KIND = TransformersKind(
    name=ModelKind.CAUSAL, help="next-word models (GPT-style)", methods=(ScoringMethod.CAUSAL,),
    architecture=Architecture("AutoModelForCausalLM", foreign=(("MaskedLM", ModelKind.MASKED),)),
    build=causal_scorer)
