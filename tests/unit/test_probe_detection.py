"""Construction detection on a corpus: real uses of the four connectives are found with their
foci, and look-alikes (comparative "much less", the verb "let ... alone", imperative "never mind",
a negated "mention") are not, with a message that says what they are."""
from __future__ import annotations

import pytest

from pfcore.probe import analyze_sentence

# Real uses: (sentence, construction, focus 1, focus 2).
REAL_USES: list[tuple[str, str, str, str]] = [
    ("He doesn't like shrimp, let alone squid.", "let_alone", "shrimp", "squid"),
    ("She can't afford a bike, much less a car.", "much_less", "a bike", "a car"),
    ("The hotel was noisy, not to mention dirty.", "not_to_mention", "noisy", "dirty"),
    ("I can't even boil water, never mind cook a meal.", "never_mind", "boil water", "cook a meal"),
    ("You couldn't lift a tiny rock, let alone a huge one.", "let_alone", "a tiny rock", "a huge one"),
    ("Few people have read the first volume, let alone all seven.", "let_alone", "the first volume",
     "all seven"),
    ("I wouldn't trust him with a dollar, much less with my car.", "much_less", "with a dollar",
     "with my car"),
    ("It's expensive, not to mention ugly.", "not_to_mention", "expensive", "ugly"),
    ("We couldn't find a café, never mind a restaurant.", "never_mind", "a café", "a restaurant"),
    ("He never mentioned it, let alone apologized.", "let_alone", "mentioned it", "apologized"),
    ("He doesn\u2019t like shrimp, LET ALONE squid.", "let_alone", "shrimp", "squid"),
    ("I can't walk let alone run.", "let_alone", "walk", "run"),
    ("I'm not tired, much less exhausted.", "much_less", "tired", "exhausted"),
    ("She barely speaks French, let alone Russian.", "let_alone", "French", "Russian"),
    ("He can't cook an egg, never mind a full dinner.", "never_mind", "an egg", "a full dinner"),
    ("The project was late, not to mention over budget.", "not_to_mention", "late", "over budget"),
    ("Few of them could run a mile, let alone a marathon.", "let_alone", "a mile", "a marathon"),
    ("He hardly ever reads the newspaper, much less a novel.", "much_less", "the newspaper",
     "a novel"),
    ("They have no time for friends, never mind hobbies.", "never_mind", "friends", "hobbies"),
    ("I couldn't afford the rent, not to mention the bills.", "not_to_mention", "the rent",
     "the bills"),
    ("She can't draw a circle, let alone paint a portrait.", "let_alone", "draw a circle",
     "paint a portrait"),
    ("I can't even remember his name, never mind his address.", "never_mind", "his name",
     "his address"),
    ("He didn't say hello, much less thank us.", "much_less", "say hello", "thank us"),
    ("She CAN'T afford a bike, Much Less a car.", "much_less", "a bike", "a car"),
    ("She can't walk much less run.", "much_less", "walk", "run"),
    ("I don't have time, much less money.", "much_less", "time", "money"),
    ("There was barely enough bread, never mind butter.", "never_mind", "bread", "butter"),
    ("It's expensive not to mention ugly.", "not_to_mention", "expensive", "ugly"),
    ("The hotel was noisy, not to mention the cost.", "not_to_mention", "noisy", "the cost"),
    ("He won't read all the books, let alone both sets.", "let_alone", "all the books", "both sets"),
    ("I can't do it let alone explain it.", "let_alone", "do it", "explain it"),
    ("He can't walk \u2014 let alone run.", "let_alone", "walk", "run"),
    ("Never mind, he can't walk, let alone run.", "let_alone", "walk", "run"),
    ("He ate much less than I did, but he can't cook an egg, let alone a meal.", "let_alone",
     "an egg", "a meal"),
]

# What the message of each kind of look-alike says.
READINGS: dict[str, str] = {
    "comparative": "the comparative 'much less'",
    "verb let": "the verb 'let",
    "never mind": "the imperative or discourse 'never mind'",
    "mention": "'mention'",
}
# Look-alikes: (sentence, kind of look-alike: a key of READINGS).
LOOK_ALIKES: list[tuple[str, str]] = [
    ("He ate much less than I did.", "comparative"),
    ("This one is much less expensive.", "comparative"),
    ("We see them much less often now.", "comparative"),
    ("She drinks much less water now.", "comparative"),
    ("He earns much less money than his wife.", "comparative"),
    ("It isn't much less expensive than gold.", "comparative"),
    ("The new model is so much less noisy.", "comparative"),
    ("He paid ten dollars, much less than I expected.", "comparative"),
    ("It was a much less serious problem.", "comparative"),
    ("I care much less about it these days.", "comparative"),
    ("Much less is known about the second volume.", "comparative"),
    ("Let me alone!", "verb let"),
    ("Just let it alone.", "verb let"),
    # Ambiguous, decided: at the start of a sentence there is no focus 1 before "let alone", so it
    # is read as the verb with its object after it ("leave the dog alone").
    ("Let alone the dog, it bites.", "verb let"),
    ("You should let alone what you don't understand.", "verb let"),
    ("Never mind.", "never mind"),
    ("Never mind, I'll do it myself.", "never mind"),
    ("Oh, never mind that.", "never mind"),
    ("Please never mind the mess.", "never mind"),
    ("But never mind, we'll manage.", "never mind"),
    ("Well, never mind about the money.", "never mind"),
    ("I told him never mind.", "never mind"),
    ("He said, never mind the cost.", "never mind"),
    ("I never mind waiting.", "never mind"),
    ("I did not even mention it.", "mention"),
    ("He did not mention the cost.", "mention"),
    ("He didn't mention the cost.", "mention"),
    ("I forgot to mention the cost.", "mention"),
    ("I decided not to mention it.", "mention"),
    ("Try not to mention the war.", "mention"),
    ("Not to mention names, but someone ate my lunch.", "mention"),
]


@pytest.mark.parametrize("text, name, focus1, focus2", REAL_USES,
                         ids=[f"{name}: {text}" for text, name, *_ in REAL_USES])
def test_real_uses_are_found_with_their_foci(text: str, name: str, focus1: str, focus2: str) -> None:
    probe = analyze_sentence(text)
    assert (probe.construction, probe.focus1, probe.focus2) == (name, focus1, focus2), probe.message
    assert probe.text[slice(*probe.span)].lower() == probe.connective


@pytest.mark.parametrize("text, kind", LOOK_ALIKES,
                         ids=[f"{kind}: {text}" for text, kind in LOOK_ALIKES])
def test_look_alikes_are_not_taken_for_the_construction(text: str, kind: str) -> None:
    probe = analyze_sentence(text)
    assert probe.construction is None, f"found {probe.construction}: {probe.focus1} / {probe.focus2}"
    assert READINGS[kind] in probe.message


def test_the_control_replaces_the_first_real_use_not_an_earlier_look_alike() -> None:
    probe = analyze_sentence("He ate much less than I did, but he can't cook an egg, let alone a meal.")
    assert probe.control == "He ate much less than I did, but he can't cook an egg, or a meal."


def test_a_sentence_without_any_connective_still_gets_the_four_examples() -> None:
    message = analyze_sentence("Let me alone!").message
    assert "not 'let alone'" in message and "- let alone: He doesn't like shrimp, let alone squid." in message
