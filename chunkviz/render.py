"""Chunks drawn inline over the original text, as escaped HTML (a pure function).

One sweep over sorted start/end events cuts the text into segments covered by the same set of
chunks. A segment covered by one chunk is that chunk's band (the element that carries
``data-strategy``, ``data-chunk-index``, ``data-start`` and ``data-end`` of the whole chunk);
a segment covered by two or more is an overlap region, striped in both colours, its length on
hover. A thin marker at every chunk end says why the chunk ends there (its ``reason``) and
where that cut falls (its ``boundary``), with the labels of :mod:`chunkviz.vocabulary`; flags show as outlines and
marker colours; ``added_text`` is drawn as inserted text, never mixed into the source.
Multi-level chunkings draw every chunk that has children (parents, chapters …) as a nested
outline around them and every other chunk as a band; selecting a child also marks its
ancestors, as retrieval would return them.

Every piece of document text and every attribute value goes through ``html.escape``.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from chunkviz.types import Chunk
from chunkviz.vocabulary import BOUNDARY_LABELS, FLAG_LABELS, REASON_LABELS, Flag

N_COLOURS = 8
#: Pastel band colours (light) and their stronger outline colours.
BAND_COLOURS = ("#ffe08a", "#a8e6cf", "#b5d8ff", "#ffc6d9", "#d7c6ff", "#ffd3a8", "#c8f0a0", "#a8f0ec")


@dataclass(frozen=True)
class ChunkAnnotation:
    """What the renderer shows on hover and as flags for one chunk (from diagnostics)."""

    tokens: int | None = None
    embedding_tokens: int | None = None
    flags: tuple[Flag, ...] = ()


@dataclass(frozen=True)
class RenderOptions:
    strategy: str
    tokenizer: str = "tokens"
    selected: int | None = None
    annotations: Mapping[int, ChunkAnnotation] = field(default_factory=dict)
    #: Regions of the document in no chunk that contain text (from the coverage audit).
    content_gaps: Sequence[tuple[int, int]] = ()


def stylesheet() -> str:
    """The CSS for rendered chunk views (include once per page)."""
    rules = [
        ".cv-doc{white-space:pre-wrap;word-wrap:break-word;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;"
        "font-size:0.82rem;line-height:1.55;padding:0.6rem;border:1px solid #ddd;border-radius:6px;"
        "max-height:70vh;overflow-y:auto;background:#fff;color:#222}",
        ".cv-c{border-radius:2px}",
        ".cv-c:hover{outline:2px solid #444}",
        ".cv-o{background-size:8px 8px;outline:1px dashed #555}",
        ".cv-e{display:inline-block;width:3px;height:1.1em;margin:0 1px;vertical-align:text-bottom;background:#333;cursor:help}",
        ".cv-e.cv-midsent{background:#f08c00;width:4px}",
        ".cv-e.cv-midword{background:#e03131;width:5px}",
        ".cv-over::before{content:'\\26A0';color:#c92a2a;font-weight:bold;margin-right:1px}",
        ".cv-tiny::before{content:'\\00B7';color:#495057;font-weight:bold}",
        # a chunk both over a limit and tiny keeps its warning sign (one ::before per element)
        ".cv-over.cv-tiny::before{content:'\\26A0\\00B7';color:#c92a2a}",
        ".cv-tiny{outline:1px dotted #495057}",
        ".cv-gap{background:repeating-linear-gradient(135deg,#eee 0 3px,#fff 3px 6px);color:#868e96;text-decoration:line-through}",
        ".cv-add{text-decoration:none;background:#fff;border:1px dashed #1c7ed6;color:#1864ab;font-style:italic;"
        "border-radius:3px;padding:0 2px;margin-right:2px}",
        ".cv-p{border-bottom:3px solid #495057;padding-bottom:1px}",
        ".cv-p.cv-podd{border-bottom-color:#1c7ed6}",
        ".cv-p .cv-p{border-bottom-style:dashed;padding-bottom:5px}",
        ".cv-p .cv-p .cv-p{border-bottom-style:dotted;padding-bottom:9px}",
        ".cv-p.cv-psel{border-bottom-color:#e8590c;background:#fff4e6}",
        ".cv-sel{outline:3px solid #e8590c!important}",
        ".cv-legend span{display:inline-block;margin:0 0.8rem 0.3rem 0;font-size:0.8rem}",
    ]
    for k, colour in enumerate(BAND_COLOURS):
        nxt = BAND_COLOURS[(k + 1) % N_COLOURS]
        rules.append(f".cv-k{k}{{background:{colour}}}")
        rules.append(
            f".cv-o{k}{{background:repeating-linear-gradient(135deg,{colour} 0 4px,{nxt} 4px 8px)}}"
        )
    return "<style>" + "".join(rules) + "</style>"


def _title(chunk: Chunk, note: ChunkAnnotation | None, tokenizer: str) -> str:
    parts = [f"chunk {chunk.index}", f"chars {chunk.start}\u2013{chunk.end} ({chunk.end - chunk.start})"]
    if note is not None and note.tokens is not None:
        parts.append(f"{note.tokens} {tokenizer} tokens")
    if note is not None and note.embedding_tokens is not None:
        parts.append(f"{note.embedding_tokens} embedding-model tokens")
    parts.append(f"ends: {cut_text(chunk)}")
    if chunk.parent is not None:
        parts.append(f"parent {chunk.parent}")
    if note is not None and note.flags:
        parts.append("flags: " + ", ".join(FLAG_LABELS.get(f, str(f)) for f in note.flags))
    return " \u00b7 ".join(parts)


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


def _split_at(segments: list[tuple[int, int, tuple[int, ...]]], cuts: Iterable[int]) -> list[tuple[int, int, tuple[int, ...]]]:
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


def render_html(text: str, chunks: Sequence[Chunk], options: RenderOptions) -> str:
    """The document with every chunk drawn inline; pure, escaped, one element per region."""
    if not chunks:
        return f'<div class="cv-doc" data-strategy="{html.escape(options.strategy)}">{html.escape(text)}</div>'
    sweep = _Sweep(text, chunks, options)
    out: list[str] = [f'<div class="cv-doc" data-strategy="{sweep.strategy}">']
    for a, b, cover in sweep.stretches():
        out.append(sweep.close_parents_ended_at(a))
        out.append(sweep.open_parents_at(a))
        out.append(sweep.chunk_starts_at(a))
        out.append(sweep.stretch(a, b, cover))
        out.append(sweep.chunk_ends_at(b))
    out.append("</span>" * len(sweep.open_parents))
    out.append("</div>")
    return "".join(out)


class _Sweep:
    """One left-to-right pass of :func:`render_html` over the stretches of the text.

    Chunks with children (parents) are drawn as outlines around them and every other chunk as a
    colour band. The pass remembers which parent outlines are open and which bands are drawn.
    """

    def __init__(self, text: str, chunks: Sequence[Chunk], options: RenderOptions) -> None:
        self.text = text
        self.options = options
        self.notes = options.annotations
        self.strategy = html.escape(options.strategy, quote=True)
        has_children = {c.parent for c in chunks if c.parent is not None}
        self.bands = [c for c in chunks if c.index not in has_children]
        self.parents = sorted((c for c in chunks if c.index in has_children), key=lambda c: (c.start, c.level, -c.end))
        self.gaps = sorted(options.content_gaps)
        self.selected_ancestors = _ancestors(chunks, options.selected)
        self.bands_starting = _positions_by_offset([c.start for c in self.bands])
        self.bands_ending = _positions_by_offset([c.end for c in self.bands])
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
            if c.added_text:
                out.append(
                    f'<ins class="cv-add" data-added-to="{c.index}" title="added by the strategy, not in the source">'
                    f"{html.escape(c.added_text)}</ins>"
                )
            if c.start == c.end:
                out.append(self._band_open(c) + "</span>")
                self.drawn.add(pos)
        return "".join(out)

    def stretch(self, a: int, b: int, cover: tuple[int, ...]) -> str:
        """The text ``[a, b)``: plain, a content gap, one chunk's band or an overlap region."""
        piece = html.escape(self.text[a:b])
        if not cover:
            if self._in_gap(a):
                return f'<span class="cv-gap" data-gap-start="{a}" data-gap-end="{b}" title="not in any chunk">{piece}</span>'
            return piece
        if len(cover) > 1:
            return self._overlap(a, b, cover, piece)
        pos = cover[0]
        c = self.bands[pos]
        if pos in self.drawn:  # a chunk's second own stretch (after a parent boundary)
            return f'<span class="cv-c cv-k{c.index % N_COLOURS}" data-continues="{c.index}">{piece}</span>'
        self.drawn.add(pos)
        return self._band_open(c) + piece + "</span>"

    def chunk_ends_at(self, b: int) -> str:
        """The end marker of every band that ends at ``b``."""
        out = []
        for pos in self.bands_ending.get(b, ()):
            c = self.bands[pos]
            if pos not in self.drawn:  # a chunk lying entirely inside overlaps still gets its element
                out.append(self._band_open(c) + "</span>")
                self.drawn.add(pos)
            out.append(_end_marker(c, self.notes.get(c.index)))
        return "".join(out)

    def _in_gap(self, a: int) -> bool:
        """Whether ``a`` lies in a content gap (asked with ``a`` never decreasing)."""
        gaps = self.gaps
        while self._gap_index < len(gaps) and gaps[self._gap_index][1] <= a:
            self._gap_index += 1
        return self._gap_index < len(gaps) and gaps[self._gap_index][0] <= a < gaps[self._gap_index][1]

    def _overlap(self, a: int, b: int, cover: tuple[int, ...], piece: str) -> str:
        first = self.bands[cover[0]]
        indexes = " ".join(str(self.bands[p].index) for p in cover)
        label = f"overlap of chunks {', '.join(str(self.bands[p].index) for p in cover)}: {b - a} characters"
        return (
            f'<span class="cv-o cv-o{first.index % N_COLOURS}" data-strategy="{self.strategy}" data-overlap="{indexes}" '
            f'data-start="{a}" data-end="{b}" title="{html.escape(label, quote=True)}">{piece}</span>'
        )

    def _parent_open(self, parent: Chunk, continues: bool) -> str:
        return _parent_open(parent, self.strategy, self.notes, self.options, self.selected_ancestors, continues=continues)

    def _band_open(self, c: Chunk) -> str:
        return _band_open(c, self.strategy, self.notes, self.options, "")


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


def _parent_open(
    parent: Chunk, strategy: str, notes: Mapping[int, ChunkAnnotation], options: RenderOptions,
    selected_ancestors: set[int], continues: bool,
) -> str:
    sel = " cv-psel" if parent.index in selected_ancestors or parent.index == options.selected else ""
    if continues:
        return f'<span class="cv-p{" cv-podd" if parent.index % 2 else ""}{sel}" data-continues="{parent.index}">'
    title = html.escape(_title(parent, notes.get(parent.index), options.tokenizer), quote=True)
    return (
        f'<span id="cv-{strategy}-{parent.index}" class="cv-p{" cv-podd" if parent.index % 2 else ""}{sel}" data-strategy="{strategy}" '
        f'data-chunk-index="{parent.index}" data-parent-index="{parent.index}" data-start="{parent.start}" '
        f'data-end="{parent.end}" data-level="{parent.level}" title="{title}">'
    )


def _band_open(c: Chunk, strategy: str, notes: Mapping[int, ChunkAnnotation], options: RenderOptions, extra: str) -> str:
    note = notes.get(c.index)
    classes = f"cv-c cv-k{c.index % N_COLOURS}"
    if note is not None:
        if Flag.OVER_MODEL_LIMIT in note.flags or Flag.OVER_SIZE_LIMIT in note.flags:
            classes += " cv-over"
        if Flag.TINY in note.flags:
            classes += " cv-tiny"
    if options.selected == c.index:
        classes += " cv-sel"
    title = html.escape(_title(c, note, options.tokenizer), quote=True)
    return (
        f'<span id="cv-{strategy}-{c.index}" class="{classes}{extra}" data-strategy="{strategy}" '
        f'data-chunk-index="{c.index}" data-start="{c.start}" data-end="{c.end}" data-level="{c.level}" title="{title}">'
    )


def _end_marker(c: Chunk, note: ChunkAnnotation | None) -> str:
    classes = "cv-e"
    label = f"end of chunk {c.index}: {cut_text(c)}"
    if note is not None:
        if Flag.MID_WORD in note.flags:
            classes += " cv-midword"
            label += f" \u2014 {FLAG_LABELS[Flag.MID_WORD]}"
        elif Flag.MID_SENTENCE in note.flags:
            classes += " cv-midsent"
            label += f" \u2014 {FLAG_LABELS[Flag.MID_SENTENCE]}"
    return f'<i class="{classes}" data-end-of="{c.index}" title="{html.escape(label, quote=True)}"></i>'


def legend_html() -> str:
    """A legend that explains every colour and mark used by :func:`render_html`."""
    items = [
        ('<span class="cv-c cv-k0">&nbsp;chunk&nbsp;</span><span class="cv-c cv-k1">&nbsp;next chunk&nbsp;</span>', "each chunk gets a colour band"),
        ('<span class="cv-o cv-o0">&nbsp;overlap&nbsp;</span>', "text in two or more chunks (striped in both colours)"),
        ('<i class="cv-e"></i>', "chunk end; hover for why it ends there (reason) and where (boundary)"),
        ('<i class="cv-e cv-midsent"></i>', f"end {FLAG_LABELS[Flag.MID_SENTENCE]}"),
        ('<i class="cv-e cv-midword"></i>', f"end {FLAG_LABELS[Flag.MID_WORD]}"),
        (
            '<span class="cv-c cv-k2 cv-over">&nbsp;over a limit&nbsp;</span>',
            f"{FLAG_LABELS[Flag.OVER_MODEL_LIMIT]} or {FLAG_LABELS[Flag.OVER_SIZE_LIMIT]}",
        ),
        ('<span class="cv-c cv-k3 cv-tiny">&nbsp;tiny&nbsp;</span>', "under 100 tokens"),
        ('<span class="cv-gap">&nbsp;gap&nbsp;</span>', "text in no chunk"),
        ('<ins class="cv-add">added</ins>', "text the strategy adds (not in the source)"),
        ('<span class="cv-p">&nbsp;parent&nbsp;</span>', "underline: parent chunk around its children"),
    ]
    body = "".join(f"<span>{mark} {html.escape(text)}</span>" for mark, text in items)
    return f'<div class="cv-legend">{body}</div>'
