"""The teacher's view (issue 37): the word-with-punctuation point said where the numbers are, and
the glossary's missing terms."""
from __future__ import annotations

import pandas as pd

from pfcore.glossary import TERMS
from pfcore.lesson import notice
from pfcore.lesson.steps import lesson_step


def words(second: str) -> pd.DataFrame:
    """Step 2's table: two sentences word by word, the last word differing."""
    rows = [{"sentence": s, "position": i, "word": w, "surprisal_bits": float("nan") if i == 0 else 2.0 + i}
            for s, last in (("I drank coffee.", "coffee."), (f"I drank {second}", second))
            for i, w in enumerate(["I", "drank", last])]
    frame = pd.DataFrame(rows)
    frame.loc[frame["word"] == second, "surprisal_bits"] = 9.0
    return frame


def test_the_surprisal_step_says_a_word_counts_its_punctuation() -> None:
    """Issue 37: step 1 says 'coffee' is 45.54%, step 2 says 'coffee.' is 4.92 bits, and nothing said why."""
    assert "'coffee.' is 'coffee' and then the period" in lesson_step(2).explanation
    line = notice.surprisal({"words": words("shoes.")})
    assert line.endswith("A word's bits count the punctuation written with it: 'coffee.' is 'coffee' and then '.'.")
    assert "punctuation" not in notice.surprisal({"words": words("shoes").replace("coffee.", "coffee")})


def test_the_glossary_has_the_terms_the_pages_use() -> None:
    """Issue 37: the glossary lacked Spearman's ρ, checkpoint, parameters, construction vs connective."""
    assert {"spearman", "checkpoint", "parameters", "construction"} <= set(TERMS)
    assert "ρ" in TERMS["spearman"].word and "connective" in TERMS["construction"].word
    assert {"parameters", "checkpoint"} <= set(lesson_step(7).terms) and "construction" in lesson_step(3).terms
