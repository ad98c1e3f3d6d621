"""Proposed follow-ups (issue 21): for a detected sentence, a pair in the paper's form built from the
clause before focus 1 (its verb in the -ing form, the words up to focus 1, each focus), or none and
why. Over the detection corpus of real uses: how many get a proposal, and each proposal names the
same foci the detection found."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from lemminflect import getLemma

from pfcore.cli import main
from pfcore.probe import analyze_sentence
from pfcore.probe.propose import (
    CONTRADICTED_WORD,
    ENTAILED_WORD,
    FROM_CLAUSE,
    FROM_GENERATOR,
    WORKING_EXAMPLE,
    WORKING_PROPOSAL,
    propose_followups,
)
from pfcore.store.cache import ScoreCache
from tests.unit.test_probe_detection import REAL_USES

FORM = re.compile(r"(?P<first>.+) is (?P<word>\w+) than (?P<second>.+)\.")
PROPOSED_FLOOR = 27  # of the 34 real uses, measured when proposals were added (the others are copulas)
NO_PROPOSAL = [
    ("The hotel was noisy, not to mention dirty.", "'was' is a copula"),
    ("I'm not tired, much less exhausted.", "'I'm' is a copula"),
    ("He looks tired, not to mention old.", "focus 1 'tired' is an adjective"),
    ("I don't know what he said, let alone what he meant.", "is a clause"),
    ("Not a penny, let alone a pound.", "no verb was found before focus 1"),
]


def lemma(word: str) -> str:
    """A verb's base form ("walking" -> "walk")."""
    return getLemma(word.lower(), upos="VERB")[0]


def phrases(entailed: str, contradicted: str) -> tuple[list[str], list[str]]:
    """The words of the two -ing phrases a proposal compares, checked to be in the paper's form
    (the same phrases, "easier" in the entailed follow-up and "harder" in the contradicted one)."""
    first, second = FORM.fullmatch(entailed), FORM.fullmatch(contradicted)
    assert first and second and (first["word"], second["word"]) == (ENTAILED_WORD, CONTRADICTED_WORD)
    assert (first["first"], first["second"]) == (second["first"], second["second"])
    return first["first"].split(), first["second"].split()


def reads_back(entailed: str, contradicted: str, focus1: str, focus2: str) -> bool:
    """Whether the proposal's phrases are one shared lead (the verb in the -ing form and the words
    after it) followed by focus 1 and by focus 2; the lead is empty when the foci are verb phrases,
    whose own verbs then come in the -ing form ("boiling water" / "boil water")."""
    words1, words2 = phrases(entailed, contradicted)
    for size in range(min(len(words1), len(words2))):
        if [w.lower() for w in words1[:size]] != [w.lower() for w in words2[:size]]:
            return False
        if names_focus(words1[size:], focus1) and names_focus(words2[size:], focus2):
            return size > 0 or words1[0].lower().endswith("ing")
    return False


def names_focus(words: list[str], focus: str) -> bool:
    """Whether the words name the focus: the same words, or the focus's verb in the -ing form
    followed by the same words."""
    verb, *rest = focus.split()
    return words == focus.split() or (words[0].lower().endswith("ing") and lemma(words[0]) == lemma(verb)
                                      and words[1:] == rest)


def test_the_real_uses_get_proposals_that_read_back_to_their_foci() -> None:
    proposed = 0
    for text, _, focus1, focus2 in REAL_USES:
        probe = analyze_sentence(text)
        proposal = propose_followups(probe)
        if proposal.pair is None:
            assert proposal.reason and WORKING_EXAMPLE in proposal.reason, text
            continue
        proposed += 1
        if probe.fits_frame:  # the generator's follow-ups resolve "one" to focus 1's noun
            assert proposal.source == FROM_GENERATOR
            focus2 = focus2.replace("one", focus1.split()[-1])
        else:
            assert proposal.source == FROM_CLAUSE
        assert reads_back(proposal.entailed, proposal.contradicted, focus1, focus2), (text, proposal)
    assert len(REAL_USES) >= 30 and proposed >= PROPOSED_FLOOR


@pytest.mark.parametrize("text, entailed", [
    (WORKING_EXAMPLE, WORKING_PROPOSAL),
    ("He doesn't like shrimp, let alone squid.", "Liking shrimp is easier than liking squid."),
    ("I can't even boil water, never mind cook a meal.", "Boiling water is easier than cooking a meal."),
    ("He never mentioned it, let alone apologized.", "Mentioning it is easier than apologizing."),
    ("Few people have read the first volume, let alone all seven.",
     "Reading the first volume is easier than reading all seven."),
    ("They have no time for friends, never mind hobbies.",
     "Having time for friends is easier than having time for hobbies."),
    ("He isn't eating fish, let alone meat.", "Eating fish is easier than eating meat."),
])
def test_the_verb_comes_in_its_ing_form_and_the_negation_stays_in_the_sentence(text: str, entailed: str) -> None:
    proposal = propose_followups(analyze_sentence(text))
    assert proposal.entailed == entailed
    assert proposal.contradicted == entailed.replace(f" {ENTAILED_WORD} ", f" {CONTRADICTED_WORD} ")


@pytest.mark.parametrize("text, reason", NO_PROPOSAL, ids=[t for t, _ in NO_PROPOSAL])
def test_no_proposal_says_why_with_a_sentence_that_gets_one(text: str, reason: str) -> None:
    proposal = propose_followups(analyze_sentence(text))
    assert proposal.pair is None and reason in proposal.reason
    assert f"'{WORKING_EXAMPLE}' gets '{WORKING_PROPOSAL}'" in proposal.reason


def test_cli_propose_prints_a_proposal_and_scores_nothing(cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's own command: a proposal naming shrimp and squid, marked as one, nothing scored."""
    assert main(["probe", "He doesn't like shrimp, let alone squid.", "--propose", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    [proposal] = out["proposals"]
    assert proposal["proposal"] is True and proposal["scored"] is False
    assert all("shrimp" in proposal[k] and "squid" in proposal[k] for k in ("entailed", "contradicted"))
    assert "decisions" not in out and "verdict" not in out
    stored = cache_dir / "scores.sqlite"
    if stored.exists():
        with ScoreCache(stored) as cache:
            assert cache.count() == 0  # nothing was scored


def test_cli_auto_scores_the_proposal_in_both_orders(tiny_gpt2: Path, cache_dir: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "He doesn't like shrimp, let alone squid.", "--auto", "--model", str(tiny_gpt2),
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["proposals"][0]["scored"] is True and out["n_decisions"] == 2
    assert [d["origin"] for d in out["decisions"]] == ["proposed", "proposed"]
    assert out["decisions"][0]["entailed"] == "Liking shrimp is easier than liking squid."
    assert out["decisions"][1]["context"] == "He doesn't like squid, let alone shrimp."
    assert out["decisions"][1]["entailed"] == "Liking shrimp is harder than liking squid."


def test_cli_auto_without_a_proposal_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "The hotel was noisy, not to mention dirty.", "--auto"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no follow-ups could be proposed" in err and "copula" in err
