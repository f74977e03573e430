"""A comparison as the app's Compare view shows it, without Streamlit: columns run and rendered once,
for the static report (:mod:`chunkviz.views.page`), the notebook view (:mod:`chunkviz.views.notebook`) and
the app's "Download this view as HTML".

A column is the app's: label ``"1. recursive"``, render key ``col0``, hue
:func:`chunkviz.drawing.palette.column_hue`, HTML :func:`chunkviz.drawing.render.render_html` with the diagnostics'
annotations and content gaps, summary :func:`chunkviz.diagnostics.compare.flag_summary`, ribbon
:func:`~chunkviz.views.docview.ribbon_cuts`. A semantic column also carries
:func:`chunkviz.views.semantic.semantic_view_data` (plot, caption, re-cut tables).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkviz.core.types import Chunk, check_chunk_numbers
from chunkviz.diagnostics import DEFAULT_TINY_FRACTION, diagnose
from chunkviz.diagnostics.compare import (
    ColumnConfig,
    StrategyRun,
    chunk_annotations,
    flag_summary,
    full_params,
    run_strategy,
)
from chunkviz.diagnostics.hygiene import HygieneRules
from chunkviz.document.model import Document, as_document
from chunkviz.drawing.palette import column_hue
from chunkviz.drawing.render import RenderOptions, legend_html, marks_present, render_html
from chunkviz.semantic.explanation import SemanticExplanation
from chunkviz.strategies.base import get_strategy
from chunkviz.text.models import DEFAULT_EMBEDDING_MODEL
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER
from chunkviz.views.docview import ColumnView, ribbon_cuts

#: Most columns of one view (the app's limit).
MAX_COLUMNS = 4


@dataclass(frozen=True)
class ViewColumn:
    """One column: its configuration (None for chunks given as they are), its run, its drawing."""

    label: str
    key: str
    hue: int
    config: ColumnConfig | None
    run: StrategyRun
    html: str
    summary: str
    semantic: Mapping[str, Any] | None = None

    def view(self) -> ColumnView:
        return ColumnView(self.label, self.html, self.hue, self.summary, ribbon_cuts(self.run.chunks))


@dataclass(frozen=True)
class ComparisonView:
    """A document and its columns, ready to draw anywhere."""

    document: Document
    doc_name: str
    tokenizer: str
    columns: tuple[ViewColumn, ...]
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    notes: tuple[str, ...] = field(default=())

    def legend(self) -> str:
        present: set[str] = set()
        for c in self.columns:
            gaps = c.run.diagnostics.coverage.content_gaps if c.run.diagnostics else ()
            present |= marks_present(c.run.chunks, chunk_annotations(c.run), gaps)
        return legend_html(present)


def column_from_run(
    document: Document, i: int, run: StrategyRun, config: ColumnConfig | None, label: str | None = None
) -> ViewColumn:
    """Column ``i`` of a view from a run (the app's drawing of it)."""
    label = label or f"{i + 1}. {run.strategy}"
    key, hue = f"col{i}", column_hue(i)
    gaps = run.diagnostics.coverage.content_gaps if run.diagnostics else ()
    options = RenderOptions(key, run.size_tokenizer, None, chunk_annotations(run), gaps, hue=hue)
    html = render_html(document.text, run.chunks, options)
    semantic = _semantic_data(document, run, config)
    return ViewColumn(label, key, hue, config, run, html, flag_summary(run), semantic)


def _semantic_data(document: Document, run: StrategyRun, config: ColumnConfig | None) -> Mapping[str, Any] | None:
    if config is None:
        return None
    spec = get_strategy(config.strategy)
    if spec.explain is None or spec.tuning is None:
        return None
    from chunkviz.text.tokenizers import get_tokenizer  # noqa: PLC0415

    explanation = spec.explain(document, spec.make_params(dict(config.params)), get_tokenizer(run.size_tokenizer))
    if not isinstance(explanation, SemanticExplanation):
        return None
    from chunkviz.views.semantic import semantic_view_data  # noqa: PLC0415

    return semantic_view_data(document, explanation)


def build_view(
    document: Document | str,
    columns: Sequence[ColumnConfig],
    *,
    tokenizer: str = DEFAULT_TOKENIZER,
    doc_name: str | None = None,
    embedding_model: str = DEFAULT_EMBEDDING_MODEL,
    tiny_fraction: float | None = DEFAULT_TINY_FRACTION,
    enrichment: Mapping[str, Any] | None = None,
    hygiene: HygieneRules | None = None,
) -> ComparisonView:
    """Run every column on ``document`` (as the app runs it; ``enrichment``: :func:`chunkviz.document.enrich.enrich`'s
    keyword arguments, drawn as added text) and draw it. ``hygiene``: the hygiene flags' thresholds."""
    doc = as_document(document)
    if not columns:
        raise ValueError("a view needs at least one column (a strategy)")
    if len(columns) > MAX_COLUMNS:
        raise ValueError(f"a view shows at most {MAX_COLUMNS} columns, got {len(columns)}")
    drawn = []
    for i, config in enumerate(columns):
        run = run_strategy(
            doc,
            config.strategy,
            config.params,
            tokenizer,
            enrichment,
            embedding_model=embedding_model,
            tiny_fraction=tiny_fraction,
            column_tokenizer=config.tokenizer,
            hygiene=hygiene,
        )
        drawn.append(column_from_run(doc, i, run, config))
    name = doc_name or doc.name or "document"
    return ComparisonView(doc, name, tokenizer, tuple(drawn), embedding_model, doc.structure.notes)


def view_from_runs(
    document: Document,
    columns: Sequence[tuple[ColumnConfig, StrategyRun | None]],
    *,
    tokenizer: str,
    doc_name: str,
    embedding_model: str = DEFAULT_EMBEDDING_MODEL,
) -> ComparisonView:
    """A view of runs already made (the app's columns; a column that did not run is left out, named in ``notes``)."""
    drawn: list[ViewColumn] = []
    notes: list[str] = []
    for i, (config, run) in enumerate(columns):
        if run is None:
            notes.append(f"column {i + 1} ({config.strategy}) did not run and is not in this view")
            continue
        drawn.append(column_from_run(document, len(drawn), run, config, label=f"{i + 1}. {config.strategy}"))
    if not drawn:
        raise ValueError("none of the columns ran: nothing to draw")
    notes = [*document.structure.notes, *notes]
    return ComparisonView(document, doc_name, tokenizer, tuple(drawn), embedding_model, tuple(notes))


def view_from_chunks(
    document: Document | str,
    chunkings: Mapping[str, Sequence[Chunk]],
    *,
    tokenizer: str = DEFAULT_TOKENIZER,
    doc_name: str | None = None,
) -> ComparisonView:
    """A view of chunkings you already have (label -> chunks of this document), diagnosed and drawn
    like any column. Each chunk must be a span of the document (``text == doc[start:end]``), its index,
    parent and level whole numbers (:func:`~chunkviz.core.types.check_chunk_numbers`)."""
    doc = as_document(document)
    if not chunkings:
        raise ValueError("give at least one chunking: {label: chunks}")
    drawn = []
    for i, (label, chunks) in enumerate(chunkings.items()):
        chunks = tuple(chunks)
        for position, c in enumerate(chunks):
            if not isinstance(c, Chunk):
                raise TypeError(f"{label!r}: chunk {c!r} is not a chunkviz Chunk (make one with Chunk.from_span)")
            check_chunk_numbers(c, f"{label!r}, the chunk at position {position}")
            if not 0 <= c.start <= c.end <= len(doc.text) or doc.text[c.start : c.end] != c.text:
                raise ValueError(
                    f"{label!r}, chunk {c.index}: its text is not the document's characters {c.start}..{c.end}"
                )
        diagnostics = diagnose(doc, chunks, tokenizer=tokenizer) if chunks else None
        run = StrategyRun(str(label), {}, tokenizer, chunks, diagnostics)
        drawn.append(column_from_run(doc, i, run, None, label=f"{i + 1}. {label}"))
    return ComparisonView(doc, doc_name or doc.name or "document", tokenizer, tuple(drawn))


def column_configs(view: ComparisonView) -> list[ColumnConfig]:
    """The configurations of the view's columns that have one (with every parameter filled in)."""
    return [
        ColumnConfig(c.config.strategy, full_params(c.config.strategy, c.config.params), c.config.tokenizer)
        for c in view.columns
        if c.config is not None
    ]
