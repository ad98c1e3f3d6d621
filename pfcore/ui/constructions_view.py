"""The Run page's "Your own construction" section: a definition typed (private mode) or uploaded, the
items it generates, its first blocks scored beside the paper's four, on one chart with n and 95%
intervals, saved as a run. The work is pfcore.views.constructions; only streamlit calls are here. A
visitor's definition lives in their session; in public mode its run does too (as the page's runs do),
so nothing of it is shown to another."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from pfcore.deployment import deployment
from pfcore.items.constructions import DEFINITION_FILE
from pfcore.plots.accuracy import accuracy_bars_figure
from pfcore.ui.downloads import chart, download_csv
from pfcore.ui.errors import shown_errors
from pfcore.ui.model import ModelChoice, scorer
from pfcore.ui.progress import progress_view
from pfcore.ui.text import plain
from pfcore.ui.uploads import upload_megabytes
from pfcore.views.constructions import Trial, definition_from_text, run_trial, trial_of

EXPLAIN = """Test a construction of your own the way the paper tests its four: a **definition** says its
words, the context it needs and where focus 2 lies on its scale (docs/constructions.md). Its semantic
items are generated from the paper's frames, and its first blocks are scored beside the four's on the
same blocks, with the sidebar's model. The scored trial is saved as a run, as the page's other runs are."""
TEMPLATE = """name: still_less
words: still less
licensing: negative   # negative, positive or any
focus2: stronger      # stronger (as let alone) or weaker (as not even)
"""
RESULT = "construction_trial"  # session key: (definition sha256, model label, blocks) -> (run id, scored trial)


def render_constructions_section(choice: ModelChoice | None, own_runs: Path | None = None) -> None:
    """The section: the definition, its first block, Score, and the chart beside the four; the run goes
    where the page's runs go (`own_runs`: a public visitor's own folder)."""
    with shown_errors():
        st.subheader("Your own construction")
        st.markdown(EXPLAIN)
        policy = deployment()
        upload = st.file_uploader("Upload a definition (.yaml)", type=["yaml", "yml"], key="cx_upload",
                                  max_upload_size=upload_megabytes(DEFINITION_FILE))
        typed = st.text_area("...or write one", key="cx_text", height=140,
                             placeholder=TEMPLATE) if policy.allows_typed_definitions else ""
        name: str | None
        if upload is not None:
            name, data = upload.name, upload.getvalue()
        elif typed.strip():
            name, data = None, typed.encode("utf-8")
        else:
            st.info(("Write or upload" if policy.allows_typed_definitions else "Upload")
                    + " a construction definition to try it, for example:")
            st.code(TEMPLATE, language="yaml")
            return
        trial = trial_of(definition_from_text(name, data))
        d = trial.definition
        st.caption(f"`{d.name}`: '{d.connective}', a {d.licensing} context, focus 2 the {d.focus2} end; "
                   f"its first block of {len(trial.preview)} semantic items:")
        st.dataframe(trial.preview, hide_index=True, placeholder="")
        _score_section(trial, choice, own_runs)


def _score_section(trial: Trial, choice: ModelChoice | None, own_runs: Path | None) -> None:
    """Run its first blocks with the four's as a run, and show the chart and table (kept in the session)."""
    policy = deployment()
    blocks = int(st.number_input("Blocks to score", min_value=1, max_value=policy.blocks_offered(50),
                                 value=2, key="cx_blocks",
                                 help="the first blocks of your construction, and the same blocks of the four"))
    if choice is None:
        st.info("Choose a model in the sidebar to score it.")
        return
    key = (trial.definition.sha256, choice.spec.label, blocks)
    if st.button(f"Score {blocks} block{'s' if blocks > 1 else ''} beside the four", key="cx_score"):
        with policy.run_slot():  # a bar with done of total requests, from the cache, rate and time left
            progress = progress_view(f"Scoring with {plain(choice.spec.label)}")
            record, scored = run_trial(trial, choice.spec, blocks, scorer, progress, own_runs)
            st.session_state[RESULT] = (key, record.manifest.run_id, scored)
            st.session_state.run_pick = str(record.path)  # Results below opens it, with its link
    stored = st.session_state.get(RESULT)
    if stored is None or stored[0] != key or stored[2].summary is None:
        return
    st.success(f"Saved as run `{stored[1]}`: it is under Results below" +
               (" (in this session only)." if own_runs else ", on the Models page and in the results table."))
    summary = stored[2].summary
    shown = summary.assign(construction=summary["label"])
    chart(accuracy_bars_figure(shown, title=f"Accuracy (semantic suite, {blocks} blocks each): "
                                            f"{choice.spec.label}"), f"{trial.definition.name}_accuracy.html",
          key="cx_chart")
    st.caption("Accuracy of the decisions (0-1) with 95% Wilson intervals; n is the number of decisions, four "
               "per block. A few blocks give wide intervals: read the bars against them, not as a finding.")
    table = summary[["construction", "origin", "filter", "accuracy", "ci_low", "ci_high", "n"]]
    st.dataframe(table, hide_index=True, placeholder="")
    download_csv(table, f"{trial.definition.name}_beside_the_four.csv", "Accuracies (CSV)")
