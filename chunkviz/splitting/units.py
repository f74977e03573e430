"""Splitting one oversized unit (a section, a sentence, a function) with the recursive splitter.

Structure-aware strategies cut at their own units and hand a unit that is over their size limit
to the engine: :func:`unit_splitter` builds the recursive splitter on the document's shared span
counter, :func:`split_unit` returns the unit's pieces marked ``split_unit`` and carrying the
unit's metadata. Inner cuts are ``size_limit`` with their separator; the last piece ends with
the reason the whole unit would have had.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

from chunkviz.core.vocabulary import Reason
from chunkviz.splitting.pieces import Piece
from chunkviz.splitting.recursive import RecursiveSplitter
from chunkviz.text.spancount import SpanCounter

#: How a section is split when it is over the limit: the Markdown preset without its heading
#: separators (the headings are already the outer level): paragraph, line, word, character.
SECTION_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", " ", "")


def unit_splitter(
    text: str, counter: SpanCounter, max_tokens: int, separators: Sequence[str], overlap: int = 0
) -> RecursiveSplitter:
    """The recursive splitter for ``text`` on its shared span counter."""
    return RecursiveSplitter(text, counter.tokenizer, max_tokens, overlap, list(separators), counter=counter)


def split_unit(
    splitter: RecursiveSplitter, start: int, end: int, final_reason: Reason, metadata: Mapping[str, Any] | None = None
) -> list[Piece]:
    """The pieces of the unit ``[start, end)``, each marked ``split_unit`` with ``metadata``."""
    extra = dict(metadata or {})
    return [
        replace(piece, split_unit=True, metadata={**extra, **piece.metadata})
        for piece in splitter.split_span(start, end, final_reason)
    ]


__all__ = ["SECTION_SEPARATORS", "split_unit", "unit_splitter"]
