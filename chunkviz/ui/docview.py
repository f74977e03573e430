"""The interactive document view: strategies side by side over the same text, with a ribbon.

A Streamlit custom component (components v2, inline HTML/CSS/JS, no iframe). Python sends the
escaped HTML of :func:`chunkviz.render.render_html` per column plus small arrays; the browser
(``docview.js``) draws a boundary ribbon (one track per column, a tick per cut coloured by its
reason), equal-height boxes in a grid, a styled tooltip per chunk, hover/click outlines of a
chunk's whole extent, scroll sync by character offset, and sends a click back as component state.

Draw only what is seen: a column with more than 20,000 characters of text is cut by the browser
into pages at line ends (``splitPages`` in docview.js; elements a cut runs through are closed and
continued on the next page, as render.py continues a chunk); only the pages in and around each
box's visible window are in the DOM, the others are spacers of their measured or estimated height.
The payload is unchanged: each column's whole HTML (bench/bench_docview.py measures both).

Retrieval overlay: a column's :class:`~chunkviz.evaluation.playground.Hit` s (the chunks a query retrieved) get a rank badge
("#1 · 0.62") and a strong outline while the other chunks turn quiet; a returned parent is
outlined with its matched child highlighted inside. ``references`` (expected-answer spans) are
highlighted in every column. Both are marked on the ribbon. With ``answer_selection`` on, text
selected with the mouse is sent back as document offsets (component state ``answer``).

:func:`ribbon_cuts` and :func:`view_payload` are pure; :func:`document_view` mounts the component.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from chunkviz.evaluation.playground import Hit
from chunkviz.palette import REASON_COLOURS, strategy_colour
from chunkviz.types import Chunk
from chunkviz.ui import component
from chunkviz.vocabulary import BOUNDARY_LABELS, FLAG_LABELS, REASON_LABELS

COMPONENT_NAME = "chunkviz_docview"
STATE_KEY = "selection"
ANSWER_KEY = "answer"


@dataclass(frozen=True)
class ColumnView:
    """One column of the view: a strategy's rendered HTML and what the header and ribbon show."""

    label: str  # the render label (``data-strategy``), shown in the header and on the ribbon
    html: str  # render.render_html output, already escaped; shown as is
    hue: int  # palette hue of the column (ribbon track, header swatch)
    summary: str  # one line under the label (e.g. flag summary); shown as text
    cuts: Sequence[tuple[int, str]]  # ribbon_cuts(chunks)
    selected: int | None = None  # chunk index selected by Python; scrolled into view when it changes
    hits: Sequence[Hit] = ()  # the chunks a query retrieved (rank badges, outlines, ribbon marks)


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
    columns: Sequence[ColumnView],
    *,
    length: int,
    sync: bool = True,
    height_px: int = 560,
    legend: str = "",
    references: Sequence[tuple[int, int]] = (),
    answer_selection: bool = False,
) -> dict[str, Any]:
    """The component's ``data`` (pure, JSON-ready): the HTML per column plus small arrays; its shape,
    field by field, is ``DocViewPayload`` in ``chunkviz/ui/payload.d.ts`` (what docview.js is checked against).

    ``legend`` is trusted HTML from :func:`chunkviz.render.legend_html` (shown above the boxes).
    ``references`` are expected-answer spans ``[start, end)`` drawn in every column;
    ``answer_selection`` makes a mouse selection of text come back as an :class:`AnswerSelection`.
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
        "references": _references_payload(references, length),
        "answer_selection": bool(answer_selection),
    }


def _references_payload(references: Sequence[tuple[int, int]], length: int) -> list[list[int]]:
    out = []
    for span in references:
        start, end = (int(x) for x in span)
        if not 0 <= start < end <= length:
            raise ValueError(
                f"reference span {start}..{end} does not lie inside the document (need 0 <= start < end <= {length})"
            )
        out.append([start, end])
    return sorted(out)


@lru_cache(maxsize=16)
def _chunk_indices(html: str) -> frozenset[int]:
    """The chunk indexes drawn in a column's HTML (cached: a rerun sends the same HTML again)."""
    return frozenset(int(i) for i in re.findall(r'data-chunk-index="(\d+)"', html))


def _hits_payload(column: ColumnView) -> list[dict[str, Any]]:
    """The column's hits, checked: ranks 1 or more and distinct, finite scores, chunks that exist."""
    out: list[dict[str, Any]] = []
    ranks: set[int] = set()
    indices: set[int] = set()
    known = _chunk_indices(column.html) if column.hits else frozenset()
    for hit in column.hits:
        rank, index = int(hit.rank), int(hit.index)
        matched = None if hit.matched is None or int(hit.matched) == index else int(hit.matched)
        where = f"column {column.label!r}, hit of chunk {index}"
        if rank < 1 or rank in ranks:
            raise ValueError(f"{where}: rank {rank} must be 1 or more (1 = best) and not repeat another hit's rank")
        if index in indices:
            raise ValueError(f"{where}: the chunk is listed twice; give each returned chunk once, at its best rank")
        if not math.isfinite(float(hit.score)):
            raise ValueError(f"{where}: score {hit.score!r} must be a finite number")
        for i in (index, matched):
            if i is not None and i not in known:
                raise ValueError(f"{where}: chunk {i} is not in this column's chunks (its HTML has no such chunk)")
        ranks.add(rank)
        indices.add(index)
        out.append({"index": index, "rank": rank, "score": float(hit.score), "matched": matched})
    return sorted(out, key=lambda h: h["rank"])


def _column_payload(column: ColumnView, length: int) -> dict[str, Any]:
    ends = [int(end) for end, _ in column.cuts]
    cuts = [[end, str(reason)] for end, (_, reason) in zip(ends, column.cuts)]
    bad = [end for end in ends if not 0 <= end <= length]
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
        "hits": _hits_payload(column),
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
) -> DocViewEvent | None:
    """Mount the document view; returns the last chunk clicked in it (kept across reruns; compare
    ``nonce`` to tell a new click), or None before any click. A text selection (with
    ``answer_selection``) is read with :func:`answer_from_state` from ``st.session_state[key]``."""
    data = view_payload(
        columns,
        length=length,
        sync=sync,
        height_px=height_px,
        legend=legend,
        references=references,
        answer_selection=answer_selection,
    )
    mount = component.inline_component(COMPONENT_NAME, "docview", _HTML)
    result = mount(
        key=key,
        data=data,
        default={STATE_KEY: None, ANSWER_KEY: None},
        on_selection_change=_ignore,
        on_answer_change=_ignore,
    )
    return event_from_state(result)


def _ignore() -> None:
    """State callback (components v2 only keeps state keys that have an ``on_<key>_change``)."""
