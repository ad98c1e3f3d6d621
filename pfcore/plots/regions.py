"""Region surprisal by condition, as SyntaxGym plots it: one bar per condition in each region, the
mean over items with its 95% interval (the Stimuli page's figure). A region with no scored value
(a sentence's first word, which has no context) is named under the chart, not drawn as a bar of
zero height."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from pfcore.plots.common import require_columns, set_title, shown
from pfcore.plots.kit import finish

COLUMNS = ("condition_name", "region_number", "region_name", "surprisal_bits", "ci_low", "ci_high")


def region_label(number: object, name: object) -> str:
    """A region as the chart's axis names it ("1: intro")."""
    return f"{number}: {name}"


def unscored_regions(by_condition: pd.DataFrame) -> list[str]:
    """The regions without a scored value in any condition, as the chart would label them."""
    scored = by_condition.groupby(["region_number", "region_name"], sort=False)["surprisal_bits"].count()
    return [region_label(number, name) for (number, name), count in scored.items() if count == 0]


def region_bars_figure(by_condition: pd.DataFrame, title: str | None = None) -> go.Figure:
    """Mean surprisal (bits) per region, grouped by condition, with 95% interval error bars.

    `by_condition` has columns condition_name, region_number, region_name, surprisal_bits, ci_low,
    ci_high (as pfcore.views.stimuli.region_means gives them).
    """
    require_columns(by_condition, COLUMNS, "region_bars_figure")
    left_out = set(unscored_regions(by_condition))
    labels = [region_label(n, r) for n, r in zip(by_condition["region_number"], by_condition["region_name"])]
    drawn = by_condition[[label not in left_out for label in labels]]
    fig = go.Figure()
    for condition, part in drawn.groupby("condition_name", sort=False):
        fig.add_trace(go.Bar(
            x=[shown(region_label(number, name)) for number, name in zip(part["region_number"], part["region_name"])],
            y=part["surprisal_bits"], name=shown(condition),
            error_y={"type": "data", "symmetric": False, "array": part["ci_high"] - part["surprisal_bits"],
                     "arrayminus": part["surprisal_bits"] - part["ci_low"]},
            hovertemplate="%{x}<br>%{y:.2f} bits<extra>" + shown(condition) + "</extra>"))
    set_title(fig, title)
    fig.update_layout(barmode="group",
                      xaxis={"title": {"text": "Region"}},
                      yaxis={"title": {"text": "Surprisal (bits), mean over items, 95% interval"}})
    if left_out:
        fig.add_annotation(text="Not scored (a sentence's first word has no context): "
                                + shown(", ".join(sorted(left_out))),
                           xref="paper", yref="paper", x=0, y=-0.22, xanchor="left", showarrow=False)
        fig.update_layout(margin={"b": 110})
    return finish(fig, legend_title="Condition")
