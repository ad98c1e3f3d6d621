"""Items: browse the semantic and syntactic test items; score one block with the chosen model."""
from pfcore.ui.items_view import render_items
from pfcore.ui.page import start_page

INTRO = """The test items the suites score, as shipped in `data/items/`. **Semantic** items come in
blocks of 8: a context with the construction or the control *or*, weak and strong focus in either
order, and a follow-up whose blank is filled with *easier* and *harder*. **Syntactic** items are a
base sentence and its manipulations (NPI, Pseudocleft, CP Conjunction; VP Conjunction and VP Gap
Conjunction as controls), with the construction and with *and*. Filter, then pick a block to score
it with the model in the sidebar."""
WORDS = ("focus", "follow-up", "control", "delta-p", "decision", "aligned", "surprisal")

choice = start_page("Items", INTRO, terms=WORDS)
render_items(choice)
