"""The lesson's glossary: the words the app uses, each defined in plain language, with a link that
opens the lesson's glossary at that word (other pages' help texts link to it)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from pfcore.errors import InputError

LESSON_PATH = "/Lesson"
PROBE_PATH = "/Probe"
GLOSSARY_STEP = "glossary"


@dataclass(frozen=True)
class Term:
    """One glossary entry: its key (in links), the word as written, and its definition."""

    key: str
    word: str
    definition: str


GLOSSARY: tuple[Term, ...] = (
    Term("language-model", "language model",
         "A program that has read a great deal of text and gives every possible next piece of text a "
         "probability: its guess of what comes next. A causal model reads left to right; a masked model "
         "(BERT-style) fills a blank in a whole sentence instead."),
    Term("token", "token",
         "The pieces a model reads and predicts: often a whole word with the space before it, sometimes "
         "part of a word (\"…ing\") or a punctuation mark. A sentence's surprisal is the sum of its tokens' "
         "surprisals. A word's surprisal in pfcore is its tokens' sum with the beginning-of-word correction "
         "(the default); without it, the plain sum."),
    Term("surprisal", "surprisal",
         "How unexpected a word is to the model: −log₂ P(word | the words before it), in bits. 0 bits: the "
         "model was sure of it; every extra bit halves the probability."),
    Term("bit", "bit",
         "The unit of surprisal. One bit is the surprise of a fair coin landing heads (probability 1/2); n "
         "bits is a probability of 1/2ⁿ, so 10 bits is about 1 in 1,000."),
    Term("bits-per-token", "bits per token",
         "A sentence's surprisal divided by its number of tokens (the mean, as the paper's code takes it), "
         "so that a long and a short sentence can be compared."),
    Term("focus", "focus (focus 1, focus 2)",
         "The two phrases a Paired-Focus construction compares. In \"He doesn't like shrimp, let alone "
         "squid\", focus 1 is \"shrimp\" (before the connective) and focus 2 is \"squid\" (after it); the "
         "construction says focus 2 is the stronger case."),
    Term("follow-up", "follow-up",
         "A sentence read after the test sentence that says which focus is the easier or the harder one, "
         "such as \"Lifting a tiny rock is easier than lifting a huge rock.\" The construction entails one "
         "follow-up and contradicts the other."),
    Term("control", "control",
         "The same sentence with the construction replaced by a plain word: \"or\" in the meaning test, "
         "\"and\" in the form test. Comparing with it takes away what the other words alone make likely."),
    Term("delta-p", "ΔP (also called the shift)",
         "The paper's measure of a preference (its equation 1): the surprisal of the contradicted follow-up "
         "minus that of the entailed one, after one sentence, in bits per token (in bits where the follow-ups' "
         "log-probabilities are summed). The same number is log₂ P(entailed) − log₂ P(contradicted). "
         "Positive: the model prefers the entailed follow-up. ΔP(+Cxn) is ΔP after the sentence with the "
         "construction, ΔP(−Cxn) after its control with \"or\". The Probe's tables used to call it the shift."),
    Term("effect", "ΔP difference (also called the effect)",
         "ΔP(+Cxn) − ΔP(−Cxn): ΔP after the sentence with the construction minus ΔP after the same sentence "
         "with its control (\"or\"), in the same unit. A decision is correct when it is positive: the "
         "construction moves the model toward the entailed follow-up more than \"or\" does. The Probe's "
         "tables used to call it the effect."),
    Term("decision", "decision",
         "One comparison of the construction with its control: correct when the construction moves the "
         "model further the way it predicts than the control does (for meaning, when the ΔP difference is "
         "positive). A suite's accuracy is the share of its decisions that are correct; chance is 50%."),
    Term("base-rate", "base rate",
         "The model's accuracy on the whole suite for the same construction (and the same condition, where "
         "one is named), from its own run: what one sentence's decision is read against. One sentence gives "
         "one to four decisions, an anecdote; a suite gives thousands, a measurement. No run, no base rate."),
    Term("interval", "interval (95% interval)",
         "The range of accuracies the decisions leave open: an interval made this way holds the model's "
         "true accuracy on items like these 95 times in 100. pfcore uses Wilson's interval; decisions that "
         "share a block of the suite (its four) or a base sentence are counted as linked, which widens it. "
         "The fewer the decisions, the wider the interval: 60% of 20 decisions is 39% to 78%, 60% of 2,000 "
         "is 58% to 62%."),
    Term("bos", "BOS (beginning of sequence)",
         "A marker some models read before the first word. With it, the first word gets a surprisal too; "
         "without it, a model has nothing to predict the first token from, so that token is not scored."),
    Term("pll", "PLL (pseudo-log-likelihood)",
         "How a masked (BERT-style) model scores a sentence, since it does not read left to right: each token "
         "is hidden in turn and predicted from all the others, and the log-probabilities are added up. Two "
         "variants: Salazar et al.'s (2020) original hides one token at a time (pfcore's pll-original); Kauf "
         "& Ivanova's (2023) within-word l2r also hides the later pieces of the same word, so a long word is "
         "not predicted from its own other pieces (pll-l2r). The paper's Table 5 uses Kauf & Ivanova's. A "
         "PLL is not a surprisal: each token is predicted from the words after it too."),
    Term("word-correction", "beginning-of-word correction",
         "A word's surprisal taken as that of the whole word, not of its tokens (Pimentel & Meister 2024): "
         "surprisal(w) = −log₂ P(tokens of w | c) − log₂ P_bow(c w) + log₂ P_bow(c), where c is the text "
         "before the word and P_bow(x) the probability that the token after x begins a new word (its text "
         "starts with a space, or the text ends). The first term alone counts every longer word that starts "
         "the same way (\"pro\" as the start of \"professional\"); the second asks that the word end there; "
         "the third gives back the chance of a new word starting before it, which the word before had "
         "paid for. \"doesn't\" after \"He\" on the default model: its tokens \" doesn\" and \"'t\" sum to "
         "11.517 bits, −log₂ P_bow(\"He doesn't\") is 0.037 and log₂ P_bow(\"He\") is −1.640, so "
         "11.517 + 0.037 − 1.640 = 9.914, about 9.91 bits corrected against 11.52 uncorrected. Off: the "
         "plain sum of its tokens' surprisals."),
    Term("construction", "construction / connective",
         "A construction is a pattern of a language with a meaning of its own, here the Paired-Focus "
         "constructions: a negative sentence, a first focus, the connective, a second focus (\"He doesn't "
         "like shrimp, let alone squid\"). The connective is only the linking words (let alone, much less, "
         "not to mention, never mind); the construction is the whole pattern and what it entails."),
    Term("parameters", "parameters",
         "The numbers inside a model that training sets; their count is a model's size (135M, 2.8B: 135 "
         "million, 2.8 billion). Larger models usually do better, but not always."),
    Term("checkpoint", "checkpoint",
         "A copy of a model saved during its training, named by its training step (step 1000 has seen "
         "1,000 batches of text). Scoring every checkpoint shows when an ability appears."),
    Term("spearman", "Spearman's ρ (rho)",
         "How well two lists rise and fall together by their ranks: +1 when the order of one is the order of "
         "the other, 0 when unrelated, −1 when reversed. It asks only about order, so one extreme value "
         "cannot drive it."),
    Term("aligned", "aligned / misaligned",
         "Aligned (plausible) sentences name the easier thing first, as world knowledge expects (\"a tiny "
         "rock, let alone a huge one\"). Misaligned (implausible) ones name the harder thing first (\"a huge "
         "rock, let alone a tiny one\"), so the construction entails something implausible."),
)
ALIASES = {"shift": "delta-p"}  # the Probe's former name of ΔP: old links to it open ΔP
TERMS = {term.key: term for term in GLOSSARY}


def term(key: str) -> Term:
    """A glossary entry by its key (or a former key, ALIASES); InputError naming the keys otherwise."""
    found = TERMS.get(ALIASES.get(key, key))
    if found is None:
        raise InputError(f"no glossary entry {key!r}; the entries are {', '.join(TERMS)}")
    return found


def glossary_link(key: str | None = None) -> str:
    """The app path that opens the lesson's glossary, at one entry when a key is given."""
    query = {"step": GLOSSARY_STEP} | ({"term": term(key).key} if key else {})
    return f"{LESSON_PATH}?{urlencode(query)}"


def glossary_line(keys: Sequence[str]) -> str:
    """A markdown line that links each word a page uses to its glossary entry ("" for none)."""
    links = [f"[{term(key).word}]({glossary_link(key)})" for key in keys]
    return f"Words used here, defined in the lesson's glossary: {' · '.join(links)}" if links else ""


def probe_path(sentence: str) -> str:
    """The app path that opens the Probe on a sentence."""
    return f"{PROBE_PATH}?{urlencode({'sentence': sentence})}"
