"""Pieces of a source file from its syntax outline: definitions whole, big ones split at statements.

The level-0 pieces tile the file, as the Python strategy's do (:mod:`chunkviz.strategies.code`):

- every top-level definition (function, class, struct, impl, interface, module, namespace ...)
  whose first line it owns is one piece, from its doc comments and attributes to its end;
- the code between definitions (imports, constants, statements, free comment blocks) is packed
  by the one packer, one statement (with the comments directly above it) per unit;
- a definition over ``max_tokens`` that holds members (a class, an impl, a namespace) is kept
  whole as a parent flagged ``over_size_limit`` and gets children one level down that tile it:
  its header, each member, and the code between members; members are treated the same way, at
  most :data:`MAX_LEVEL` levels down;
- any other definition over ``max_tokens`` (a function, or a class at the deepest level) is cut
  at the starts of its body's statements (or members) and packed; a statement alone over the
  limit is split by lines. Every piece of a split definition is marked ``split_unit`` and says
  ``part`` and ``parts``.

Cuts are at line starts (a definition or statement that shares its first line with earlier
code stays with that code); the whitespace between two pieces belongs to the first. Every piece
says its ``type`` (the kind of node that ends there: ``function``, ``method``, ``class``,
``impl`` ..., or ``module_code``, ``<kind>_header``, ``<kind>_code``), ``name``, ``language``
and its first and last lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.code.outline import Item, Outline
from chunkviz.document.pysource import PythonSource
from chunkviz.splitting.packing import PackPolicy, pack_units
from chunkviz.splitting.pieces import Piece
from chunkviz.text.spancount import SpanCounter

#: Deepest level of children (a namespace's class's methods are level 2).
MAX_LEVEL = 3
#: Owners whose functions are functions, not methods.
NAMESPACE_KINDS = frozenset({"namespace", "module"})
#: How a unit of code over the limit is split: blank lines, lines, words, characters.
CODE_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", " ", "")


@dataclass
class TreePiece:
    """A piece and where it sits in the tree of parents (resolved to list indexes at the end)."""

    piece: Piece
    parent_key: int | None = None  # start offset of the parent piece
    key: int | None = None  # set on parents: their start offset


def ordered_pieces(pieces: Sequence[TreePiece]) -> list[Piece]:
    """Level by level, in document order, each child's ``parent`` the index of its parent."""
    ordered = sorted(pieces, key=lambda p: (p.piece.level, p.piece.start, p.piece.end))
    index_of_key = {(p.piece.level, p.key): k for k, p in enumerate(ordered) if p.key is not None}
    return [
        p.piece if p.parent_key is None else replace(p.piece, parent=index_of_key[(p.piece.level - 1, p.parent_key)])
        for p in ordered
    ]


@dataclass
class _Segment:
    """A run of the region that becomes one definition's piece(s) or packed code."""

    start: int
    item: Item | None  # the definition, or None for code
    units: list[int] = field(default_factory=list)  # code: where its statements start


class SyntaxChunker:
    """The pieces of one source (see the module docstring)."""

    def __init__(self, text: str, counter: SpanCounter, max_tokens: int, language: str) -> None:
        self.text = text
        self.lines = PythonSource(text)
        self.counter = counter
        self.max_tokens = max_tokens
        self.language = language
        self.policy = PackPolicy(max_tokens, min_tokens=None, split_separators=CODE_SEPARATORS)
        self.pieces: list[TreePiece] = []

    def chunk(self, outline: Outline) -> list[Piece]:
        """Pieces of the whole text: level 0 tiles it, children follow (ordered by level, start)."""
        self.region(outline.items, 0, len(self.text), 0, None, None)
        return ordered_pieces(self.pieces)

    # ---- regions -------------------------------------------------------------------------
    def cut_of(self, item: Item) -> int | None:
        """The start of the item's first line when only whitespace stands before it there."""
        line_start = self.lines.line_start(self.lines.line_of(item.start))
        before = item.start
        while before > line_start and self.text[before - 1] in " \t\f\v":  # not a copy: minified lines are long
            before -= 1
        return line_start if before == line_start else None

    def segments(self, items: Sequence[Item], start: int, end: int, top: bool) -> list[_Segment]:
        """The region ``[start, end)`` as definition segments and code segments, in order; in a
        body (``top`` false) the first line is the owner's header, never a member's."""
        segments: list[_Segment] = []
        for item in items:
            cut = self.cut_of(item)
            lower = segments[-1].start if segments else (start - 1 if top else start)
            if cut is None or not lower < cut < end:
                continue  # it stays with what stands before it on its first line
            if item.kind is None and segments and segments[-1].item is None:
                segments[-1].units.append(cut)
            else:
                segments.append(_Segment(cut, item if item.kind is not None else None, [cut]))
        if not segments or (self.text[start : segments[0].start].strip() and segments[0].item is not None):
            segments.insert(0, _Segment(start, None, [start]))  # a header, or code before any statement
        elif segments[0].item is None and segments[0].start > start:
            segments[0].units.insert(0, start)  # the header packs with the code after it
        segments[0].start = segments[0].units[0] = start
        return segments

    def region(
        self, items: Sequence[Item], start: int, end: int, level: int, owner: Item | None, parent_key: int | None
    ) -> None:
        """Pieces that tile ``[start, end)``: the body of ``owner`` (None: the whole file)."""
        segments = self.segments(items, start, end, owner is None)
        seen_definition = False
        for k, segment in enumerate(segments):
            segment_end = segments[k + 1].start if k + 1 < len(segments) else end
            if segment.item is not None:
                self.definition(segment.item, segment.start, segment_end, level, owner, parent_key)
                seen_definition = True
                continue
            kind = f"{owner.kind}_{'code' if seen_definition else 'header'}" if owner else "module_code"
            name = owner.name if owner else "<module>"
            self.code(segment.units, segment.start, segment_end, level, kind, name, parent_key)

    # ---- pieces ----------------------------------------------------------------------------
    def metadata(self, start: int, end: int, kind: str, name: str | None, **extra: Any) -> dict[str, Any]:
        first, last = self.lines.content_lines(start, end)
        found: dict[str, Any] = {"type": kind, "name": name, "language": self.language}
        found.update(start_line=first, end_line=last, **extra)
        return found

    def add(self, piece: Piece, parent_key: int | None, key: int | None = None) -> None:
        self.pieces.append(TreePiece(piece, parent_key, key))

    def code(
        self, units: list[int], start: int, end: int, level: int, kind: str, name: str | None, parent_key: int | None
    ) -> None:
        cuts = [start, *(u for u in units if start < u < end), end]
        for piece in pack_units(self.text, cuts, self.counter, self.policy):
            self.add(
                replace(piece, level=level, metadata=self.metadata(piece.start, piece.end, kind, name)), parent_key
            )

    def definition(
        self, item: Item, start: int, end: int, level: int, owner: Item | None, parent_key: int | None
    ) -> None:
        kind = item.kind or "code"
        extra: dict[str, Any] = {}
        if owner is not None:
            kind = "method" if kind == "function" and owner.kind not in NAMESPACE_KINDS else kind
            extra["qualname"] = f"{owner.name}.{item.name}" if owner.name else item.name
        if self.counter.count(start, end) <= self.max_tokens:
            self.add(
                Piece(
                    start,
                    end,
                    Reason.UNIT_END,
                    level=level,
                    metadata=self.metadata(start, end, kind, item.name, **extra),
                ),
                parent_key,
            )
            return
        if item.container and item.parts and level < MAX_LEVEL:
            note = "over max_tokens: kept whole as the parent context; its children (one level down) are its header and members"
            flags = {Meta.OVER_SIZE_LIMIT: True, Meta.NOTE: note}
            metadata = self.metadata(start, end, kind, item.name, **extra, **flags)
            self.add(Piece(start, end, Reason.UNIT_END, level=level, metadata=metadata), parent_key, key=start)
            self.region(item.parts, start, end, level + 1, item, start)
            metadata["children"] = sum(1 for p in self.pieces if p.parent_key == start and p.piece.level == level + 1)
            return
        self.split(item, start, end, level, kind, extra, parent_key)

    def split(
        self, item: Item, start: int, end: int, level: int, kind: str, extra: dict[str, Any], parent_key: int | None
    ) -> None:
        """A definition over the limit, cut at its statements (or members) and packed."""
        units = [cut for cut in (self.cut_of(part) for part in item.parts) if cut is not None]
        cuts = [start, *sorted({u for u in units if start < u < end}), end]
        pieces = pack_units(self.text, cuts, self.counter, self.policy)
        for k, piece in enumerate(pieces):
            metadata = self.metadata(piece.start, piece.end, kind, item.name, **extra, part=k + 1, parts=len(pieces))
            self.add(replace(piece, level=level, split_unit=True, metadata=metadata), parent_key)


__all__ = ["CODE_SEPARATORS", "MAX_LEVEL", "SyntaxChunker", "TreePiece", "ordered_pieces"]
