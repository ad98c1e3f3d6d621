"""How a model's probabilities become scores: each scoring method as data (its name, the model kind it
needs, what it computes in words, and what of it keys the score cache). A kind of model brings its
methods (pfcore.scoring.kinds); the built-in ones are named here."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pfcore.errors import InputError
from pfcore.names import ModelKind

TEXTS, BLANK, MODEL = "texts", "blank", "model"  # what a method reads (see ScoringMethod.reads)


@dataclass(frozen=True)
class ScoringMethod:
    """A scoring method; `value` is the name runs, manifests and the CLI use."""

    value: str
    kind: str  # the model kind it needs (a name of pfcore.scoring.kinds.KINDS)
    label: str  # how the scores are computed, in words (for captions)
    pll_metric: str = ""  # minicons' PLL metric name ("original", "within_word_l2r"); "" for other methods
    takes_bos: bool = False  # its scores change with a BOS token prepended (causal scoring)
    reads: str = TEXTS  # what a suite gets from it: scores of texts, the fill of a blank, or the model itself
    bow: bool = False  # its scorer has a beginning-of-word variant (the BOW correction applies)
    next_tokens: bool = False  # its scorer reads left to right and gives the next token's distribution

    CAUSAL: ClassVar[ScoringMethod]
    MASKED_TOKEN: ClassVar[ScoringMethod]
    PLL_ORIGINAL: ClassVar[ScoringMethod]
    PLL_L2R: ClassVar[ScoringMethod]
    GLOBAL_AFFINITY: ClassVar[ScoringMethod]

    def __str__(self) -> str:
        return self.value

    @property
    def is_pll(self) -> bool:
        """Whether the method is a pseudo-log-likelihood."""
        return bool(self.pll_metric)

    def identity(self, *, bos: bool = False, bow: bool = False) -> dict[str, object]:
        """What of a scorer changes its scores, for cache keys (packing and batching do not); the
        BOW variant, whose scores carry beginning-of-word masses too, is keyed apart."""
        if self.is_pll:
            return {"scorer": "pll", "metric": self.pll_metric}
        return {"scorer": self.value, **({"bos": bos} if self.takes_bos else {}), **({"bow": True} if bow else {})}


ScoringMethod.CAUSAL = ScoringMethod("causal", ModelKind.CAUSAL, "causal log-probabilities", takes_bos=True,
                                     bow=True, next_tokens=True)
ScoringMethod.MASKED_TOKEN = ScoringMethod("masked-token", ModelKind.MASKED,
                                           "masked-token readout of the blank (masked model)", reads=BLANK)
ScoringMethod.PLL_ORIGINAL = ScoringMethod("pll-original", ModelKind.MASKED,
                                           "pseudo-log-likelihood, metric original (masked model)", "original")
ScoringMethod.PLL_L2R = ScoringMethod("pll-l2r", ModelKind.MASKED,
                                      "pseudo-log-likelihood, metric within_word_l2r (masked model)", "within_word_l2r")
ScoringMethod.GLOBAL_AFFINITY = ScoringMethod("global-affinity", ModelKind.MASKED,
                                              "Global Affinity: P(word | word masked) (masked model)", reads=MODEL)


def check_fits(method: ScoringMethod, kind: str, label: str) -> ScoringMethod:
    """The method, unless the model's kind cannot use it (InputError saying so)."""
    if method.kind != kind:
        raise InputError(f"scoring {method.value!r} does not fit the {kind} model {label}")
    return method
