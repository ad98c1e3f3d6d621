"""The Probe reads a user's constructions as it reads the four (issue 40): three definitions written
from docs/constructions.md alone (tests/fixtures/constructions: to say nothing of, if not, not to
speak of) are found in their real uses and refused in their look-alikes, by the sentence's
structure (an infinitive a word before governs; a subordinator that opens a clause) and by a
definition's own look-alike patterns. The sentences marked held-out are not the issue's."""
from __future__ import annotations

from pathlib import Path

import pytest

from pfcore.probe import analyze_sentence

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "constructions"


@pytest.fixture(autouse=True)
def _worked_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PFCORE_CONSTRUCTIONS", str(EXAMPLES))


@pytest.mark.parametrize(("text", "name", "foci"), [
    ("The flat was cramped, to say nothing of the noise.", "to_say_nothing_of", ("The flat was cramped", "the noise")),
    ("The task was difficult, if not impossible.", "if_not", ("difficult", "impossible")),
    ("The house was cold, not to speak of the damp.", "not_to_speak_of", ("cold", "the damp")),
    # held-out
    ("The soup was bland, to say nothing of cold.", "to_say_nothing_of", ("bland", "cold")),
    ("The plan is risky, if not reckless.", "if_not", ("risky", "reckless")),
    ("He can't cook, not to speak of baking.", "not_to_speak_of", ("cook", "baking")),
    ("The trip was long, not to speak of expensive.", "not_to_speak_of", ("long", "expensive")),
])
def test_real_uses_of_the_worked_definitions_are_found(text: str, name: str, foci: tuple[str, str]) -> None:
    probe = analyze_sentence(text)
    assert (probe.construction, probe.focus1, probe.focus2) == (name, *foci), probe.message


@pytest.mark.parametrize(("text", "why"), [
    ("They promised not to speak of it again.", "'promised' governs the infinitive 'to speak'"),
    ("He chose to say nothing of the matter.", "'chose' governs the infinitive 'to say'"),
    ("I wonder if not everyone agrees.", "'if' opens the clause 'everyone agrees'"),
    # held-out
    ("We agreed not to speak of the accident.", "'agreed' governs the infinitive 'to speak'"),
    ("She made a promise not to speak of it.", "'promise' governs the infinitive 'to speak'"),
    ("He wanted to say nothing of the money.", "'wanted' governs the infinitive 'to say'"),
    ("Tell me if not all the guests arrived.", "'if' opens the clause 'all the guests arrived'"),
    ("I can't decide if not going is wise.", "'if' opens the clause 'going is wise'"),
])
def test_look_alikes_of_the_worked_definitions_are_refused_by_structure(text: str, why: str) -> None:
    probe = analyze_sentence(text)
    assert probe.construction is None and why in probe.message and "No Paired-Focus construction" in probe.message


def test_a_definitions_own_look_alike_patterns_refuse_what_they_name(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "far_less.yaml").write_text(
        "name: far_less\nwords: far less\nlicensing: negative\nfocus2: stronger\n"
        "look_alike:\n  - reads_as: the comparative 'far less'\n    after: [than]\n"
        "    example: He ate far less than I did.\n"
        "  - reads_as: the comparative after a verb of amount\n    before: [cost, weigh]\n")
    monkeypatch.setenv("PFCORE_CONSTRUCTIONS", str(tmp_path))
    probe = analyze_sentence("He can't walk, far less run.")
    assert (probe.construction, probe.focus1, probe.focus2) == ("far_less", "walk", "run"), probe.message
    refused = analyze_sentence("He never ate far less than I did.")
    assert refused.construction is None and "reads as the comparative 'far less', as in 'He ate far less than I " \
        "did.' (its definition's look-alike pattern)" in refused.message
    refused = analyze_sentence("The box didn't weigh far less after the trip.")
    assert refused.construction is None and "after a verb of amount" in refused.message
    refused = analyze_sentence("The box never weighed far less after the trip.")  # its dictionary form matches
    assert refused.construction is None and "after a verb of amount" in refused.message
    bare = analyze_sentence("far less")  # a definition without an example: no dangling "as in:"
    assert "as in" not in bare.message and bare.message.endswith("the comparative 'far less'.")


@pytest.mark.parametrize(("text", "foci", "kinds"), [
    # a wh-clause complement of "know" is a genuine never mind, not the dismissal
    ("I don't know where he lives, never mind his phone number.", ("where he lives", "his phone number"),
     ("wh-clause", "NP")),
    ("We don't know who won, never mind the score.", ("who won", "the score"), ("wh-clause", "NP")),  # held-out
    # adverbs of the clause stay out of focus 1
    ("He can't walk yet, let alone run.", ("walk", "run"), ("VP", "VP")),
    ("I haven't finished yet, let alone started the next one.", ("finished", "started the next one"), ("VP", "VP")),
    ("He hasn't paid the rent already, much less the deposit.", ("the rent", "the deposit"), ("NP", "NP")),
    ("She hasn't tried even, let alone succeeded.", ("tried", "succeeded"), ("VP", "VP")),
    # questions
    ("Does he even know her name, let alone her address?", ("her name", "her address"), ("NP", "NP")),
    ("Can he swim, let alone dive?", ("swim", "dive"), ("VP", "VP")),
    # kinds from the parse, the lexical category checked
    ("He can't swim, let alone dive.", ("swim", "dive"), ("VP", "VP")),
    ("She hasn't even read the abstract, let alone the paper.", ("the abstract", "the paper"), ("NP", "NP")),
    ("They haven't met the rich, let alone the famous.", ("the rich", "the famous"), ("NP", "NP")),  # held-out
    ("I doubt that he called, let alone that he came.", ("that he called", "that he came"),
     ("that-clause", "that-clause")),
])
def test_the_foci_are_read_by_structure(text: str, foci: tuple[str, str], kinds: tuple[str, str]) -> None:
    probe = analyze_sentence(text)
    assert (probe.focus1, probe.focus2, probe.kinds) == (*foci, kinds), probe.message


def test_an_adverb_of_the_clause_stays_out_of_the_proposal() -> None:
    from pfcore.probe.propose import propose_followups
    proposal = propose_followups(analyze_sentence("He can't walk yet, let alone run."))
    assert proposal.entailed == "Walking is easier than running."


def test_two_constructions_in_one_sentence_the_control_replaces_one_and_says_so() -> None:
    probe = analyze_sentence("He can't boil an egg, let alone bake a cake, much less cook a whole dinner.")
    assert probe.control == "He can't boil an egg, or bake a cake, much less cook a whole dinner."
    assert "also holds 'much less': the control replaces only 'let alone'" in probe.message
    assert "also holds" not in analyze_sentence("He can't swim, let alone dive.").message


@pytest.mark.parametrize(("text", "entailed"), [
    ("Is it cheap, let alone free?", "Being cheap is more likely than being free."),  # the inverted subject left out
    ("Can he swim, let alone dive?", "Swimming is easier than diving."),
    ("Does he have time for lunch, let alone dinner?", "Having time for lunch is easier than having time for dinner."),
    ("Why would he call her, let alone visit her?", "Calling her is easier than visiting her."),  # held-out
])
def test_a_question_gets_its_proposal(text: str, entailed: str) -> None:
    from pfcore.probe.propose import propose_followups
    assert propose_followups(analyze_sentence(text)).entailed == entailed
