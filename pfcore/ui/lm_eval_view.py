"""The Models page's upload of lm-evaluation-harness sample logs (docs/lm-eval.md): a model evaluated
with lm-eval on the tasks `pfcore export lm-eval` wrote, read back as a run of the semantic or
syntactic suite, named "MODEL (lm-eval, FILE)" in the tables above."""
from __future__ import annotations

import streamlit as st

from pfcore.deployment import deployment
from pfcore.names import SuiteName
from pfcore.suites.base import RunConfig
from pfcore.ui.text import plain


def render_lm_eval_upload() -> None:
    """An expander that adds a run from uploaded lm-eval logs; not in public mode, where a visitor's run
    would go into the shared results table."""
    if not deployment().allows_saving:
        return
    with st.expander("Add a run from lm-evaluation-harness sample logs"):
        st.caption("Upload the logs `lm_eval --log_samples` wrote for the tasks of `pfcore export lm-eval` (every "
                   "samples_paired_focus_SUITE_..._DATE.jsonl of one run, and its results_DATE.json), and say "
                   "which items were exported: the run makes the paper's decisions from them.")
        files = st.file_uploader("Sample logs and results file", type=["jsonl", "json"], accept_multiple_files=True,
                                 key="lm_eval_logs")
        suite = st.selectbox("Suite", [SuiteName.SEMANTIC.value, SuiteName.SYNTAX.value], key="lm_eval_suite")
        names = st.text_input("Constructions, as exported (empty: the paper's four)", key="lm_eval_constructions",
                              placeholder="let_alone,much_less")
        blocks = st.number_input("Blocks per construction, as exported (0: all)", min_value=0, value=0, step=1,
                                 key="lm_eval_blocks")
        model = st.text_input("Model name (empty: the one lm-eval's results file names)", key="lm_eval_model")
        if st.button("Read the logs", key="lm_eval_read", disabled=not files):
            _read(files or [], suite, names, int(blocks), model.strip() or None)


def _read(files: list, suite: str, names: str, blocks: int, model: str | None) -> None:
    """Run the suite from the uploads, and say what was recorded."""
    from pfcore.runs.lm_eval import run_from_uploads

    config = RunConfig(suite=SuiteName(suite), constructions=tuple(n.strip() for n in names.split(",") if n.strip()),
                       limit_blocks=blocks or None)
    notes: list[str] = []
    with st.spinner("Reading the logs and deciding..."):
        record, provenance = run_from_uploads([(f.name, f.getvalue()) for f in files], model, config, notes.append)
    for note in notes:
        st.info(plain(note))
    st.success(plain(f"Recorded {record.manifest.model.label}: {record.manifest.items.count} items, lm-eval "
                     f"{provenance['lm_eval_version'] or '(version not given)'}, token counts "
                     f"{provenance['token_counts']}. It is in the tables above from the next view of the page."))
