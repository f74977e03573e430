"""Place a peer's chunks as its users do, then audit them against the source.

A peer returns strings (and sometimes offsets). Its users place them with what the peer gives:
LangChain's ``start_index`` (``text.find`` from the previous start), Chonkie's indices,
semchunk's offsets, or the first ``find`` after the previous chunk when there is nothing else.
The audit checks each placed chunk against the document:

- is its text ``doc[start:end]`` at its placement? If not, does it occur elsewhere (the
  placement is wrong: ``misplaced``), only with other whitespace (``whitespace_changed``), or
  nowhere (``text_not_in_source``)?
- is its placement where the peer's own sequence puts it? The true position is an exact
  reference when one exists (our exact port of the same algorithm, or the token windows of a
  token splitter), else the first occurrence that keeps the chunks in order (no earlier than
  the previous chunk's start, or its end when chunks do not overlap). A placement elsewhere is
  ``misplaced``; a text search with another candidate in order is ``ambiguous_placement``;
- is it larger than the limit the peer was given, measured as the peer measures it?

The same audit places chunks that exist already (:mod:`chunkviz.formats.external`: a chunk file from
another pipeline): offsets from a library's search are judged as above, stated spans are
accepted where their text is, and a chunk with no placement at all is located by the same
search (never ``misplaced``; ``ambiguous_placement`` when its order allows several copies). A
chunk whose text is nowhere in the document does not move the sequence for the next one, and
each audited chunk says whether its true position is certain. Order is not identity: a chunk
out of order is certain at the only copy of its text, and in a list that runs backwards (a
reversed export) each chunk is searched backwards from the previous one by the mirrored rule.
The searches take about linear time in all (:class:`~chunkviz.text.textsearch.TextSearch`), however
many chunks are out of order or not in the document.

What is drawn is always a span (``text == doc[start:end]``): the placement the users have when
it points into the document, else the true position when it is known. The peer's own text is
kept in the chunk's metadata when it differs from the drawn span's text.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from chunkviz.core.types import Chunk, Span
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.model import Document
from chunkviz.strategies.peers.flags import (
    MISPLACEMENT_KEY,
    PEER_FLAG_COUNT_LABELS,
    PEER_FLAGS_KEY,
    PEER_INDEX_KEY,
    PEER_SIZE_KEY,
    PEER_START_KEY,
    PEER_TEXT_KEY,
    TRUE_SPAN_KEY,
    UNCERTAIN_KEY,
    PeerFlag,
)
from chunkviz.text.textsearch import TextSearch, code_points

_CONTENT = re.compile(r"\S")


@dataclass(frozen=True)
class PeerChunk:
    """One chunk as the peer gives it: its text, where its users place it, its measured size.

    ``start`` is the users' placement (``start_index``, an offset, a ``find`` result; -1 when
    the search found nothing; None when there is no placement at all); ``end`` is the peer's own
    end offset when it gives one; ``size`` is the chunk's size in the unit of the peer's limit.
    """

    text: str
    start: int | None
    end: int | None = None
    size: int | None = None


@dataclass(frozen=True)
class PeerOutput:
    """What one run of a peer produced, with what the audit needs to judge it."""

    chunks: tuple[PeerChunk, ...]
    #: The size limit the peer was given (None: the peer has none).
    limit: int | None
    #: Whether consecutive chunks may share text (the peer was given an overlap).
    overlapping: bool
    #: Whether the users' placement is a text search (``find``), which can pick another copy.
    placed_by_search: bool
    #: The exact spans the peer's own sequence implies, one per chunk, when they can be computed.
    reference: tuple[Span, ...] | None
    #: Why a chunk ends, as far as the peer's algorithm says (the last one ends the document).
    reason: Reason
    #: CPU seconds of the peer's own call (``time.process_time``), placement included.
    cpu_seconds: float
    #: How the users' placement is obtained, for notes (e.g. ``LangChain's start_index``).
    placement: str = "the placement"
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class AuditedChunk:
    """One peer chunk after the audit: the span drawn, its flags and what the peer said."""

    peer_index: int
    start: int
    end: int
    flags: tuple[PeerFlag, ...]
    peer_text: str
    peer_start: int | None
    true_span: Span | None
    size: int | None
    note: str = ""
    #: How a misplaced chunk is misplaced: ``not_found`` (the search found nothing),
    #: ``earlier_copy`` / ``later_copy`` (another copy of its text, before / after where its
    #: sequence puts it), ``other_text`` (the placement points at different text).
    misplacement: str | None = None
    #: Whether ``true_span`` is certain (an exact reference, or the only copy its order allows).
    certain: bool = True


@dataclass(frozen=True)
class AuditSummary:
    """Counts of a run's audit: chunks and chunks per flag."""

    chunks: int
    counts: dict[str, int] = field(default_factory=dict)
    #: Misplaced chunks by kind (``not_found``, ``earlier_copy``, ``later_copy``, ``other_text``).
    misplacements: dict[str, int] = field(default_factory=dict)

    @property
    def flagged(self) -> int:
        return sum(self.counts.values())

    def describe(self) -> str:
        """E.g. ``3 misplaced chunks, 1 whitespace changed`` or ``no problems found``."""
        parts = []
        for flag in PeerFlag:
            count = self.counts.get(str(flag), 0)
            if count:
                one, many = PEER_FLAG_COUNT_LABELS[flag]
                parts.append(f"{count} {one if count == 1 else many}")
        return ", ".join(parts) if parts else "no problems found"


@dataclass(frozen=True)
class _Order:
    """Where the chunk after the previous one may be, in one text's coordinates.

    After it (the list in document order): a copy starting at or after ``lo``; another copy
    starting at or before ``gap_end`` (the previous chunk's end, past whitespace) is as
    plausible. Before it (a list running backwards, ``backwards``: the previous chunk was placed,
    for certain, before its own predecessor): a copy ending by ``before``; another copy ending at
    or after ``gap_start`` (the previous chunk's start, before whitespace) is as plausible.
    ``settled``: the previous chunk's place is certain (only there may the list turn).
    """

    lo: int
    gap_end: int
    before: int
    gap_start: int
    backwards: bool = False
    settled: bool = True


class _Source:
    """The text the peer was given, with lazily built helpers for searching it
    (:class:`~chunkviz.text.textsearch.TextSearch`: placing every chunk takes about linear time)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.search = TextSearch(text)
        self._positions: np.ndarray | None = None
        self._letters: TextSearch | None = None

    def next_content(self, pos: int) -> int:
        """The first non-whitespace position at or after ``pos`` (``len`` when none)."""
        match = _CONTENT.search(self.text, pos)
        return match.start() if match else len(self.text)

    def content_end(self, pos: int) -> int:
        """Just after the last non-whitespace character before ``pos`` (0 when none)."""
        step = 256
        while pos > 0:
            first = max(0, pos - step)
            kept = self.text[first:pos].rstrip()
            if kept:
                return first + len(kept)
            pos, step = first, step * 2
        return 0

    def order_after(self, previous: Span, overlapping: bool, backwards: bool, settled: bool) -> _Order:
        """Where the next chunk may be after ``previous`` (``(-1, 0)``: the first chunk)."""
        lo, before = (previous[0] + 1, previous[1] - 1) if overlapping else (previous[1], previous[0])
        gap_start = self.content_end(max(previous[0], 0))
        return _Order(lo, self.next_content(previous[1]), before, gap_start, backwards, settled)

    def _projection(self) -> tuple[np.ndarray, TextSearch]:
        """The positions of the text's non-whitespace characters, and a search of those characters."""
        if self._positions is None or self._letters is None:
            self._positions = np.flatnonzero(~np.isin(code_points(self.text), _whitespace_codes()))
            self._letters = TextSearch("".join(self.text.split()))
        return self._positions, self._letters

    def find_exact(self, text: str, order: _Order) -> tuple[Span | None, bool]:
        """Where ``text`` is (:func:`_locate`) and whether that place is certain."""
        p, certain = _locate(self.search, text, order)
        return (None, False) if p < 0 else ((p, p + len(text)), certain)

    def find_ignoring_whitespace(self, text: str, order: _Order) -> tuple[Span | None, bool]:
        """Like :meth:`find_exact` with whitespace ignored on both sides."""
        target = "".join(text.split())
        if not target:
            return None, False
        positions, letters = self._projection()
        lo, gap_end, before, gap_start = (
            int(i) for i in np.searchsorted(positions, [order.lo, order.gap_end, order.before, order.gap_start], "left")
        )
        gap_end -= int(gap_end >= len(positions) or positions[gap_end] != order.gap_end)  # the last at or before
        k, certain = _locate(letters, target, _Order(lo, gap_end, before, gap_start, order.backwards, order.settled))
        if k < 0:
            return None, False
        return (int(positions[k]), int(positions[k + len(target) - 1]) + 1), certain

    def occurs_ignoring_whitespace(self, text: str) -> bool:
        """Whether ``text`` occurs with whitespace ignored on both sides."""
        target = "".join(text.split())
        return bool(target) and self._projection()[1].find(target) >= 0


@functools.cache
def _whitespace_codes() -> np.ndarray:
    """The code points ``str.split()`` splits at (``\\s`` of :mod:`re` too)."""
    return np.array([c for c in range(sys.maxunicode + 1) if chr(c).isspace()], dtype=np.uint32)


def _locate(search: TextSearch, text: str, order: _Order) -> tuple[int, bool]:
    """Where ``text`` is in ``search.text`` and whether that place is certain (-1: nowhere).

    The nearest copy in the list's direction (:class:`_Order`: after the previous chunk, or
    before it in a list running backwards), certain when no other copy is as close to the
    previous chunk. Else (the list turns) the copy on the other side when it is the only one
    next to the previous chunk, or the only copy in the text (order is not identity), both
    certain; else the first copy, uncertain.
    """
    ahead, behind = (_before, _after) if order.backwards else (_after, _before)
    p, certain = ahead(search, text, order)
    if p >= 0:
        return p, certain
    p, certain = behind(search, text, order) if order.settled else (-1, False)
    if p >= 0 and certain and _next_to(p, len(text), order):
        return p, True
    first = search.find(text)
    return first, first >= 0 and search.find(text, first + 1) < 0


def _after(search: TextSearch, text: str, order: _Order) -> tuple[int, bool]:
    """The first copy starting at or after ``order.lo``; certain when no other copy starts
    by ``order.gap_end``."""
    m = len(text)
    p = search.find(text, order.lo)
    return p, p >= 0 and (p >= order.gap_end or search.find(text, p + 1, order.gap_end + m) < 0)


def _before(search: TextSearch, text: str, order: _Order) -> tuple[int, bool]:
    """The last copy ending by ``order.before``; certain when no other copy ends at or after
    ``order.gap_start``."""
    m = len(text)
    p = search.rfind(text, 0, order.before) if order.before > 0 else -1
    return p, p >= 0 and (p + m <= order.gap_start or search.find(text, order.gap_start - m, p + m - 1) < 0)


def _next_to(p: int, m: int, order: _Order) -> bool:
    """Whether a copy at ``p`` (``m`` long) touches the previous chunk or the whitespace around it."""
    return p <= order.gap_end if p >= order.lo else p + m >= order.gap_start


def audit(source: str, output: PeerOutput) -> list[AuditedChunk]:
    """Place and audit every non-empty chunk of ``output`` against ``source`` (the text the
    peer was given; same length as the document)."""
    src = _Source(source)
    n = len(source)
    reference = (
        output.reference if output.reference is not None and len(output.reference) == len(output.chunks) else None
    )
    audited: list[AuditedChunk] = []
    previous: Span = (-1, 0)
    backwards = False  # the previous chunk is certainly before its own predecessor: the list may run backwards
    settled = True  # the previous chunk's place is certain
    true: Span | None
    for i, pc in enumerate(output.chunks):
        if not pc.text or n == 0:
            continue
        order = src.order_after(previous, output.overlapping, backwards, settled)
        exact, exact_certain = src.find_exact(pc.text, order)
        exact_anywhere = exact is not None
        whitespace_only = False
        if reference is not None:
            true, certain = reference[i], True
            whitespace_only = not exact_anywhere and src.occurs_ignoring_whitespace(pc.text)
        elif exact_anywhere:
            true, certain = exact, exact_certain
        else:
            true, certain = src.find_ignoring_whitespace(pc.text, order)
            whitespace_only = true is not None
        audited.append(_judge(i, pc, source, output, true, certain, exact_anywhere, whitespace_only, previous))
        if true is not None:  # a chunk whose text has no place in the document does not move the sequence
            previous, backwards, settled = true, certain and true[0] < previous[0], certain
    return audited


def _judge(
    i: int,
    pc: PeerChunk,
    source: str,
    output: PeerOutput,
    true: Span | None,
    certain: bool,
    exact_anywhere: bool,
    whitespace_only: bool,
    previous: Span,
) -> AuditedChunk:
    n = len(source)
    s = pc.start
    placed = s is not None and 0 <= s < n
    at_placement = s is not None and placed and source.startswith(pc.text, s)
    drawn: Span
    if s is not None and at_placement:
        drawn = (s, s + len(pc.text))
    elif s is not None and placed:
        end = pc.end if pc.end is not None and pc.end > s else s + len(pc.text)
        drawn = _clip(s, end, n)
    elif true is not None:
        drawn = true
    else:
        drawn = _clip(previous[1], previous[1] + len(pc.text), n)
    flags: list[PeerFlag] = []
    notes: list[str] = []
    if not placed and true is None:
        notes.append("drawn after the previous chunk at its own length: it has no place in the document")
    where = output.placement
    if not exact_anywhere:
        if whitespace_only:
            flags.append(PeerFlag.WHITESPACE_CHANGED)
            notes.append("its text is the document's with whitespace dropped or rewritten")
        else:
            flags.append(PeerFlag.TEXT_NOT_IN_SOURCE)
            notes.append("its text does not occur in the document")
    misplaced: str | None = None
    if exact_anywhere and not at_placement and s is not None:  # no placement at all: located, not misplaced
        if s < 0:
            misplaced = "not_found"
            notes.append(f"{where} found nothing ({s})")
        else:
            misplaced = "other_text"
            notes.append(f"{where} ({s}) does not point at its text")
    elif (
        placed
        and true is not None
        and certain
        and s != true[0]
        and (output.placed_by_search or output.reference is not None or not at_placement)
    ):
        # a peer's own offsets that point at its text are trusted unless an exact reference says otherwise
        if at_placement:
            misplaced = "earlier_copy" if s is not None and s < true[0] else "later_copy"
            kind = "an earlier copy of its text" if misplaced == "earlier_copy" else "a later copy of its text"
        else:
            misplaced, kind = "other_text", "not its text"
        notes.append(f"{where} says {s} ({kind}); the splitter's own sequence puts it at {true[0]}")
    if misplaced:
        flags.append(PeerFlag.MISPLACED)
    elif output.placed_by_search and output.reference is None and exact_anywhere and not certain:
        flags.append(PeerFlag.AMBIGUOUS_PLACEMENT)
        notes.append("its text occurs more than once: the search may have picked another copy")
    if output.limit is not None and pc.size is not None and pc.size > output.limit:
        flags.append(PeerFlag.OVER_PEER_LIMIT)
        notes.append(f"size {pc.size} is over the limit {output.limit} it was given")
    return AuditedChunk(
        peer_index=i,
        start=drawn[0],
        end=drawn[1],
        flags=tuple(f for f in PeerFlag if f in flags),
        peer_text=pc.text,
        peer_start=s,
        true_span=true,
        size=pc.size,
        note="; ".join(notes),
        misplacement=misplaced,
        certain=true is not None and certain,
    )


def audit_spans(document: Document | str, chunks: Sequence[Chunk]) -> AuditSummary:
    """The same audit for chunks that carry their own spans (ours): their text, placed at their
    ``start``, against the document, in document order, each level on its own."""
    text = document.text if isinstance(document, Document) else document
    counts: dict[str, int] = {}
    kinds: dict[str, int] = {}
    total = 0
    for level in sorted({c.level for c in chunks}):
        ordered = sorted((c for c in chunks if c.level == level), key=lambda c: (c.start, c.end))
        output = PeerOutput(
            tuple(PeerChunk(c.text, c.start, c.end) for c in ordered),
            None,
            True,
            False,
            None,
            Reason.SIZE_LIMIT,
            0.0,
            "its span",
        )
        summary = summarize(audit(text, output))
        total += summary.chunks
        for key, value in summary.counts.items():
            counts[key] = counts.get(key, 0) + value
        for key, value in summary.misplacements.items():
            kinds[key] = kinds.get(key, 0) + value
    return AuditSummary(total, counts, kinds)


def _clip(start: int, end: int, n: int) -> Span:
    """A non-empty span inside ``[0, n)`` as close as possible to ``[start, end)``."""
    start = min(max(start, 0), n - 1)
    return start, min(max(end, start + 1), n)


def summarize(audited: Sequence[AuditedChunk]) -> AuditSummary:
    counts: dict[str, int] = {}
    kinds: dict[str, int] = {}
    for chunk in audited:
        for flag in chunk.flags:
            counts[str(flag)] = counts.get(str(flag), 0) + 1
        if chunk.misplacement:
            kinds[chunk.misplacement] = kinds.get(chunk.misplacement, 0) + 1
    return AuditSummary(len(audited), counts, kinds)


def to_chunks(
    document: Document, audited: Sequence[AuditedChunk], reason: Reason, peer: str | None, source: str | None = None
) -> list[Chunk]:
    """The audited chunks as spans of ``document`` in the peer's order, flags in metadata.
    ``source`` is what the peer was given (the document with lone surrogates replaced, same
    length): the peer's text is kept when it differs from that. ``peer`` names the peer in
    ``metadata["peer"]`` (None: chunks loaded from a file, :mod:`chunkviz.formats.external`)."""
    text = document.text
    given = text if source is None else source
    n = len(text)
    boundaries = document.structure.boundaries_at([a.end for a in audited])
    chunks = []
    for index, (a, boundary) in enumerate(zip(audited, boundaries)):
        metadata: dict[str, object] = {} if peer is None else {"peer": peer}
        metadata[PEER_INDEX_KEY] = a.peer_index
        metadata[PEER_FLAGS_KEY] = [str(f) for f in a.flags]
        if a.peer_start is not None:
            metadata[PEER_START_KEY] = a.peer_start
        if a.peer_text != given[a.start : a.end]:
            metadata[PEER_TEXT_KEY] = a.peer_text
        if a.true_span is not None and a.true_span != (a.start, a.end):
            metadata[TRUE_SPAN_KEY] = list(a.true_span)
        if a.size is not None:
            metadata[PEER_SIZE_KEY] = a.size
        if a.misplacement:
            metadata[MISPLACEMENT_KEY] = a.misplacement
        if not a.certain:
            metadata[UNCERTAIN_KEY] = True
        if PeerFlag.OVER_PEER_LIMIT in a.flags:
            metadata[str(Meta.OVER_SIZE_LIMIT)] = True
        if a.note:
            metadata[str(Meta.NOTE)] = a.note
        chunk_reason = Reason.END_OF_DOCUMENT if a.end >= n else reason
        chunks.append(Chunk.from_span(text, index, a.start, a.end, chunk_reason, boundary=boundary, metadata=metadata))
    return chunks


__all__ = ["AuditSummary", "AuditedChunk", "PeerChunk", "PeerOutput", "audit", "audit_spans", "summarize", "to_chunks"]
