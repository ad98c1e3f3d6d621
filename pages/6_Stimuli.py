"""Stimuli: your own sentences (a CSV), SyntaxGym's long CSV or a SyntaxGym suite, scored per word and
per region with the model in the sidebar, or a suite's token surprisals from a file made elsewhere;
SyntaxGym's predictions and the long tables to download."""
from pfcore.ui.page import start_page
from pfcore.ui.stimuli_view import render_stimuli

INTRO = """Score your own stimuli per **word** and per **region**. Give a CSV with a `sentence` column
(other columns, such as item and condition, are carried through), SyntaxGym's long CSV
(`item_number, condition_name, region_number, region_name, content`), or a SyntaxGym suite JSON,
whose predictions are evaluated too. A word's surprisal is in bits; with the beginning-of-word
correction (the default) it is the probability of the word itself, not only of its tokens
(defined in the glossary below). The first word of a sentence has no context and is not scored.
For a SyntaxGym suite you may instead upload the token surprisals of a model run elsewhere, in
lm-zoo's format (`sentence_id, token_id, token, surprisal` in bits, one row per token of the
sentences `pfcore syntaxgym sentences` writes): no model is needed then."""
WORDS = ("surprisal", "bit", "token", "word-correction", "bos")

choice = start_page("Stimuli", INTRO, terms=WORDS)
render_stimuli(choice)
