"""The scoring methods a run can use, the model kind each needs, and which of their settings change
the numbers (what the score cache keys on)."""
from __future__ import annotations

from enum import StrEnum

from pfcore.errors import InputError
from pfcore.names import ModelKind


class ScoringMethod(StrEnum):
    """How a model's probabilities become scores; the value is the name runs and the CLI use."""

    CAUSAL = "causal"
    MASKED_TOKEN = "masked-token"
    PLL_ORIGINAL = "pll-original"
    PLL_L2R = "pll-l2r"
    GLOBAL_AFFINITY = "global-affinity"

    @property
    def kind(self) -> ModelKind:
        """The model kind the method needs."""
        return ModelKind.CAUSAL if self is ScoringMethod.CAUSAL else ModelKind.MASKED

    @property
    def pll_metric(self) -> str:
        """minicons' PLL metric name of a PLL method ("original", "within_word_l2r")."""
        return {ScoringMethod.PLL_ORIGINAL: "original", ScoringMethod.PLL_L2R: "within_word_l2r"}[self]

    @property
    def is_pll(self) -> bool:
        """Whether the method is a pseudo-log-likelihood."""
        return self in (ScoringMethod.PLL_ORIGINAL, ScoringMethod.PLL_L2R)

    @property
    def label(self) -> str:
        """How the scores were computed, in words (for captions)."""
        return LABELS[self]

    def identity(self, *, bos: bool = False, bow: bool = False) -> dict[str, object]:
        """What of a scorer changes its scores, for cache keys (packing and batching do not); the
        BOW variant, whose scores carry beginning-of-word masses too, is keyed apart."""
        if self is ScoringMethod.CAUSAL:
            return {"scorer": "causal", "bos": bos, **({"bow": True} if bow else {})}
        if self.is_pll:
            return {"scorer": "pll", "metric": self.pll_metric}
        return {"scorer": self.value}


LABELS = {
    ScoringMethod.CAUSAL: "causal log-probabilities",
    ScoringMethod.MASKED_TOKEN: "masked-token readout of the blank (masked model)",
    ScoringMethod.PLL_ORIGINAL: "pseudo-log-likelihood, metric original (masked model)",
    ScoringMethod.PLL_L2R: "pseudo-log-likelihood, metric within_word_l2r (masked model)",
    ScoringMethod.GLOBAL_AFFINITY: "Global Affinity: P(word | word masked) (masked model)",
}


def text_method(kind: ModelKind) -> ScoringMethod:
    """The method that scores any whole text with a model of this kind: causal log-probs, or PLL
    (metric original) for a masked model, which has no blank to read."""
    return ScoringMethod.CAUSAL if kind == ModelKind.CAUSAL else ScoringMethod.PLL_ORIGINAL


def parse_method(name: str | ScoringMethod) -> ScoringMethod:
    """The method a name stands for; InputError listing the known names otherwise."""
    try:
        return ScoringMethod(name)
    except ValueError:
        known = ", ".join(m.value for m in ScoringMethod)
        raise InputError(f"unknown scoring {name!r}; choose one of {known}") from None


def check_fits(method: ScoringMethod, kind: ModelKind, label: str) -> ScoringMethod:
    """The method, unless the model's kind cannot use it (InputError saying so)."""
    if method.kind != kind:
        raise InputError(f"scoring {method.value!r} does not fit the {kind} model {label}")
    return method
