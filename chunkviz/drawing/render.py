"""Chunks drawn inline over the original text, as escaped HTML (a pure function).

One sweep over sorted start/end events cuts the text into segments covered by the same set of
chunks. A segment covered by one chunk is that chunk's band: the first such element carries the
chunk's facts as ``data-*`` attributes (index, span, level, reason, boundary, token counts,
flags, parent), which the document view turns into a tooltip; a segment covered by two or more
chunks is an overlap region, striped in both chunks' shades. A thin marker right after a chunk's
last non-whitespace character marks its end; cuts inside a sentence or a word colour it. Flags
never draw inside the text. ``added_text`` is drawn as inserted text, never mixed into the source.
Multi-level chunkings draw every chunk that has children (parents, chapters …) as a nested
outline around them and every other chunk as a band; selecting a child also marks its
ancestors, as retrieval would return them.

Colours come from :mod:`chunkviz.drawing.palette`: the root sets the column's hue (``style="--h:…"``)
and one stylesheet draws every column. Neighbouring bands alternate three shades (``cv-k0`` …
``cv-k2``, by the band's place in the document).

Every attribute value and every piece of text goes through :func:`escape`: HTML-escaped (quotes
too, so no value can leave its attribute, whatever its type) and with each lone surrogate as U+FFFD
(:func:`chunkviz.text.tokenizers.surrogate_safe`: a page is UTF-8; one character for one, so offsets stay
aligned). The document's text, the bulk of the page, is made surrogate-safe once and escaped piece
by piece.
"""

from __future__ import annotations

import html
from bisect import bisect_left, bisect_right
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from chunkviz.core.deadline import check_time
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import BOUNDARY_LABELS, REASON_LABELS, Flag
from chunkviz.drawing.palette import (
    BAND_SHADES,
    COLUMN_HUES,
    OVERLAP_STRIPES,
    chunk_shade,
    css_colour,
)
from chunkviz.text.secrets import masked
from chunkviz.text.tokenizers import surrogate_safe

#: Number of band shades; neighbouring chunks alternate them.
N_COLOURS = len(BAND_SHADES)
#: The band shades of the first column, as ``#rrggbb`` (see :func:`chunkviz.drawing.palette.chunk_shade`).
BAND_COLOURS = tuple(chunk_shade(COLUMN_HUES[0], k) for k in range(N_COLOURS))

#: Names of the marks :func:`legend_html` can explain (see :func:`marks_present`).
MARKS = ("chunk", "end", "midsent", "midword", "overlap", "gap", "added", "parent")


def escape(value: object) -> str:
    """Any value as HTML text or as a quoted attribute's value: lone surrogates as U+FFFD
    (:func:`~chunkviz.text.tokenizers.surrogate_safe`: a page is UTF-8), then escaped
    (``& < > " '``). The one escape of the renderer and the views: a value of an unexpected type
    (a string where a chunk's index should be) stays text too."""
    if value.__class__ is int:
        return str(value)  # digits and a sign: nothing to escape (a bool or an int subclass is escaped)
    return html.escape(surrogate_safe(str(value)), quote=True)


@dataclass(frozen=True)
class ChunkAnnotation:
    """What the renderer attaches to one chunk (from diagnostics): token counts and flags, and why
    it carries its hygiene flags (plain words; no secret in it)."""

    tokens: int | None = None
    embedding_tokens: int | None = None
    flags: tuple[Flag, ...] = ()
    hygiene: str = ""


@dataclass(frozen=True)
class RenderOptions:
    strategy: str
    tokenizer: str = "tokens"
    selected: int | None = None
    annotations: Mapping[int, ChunkAnnotation] = field(default_factory=dict)
    #: Regions of the document in no chunk that contain text (from the coverage audit).
    content_gaps: Sequence[tuple[int, int]] = ()
    #: The column's hue (an OKLCH hue angle, see :data:`chunkviz.drawing.palette.COLUMN_HUES`).
    hue: int = COLUMN_HUES[0]


def stylesheet() -> str:
    """The CSS for rendered chunk views and the legend as a ``<style>`` element (include once per page)."""
    return "<style>" + stylesheet_rules() + "</style>"


def stylesheet_rules() -> str:
    """The CSS rules of :func:`stylesheet`, bare (for components that carry their own CSS)."""
    strong = css_colour((0.57, 0.15))
    selected = css_colour((0.42, 0.14))
    rules = [
        # each line of the text takes the direction of its first letter (Arabic, Hebrew: right to left,
        # aligned right; the root's dir=auto gives the rest); CJK lines break between characters
        ".cv-doc{white-space:pre-wrap;word-wrap:break-word;unicode-bidi:plaintext;"
        "font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
        "font-size:0.78rem;line-height:1.4;padding:0.5rem 0.6rem;border:1px solid #ddd;border-radius:6px;"
        "max-height:70vh;overflow-y:auto;background:#fff;color:#222}",
        ".cv-c{border-radius:2px}",
        ".cv-c:hover{outline:2px solid #444}",
        ".cv-o{color:#000}",
        ".cv-e{display:inline-block;width:3px;height:1.1em;margin:0 1px;vertical-align:text-bottom;background:#333}",
        ".cv-e.cv-midsent{background:#f08c00;width:4px}",
        ".cv-e.cv-midword{background:#e03131;width:5px}",
        ".cv-gap{background:repeating-linear-gradient(135deg,#eee 0 3px,#fff 3px 6px);color:#868e96;text-decoration:line-through}",
        ".cv-add{unicode-bidi:isolate;text-decoration:none;background:#fff;border:1px dashed #1c7ed6;color:#1864ab;font-style:italic;"
        "border-radius:3px;padding:0 2px;margin-right:2px}",
        ".cv-p{border-bottom:3px solid #495057;padding-bottom:1px}",
        f".cv-p.cv-podd{{border-bottom-color:{strong}}}",
        ".cv-p .cv-p{border-bottom-style:dashed;padding-bottom:5px}",
        ".cv-p .cv-p .cv-p{border-bottom-style:dotted;padding-bottom:9px}",
        f".cv-p.cv-psel{{border-bottom-color:{selected};background:{css_colour(BAND_SHADES[0])}}}",
        f".cv-sel{{outline:3px solid {selected}!important}}",
        ".cv-legend>span{display:inline-block;margin:0 0.8rem 0.3rem 0;font-size:0.8rem}",
    ]
    for k, shade in enumerate(BAND_SHADES):
        first, second = (css_colour(s) for s in OVERLAP_STRIPES[k])
        rules.append(f".cv-k{k}{{background:{css_colour(shade)}}}")
        rules.append(f".cv-o{k}{{background:repeating-linear-gradient(135deg,{first} 0 5px,{second} 5px 10px)}}")
    return "".join(rules)


def cut_text(chunk: Chunk) -> str:
    """Why the chunk ends and where that cut falls, e.g. ``size limit reached (...), at a line break``."""
    reason = REASON_LABELS.get(chunk.reason, str(chunk.reason))
    boundary = BOUNDARY_LABELS.get(chunk.boundary, str(chunk.boundary))
    return f"{reason}; cut at: {boundary}"


def _segments(chunks: Sequence[Chunk], length: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """(start, end, covering chunk positions) for every stretch between consecutive events."""
    events: dict[int, list[tuple[int, int]]] = {}
    for pos, c in enumerate(chunks):
        events.setdefault(c.start, []).append((1, pos))
        events.setdefault(c.end, []).append((-1, pos))
    points = sorted({0, length, *events})
    active: set[int] = set()
    out = []
    for a, b in zip(points, points[1:]):
        check_time()  # the app's time limit for a run (a no-op without one)
        for kind, pos in events.get(a, ()):
            if kind == 1:
                active.add(pos)
            else:
                active.discard(pos)
        for kind, pos in events.get(a, ()):  # empty chunks open and close at the same point
            if kind == 1 and chunks[pos].start == chunks[pos].end:
                active.discard(pos)
        out.append((a, b, tuple(sorted(active))))
    return out


def _split_at(
    segments: list[tuple[int, int, tuple[int, ...]]], cuts: Iterable[int]
) -> list[tuple[int, int, tuple[int, ...]]]:
    points = sorted(set(cuts))
    out = []
    k = 0
    for a, b, cover in segments:
        while k < len(points) and points[k] <= a:
            k += 1
        start = a
        j = k
        while j < len(points) and points[j] < b:
            out.append((start, points[j], cover))
            start = points[j]
            j += 1
        out.append((start, b, cover))
    return out


def _root(text: str, options: RenderOptions) -> str:
    return (
        f'<div class="cv-doc" data-strategy="{escape(options.strategy)}" data-length="{len(text)}" '
        f'style="--h:{int(options.hue)}" data-tokenizer="{escape(options.tokenizer)}" dir="auto">'
    )


def render_html(text: str, chunks: Sequence[Chunk], options: RenderOptions) -> str:
    """The document with every chunk drawn inline; pure, escaped, one element per region."""
    # once, for every piece below; a credential-shaped string is drawn masked (same length: offsets stay)
    text = masked(surrogate_safe(text))
    if not chunks:
        return _root(text, options) + escape(text) + "</div>"
    sweep = _Sweep(text, chunks, options)
    out: list[str] = [_root(text, options)]
    for a, b, cover in sweep.stretches():
        out.append(sweep.close_parents_ended_at(a))
        out.append(sweep.open_parents_at(a))
        out.append(sweep.chunk_starts_at(a))
        out.append(sweep.stretch(a, b, cover))
        out.append(sweep.chunk_ends_at(b))
    out.append(sweep.chunk_starts_at(len(text)))  # empty chunks at the very end
    out.append("</span>" * len(sweep.open_parents))
    out.append("</div>")
    return "".join(out)


def end_marker_offset(text: str, chunk: Chunk) -> int:
    """Where a chunk's end marker goes: right after its last non-whitespace character.

    A chunk that ends in blank lines so keeps its marker on its own last line (not at the start
    of the next chunk's line); an empty or all-whitespace chunk has it at its end.
    """
    kept = text[chunk.start : chunk.end].rstrip()
    return chunk.start + len(kept) if kept else chunk.end


class _Sweep:
    """One left-to-right pass of :func:`render_html` over the stretches of the text.

    Chunks with children (parents) are drawn as outlines around them and every other chunk as a
    colour band. The pass remembers which parent outlines are open and which bands are drawn.
    """

    def __init__(self, text: str, chunks: Sequence[Chunk], options: RenderOptions) -> None:
        self.text = text
        self.options = options
        self.notes = options.annotations
        self.strategy = escape(options.strategy)
        has_children = {c.parent for c in chunks if c.parent is not None}
        self.bands = [c for c in chunks if c.index not in has_children]
        self.parents = sorted((c for c in chunks if c.index in has_children), key=lambda c: (c.start, c.level, -c.end))
        self.gaps = sorted(options.content_gaps)
        self.selected_ancestors = _ancestors(chunks, options.selected)
        in_order = sorted(range(len(self.bands)), key=lambda p: (self.bands[p].start, self.bands[p].end, p))
        self.shade = {pos: k % N_COLOURS for k, pos in enumerate(in_order)}  # neighbours differ
        self.bands_starting = _positions_by_offset([c.start for c in self.bands])
        self.bands_ending = _positions_by_offset([c.end if c.start < c.end else -1 for c in self.bands])
        self.markers_at = _positions_by_offset(
            [end_marker_offset(text, c) if c.start < c.end else -1 for c in self.bands]
        )
        self.marker_points = sorted(p for p in self.markers_at if p >= 0)
        self.parents_starting: dict[int, list[Chunk]] = {}
        for c in self.parents:
            self.parents_starting.setdefault(c.start, []).append(c)
        self.drawn: set[int] = set()  # positions in self.bands whose band element is out
        self.open_parents: list[Chunk] = []  # outermost first
        self._gap_index = 0

    def stretches(self) -> list[tuple[int, int, tuple[int, ...]]]:
        """(start, end, covering band positions), cut also where a parent or a content gap starts or ends."""
        segments = _segments(self.bands, len(self.text))
        cut_points = [c.start for c in self.parents] + [c.end for c in self.parents] + [p for g in self.gaps for p in g]
        return _split_at(segments, cut_points) if cut_points else segments

    def close_parents_ended_at(self, a: int) -> str:
        """Close every parent outline that ends at ``a``.

        Outlines close from the innermost down to the deepest one that ends here; the ones still
        running are reopened (only needed when levels do not nest perfectly).
        """
        stack = self.open_parents
        if not any(parent.end <= a for parent in stack):
            return ""
        deepest = max(k for k, parent in enumerate(stack) if parent.end <= a)
        reopen = [parent for parent in stack[deepest:] if parent.end > a]
        out = ["</span>" * (len(stack) - deepest)]
        del stack[deepest:]
        for parent in reopen:
            out.append(self._parent_open(parent, continues=True))
            stack.append(parent)
        return "".join(out)

    def open_parents_at(self, a: int) -> str:
        out = []
        for parent in self.parents_starting.get(a, ()):
            if parent.end > a:
                out.append(self._parent_open(parent, continues=False))
                self.open_parents.append(parent)
        return "".join(out)

    def chunk_starts_at(self, a: int) -> str:
        """Added text in front of every band that starts at ``a``; empty chunks as empty bands."""
        out = []
        for pos in self.bands_starting.get(a, ()):
            c = self.bands[pos]
            if pos in self.drawn:
                continue
            if c.added_text:
                out.append(
                    f'<ins class="cv-add" data-added-to="{escape(c.index)}" title="added by the strategy" dir="auto">'
                    f"{escape(c.added_text)}</ins>"
                )
            if c.start == c.end:
                out.append(self._band_open(pos) + "</span>" + _end_marker(c, self.notes.get(c.index)))
                self.drawn.add(pos)
        return "".join(out)

    def stretch(self, a: int, b: int, cover: tuple[int, ...]) -> str:
        """The text ``[a, b)``: plain, a content gap, one chunk's band or an overlap region."""
        piece = self._text(a, b)
        if not cover:
            if self._in_gap(a):
                return f'<span class="cv-gap" data-gap-start="{escape(a)}" data-gap-end="{escape(b)}" title="not in any chunk">{piece}</span>'
            return piece
        if len(cover) > 1:
            return self._overlap(a, b, cover, piece)
        pos = cover[0]
        if pos in self.drawn:  # a chunk's second own stretch (after a parent boundary)
            return f'<span class="cv-c cv-k{self.shade[pos]}" data-continues="{escape(self.bands[pos].index)}">{piece}</span>'
        self.drawn.add(pos)
        return self._band_open(pos) + piece + "</span>"

    def chunk_ends_at(self, b: int) -> str:
        """The end markers placed at ``b``; an element for a chunk that ends at ``b`` undrawn."""
        ending = self.bands_ending.get(b, ())
        marked = self.markers_at.get(b, ())
        out = []
        for pos in sorted({*ending, *marked}):
            if pos in ending and pos not in self.drawn:  # a chunk lying entirely inside overlaps
                out.append(self._band_open(pos) + "</span>")
                self.drawn.add(pos)
            if pos in marked:
                c = self.bands[pos]
                out.append(_end_marker(c, self.notes.get(c.index)))
        return "".join(out)

    def _text(self, a: int, b: int) -> str:
        """The escaped text ``[a, b)`` with the end markers that fall strictly inside it (the text is
        surrogate-safe already: :func:`render_html` makes it so once, not piece by piece)."""
        lo, hi = bisect_right(self.marker_points, a), bisect_left(self.marker_points, b)
        if lo >= hi:
            return html.escape(self.text[a:b])
        out, start = [], a
        for point in self.marker_points[lo:hi]:
            out.append(html.escape(self.text[start:point]))
            for pos in self.markers_at[point]:
                out.append(_end_marker(self.bands[pos], self.notes.get(self.bands[pos].index)))
            start = point
        out.append(html.escape(self.text[start:b]))
        return "".join(out)

    def _in_gap(self, a: int) -> bool:
        """Whether ``a`` lies in a content gap (asked with ``a`` never decreasing)."""
        gaps = self.gaps
        while self._gap_index < len(gaps) and gaps[self._gap_index][1] <= a:
            self._gap_index += 1
        return self._gap_index < len(gaps) and gaps[self._gap_index][0] <= a < gaps[self._gap_index][1]

    def _overlap(self, a: int, b: int, cover: tuple[int, ...], piece: str) -> str:
        first = min(cover, key=lambda pos: (self.bands[pos].start, pos))
        indexes = escape(" ".join(str(self.bands[p].index) for p in cover))
        return f'<span class="cv-o cv-o{self.shade[first]}" data-overlap="{indexes}" data-start="{escape(a)}" data-end="{escape(b)}">{piece}</span>'

    def _parent_open(self, parent: Chunk, continues: bool) -> str:
        sel = " cv-psel" if parent.index in self.selected_ancestors or parent.index == self.options.selected else ""
        odd = isinstance(parent.index, int) and parent.index % 2  # an index of another type is drawn, as text
        classes = f"cv-p{' cv-podd' if odd else ''}{sel}"
        index = escape(parent.index)
        if continues:
            return f'<span class="{classes}" data-continues="{index}">'
        return (
            f'<span id="cv-{self.strategy}-{index}" class="{classes}" data-chunk-index="{index}" '
            f'data-parent-index="{index}"{_facts(parent, self.notes.get(parent.index))}>'
        )

    def _band_open(self, pos: int) -> str:
        c = self.bands[pos]
        sel = " cv-sel" if self.options.selected == c.index else ""
        index = escape(c.index)
        return (
            f'<span id="cv-{self.strategy}-{index}" class="cv-c cv-k{self.shade[pos]}{sel}" '
            f'data-chunk-index="{index}"{_facts(c, self.notes.get(c.index))}>'
        )


def _facts(c: Chunk, note: ChunkAnnotation | None) -> str:
    """The chunk's ``data-*`` attributes after its index (absent ones are left out; level 0 too)."""
    parts = [f' data-start="{escape(c.start)}" data-end="{escape(c.end)}"']
    if c.level:
        parts.append(f' data-level="{escape(c.level)}"')
    parts.append(f' data-reason="{escape(c.reason)}" data-boundary="{escape(c.boundary)}"')
    if note is not None:
        if note.tokens is not None:
            parts.append(f' data-tokens="{escape(note.tokens)}"')
        if note.embedding_tokens is not None:
            parts.append(f' data-mtokens="{escape(note.embedding_tokens)}"')
        if note.flags:
            parts.append(f' data-flags="{escape(" ".join(str(f) for f in note.flags))}"')
        if note.hygiene:
            parts.append(f' data-hygiene="{escape(note.hygiene)}"')
    if c.parent is not None:
        parts.append(f' data-parent="{escape(c.parent)}"')
    return "".join(parts)


def _ancestors(chunks: Sequence[Chunk], index: int | None) -> set[int]:
    """The indexes of the parent, grandparent ... of chunk ``index`` (empty when None)."""
    by_index = {c.index: c for c in chunks}
    ancestors: set[int] = set()
    current = by_index.get(index) if index is not None else None
    while current is not None and current.parent is not None and current.parent not in ancestors:
        ancestors.add(current.parent)
        current = by_index.get(current.parent)
    return ancestors


def _positions_by_offset(offsets: Sequence[int]) -> dict[int, list[int]]:
    """The positions in ``offsets`` grouped by their value (which chunks start, or end, where)."""
    grouped: dict[int, list[int]] = {}
    for pos, offset in enumerate(offsets):
        grouped.setdefault(offset, []).append(pos)
    return grouped


def _marker_class(note: ChunkAnnotation | None) -> str:
    if note is not None and Flag.MID_WORD in note.flags:
        return "cv-e cv-midword"
    if note is not None and Flag.MID_SENTENCE in note.flags:
        return "cv-e cv-midsent"
    return "cv-e"


def _end_marker(c: Chunk, note: ChunkAnnotation | None) -> str:
    return f'<i class="{_marker_class(note)}" data-end-of="{escape(c.index)}"></i>'


def marks_present(
    chunks: Sequence[Chunk], annotations: Mapping[int, ChunkAnnotation], content_gaps: Sequence[tuple[int, int]]
) -> set[str]:
    """The names (see :data:`MARKS`) of the marks :func:`render_html` draws for these chunks.

    Chunk bands and end markers are always present; union the sets of several columns for one legend.
    """
    parents = {c.parent for c in chunks if c.parent is not None}
    leaves = [c for c in chunks if c.index not in parents]
    present = {"chunk", "end"}
    classes = {_marker_class(annotations.get(c.index)) for c in leaves}
    if "cv-e cv-midsent" in classes:
        present.add("midsent")
    if "cv-e cv-midword" in classes:
        present.add("midword")
    if _any_overlap(leaves):
        present.add("overlap")
    if any(a < b for a, b in content_gaps):
        present.add("gap")
    if any(c.added_text for c in leaves):
        present.add("added")
    if parents:
        present.add("parent")
    return present


def _any_overlap(chunks: Sequence[Chunk]) -> bool:
    reach = None
    for c in sorted((c for c in chunks if c.start < c.end), key=lambda c: c.start):
        if reach is not None and c.start < reach:
            return True
        reach = c.end if reach is None else max(reach, c.end)
    return False


def legend_html(present: Collection[str] | None = None, hue: int = COLUMN_HUES[0]) -> str:
    """A legend of the marks in ``present`` (names from :data:`MARKS`; all when None), in ``hue``."""
    items = {
        "chunk": (
            '<span class="cv-c cv-k0">&nbsp;chunk&nbsp;</span><span class="cv-c cv-k1">&nbsp;next&nbsp;</span>'
            '<span class="cv-c cv-k2">&nbsp;next&nbsp;</span>',
            "chunks (neighbours alternate shades)",
        ),
        "end": ('<i class="cv-e"></i>', "chunk end"),
        "midsent": ('<i class="cv-e cv-midsent"></i>', "cut mid-sentence"),
        "midword": ('<i class="cv-e cv-midword"></i>', "cut mid-word"),
        "overlap": ('<span class="cv-o cv-o0">&nbsp;overlap&nbsp;</span>', "text in two chunks"),
        "gap": ('<span class="cv-gap">&nbsp;gap&nbsp;</span>', "text in no chunk"),
        "added": ('<ins class="cv-add">added</ins>', "text the strategy adds (not in the source)"),
        "parent": ('<span class="cv-p">&nbsp;parent&nbsp;</span>', "underline: a parent around its children"),
    }
    shown = MARKS if present is None else [name for name in MARKS if name in present]
    body = "".join(f"<span>{items[name][0]} {escape(items[name][1])}</span>" for name in shown)
    return f'<div class="cv-legend" style="--h:{int(hue)}">{body}</div>'
