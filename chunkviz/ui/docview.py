"""The interactive document view: strategies side by side over the same text, with a ribbon.

A Streamlit custom component (components v2, inline HTML/CSS/JS, no iframe). Python sends the
escaped HTML of :func:`chunkviz.drawing.render.render_html` per column plus small arrays; the browser
(``docview.js``) draws a boundary ribbon (one track per column, a tick per cut coloured by its
reason), equal-height boxes in a grid, a styled tooltip per chunk, hover/click outlines of a
chunk's whole extent, scroll sync by character offset, and sends a click back as component state.

Draw and send only what is seen: each column's HTML is cut into pages at line ends by
:func:`chunkviz.drawing.paging.cut_pages` (cached per column HTML in a bounded :class:`~chunkviz.core.cache.BoundedLRU`).
The payload carries every column's page table (each page's span and line count) but the HTML of only
the pages near the window the browser asked for (component state ``window``: document offsets per
column), one page either side, the page of the Python-selected chunk and the pages of the column's
hits. The browser keeps the pages it received in a bounded cache keyed by the column's content id,
draws the pages in and around each box's visible window and spacers elsewhere ("loading…" while a
page is on its way), and asks for a new window when it scrolls where it has no pages.
bench/bench_docview.py measures the payload per column and the DOM.

Retrieval overlay: a column's :class:`~chunkviz.evaluation.playground.Hit` s (the chunks a query retrieved) get a rank badge
("#1 · 0.62") and a strong outline while the other chunks turn quiet; a returned parent is
outlined with its matched child highlighted inside. ``references`` (expected-answer spans) are
highlighted in every column. Both are marked on the ribbon. With ``answer_selection`` on, text
selected with the mouse is sent back as document offsets (component state ``answer``).

:func:`ribbon_cuts` and :func:`view_payload` are pure (in :mod:`chunkviz.views.docview`, shared with the
static report and the notebook view); :func:`document_view` mounts the component.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chunkviz.evaluation.playground import Hit
from chunkviz.ui import component
from chunkviz.views.docview import (
    ANSWER_KEY,
    COMPONENT_NAME,
    FIRST_WINDOW,
    MARGIN_PAGES,
    MAX_WINDOW_PAGES,
    PAGE_CACHE,
    PAINTED_KEY,
    STATE_KEY,
    WINDOW_KEY,
    ColumnView,
    cached_column_html,
    column_pages,
    labels,
    ribbon_cuts,
    view_payload,
)

__all__ = [
    "ANSWER_KEY", "COMPONENT_NAME", "FIRST_WINDOW", "MARGIN_PAGES", "MAX_WINDOW_PAGES", "PAGE_CACHE", "PAINTED_KEY",
    "STATE_KEY", "WINDOW_KEY", "AnswerSelection", "ColumnView", "DocViewEvent", "Hit", "answer_from_state",
    "cached_column_html", "column_pages", "component_css", "document_view", "event_from_state", "labels", "ribbon_cuts", "view_payload",
    "windows_from_state",
]  # fmt: skip


@dataclass(frozen=True)
class DocViewEvent:
    """A chunk clicked in the browser: its column (position in ``columns``) and chunk index."""

    column: int
    index: int
    nonce: int  # differs for every click (tell a new click from the state kept across reruns)


@dataclass(frozen=True)
class AnswerSelection:
    """Text selected with the mouse in one column: the document span ``[start, end)``."""

    start: int
    end: int
    nonce: int  # differs for every selection


def component_css() -> str:
    """The renderer's stylesheet plus docview.css (the chunk HTML is styled in the shadow root)."""
    return component.component_css("docview")


_HTML = '<div class="cvd-root"></div>'


def event_from_state(state: Mapping[str, Any] | None) -> DocViewEvent | None:
    """The selection kept in the component state, or None (missing or malformed)."""
    value = (state or {}).get(STATE_KEY)
    if not isinstance(value, Mapping):
        return None
    try:
        return DocViewEvent(int(value["column"]), int(value["index"]), int(value.get("nonce", 0)))
    except (KeyError, TypeError, ValueError):
        return None


def answer_from_state(state: Mapping[str, Any] | None) -> AnswerSelection | None:
    """The text selection kept in the component state (``answer``), or None (missing or malformed)."""
    value = (state or {}).get(ANSWER_KEY)
    if not isinstance(value, Mapping):
        return None
    try:
        start, end = int(value["start"]), int(value["end"])
        return AnswerSelection(start, end, int(value.get("nonce", 0))) if 0 <= start < end else None
    except (KeyError, TypeError, ValueError):
        return None


def windows_from_state(state: Mapping[str, Any] | None, columns: int) -> list[tuple[int, int]]:
    """The document span each column shows, from the component state ``window`` (``spans``: one
    ``[start, end)`` per column); the document's start for a column without a well-formed one."""
    value = (state or {}).get(WINDOW_KEY)
    spans = value.get("spans") if isinstance(value, Mapping) else None
    if not isinstance(spans, list):
        spans = []
    out = []
    for i in range(columns):
        try:
            start, end = (int(x) for x in spans[i])
            out.append((start, end) if 0 <= start <= end else FIRST_WINDOW)
        except (TypeError, ValueError, IndexError):
            out.append(FIRST_WINDOW)
    return out


def document_view(
    columns: Sequence[ColumnView],
    *,
    length: int,
    key: str,
    sync: bool = True,
    height_px: int = 560,
    legend: str = "",
    references: Sequence[tuple[int, int]] = (),
    answer_selection: bool = False,
    first_paint: bool = False,
) -> DocViewEvent | None:
    """Mount the document view; returns the last chunk clicked in it (kept across reruns; compare
    ``nonce`` to tell a new click), or None before any click. A text selection (with
    ``answer_selection``) is read with :func:`answer_from_state` from ``st.session_state[key]``.

    The browser asks for the pages it needs as state ``window``, which reruns the script (or the
    fragment that holds the view); the payload then carries the pages of the window it asked for.
    ``first_paint``: the view is a new visitor's first screen; once drawn, the browser sets state
    ``painted``, whose rerun of the view's fragment becomes the whole page's
    (:func:`chunkviz.ui.firstpaint.leave_first_screen`)."""
    import streamlit as st

    data = view_payload(
        columns,
        length=length,
        sync=sync,
        height_px=height_px,
        legend=legend,
        references=references,
        answer_selection=answer_selection,
        windows=windows_from_state(st.session_state.get(key), len(columns)),
        first_paint=first_paint,
    )
    mount = component.inline_component(COMPONENT_NAME, "docview", _HTML)
    result = mount(
        key=key,
        data=data,
        default={STATE_KEY: None, ANSWER_KEY: None, WINDOW_KEY: None, PAINTED_KEY: None},
        on_selection_change=_ignore,
        on_answer_change=_ignore,
        on_window_change=_ignore,
        on_painted_change=_ignore,
    )
    return event_from_state(result)


def _ignore() -> None:
    """State callback (components v2 only keeps state keys that have an ``on_<key>_change``)."""
