"""Probe: one sentence with a construction, read against "or", by up to four models side by side:
the sentence word by word, the sentence across training checkpoints, the balanced verdict from all
its decisions (both orders) beside the suite's base rate, one decision token by token, and the
syntactic manipulations."""
from pfcore.ui.page import start_page
from pfcore.ui.probe_page import open_probe_link, render_probe

INTRO = """Type a sentence with *let alone*, *much less*, *not to mention* or *never mind* and press
Enter. The model reads follow-ups the construction **entails** and ones it **contradicts**, after your
sentence and after the same sentence with *or*: a model that knows the construction's meaning moves
toward the entailed follow-up more with the construction than with *or*. Each such comparison is one
**decision**; the verdict comes from all of them, on the sentence as typed and with its foci swapped."""
WORDS = ("surprisal", "bit", "token", "bits-per-token", "focus", "follow-up", "control", "delta-p", "effect",
         "decision", "base-rate", "interval", "word-correction")

opened, model_notes = open_probe_link()
choice = start_page("Probe", INTRO, terms=WORDS)
render_probe(choice, opened, model_notes)
