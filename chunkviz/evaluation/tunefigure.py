"""How ``chunkviz tune`` shows a study: the frontier table, the ``chunkviz eval`` command that
reproduces a point, and the frontier figure (plotly)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any

from chunkviz.evaluation.evaluate import Configuration
from chunkviz.evaluation.objectives import TITLES, Point, Study, pareto
from chunkviz.semantic.embeddings import DEFAULT_MODEL, canonical_model


def frontier_table(points: Sequence[Point], k: int, marked: Point | None = None) -> str:
    """One row per point: configuration, retriever, chunks, then the metrics in percent and the
    tokens per question; ``marked`` gets a ``*``. Every line has the same columns aligned."""
    header = [
        "",
        "configuration",
        "retrieval",
        "chunks",
        "recall",
        "IoU",
        "precision",
        f"recall@{k}",
        "MRR",
        f"NDCG@{k}",
        "MAP",
        "tokens/q",
    ]
    rows = [header]
    for p in points:
        c = p.configuration
        rows.append([
            "*" if p is marked else "", Configuration(c.strategy, dict(c.params), c.tokenizer).label(), p.retrieval(),
            f"{p.chunks:,}", *(f"{100 * p.value(m):.1f}" for m in ("recall", "iou", "precision", "recall_at_k", "mrr", "ndcg", "map")),
            f"{p.value('tokens'):,.0f}",
        ])  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) if i < 3 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def eval_command(point: Point, corpus: Sequence[str], questions: str, k: int, model: str | None = None) -> str:
    """The ``chunkviz eval`` command line that evaluates ``point``'s configuration again (with
    the embedding ``model`` the study used, when it is not the default)."""
    c = point.configuration
    parts = ["chunkviz", "eval", *corpus, "--questions", questions, "-s", c.strategy]
    for name, value in sorted(c.params.items()):
        text = _param_text(value)
        parts += ["-p", f"{name}={text}"]
    parts += ["--tokenizer", c.tokenizer, "--k", str(k)]
    if model and canonical_model(model) != DEFAULT_MODEL:
        parts += ["--model", model]
    if c.retriever != "dense":
        parts += ["--retriever", c.retriever]
    if c.retriever == "hybrid":
        parts += ["--fusion", c.fusion] + (["--alpha", f"{c.alpha:g}"] if c.fusion == "weighted" else [])
    if c.rerank is not None:
        parts += ["--rerank", c.rerank, "--rerank-candidates", str(c.rerank_candidates)]
    return " ".join(shlex.quote(p) for p in parts)


def point_config(point: Point, model: str | None = None) -> dict[str, Any]:
    """The ``chunkviz.json`` of ``point``: its chunking, its retrieval and the embedding ``model``
    (what ``chunkviz eval --config`` runs again exactly; a model the file cannot name, such as a
    test encoder, is left out)."""
    from chunkviz.diagnostics.compare import ColumnConfig
    from chunkviz.evaluation.config import Retrieval, config_from_columns
    from chunkviz.text.models import is_embedding_model

    c = point.configuration
    return config_from_columns(
        [ColumnConfig(c.strategy, dict(c.params), None)],
        tokenizer=c.tokenizer,
        retrieval=Retrieval.of(c),
        embedding_model=model if model and is_embedding_model(model) else None,
    )


def _param_text(value: Any) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


# ----------------------------------------------------------------------------- the figure
#: One colour per retriever (the frontier lines too), the published rows in grey.
RETRIEVER_COLOURS: dict[str, str] = {"dense": "#1c7ed6", "bm25": "#f08c00", "hybrid": "#2f9e44"}
PUBLISHED_COLOUR = "#495057"


def axis_title(metric: str, k: int) -> str:
    if metric == "tokens":
        return "tokens retrieved per question"
    return TITLES[metric].replace("@k", f"@{k}") + " (%)"


def _shown(metric: str, value: float) -> float:
    return value if metric == "tokens" else 100 * value


def frontier_figure(
    study: Study, x: str = "iou", y: str = "recall", published: Sequence[Any] = (), marked: Point | None = None
) -> Any:
    """Every configuration tried as a point (one colour per retriever; its position in
    ``study.points`` as ``customdata``, for a click), each retriever's frontier as a line, the
    ``published`` rows (:mod:`chunkviz.evaluation.published`) as grey diamonds and ``marked``
    (the chosen configuration) ringed. Needs plotly (the app extra)."""
    from chunkviz.core.explain import go, require_plotly

    require_plotly()
    fig = go.Figure()
    for retriever in study.retrievers:
        colour = RETRIEVER_COLOURS.get(retriever, "#862e9c")
        mine = [i for i, p in enumerate(study.points) if p.configuration.retriever == retriever]
        if not mine:
            continue
        fig.add_trace(
            go.Scatter(
                x=[_shown(x, study.points[i].value(x)) for i in mine],
                y=[_shown(y, study.points[i].value(y)) for i in mine],
                mode="markers",
                name=f"{retriever}: tried",
                customdata=mine,
                text=[_plain_label(study.points[i]) for i in mine],
                marker={"color": colour, "size": 9, "opacity": 0.55},
                hovertemplate="%{text}<br>"
                + f"{TITLES[x]} %{{x:.1f}} · {TITLES[y]} %{{y:.1f}}<extra>{retriever}</extra>",
            )
        )
        line = [mine[j] for j in pareto([study.points[i] for i in mine], x, y)]
        fig.add_trace(
            go.Scatter(
                x=[_shown(x, study.points[i].value(x)) for i in line],
                y=[_shown(y, study.points[i].value(y)) for i in line],
                mode="lines+markers",
                name=f"{retriever}: frontier",
                customdata=line,
                text=[_plain_label(study.points[i]) for i in line],
                line={"color": colour, "width": 2},
                marker={"color": colour, "size": 11},
                hovertemplate="%{text}<br>" + f"{TITLES[x]} %{{x:.1f}} · {TITLES[y]} %{{y:.1f}}<extra>frontier</extra>",
            )
        )
    rows = [r for r in published if r.value(x) is not None and r.value(y) is not None]
    if rows:
        fig.add_trace(
            go.Scatter(
                x=[_shown(x, r.value(x)) for r in rows],
                y=[_shown(y, r.value(y)) for r in rows],
                mode="markers+text",
                name="Chroma's study (MiniLM)" + (", tokens ≈ k × mean size" if "tokens" in (x, y) else ""),
                text=[f"{r.chunker} {r.size}" for r in rows],
                textposition="top center",
                textfont={"size": 10, "color": PUBLISHED_COLOUR},
                marker={"color": PUBLISHED_COLOUR, "symbol": "diamond", "size": 9},
                hovertemplate="%{text}<br>"
                + f"{TITLES[x]} %{{x:.1f}} · {TITLES[y]} %{{y:.1f}}<extra>published</extra>",
            )
        )
    if marked is not None:
        fig.add_trace(
            go.Scatter(
                x=[_shown(x, marked.value(x))],
                y=[_shown(y, marked.value(y))],
                mode="markers",
                name="chosen",
                customdata=[i for i, p in enumerate(study.points) if p is marked][:1],
                hoverinfo="skip",
                marker={"size": 20, "color": "rgba(0,0,0,0)", "line": {"color": "#e03131", "width": 3}},
            )
        )
    fig.update_layout(
        xaxis_title=axis_title(x, study.k),
        yaxis_title=axis_title(y, study.k),
        height=460,
        margin={"l": 50, "r": 20, "t": 30, "b": 50},
        template="plotly_white",
        legend={"orientation": "h", "y": -0.2},
        clickmode="event+select",
    )
    return fig


def _plain_label(point: Point) -> str:
    import html

    c = point.configuration
    return html.escape(f"{Configuration(c.strategy, dict(c.params), c.tokenizer).label()} · {point.retrieval()}")
