"""The Stimuli page's streamlit side: a stimuli file read, scored per word and per region by the
sidebar's model (or its token surprisals uploaded), SyntaxGym's predictions, the tables to download."""
from __future__ import annotations

import streamlit as st

from pfcore.deployment import deployment
from pfcore.items.syntaxgym import STIMULI_FILE, SUITE_FILE
from pfcore.plots.regions import region_bars_figure, unscored_regions
from pfcore.plots.tokens import token_bars_figure
from pfcore.runs.report import filter_names
from pfcore.scoring.lmzoo import SURPRISAL_FILE
from pfcore.ui.downloads import chart, download_csv, file_stem, slug
from pfcore.ui.errors import shown_errors
from pfcore.ui.model import ModelChoice, scorer
from pfcore.ui.progress import progress_callback
from pfcore.ui.tables import number_columns
from pfcore.ui.text import plain
from pfcore.ui.uploads import upload_megabytes
from pfcore.views.stimuli import (
    analyse_stimuli,
    analyse_surprisal_upload,
    lm_eval_reader,
    read_stimuli_file,
    stimuli_from_upload,
    word_bars,
)


def render_stimuli(choice: ModelChoice | None) -> None:
    """The whole page below its intro: the file, its scores, its chart, its tables."""
    with shown_errors():
        c1, c2 = st.columns(2)
        upload = c1.file_uploader("Upload a stimuli file", type=["csv", "json"], key="stimuli_upload",
                                  max_upload_size=upload_megabytes(STIMULI_FILE, SUITE_FILE))
        path = c2.text_input("...or the path of one on this machine", key="stimuli_path",
                             placeholder="syntactic-generalization/test_suites/json/number_src.json") \
            if deployment().allows_paths else ""
        st.caption("lm-evaluation-harness sample logs (`lm_eval --log_samples`) are not read here: they hold one "
                   "log-likelihood per sentence or follow-up of pfcore's Paired-Focus items, not the per-token "
                   f"surprisals this page needs for your stimuli. {lm_eval_reader()}.")
        corrected = st.toggle("Beginning-of-word correction", value=True, key="stimuli_corrected",
                              help="Off: a word's surprisal is the plain sum of its tokens' (regions of SyntaxGym "
                                   "suites then aggregate token surprisals, as syntaxgym-core does).")
        if upload is None and not path.strip():
            st.info("Upload a stimuli file or type the path of one." if deployment().allows_paths else
                    "Upload a stimuli file (this server is in public mode: files come by upload only).")
            st.stop()
        if upload is not None and path.strip():
            st.info(f"Scoring the uploaded file **{plain(upload.name)}**; the path typed ({plain(path.strip())}) "
                    "is not read. Remove the upload to score the file at that path.")
        stimuli = stimuli_from_upload(upload.name, upload.getvalue()) if upload else read_stimuli_file(path.strip())
        surprisals = st.file_uploader("...and, instead of the sidebar's model, its token surprisals from a model run "
                                      "elsewhere (lm-zoo's format)", type=["tsv", "txt", "jsonl"],
                                      key="stimuli_surprisals", max_upload_size=upload_megabytes(SURPRISAL_FILE)) \
            if stimuli.suite is not None else None
        if surprisals is not None:
            result = analyse_surprisal_upload(stimuli, surprisals.name, surprisals.getvalue())
            source = f"surprisals from {surprisals.name}"
            st.caption(f"{len(stimuli.texts):,} sentences; {plain(result.source)}. Each region holds its tokens' "
                       "surprisals (bits) as the file gives them; the correction toggle does not apply.")
        elif choice is None:
            st.info("Load a model in the sidebar to score these stimuli, or upload their token surprisals."
                    if stimuli.suite is not None else "Load a model in the sidebar to score these stimuli.")
            st.stop()
        else:
            result = analyse_stimuli(stimuli, scorer(choice.spec), choice.spec, corrected=corrected,
                                     progress=progress_callback(f"Scoring with {choice.spec.label}"))
            source = choice.spec.label
            st.caption(f"{len(stimuli.texts):,} sentences scored by {plain(source)}.")
        name = slug(stimuli.suite.name) if stimuli.suite else file_stem(stimuli.label)
        if result.by_condition is not None and result.regions is not None:
            st.subheader("Surprisal by region and condition")
            chart(region_bars_figure(result.by_condition, title=f"{name}: surprisal by region and condition, "
                                     f"{source}"), f"{name}_regions.html", key="stimuli_regions_chart")
            unscored = unscored_regions(result.by_condition)
            if unscored:
                st.caption(f"Not drawn: region {plain(', '.join(unscored))}, which has no scored word (a "
                           "sentence's first word has no context).")
            if result.accuracy is not None:
                st.subheader("Predictions")
                named = result.accuracy.assign(filter=result.accuracy["filter"].astype(str).map(
                    filter_names(result.accuracy))).drop(columns="formula")
                st.dataframe(named.rename(columns={"construction": "suite", "filter": "prediction"}), hide_index=True,
                             placeholder="")
            st.subheader("Regions")
            st.dataframe(result.regions, hide_index=True, placeholder="", column_config=number_columns(result.regions))
            download_csv(result.regions, f"{name}_regions.csv", "Download the regions (CSV)")
        else:
            sentences = list(dict.fromkeys(result.words["sentence"]))
            picked = st.multiselect("Per-word surprisal of", sentences, default=sentences[:2], key="stimuli_sentences")
            if picked:
                chart(token_bars_figure(word_bars(result.words, picked), "sentence",
                                        title=f"{name}: per-word surprisal, {source}"),
                      f"{name}_words.html", key="stimuli_words_chart")
        what = "tokens" if result.source else "words"
        st.subheader(what.capitalize())
        st.dataframe(result.words, hide_index=True, placeholder="", column_config=number_columns(result.words))
        download_csv(result.words, f"{name}_{what}.csv", f"Download the {what} (CSV)")
