"""The missing-texts message of a scores file (issue 40): each example is told apart from the others
by its context's end and its text's two ends (40 characters of the text alone looked the same)."""
from __future__ import annotations

from pfcore.scoring.kinds.scores import shown_request
from pfcore.scoring.requests import Request

CONTEXT = "You couldn't lift a tiny rock, {} a huge one."
FOLLOWUP = "Lifting a tiny rock is {} than lifting a huge rock, as anyone who has tried either knows."


def test_examples_that_differ_in_context_or_in_their_middle_are_shown_apart() -> None:
    requests = [Request(CONTEXT.format(c), FOLLOWUP.format(w))
                for c in ("let alone", "or") for w in ("easier", "harder")]
    shown = [shown_request(r) for r in requests]
    assert len(set(shown)) == 4 and len({r.text[:40] for r in requests}) == 2  # the old message: 2 look-alike pairs
    assert "let alone a huge one.' + 'Lifting a tiny rock is easier" in shown[0]
    assert shown[0].endswith("...one who has tried either knows.'") and len(shown[0]) < 110


def test_a_short_text_without_prefix_is_shown_whole() -> None:
    assert shown_request(Request("", "The keys are here.")) == "'The keys are here.'"
