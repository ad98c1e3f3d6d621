"""The Items page's streamlit side: the item tables read once per process, and the page below its
intro as one view function."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pfcore.items.schema import CONSTRUCTIONS
from pfcore.names import SuiteName, construction_words
from pfcore.plots.tokens import token_bars_figure
from pfcore.ui.downloads import chart, download_csv
from pfcore.ui.errors import shown_errors
from pfcore.ui.links import Param, apply, choice_of, current, opened_query, publish, show_link
from pfcore.ui.model import ModelChoice, Models
from pfcore.ui.tables import number_columns
from pfcore.ui.text import plain
from pfcore.views.blocks import (
    LAYOUTS,
    PICKER_LIMIT,
    ItemFilter,
    correct_per_model,
    filter_items,
    group_count,
    group_labels,
    group_of_row,
    item_table,
    score_group,
    stacked_groups,
)

SHOWN_ROWS = 2000

PARAMS = (Param("suite", "items_kind", choice_of(list(LAYOUTS))),
          Param("construction", lambda: f"items_cxn_{st.session_state.get('items_kind', SuiteName.SEMANTIC)}",
                choice_of(list(CONSTRUCTIONS)), many=True),
          Param("block", lambda: f"items_group_{st.session_state.get('items_kind', SuiteName.SEMANTIC)}"))


@st.cache_data(show_spinner="Reading the items...", max_entries=2)
def item_frame(suite: SuiteName) -> pd.DataFrame:
    """All shipped items of a suite as one table (see `views.blocks.item_table`)."""
    return item_table(suite)


def render_items(choice: ModelChoice | None) -> None:
    """The page below its intro: the items filtered, a block opened (a clicked row, or a link's) and
    scored by the sidebar's models, its decisions and per-token chart, the downloads."""
    state = st.session_state
    with shown_errors():
        opened = opened_query("items")
        notes = apply(PARAMS, opened) if opened is not None else []
        state.setdefault("items_kind", SuiteName.SEMANTIC)
        show_link(publish("items", current(PARAMS)), notes)
        suite = st.segmented_control("Suite", list(LAYOUTS), format_func=lambda name: LAYOUTS[name].title,
                                     required=True, key="items_kind", persist_state="session") or SuiteName.SEMANTIC
        layout = LAYOUTS[suite]
        items = item_frame(suite)
        c1, c2 = st.columns(2)  # two filters a row: a narrower column cut its chosen options short
        c3, c4 = st.columns(2)
        chosen = ItemFilter(
            constructions=tuple(c1.multiselect("Construction", sorted(items["construction"].unique()),
                                               format_func=construction_words,
                                               key=f"items_cxn_{suite}", persist_state="session", wrap=True)),
            scales=tuple(c2.multiselect("Scale", sorted(items["scale"].unique()), key=f"items_scale_{suite}",
                                        wrap=True)),
            verbs=tuple(c3.multiselect("Verb", sorted(items["verb"].unique()), key=f"items_verb_{suite}",
                                       wrap=True)),
            conditions=tuple(c4.multiselect(layout.condition, sorted(items["condition"].unique()),
                                            key=f"items_cond_{suite}", wrap=True)),
            search=st.text_input("Search the text", key=f"items_search_{suite}",
                                 placeholder="e.g. rock, beautiful, couldn't"))
        rows = filter_items(items, chosen)
        if rows.empty:
            st.info("No item matches these filters: clear the search or a filter.")
            st.stop()
        st.caption(f"{len(rows):,} of {len(items):,} {suite} items match"
                   + (f"; the first {SHOWN_ROWS:,} are shown, the download has all" if len(rows) > SHOWN_ROWS else "")
                   + ". Click a row to score its block.")
        shown = rows.head(SHOWN_ROWS)
        table = st.dataframe(shown, hide_index=True, height=300, on_select="rerun", selection_mode="single-row",
                             key=f"items_table_{suite}", placeholder="")
        download_csv(rows, f"{suite}_items.csv", "Download these items (CSV)")

        st.subheader(layout.heading)
        clicked = group_of_row(shown, suite, table.selection.rows[0]) if table.selection.rows else None
        linked = state.get(f"items_group_{suite}")
        labels = group_labels(rows, suite, keep=clicked or linked)
        if clicked is not None:
            state[f"items_group_{suite}"] = clicked
        elif linked is not None and linked not in labels:  # filtered out: open the first block that matches
            if opened and "block" in opened:
                st.caption(f"block={plain(repr(linked))} is not among the items shown; the first block is open instead")
            state[f"items_group_{suite}"] = next(iter(labels))
        group_id = st.selectbox(layout.group, list(labels),
                                format_func=labels.__getitem__, key=f"items_group_{suite}", persist_state="session")
        if group_count(rows, suite) > PICKER_LIMIT:
            st.caption(f"The first {PICKER_LIMIT:,} of {group_count(rows, suite):,} blocks are listed; filter the "
                       "items or click a row above to open any other.")
        if choice is None:
            st.info("Load a model in the sidebar to score this block.")
            st.stop()
        models = Models(choice.specs)
        with st.spinner(f"Scoring with {plain(models.named())}..."):
            scored = stacked_groups({label: score_group(s, suite, group_id) for label, s in models.scorers.items()})
        methods = plain("; ".join(f"{label}: {s.method.label}" for label, s in models.scorers.items()))
        st.caption(f"Scored by {methods}; sentence scores are the mean log-probability per token, as in the paper's "
                   "code; every value here is in bits.")
        st.markdown(layout.rows_note)
        st.dataframe(scored.rows, hide_index=True, placeholder="", column_config=number_columns(scored.rows))
        st.markdown(layout.decisions_note)
        st.dataframe(scored.decisions, hide_index=True, placeholder="",
                     column_config=number_columns(scored.decisions))
        if layout.correct_label is not None:
            counts = correct_per_model(scored.decisions)
            for column, (label, correct, total) in zip(st.columns(len(counts)), counts):
                column.metric(f"{layout.correct_label} ({label})", f"{correct} of {total}")
        names = list(dict.fromkeys(scored.tokens[layout.token_key]))
        if layout.pick_one:
            picked = [st.selectbox(f"Per-token surprisal of {layout.token_key}", names, key="items_row")]
        else:
            picked = st.multiselect("Per-token surprisal of", names, default=names[:2], key="items_sentences")
        if picked:
            tokens = scored.tokens[scored.tokens[layout.token_key].isin(picked)]
            title = layout.chart_title.format(group=labels[group_id], picked=picked[0])
            chart(token_bars_figure(tokens, layout.colour, facet="model", title=f"{title} ({models.named()})"),
                  "item_tokens.html", key="items_tokens_chart")
        with st.container(horizontal=True):  # each button as wide as its words (half a row cut them at 800 px)
            download_csv(scored.rows, f"{suite}_{group_id}_scores.csv", "Download scores (CSV)")
            download_csv(scored.tokens, f"{suite}_{group_id}_tokens.csv", "Download per-token surprisals (CSV)")
