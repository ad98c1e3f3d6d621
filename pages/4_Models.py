"""Models: the paper's reference tables beside your own runs; accuracy against model size."""
from pfcore.ui.mixed_view import render_mixed_effects
from pfcore.ui.models_view import render_figure1, render_sizes, render_tables
from pfcore.ui.page import start_page

INTRO = """The paper's results for 36 models, typed from its Tables 5-9 into `data/reference/` (each
value keeps its table as `source`), with your own runs from the **Run** page set beside them, and
the paper's Figure 1: accuracy against parameter count, coloured by training tokens."""
WORDS = ("decision", "aligned", "delta-p", "pll", "parameters", "spearman")

choice = start_page("Models", INTRO, terms=WORDS)
render_tables()
render_figure1()
render_mixed_effects()
render_sizes(choice)
