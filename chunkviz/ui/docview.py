"""The interactive document view: strategies side by side over the same text, with a ribbon.

A Streamlit custom component (components v2, inline HTML/CSS/JS, no iframe). Python sends the
escaped HTML of :func:`chunkviz.render.render_html` per column plus small arrays; the browser
(``docview.js``) draws a boundary ribbon (one track per column, a tick per cut coloured by its
reason), equal-height boxes in a grid, a styled tooltip per chunk, hover/click outlines of a
chunk's whole extent, scroll sync by character offset, and sends a click back as component state.

:func:`ribbon_cuts` and :func:`view_payload` are pure; :func:`document_view` mounts the component.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chunkviz.palette import REASON_COLOURS, strategy_colour
from chunkviz.types import Chunk
from chunkviz.ui import component
from chunkviz.vocabulary import BOUNDARY_LABELS, FLAG_LABELS, REASON_LABELS

COMPONENT_NAME = "chunkviz_docview"
STATE_KEY = "selection"


@dataclass(frozen=True)
class ColumnView:
    """One column of the view: a strategy's rendered HTML and what the header and ribbon show."""

    label: str  # the render label (``data-strategy``), shown in the header and on the ribbon
    html: str  # render.render_html output, already escaped; shown as is
    hue: int  # palette hue of the column (ribbon track, header swatch)
    summary: str  # one line under the label (e.g. flag summary); shown as text
    cuts: Sequence[tuple[int, str]]  # ribbon_cuts(chunks)
    selected: int | None = None  # chunk index selected by Python; scrolled into view when it changes


@dataclass(frozen=True)
class DocViewEvent:
    """A chunk clicked in the browser: its column (position in ``columns``) and chunk index."""

    column: int
    index: int
    nonce: int  # differs for every click (tell a new click from the state kept across reruns)


def ribbon_cuts(chunks: Sequence[Chunk]) -> list[tuple[int, str]]:
    """``(end offset, reason value)`` of every leaf chunk (no chunk names it as parent), by end."""
    parents = {c.parent for c in chunks if c.parent is not None}
    leaves = sorted((c for c in chunks if c.index not in parents), key=lambda c: (c.end, c.index))
    return [(c.end, str(c.reason.value if hasattr(c.reason, "value") else c.reason)) for c in leaves]


def labels() -> dict[str, dict[str, str]]:
    """The plain-word label dictionaries the tooltip uses, keyed by enum value."""
    return {
        "reasons": {str(k.value): v for k, v in REASON_LABELS.items()},
        "boundaries": {str(k.value): v for k, v in BOUNDARY_LABELS.items()},
        "flags": {str(k.value): v for k, v in FLAG_LABELS.items()},
    }


def view_payload(
    columns: Sequence[ColumnView], *, length: int, sync: bool = True, height_px: int = 560, legend: str = ""
) -> dict[str, Any]:
    """The component's ``data`` (pure, JSON-ready): the HTML per column plus small arrays.

    ``legend`` is trusted HTML from :func:`chunkviz.render.legend_html` (shown above the boxes).
    """
    if length < 0:
        raise ValueError(f"length must be the document's length in characters (>= 0), got {length}")
    if height_px < 80:
        raise ValueError(f"height_px must be at least 80 pixels, got {height_px}")
    return {
        "length": length,
        "sync": bool(sync),
        "height": height_px,
        "legend": legend,
        "labels": labels(),
        "reason_colours": dict(REASON_COLOURS),
        "columns": [_column_payload(c, length) for c in columns],
    }


def _column_payload(column: ColumnView, length: int) -> dict[str, Any]:
    cuts = [[int(end), str(reason)] for end, reason in column.cuts]
    bad = [end for end, _ in cuts if not 0 <= end <= length]
    if bad:
        raise ValueError(f"column {column.label!r}: cut offsets {bad[:3]} lie outside the document (0..{length})")
    return {
        "label": column.label,
        "html": column.html,
        "colour": strategy_colour(column.hue),
        "hue": column.hue,
        "summary": column.summary,
        "cuts": cuts,
        "selected": column.selected,
    }


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


def document_view(
    columns: Sequence[ColumnView], *, length: int, key: str, sync: bool = True, height_px: int = 560,
    legend: str = "",
) -> DocViewEvent | None:
    """Mount the document view; returns the last chunk clicked in it (kept across reruns; compare
    ``nonce`` to tell a new click), or None before any click."""
    data = view_payload(columns, length=length, sync=sync, height_px=height_px, legend=legend)
    result = component.inline_component(COMPONENT_NAME, "docview", _HTML)(key=key, data=data, default={STATE_KEY: None}, on_selection_change=_ignore)
    return event_from_state(result)


def _ignore() -> None:
    """State callback (components v2 only keeps state keys that have an ``on_<key>_change``)."""
