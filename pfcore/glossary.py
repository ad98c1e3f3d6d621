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
         "part of a word (\"…ing\") or a punctuation mark. A word's surprisal is the sum of its tokens'."),
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
    Term("delta-p", "ΔP",
         "The paper's measure of a preference: the surprisal of the contradicted follow-up minus that of "
         "the entailed one (bits per token). Positive: the model prefers the entailed follow-up."),
    Term("decision", "decision",
         "One comparison of the construction with its control: correct when the construction moves the "
         "model further the way it predicts than the control does. A suite's accuracy is the share of its "
         "decisions that are correct; chance is 50%."),
    Term("shift", "shift",
         "How far a model prefers the entailed follow-up: log P(entailed) − log P(contradicted), in bits per "
         "token (or in bits, when the follow-ups' log-probabilities are summed). Positive: it prefers the "
         "entailed one."),
    Term("effect", "effect",
         "What the construction adds to the shift: the shift after the sentence with the construction minus "
         "the shift after the same sentence with its control (\"or\"). A decision is correct when the effect "
         "goes the way the construction predicts."),
    Term("bos", "BOS (beginning of sequence)",
         "A marker some models read before the first word. With it, the first word gets a surprisal too; "
         "without it, a model has nothing to predict the first token from, so that token is not scored."),
    Term("pll", "PLL (pseudo-log-likelihood)",
         "How a masked (BERT-style) model scores a sentence: each token is hidden in turn and predicted from "
         "all the others, and the log-probabilities are added up. It stands in for a causal model's "
         "left-to-right probability."),
    Term("word-correction", "beginning-of-word correction",
         "A word's surprisal taken as that of the whole word: its tokens' surprisal plus the chance that a "
         "new word starts after it, so that \"dinner\" is not counted as likely just because it could go on "
         "as \"dinners\". Off: the plain sum of its tokens' surprisals."),
    Term("aligned", "aligned / misaligned",
         "Aligned (plausible) sentences name the easier thing first, as world knowledge expects (\"a tiny "
         "rock, let alone a huge one\"). Misaligned (implausible) ones name the harder thing first (\"a huge "
         "rock, let alone a tiny one\"), so the construction entails something implausible."),
)
TERMS = {term.key: term for term in GLOSSARY}


def term(key: str) -> Term:
    """A glossary entry by its key; InputError naming the keys otherwise."""
    if key not in TERMS:
        raise InputError(f"no glossary entry {key!r}; the entries are {', '.join(TERMS)}")
    return TERMS[key]


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
