"""Region surprisal by condition, as SyntaxGym plots it: one bar per condition in each region, the
mean over items with its 95% interval (the Stimuli page's figure)."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from pfcore.plots.common import require_columns

COLUMNS = ("condition_name", "region_number", "region_name", "surprisal_bits", "ci_low", "ci_high")


def region_bars_figure(by_condition: pd.DataFrame, title: str | None = None) -> go.Figure:
    """Mean surprisal (bits) per region, grouped by condition, with 95% interval error bars.

    `by_condition` has columns condition_name, region_number, region_name, surprisal_bits, ci_low,
    ci_high (as pfcore.suites.stimuli.region_means gives them).
    """
    require_columns(by_condition, COLUMNS, "region_bars_figure")
    fig = go.Figure()
    for condition, part in by_condition.groupby("condition_name", sort=False):
        fig.add_trace(go.Bar(
            x=[f"{number}: {name}" for number, name in zip(part["region_number"], part["region_name"])],
            y=part["surprisal_bits"], name=str(condition),
            error_y={"type": "data", "symmetric": False, "array": part["ci_high"] - part["surprisal_bits"],
                     "arrayminus": part["surprisal_bits"] - part["ci_low"]},
            hovertemplate="%{x}<br>%{y:.2f} bits<extra>" + str(condition) + "</extra>"))
    fig.update_layout(title=title, barmode="group", legend_title_text="Condition",
                      xaxis={"title": {"text": "Region"}},
                      yaxis={"title": {"text": "Surprisal (bits), mean over items, 95% interval"}})
    return fig
