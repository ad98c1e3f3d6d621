"""A definition typed or uploaded in the app gets the checks `constructions check` makes (issue 40):
a spelling of a built-in is refused with one line naming the visitor's file, not the server's folder."""
from __future__ import annotations

import pytest

from pfcore.errors import InputError
from pfcore.views.constructions import definition_from_text

GOOD = b"name: still_less\nwords: still less\nlicensing: negative\nfocus2: stronger\n"


def test_an_uploaded_definition_with_a_built_ins_spelling_is_refused() -> None:
    with pytest.raises(InputError) as caught:
        definition_from_text("mine.yaml", GOOD.replace(b"words: still less", b"words: let alone"))
    message = str(caught.value)
    assert message.startswith("mine.yaml: words: 1 of its spellings belong to the construction let_alone")
    assert "/tmp" not in message and "\n" not in message


def test_an_uploaded_definition_that_passes_the_checks_is_read() -> None:
    assert definition_from_text("mine.yaml", GOOD).name == "still_less"
