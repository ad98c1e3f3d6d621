"""Proposed follow-ups (issues 21 and 29): for a detected sentence, a pair in the paper's form built
from its parse (the verb before focus 1 in the -ing form, the words up to focus 1, each focus; states
compared as states; a reflexive's subject kept), or none and why. Over the detection corpus of real
uses: how many get a proposal, each proposal names the same foci the detection found, and a
proposal that does not read back to its foci with the same verb is not scored."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from lemminflect import getLemma

from pfcore.cli import main
from pfcore.items.constructions import EXAMPLES_DIR
from pfcore.probe import analyze_sentence
from pfcore.probe.propose import (
    CONTRADICTED_WORD,
    ENTAILED_WORD,
    FROM_CLAUSE,
    FROM_GENERATOR,
    LIKELIER,
    WEAKER_POINT,
    WORKING_EXAMPLE,
    WORKING_PROPOSAL,
    Phrases,
    proposal_check,
    propose_followups,
)
from pfcore.store.cache import ScoreCache
from tests.unit.test_probe_detection import REAL_USES

FORM = re.compile(r"(?P<first>.+?) is (?P<word>easier|harder|more likely|less likely|a weaker point|a stronger point) "
                  r"than (?P<second>.+)\.")
PAIRS = {ENTAILED_WORD: CONTRADICTED_WORD, LIKELIER[0]: LIKELIER[1], WEAKER_POINT[0]: WEAKER_POINT[1]}
PROPOSED_FLOOR = 60  # of the 70 real uses, 66 are proposed and 65 pass the check (measured)
NO_PROPOSAL = [
    ("The hotel was noisy, not to mention the cost.", "not the same kind of phrase"),
    ("There was barely enough bread, never mind butter.", "says that something exists"),
    ("My father, let alone my mother, would never agree to that.", "the foci are the subject of 'agree'"),
    ("I doubt that he called her, let alone that he visited her.", "'doubt', is what makes the sentence negative"),
    ("Not a penny, let alone a pound.", "no verb was found before focus 1"),
    ("I didn't think he would come, let alone he would stay.", "is a clause with its own subject"),
]


def lemma(word: str) -> str:
    """A verb's base form ("walking" -> "walk")."""
    return getLemma(word.lower(), upos="VERB")[0]


def phrases(entailed: str, contradicted: str) -> tuple[list[str], list[str]]:
    """The words of the two -ing phrases a proposal compares, checked to be in the paper's form
    (the same phrases, "easier" in the entailed follow-up and "harder" in the contradicted one)."""
    first, second = FORM.fullmatch(entailed), FORM.fullmatch(contradicted)
    assert first and second and PAIRS[first["word"]] == second["word"]
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
        proposed += proposal.scorable
        if probe.fits_frame:  # the generator's follow-ups resolve "one" to focus 1's noun
            assert proposal.source == FROM_GENERATOR
            focus2 = focus2.replace("one", focus1.split()[-1])
        else:
            assert proposal.source == FROM_CLAUSE
        assert reads_back(proposal.entailed, proposal.contradicted, focus1, focus2), (text, proposal)
    assert len(REAL_USES) >= 40 and proposed >= PROPOSED_FLOOR


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


@pytest.mark.parametrize("text, entailed", [
    ("I have never been to Ohio, never mind Europe.", "Going to Ohio is easier than going to Europe."),
    ("He never apologised, much less explained himself.", "Him apologising is easier than him explaining himself."),
    ("The hotel was dirty, not to mention expensive.", "Being dirty is a weaker point than being expensive."),
    ("I'm not tired, much less exhausted.", "Being tired is more likely than being exhausted."),
    ("He looks tired, not to mention old.", "Looking tired is a weaker point than looking old."),
    ("I don't even know his name, let alone where he lives.",
     "Knowing his name is easier than knowing where he lives."),
    ("Nobody invited Mary, much less her cousin Sue.", "Inviting Mary is easier than inviting her cousin Sue."),
    ("I don't know what he said, let alone what he meant.",
     "Knowing what he said is easier than knowing what he meant."),
    ("He has never beaten Peter, let alone Magnus Carlsen.", "Beating Peter is easier than beating Magnus Carlsen."),
])
def test_issue_29s_proposals_are_grammatical(text: str, entailed: str) -> None:
    """Idioms and auxiliaries take the task's verb, a reflexive keeps its subject, states are compared as
    states (more likely under a negation; a weaker point with 'not to mention'), each passing the check."""
    proposal = propose_followups(analyze_sentence(text))
    assert proposal.entailed == entailed and proposal.scorable, proposal.not_scored
    word = next(w for w in PAIRS if f" {w} " in entailed)
    assert proposal.contradicted == entailed.replace(f" {word} ", f" {PAIRS[word]} ")


@pytest.mark.parametrize("phrases", [
    Phrases("having", "beaten Peter", "Magnus Carlsen", ("have beaten Peter", "have Magnus Carlsen")),
    Phrases("", "counting to ten", "to a hundred", ("count to ten", "to a hundred")),
    Phrases("", "speaking French", "German and Italian", ("speak French", "German and Italian")),
])
def test_a_proposal_that_does_not_read_back_is_not_scored(phrases: Phrases) -> None:
    """Issue 32's 'Having beaten Peter is easier than having Magnus Carlsen.' fails the check, and so do
    the verb-phrase proposals its other wrong foci would have made."""
    assert "so it is not scored" in proposal_check(phrases)


def test_a_proposal_that_fails_the_check_is_shown_not_scored(cache_dir: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    text = "The hike was hard for adults, not to mention for small children."
    proposal = propose_followups(analyze_sentence(text))
    assert proposal.pair is not None and not proposal.scorable and "not scored" in proposal.not_scored
    assert main(["probe", text, "--propose", "--json"]) == 0
    [shown] = json.loads(capsys.readouterr().out)["proposals"]
    assert shown["entailed"] == proposal.entailed and shown["scored"] is False and shown["not_scored_reason"]
    assert main(["probe", text, "--auto"]) == 2
    assert "the proposed follow-ups are not scored" in capsys.readouterr().err


def test_the_direction_of_the_scale_comes_from_the_definition(monkeypatch: pytest.MonkeyPatch) -> None:
    """not even: focus 2 is the weaker, easier end, so the proposal names focus 1 the harder."""
    monkeypatch.setenv("PFCORE_CONSTRUCTIONS", str(EXAMPLES_DIR))
    proposal = propose_followups(analyze_sentence("He didn't lift the piano, not even the small box."))
    assert proposal.pair == ("Lifting the piano is harder than lifting the small box.",
                             "Lifting the piano is easier than lifting the small box.")
    proposal = propose_followups(analyze_sentence("She could lift a heavy box, or even a piano."))
    assert proposal.pair == ("Lifting a heavy box is easier than lifting a piano.",
                             "Lifting a heavy box is harder than lifting a piano.")


@pytest.mark.parametrize("text", ["I have never been to Ohio, never mind Europe.",
                                  "He never apologised, much less explained himself.",
                                  "The hotel was dirty, not to mention expensive."])
def test_issue_29s_commands_propose_a_grammatical_pair(text: str, cache_dir: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", text, "--propose", "--json"]) == 0
    [proposal] = json.loads(capsys.readouterr().out)["proposals"]
    assert proposal["entailed"] and "Being to" not in proposal["entailed"] and proposal["not_scored_reason"] is None
    assert "than explaining himself" not in proposal["entailed"]  # the reflexive keeps its subject


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
    assert main(["probe", "The hotel was noisy, not to mention the cost.", "--auto"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no follow-ups could be proposed" in err and "not the same kind" in err
