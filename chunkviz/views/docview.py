"""The document view's payload (pure, no Streamlit): what docview.js draws, in the app
(:mod:`chunkviz.ui.docview` mounts it as a Streamlit component), in a static report and in a
notebook (:mod:`chunkviz.views.page` hosts the same script outside Streamlit).

Each column's HTML (:func:`chunkviz.drawing.render.render_html`) is cut into pages at line ends by
:func:`chunkviz.drawing.paging.cut_pages` (cached per column HTML in a bounded :class:`~chunkviz.core.cache.BoundedLRU`).
The payload carries every column's page table (each page's span and line count) but the HTML of only
the pages near the window the browser asked for (or of every page: ``all_pages``, for a host with no
server to page from).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chunkviz.core.cache import BoundedLRU
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import BOUNDARY_LABELS, FLAG_LABELS, REASON_LABELS
from chunkviz.drawing.paging import ColumnPages, cut_pages
from chunkviz.drawing.palette import REASON_COLOURS, strategy_colour
from chunkviz.evaluation.playground import Hit

COMPONENT_NAME = "chunkviz_docview"
STATE_KEY = "selection"
ANSWER_KEY = "answer"
WINDOW_KEY = "window"
#: The state a first screen sets once it is drawn (``first_paint`` in the payload).
PAINTED_KEY = "painted"
#: Pages sent around a requested window on each side (so ordinary scrolling finds its next page).
MARGIN_PAGES = 1
#: Most pages of one column's window sent in one payload (the selected chunk's and hits' pages come on top).
MAX_WINDOW_PAGES = 6
#: Where a column's window starts before the browser has asked for one.
FIRST_WINDOW = (0, 1)
#: Column HTMLs whose pages are kept (a 5 MB document x 4 columns holds ~80 MB: HTML and pages).
PAGE_CACHE: BoundedLRU[str, tuple[str, ColumnPages]] = BoundedLRU(
    max_entries=24, max_bytes=400_000_000, size=lambda entry: 2 * entry[1].size
)


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


def column_pages(html: str) -> tuple[str, ColumnPages]:
    """A column's content id (a short hash of its HTML) and its pages, cut once per HTML (cached)."""
    found = PAGE_CACHE.get(html)
    if found is None:
        content_id = hashlib.blake2b(html.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
        found = (content_id, cut_pages(html))
        PAGE_CACHE.put(html, found)
    return found


def cached_column_html(content_id: str) -> str | None:
    """The whole HTML of the column sent with ``content_id`` while the page cache holds it (what the
    browser would see scrolling through every page; for tests and benchmarks run in the same process)."""
    for html in PAGE_CACHE.keys():
        found = PAGE_CACHE.get(html)
        if found is not None and found[0] == content_id:
            return html
    return None


def view_payload(
    columns: Sequence[ColumnView],
    *,
    length: int,
    sync: bool = True,
    height_px: int = 560,
    legend: str = "",
    references: Sequence[tuple[int, int]] = (),
    answer_selection: bool = False,
    windows: Sequence[tuple[int, int]] = (),
    all_pages: bool = False,
    first_paint: bool = False,
) -> dict[str, Any]:
    """The component's ``data`` (pure, JSON-ready): each column's page table and the HTML of the pages
    it needs plus small arrays; its shape, field by field, is ``DocViewPayload`` in
    ``chunkviz/ui/payload.d.ts`` (what docview.js is checked against).

    ``legend`` is trusted HTML from :func:`chunkviz.drawing.render.legend_html` (shown above the boxes).
    ``references`` are expected-answer spans ``[start, end)`` drawn in every column;
    ``answer_selection`` makes a mouse selection of text come back as an :class:`AnswerSelection`.
    ``windows`` are the document spans ``[start, end)`` the browser shows, per column (see
    :func:`chunkviz.ui.docview.windows_from_state`); a column without one gets the document's start.
    ``all_pages`` sends the HTML of every page (a static report or a notebook: no server to ask).
    ``first_paint``: a new visitor's first screen, which answers with state ``painted`` once drawn.
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
        "columns": [
            _column_payload(c, length, windows[i] if i < len(windows) else FIRST_WINDOW, all_pages)
            for i, c in enumerate(columns)
        ],
        "references": _references_payload(references, length),
        "answer_selection": bool(answer_selection),
        "first_paint": bool(first_paint),
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


def _hits_payload(column: ColumnView, pages: ColumnPages) -> list[dict[str, Any]]:
    """The column's hits, checked: ranks 1 or more and distinct, finite scores, chunks that exist."""
    out: list[dict[str, Any]] = []
    ranks: set[int] = set()
    indices: set[int] = set()
    known = pages.chunk_page
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


def _column_payload(
    column: ColumnView, length: int, window: tuple[int, int], all_pages: bool = False
) -> dict[str, Any]:
    ends = [int(end) for end, _ in column.cuts]
    cuts = [[end, str(reason)] for end, (_, reason) in zip(ends, column.cuts)]
    bad = [end for end in ends if not 0 <= end <= length]
    if bad:
        raise ValueError(f"column {column.label!r}: cut offsets {bad[:3]} lie outside the document (0..{length})")
    content_id, pages = column_pages(column.html)
    hits = _hits_payload(column, pages)
    wanted = {*pages.window(window[0], window[1], MARGIN_PAGES, MAX_WINDOW_PAGES)}
    named = [i for i in (column.selected, *(h["index"] for h in hits), *(h["matched"] for h in hits)) if i is not None]
    wanted |= {pages.chunk_page[i] for i in named if i in pages.chunk_page}
    sent = list(range(len(pages.pages))) if all_pages else sorted(wanted)
    return {
        "label": column.label,
        "id": content_id,
        "root": pages.root,
        "pages": [[p.start, p.end, p.lines] for p in pages.pages],
        "page_html": [[k, pages.pages[k].html] for k in sent],
        "tags": _tags_payload(pages, [*named, *(i for k in sent for i in pages.pages[k].continued)]),
        "colour": strategy_colour(column.hue),
        "hue": column.hue,
        "summary": column.summary,
        "cuts": cuts,
        "selected": column.selected,
        "hits": hits,
    }


def _tags_payload(pages: ColumnPages, indexes: Sequence[int]) -> list[list[Any]]:
    """``[index, opening tag]`` of these chunks and their ancestors: the facts the browser needs of
    chunks whose own element may be on a page it does not have (tooltip, selection, hits)."""
    out: dict[int, str] = {}
    todo = list(indexes)
    while todo:
        index = todo.pop()
        tag = pages.tag(index) if index not in out else None
        if tag is None:
            continue
        out[index] = tag
        parent = pages.parent_of(index)
        if parent is not None:
            todo.append(parent)
    return [[i, out[i]] for i in sorted(out)]
