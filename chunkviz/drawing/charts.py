"""Plotly figures for the app (no Streamlit import); plotly is the optional ``app`` extra."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Mapping, Sequence

from chunkviz.core.explain import go, require_plotly
from chunkviz.drawing.render import BAND_COLOURS, N_COLOURS

if TYPE_CHECKING:
    import plotly.graph_objects


def token_distribution_figure(
    series: Mapping[str, Sequence[int]],
    tokenizer: str,
    limit: int | None = None,
    colours: Mapping[str, str] | None = None,
) -> "plotly.graph_objects.Figure":
    """Chunk sizes of every strategy on one axis: a box with all points beside it.

    ``colours`` maps a label to its colour (``palette.strategy_colour(palette.column_hue(i))``
    for column i), so each box matches its column; labels without one get plotly's colours.
    """
    require_plotly()
    fig = go.Figure()
    for label, counts in series.items():
        colour = (colours or {}).get(label)
        fig.add_trace(
            go.Box(
                y=list(counts),
                name=label,
                boxpoints="all",
                jitter=0.4,
                pointpos=-1.6,
                marker={"size": 4, "opacity": 0.6, **({"color": colour} if colour else {})},
                **({"line": {"color": colour}} if colour else {}),
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


def hover_text(text: str, limit: int = 160, wrap: int | None = 60) -> str:
    """Document text made safe for a plotly hover label: escaped, whitespace runs made one space,
    shortened to ``limit`` characters, wrapped at about ``wrap`` characters (None: one line)."""
    short = " ".join(text.split())
    if len(short) > limit:
        short = short[: limit - 1] + "\u2026"
    escaped = html.escape(short)
    if wrap is None:
        return escaped
    words, lines, line = escaped.split(" "), [], ""
    for word in words:
        if len(line) + len(word) > wrap and line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    return "<br>".join(lines)


def similarity_figure(
    text: str,
    sentences: Sequence[tuple[int, int]],
    metric_values: Sequence[float],
    metric: str,
    threshold: float,
    breakpoints: Sequence[int],
    size_splits: Sequence[int],
    chunk_sentences: Sequence[tuple[int, int]],
    at_threshold: Sequence[int] = (),
) -> "plotly.graph_objects.Figure":
    """Similarity (or distance gradient) of each adjacent sentence pair along the document.

    Pair ``i`` (sentences i and i+1) sits at x = i + 0.5, between the sentences; chunk regions
    are shaded with the inline highlighting's colours; the threshold is a horizontal line;
    semantic breakpoints and cuts forced by the size limit are marked; pairs exactly at the
    threshold (not cut: the tie rule of :mod:`chunkviz.semantic.thresholds`) are open circles.
    """
    require_plotly()
    x = [i + 0.5 for i in range(len(metric_values))]
    hover = [
        f"pair {i}: {metric_values[i]:.3f}<br><b>sentence {i}</b>: {hover_text(text[sentences[i][0] : sentences[i][1]])}"
        f"<br><b>sentence {i + 1}</b>: {hover_text(text[sentences[i + 1][0] : sentences[i + 1][1]])}"
        for i in range(len(metric_values))
    ]
    fig = go.Figure()
    for k, (a, b) in enumerate(chunk_sentences):
        fig.add_vrect(x0=a, x1=b, fillcolor=BAND_COLOURS[k % N_COLOURS], opacity=0.45, line_width=0, layer="below")
    fig.add_trace(
        go.Scatter(
            x=x,
            y=list(metric_values),
            mode="lines+markers",
            name="similarity" if metric == "similarity" else "rise of distance",
            marker={"size": 5, "color": "#1c7ed6"},
            line={"width": 1.5, "color": "#1c7ed6"},
            hovertext=hover,
            hoverinfo="text",
        )
    )

    def marks(pairs: Sequence[int], name: str, marker: dict) -> None:
        """One trace of markers on pairs ``pairs`` (pair i is drawn at x = i + 0.5)."""
        if pairs:
            fig.add_trace(go.Scatter(
                x=[i + 0.5 for i in pairs], y=[metric_values[i] for i in pairs], mode="markers", name=name,
                marker=marker, hovertext=[hover[i] for i in pairs], hoverinfo="text",
            ))  # fmt: skip

    marks(breakpoints, "breakpoint", {"symbol": "x", "size": 11, "color": "#e03131", "line": {"width": 2}})
    marks(size_splits, "cut to fit max_tokens", {"symbol": "diamond", "size": 10, "color": "#f08c00"})
    ties = [i for i in at_threshold if i not in set(size_splits)]
    marks(
        ties, "at threshold (not cut)", {"symbol": "circle-open", "size": 12, "color": "#e03131", "line": {"width": 2}}
    )
    if threshold == threshold:  # not NaN
        fig.add_hline(
            y=threshold,
            line_dash="dash",
            line_color="#e03131",
            annotation_text=f"threshold {threshold:.3f}",
            annotation_position="top left",
        )
    fig.update_layout(
        xaxis_title="sentence",
        yaxis_title="cosine similarity of neighbours" if metric == "similarity" else "rise of distance",
        height=340,
        margin={"l": 40, "r": 10, "t": 50, "b": 40},
        template="plotly_white",
        # above the plot area, never over the curve
        legend={"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        hovermode="closest",
    )
    return fig


def chunk_count_figure(curve: Sequence[tuple[float, int]], current: float | None) -> "plotly.graph_objects.Figure":
    """How many chunks each percentile gives (after the size limits), with the current choice."""
    require_plotly()
    fig = go.Figure(
        go.Scatter(
            x=[p for p, _ in curve],
            y=[n for _, n in curve],
            mode="lines",
            line={"shape": "hv", "color": "#495057"},
            hovertemplate="percentile %{x}: %{y} chunks<extra></extra>",
        )
    )
    if current is not None:
        near = min(curve, key=lambda pc: abs(pc[0] - current)) if curve else (current, 0)
        fig.add_trace(
            go.Scatter(
                x=[current],
                y=[near[1]],
                mode="markers",
                marker={"size": 11, "color": "#e03131"},
                hovertemplate="current: %{x}<extra></extra>",
            )
        )
    fig.update_layout(
        xaxis_title="percentile",
        yaxis_title="chunks",
        showlegend=False,
        height=220,
        margin={"l": 40, "r": 10, "t": 10, "b": 40},
        template="plotly_white",
    )
    return fig


def _escape_label(label: str) -> str:
    return html.escape(label, quote=False)


def _percent(fraction: float) -> str:
    """A point's label: whole percents, one decimal under 10 % (IoU values are small)."""
    value = 100 * fraction
    return f"{value:.1f}" if abs(value) < 10 else f"{value:.0f}"


def sweep_figure(
    series: Mapping[str, Sequence[tuple[float, float, float]]],
    metric: str,
    colours: Mapping[str, str] | None = None,
    size_title: str = "chunk size",
) -> "plotly.graph_objects.Figure":
    """A metric against chunk size: one line per strategy (``series``: label -> ``(size, mean,
    std)`` points, means as fractions), each point labelled with its mean in percent (one decimal
    under 10; above the point, below it on every second line, so close lines' labels part).
    Sizes usually double, so the x axis is logarithmic with a tick at every size."""
    require_plotly()
    fig = go.Figure()
    sizes: set[float] = set()
    for n, (label, points) in enumerate(series.items()):
        ordered = sorted(points)
        sizes.update(p[0] for p in ordered)
        colour = (colours or {}).get(label)
        fig.add_trace(
            go.Scatter(
                x=[p[0] for p in ordered],
                y=[100 * p[1] for p in ordered],
                name=label,
                mode="lines+markers+text",
                text=[_percent(p[1]) for p in ordered],
                textposition="bottom center" if n % 2 else "top center",
                cliponaxis=False,
                customdata=[100 * p[2] for p in ordered],
                marker={"size": 8, **({"color": colour} if colour else {})},
                line={"width": 2, **({"color": colour} if colour else {})},
                textfont={"size": 11, **({"color": colour} if colour else {})},
                hovertemplate=f"{_escape_label(label)}<br>size %{{x}}: {metric} %{{y:.1f}} ± %{{customdata:.1f}}%<extra></extra>",
            )
        )
    ticks = sorted(sizes)
    fig.update_layout(
        xaxis={"title": size_title, "type": "log" if ticks and ticks[0] > 0 else "linear", "tickvals": ticks},
        yaxis={"title": f"{metric} (%)"},  # fitted to the values: lines near each other stay apart
        height=340, margin={"l": 50, "r": 20, "t": 40, "b": 50}, template="plotly_white",
        legend={"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"}, hovermode="closest",
    )  # fmt: skip
    return fig


def configuration_bars_figure(
    values: Mapping[str, tuple[float, float]], metric: str, colours: Mapping[str, str] | None = None
) -> "plotly.graph_objects.Figure":
    """A metric per configuration as bars (``values``: label -> (mean, std) as fractions), each
    labelled with its mean in percent; the standard deviation is in the hover text."""
    require_plotly()
    labels = list(values)
    means = [100 * values[label][0] for label in labels]
    fig = go.Figure(
        go.Bar(
            x=labels, y=means, text=[f"{m:.1f}" for m in means], textposition="outside", cliponaxis=False,
            customdata=[100 * values[label][1] for label in labels],
            marker={"color": [(colours or {}).get(label, "#868e96") for label in labels]},
            hovertemplate=f"%{{x}}: {metric} %{{y:.1f}} ± %{{customdata:.1f}}%<extra></extra>",
        )
    )  # fmt: skip
    fig.update_layout(
        yaxis={"title": f"{metric} (%)", "rangemode": "tozero"}, showlegend=False,
        height=340, margin={"l": 50, "r": 20, "t": 40, "b": 50}, template="plotly_white",
    )  # fmt: skip
    return fig
