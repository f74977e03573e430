"""Plotly figures for the app (no Streamlit import)."""

from __future__ import annotations

from typing import Mapping, Sequence

import plotly.graph_objects as go


def token_distribution_figure(
    series: Mapping[str, Sequence[int]], tokenizer: str, limit: int | None = None
) -> go.Figure:
    """Chunk sizes of every strategy on one axis: a box with all points beside it."""
    fig = go.Figure()
    for label, counts in series.items():
        fig.add_trace(
            go.Box(
                y=list(counts),
                name=label,
                boxpoints="all",
                jitter=0.4,
                pointpos=-1.6,
                marker={"size": 4, "opacity": 0.6},
                hovertemplate="%{y} tokens<extra>" + label.replace("<", "&lt;") + "</extra>",
            )
        )
    if limit is not None:
        fig.add_hline(y=limit, line_dash="dash", line_color="#e03131", annotation_text=f"limit {limit}")
    fig.update_layout(
        yaxis_title=f"tokens per chunk ({tokenizer})",
        showlegend=False,
        height=360,
        margin={"l": 40, "r": 20, "t": 30, "b": 40},
        template="plotly_white",
    )
    return fig
