"""Pieces: what the splitting engine and every strategy produce before they become Chunks.

A piece is a span with the *reason* its strategy ended it there and what the engine knows about
it (the separator it was cut at, whether it is a piece of a split unit, whether it is over the
size limit because it cannot be cut further). :func:`to_chunks` is the one routine that turns
pieces into :class:`~chunkviz.core.types.Chunk` objects; it reads each cut's *boundary* from the
document's structure, so every strategy reports the same boundary at the same offset.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from chunkviz.core.types import BoundaryBatch, Chunk, PendingBoundary, frozen_instance
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.model import Document


@dataclass(frozen=True)
class Piece:
    """A span ``[start, end)`` of the document and why it ends at ``end``."""

    start: int
    end: int
    reason: Reason
    separator: str | None = None  # the separator the recursive splitter cut at
    over_limit: bool = False  # over the strategy's size limit: one indivisible unit
    split_unit: bool = False  # a piece of a unit (sentence, paragraph, section, def) that was split
    level: int = 0
    parent: int | None = None  # index of the parent piece in the same list
    added_text: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def window(cls, start: int, end: int, reason: Reason, metadata: Mapping[str, Any]) -> "Piece":
        """A piece with a span, a reason and metadata, every other field at its default: the
        same as ``Piece(start, end, reason, metadata=metadata)``, built in one step (a strategy
        that windows a long document makes thousands)."""
        return frozen_instance(
            cls, **{**_DEFAULT_FIELDS, "start": start, "end": end, "reason": reason, "metadata": metadata}
        )

    def with_reason(self, reason: Reason) -> "Piece":
        return replace(self, reason=reason)

    def with_metadata(self, **extra: Any) -> "Piece":
        return replace(self, metadata={**self.metadata, **extra})


#: Every field of a piece at its default (what :meth:`Piece.window` starts from).
_DEFAULT_FIELDS = dict(Piece(0, 0, Reason.SIZE_LIMIT).__dict__)

#: The engine facts' metadata keys as plain strings (a chunk's metadata has plain string keys).
_SEPARATOR, _SPLIT_UNIT = str(Meta.SEPARATOR), str(Meta.SPLIT_UNIT)
_OVER_SIZE_LIMIT, _INDIVISIBLE = str(Meta.OVER_SIZE_LIMIT), str(Meta.INDIVISIBLE)


def engine_metadata(piece: Piece, at_document_end: bool = False) -> dict[str, Any]:
    """The piece's metadata plus the engine facts under their vocabulary names (no separator
    for a piece that ends the document: nothing cut it there)."""
    metadata: dict[str, Any] = {str(k): v for k, v in piece.metadata.items()}
    if piece.separator is not None and not at_document_end:
        metadata[_SEPARATOR] = piece.separator
    if piece.split_unit:
        metadata[_SPLIT_UNIT] = True
    if piece.over_limit:
        metadata[_OVER_SIZE_LIMIT] = True
        metadata[_INDIVISIBLE] = True
    return metadata


def to_chunks(document: Document, pieces: Sequence[Piece]) -> list[Chunk]:
    """Chunks for ``pieces`` in the given order: ``index`` is the position in the list, a piece
    ending at the end of the text gets the reason ``end_of_document``, and every chunk's
    ``boundary`` is the document structure's boundary at its end: read for every chunk at once
    when the first one is asked for it (a caller that never reads a boundary, e.g. one that
    only embeds the chunks, skips the structure's analysis of the cuts)."""
    text = document.text
    n = len(text)
    ends = [piece.end for piece in pieces]
    batch = BoundaryBatch(lambda: document.structure.boundaries_at(ends))
    boundaries = [PendingBoundary(batch, index) for index in range(len(pieces))]
    from_span = Chunk.from_span
    return [
        from_span(
            text,
            index,
            piece.start,
            piece.end,
            Reason.END_OF_DOCUMENT if piece.end >= n else piece.reason,
            boundary=boundary,
            parent=piece.parent,
            level=piece.level,
            added_text=piece.added_text,
            metadata=engine_metadata(piece, at_document_end=piece.end >= n),
        )
        for index, (piece, boundary) in enumerate(zip(pieces, boundaries))
    ]
