"""The app's *Compare* view: the boundary ribbon and linked columns (a query playground above
them), then each column's numbers, and, drawn when opened, each column's details (the strategy's
figures, chunk table, selected chunk, downloads) and the statistics of all columns side by side."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from html import escape
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from chunkviz.core.explain import Explanation
from chunkviz.core.types import Chunk
from chunkviz.diagnostics.compare import (
    StrategyRun,
    chunk_annotations,
    chunk_table,
    flag_summary,
    stats_row,
    token_counts,
)
from chunkviz.document import Document
from chunkviz.drawing.charts import token_distribution_figure
from chunkviz.drawing.palette import strategy_colour
from chunkviz.drawing.render import RenderOptions, cut_text, legend_html, marks_present, render_html
from chunkviz.evaluation.metrics import Scores
from chunkviz.evaluation.playground import Hit
from chunkviz.formats.external.formats import app_formats
from chunkviz.llm.client import LLMSettings
from chunkviz.strategies.base import get_strategy
from chunkviz.ui.cached import cached_explanation, cached_exports, cached_html
from chunkviz.ui.columns import Column
from chunkviz.ui.docview import ColumnView, DocViewEvent, document_view, event_from_state, ribbon_cuts
from chunkviz.ui.keys import document_digest
from chunkviz.ui.lazy import opened_section
from chunkviz.ui.playground import (
    playground_hits,
    playground_row,
    playground_scores,
    playground_table,
    playground_variant_hits,
    query_forms_control,
    show_query_forms,
)
from chunkviz.ui.tune import open_tuning
from chunkviz.ui.yours import YourFile, your_column

#: Height of the linked document boxes: with the page header above, they end near the fold at 1100 px.
VIEW_HEIGHT_PX = 745
DOCVIEW_KEY = "docview"
#: The open/closed state of the statistics section (``True`` in session state opens it).
STATISTICS_KEY = "compare.statistics"
SELECTED_ROW = "background-color: #ffe8cc"


def column_view(
    column: Column,
    document: Document,
    hits: list[Hit] | None = None,
    scores: Scores | None = None,
) -> ColumnView:
    """What the linked document view shows for one column (with a query: its hits, and with an
    expected answer its recall and IoU in the header)."""
    selected = st.session_state.get(f"{column.key}.selected")
    if column.run is None:
        message = f"Not run: {column.error}"
        return ColumnView(
            column.label,
            render_html(document.text, (), RenderOptions(column.key, hue=column.hue)),
            column.hue,
            message,
            (),
            None,
        )
    html = cached_html(document, column.run_key, column.key, column.hue)
    summary = flag_summary(column.run)
    if scores is not None:
        summary = f"answer: recall {100 * scores.recall:.0f}% · IoU {100 * scores.iou:.1f}% · {summary}"
    return ColumnView(
        column.label, html, column.hue, summary, ribbon_cuts(column.run.chunks), selected, tuple(hits or ())
    )


def show_compare(
    columns: list[Column],
    document: Document,
    tokenizer: str,
    doc_name: str,
    llm: LLMSettings | None = None,
    *,
    tune_view: str,
    yours: YourFile | None = None,
    first_paint: bool = False,
) -> None:
    """The Compare view of ``columns`` already run (``tune_view``: the name of the view a
    column's "Tune" button opens; ``yours``: a chunk file drawn as one more column).
    ``first_paint``: a new visitor's first screen, the document view alone in the places the
    whole view gives it (:mod:`chunkviz.ui.firstpaint`)."""
    for column in columns:  # before the views are built: they show the selection of this run
        if column.run is not None:
            forget_stale_selection(column, document)
    apply_view_selection(event_from_state(st.session_state.get(DOCVIEW_KEY)), columns)
    llm = llm or LLMSettings.from_env()
    query, k, answer = playground_row(document, doc_name, DOCVIEW_KEY, drawn=not first_paint)
    for column in columns:
        if column.llm_note:
            st.caption(f"{column.label} · {column.llm_note}")
    drawn = query_forms_control(query) if query else "raw"
    by_mode, texts = playground_variant_hits(columns, query, k, llm)
    hits = by_mode.get(drawn) or playground_hits(columns, query, k)
    scores = playground_scores(columns, hits, answer)
    views = [column_view(c, document, hits.get(c.i), scores.get(c.i)) for c in columns]
    rules = columns[0].run_key.settings.hygiene if columns else None  # the sidebar's hygiene thresholds
    if yours is not None and (view := your_column(document, yours, tokenizer, len(columns), rules)) is not None:
        views.append(view)  # after the strategies' columns: a click on it selects nothing of theirs
    document_view(
        views,
        length=len(document.text),
        key=DOCVIEW_KEY,
        height_px=VIEW_HEIGHT_PX,
        legend=columns_legend(columns),
        references=[answer] if answer else (),
        answer_selection=bool(query),
        first_paint=first_paint,
    )
    if first_paint:
        return
    if by_mode:
        show_query_forms(columns, by_mode, texts, answer, k)
    elif hits:
        playground_table(columns, hits, scores, k)

    details = st.columns(len(columns))
    for column, container in zip(columns, details):
        with container:
            show_details(column, document, doc_name, tune_view)

    runs = {c.label: c.run for c in columns if c.run is not None}
    if runs:
        show_statistics(columns, runs, tokenizer)


def columns_legend(columns: list[Column]) -> str:
    """The legend of the marks the columns' runs show."""
    return legend_html(set().union(*(marks_of(c.run) for c in columns if c.run is not None)))


def details_key(column: Column) -> str:
    """The open/closed state of a column's details section (a click on one of its chunks opens it)."""
    return f"{column.key}.details"


def show_statistics(columns: list[Column], runs: dict[str, StrategyRun], tokenizer: str) -> None:
    """Every column's statistics in one table and their token sizes as a box plot (when opened)."""
    section = opened_section("Compare: statistics of every column and their chunk sizes", STATISTICS_KEY)
    if section is None:
        return
    with section:
        st.dataframe(
            pd.DataFrame([stats_row(label, run) for label, run in runs.items()]), hide_index=True, key="compare"
        )
        colours = {c.label: strategy_colour(c.hue) for c in columns if c.run is not None}
        figure = token_distribution_figure(
            {label: token_counts(run) for label, run in runs.items()}, tokenizer, colours=colours
        )
        st.plotly_chart(figure, key="sizes")


def marks_of(run: StrategyRun) -> set[str]:
    gaps = run.diagnostics.coverage.content_gaps if run.diagnostics else ()
    return marks_present(run.chunks, chunk_annotations(run), gaps)


def apply_view_selection(event: DocViewEvent | None, columns: list[Column]) -> None:
    """A click on a chunk in the document view selects it (once per click: the event stays in
    the component's state, its nonce tells a new click)."""
    if event is None or event.nonce == st.session_state.get("_view_nonce"):
        return
    st.session_state["_view_nonce"] = event.nonce
    if 0 <= event.column < len(columns):
        st.session_state[f"col{event.column}.selected"] = event.index
        st.session_state[details_key(columns[event.column])] = True  # the chunk's text and row are there
        st.session_state.pop(f"col{event.column}.table", None)  # the table follows (its highlighted row), unticked


def show_details(column: Column, document: Document, doc_name: str, tune_view: str) -> None:
    """One column's numbers and the strategy's summary; when opened, its figures, chunk table,
    selected chunk and downloads."""
    st.subheader(column.label)
    if column.run is None:
        st.error(column.error or "not run")
        return
    run = column.run
    d = run.diagnostics
    st.html(numbers_html(column_numbers(run)))
    st.caption(flag_summary(run))
    if d and d.coverage.content_gaps:
        st.warning(f"{d.coverage.content_gap_chars} characters of text are in no chunk (hatched in the text).")
    explains = get_strategy(column.config.strategy).explain is not None
    if explains:
        show_explanation_summary(column, document, tune_view)
    contents = "Figures, chunk table" if explains else "Chunk table"
    section = opened_section(f"{contents}, selected chunk, downloads", details_key(column))
    if section is None:
        return
    with section:
        if explains:
            show_explanation_figures(column, document)
        show_table(column, run)
        selected = st.session_state.get(f"{column.key}.selected")
        if selected is not None and 0 <= selected < len(run.chunks):
            show_focus(run, selected)
        show_downloads(column, document, doc_name)


def show_downloads(column: Column, document: Document, doc_name: str) -> None:
    """The column's chunks in each export format."""
    exports = cached_exports(document, column.run_key)
    stem = f"{Path(doc_name).stem or 'document'}.{column.config.strategy}"
    kinds = app_formats()  # the output formats' registry
    for col, kind in zip(st.columns(len(kinds)), kinds):
        col.download_button(
            kind.label,
            exports[kind.name],
            file_name=kind.file_name(stem),
            mime=kind.mime,
            key=f"{column.key}.download.{kind.name}",
        )


def show_table(column: Column, run: StrategyRun) -> None:
    """The chunk table; ticking a row selects that chunk (the document view scrolls to it)."""
    rows = chunk_table(run)
    selected = st.session_state.get(f"{column.key}.selected")
    frame: Any = pd.DataFrame(rows)
    if selected is not None and 0 <= selected < len(rows):  # the selected chunk's row is highlighted
        frame = frame.style.apply(lambda row: [SELECTED_ROW if row["index"] == selected else ""] * len(row), axis=1)
    st.dataframe(
        frame,
        key=f"{column.key}.table",
        on_select=partial(_select_ticked_row, column.key, [row["index"] for row in rows]),
        selection_mode="single-row",
        hide_index=True,
        height=240,
    )


def _select_ticked_row(column_key: str, indices: list[int]) -> None:
    """A callback (before the view's rerun): the ticked row's chunk is the column's selection, or
    none when the row was unticked."""
    rows = _selection(st.session_state.get(f"{column_key}.table"), "rows")
    picked = [r for r in rows if isinstance(r, int) and 0 <= r < len(indices)]
    st.session_state[f"{column_key}.selected"] = indices[picked[0]] if picked else None


def _selection(state: Any, field: str) -> list[Any]:
    """``state.selection[field]`` of a dataframe's or chart's selection state, [] when missing."""
    selection = state.get("selection") if isinstance(state, Mapping) else getattr(state, "selection", None)
    found = selection.get(field) if isinstance(selection, Mapping) else getattr(selection, field, None)
    return list(found or [])


def forget_stale_selection(column: Column, document: Document) -> None:
    """A selected row belongs to one chunking: drop it when the document or settings change."""
    fingerprint = (document_digest(document), column.chunking)
    key = f"{column.key}.fingerprint"
    if st.session_state.get(key) not in (None, fingerprint):
        for suffix in ("selected", "table"):
            st.session_state.pop(f"{column.key}.{suffix}", None)
    st.session_state[key] = fingerprint


def column_numbers(run: StrategyRun) -> list[tuple[str, str, str]]:
    """A column's headline numbers as ``(label, value, what it means)``."""
    d = run.diagnostics
    median = d.summary.tokens.median if d else None
    return [
        ("chunks", f"{len(run.chunks):,}", "chunks this strategy made"),
        ("median tokens", f"{median:g}" if median is not None else "–", "the median chunk's size in tokens"),
        ("overlap", f"{d.overhead.chars_percent:.1f}%" if d else "–", "repeated characters, % of covered text"),
    ]


def numbers_html(numbers: Sequence[tuple[str, str, str]]) -> str:
    """Numbers drawn like ``st.metric`` (a label above a large value, the meaning on hover) in one
    piece of plain HTML: a new visitor's browser draws it at a fraction of three metrics' cost."""
    cells = "".join(
        f'<div class="cv-number" title="{escape(meaning)}"><span>{escape(label)}</span><b>{escape(value)}</b></div>'
        for label, value, meaning in numbers
    )
    return f'<div class="cv-numbers">{cells}</div>'


def show_explanation_summary(column: Column, document: Document, tune_view: str) -> None:
    """A strategy's own analysis (any strategy with an ``explain`` hook): its summary as a
    caption, and a button to its tuning panel when it declares one. Nothing here knows which
    strategy it is."""
    explanation = cached_explanation(document, column.chunking)
    st.caption(explanation.summary())
    tuning = get_strategy(column.config.strategy).tuning
    if tuning is not None:
        st.button(
            f"Tune the {tuning.what} by eye →",
            key=f"{column.key}.tune",
            on_click=open_tuning,
            args=(tune_view, column.label),
            help=f"Opens the {tune_view} view",
        )


def show_explanation_figures(column: Column, document: Document) -> None:
    """The strategy's figures as charts; a point picked on a selectable one selects its chunk."""
    run = column.run
    if run is None:
        return
    explanation = cached_explanation(document, column.chunking)
    for item in explanation.figures(run.chunks):
        if item.caption:
            st.caption(item.caption)
        key = f"{column.key}.{item.name}"
        if not item.selectable:
            st.plotly_chart(item.figure, key=key)
            continue
        pick = partial(_select_picked_point, column.key, key, explanation, item.name, run.chunks)
        st.plotly_chart(item.figure, key=key, on_select=pick, selection_mode=("points",))


def _select_picked_point(
    column_key: str, chart_key: str, explanation: Explanation, figure: str, chunks: Sequence[Chunk]
) -> None:
    """A callback (before the view's rerun): the chunk of the point picked on a strategy's figure
    becomes the column's selection."""
    points = _selection(st.session_state.get(chart_key), "points")
    target = explanation.chunk_at(figure, points[0], chunks) if points else None
    if target is not None:
        st.session_state[f"{column_key}.selected"] = target


def show_focus(run: StrategyRun, index: int) -> None:
    chunk = run.chunks[index]
    st.markdown(f"**Chunk {index}** · characters {chunk.start}–{chunk.end} · ends: {cut_text(chunk)}")
    if chunk.added_text:
        st.caption("Added by the strategy (not in the source):")
        st.code(chunk.added_text, language=None)
    st.code(chunk.text, language=None, wrap_lines=True)
