"""Where the evaluation places each chunk in its document: exactly, or as Chroma's study did.

chunkviz chunks are spans (``text == document[start:end]``), so ``"exact"`` keeps them. Chroma's
"Evaluating Chunking Strategies for Retrieval" received chunk *texts* from its splitters and
placed each with ``rigorous_document_search``: drop one trailing ``"."``, then the *first*
``str.find`` of the rest. A chunk whose text also occurs earlier is then scored at the earlier
place, and a chunk ending in a period loses it. ``"first_find"`` reproduces that placement, so
the two mappings can be compared on the same chunks. The finds of one document share a
:class:`~chunkviz.text.textsearch.TextSearch`, so placing many chunks in a long document is not
quadratic (each ``str.find`` from the start would scan up to its chunk).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from chunkviz.core.types import Chunk
from chunkviz.text.textsearch import TextSearch

PLACEMENTS = ("exact", "first_find")


def check_placement(placement: str) -> str:
    """``placement`` itself, or a ValueError naming the choices."""
    if placement not in PLACEMENTS:
        raise ValueError(f"placement must be one of {', '.join(PLACEMENTS)}, got {placement!r}")
    return placement


def first_find_span(text: str, chunk_text: str, search: TextSearch | None = None) -> tuple[int, int]:
    """Chroma's placement of ``chunk_text`` in ``text``: one trailing period dropped, first find
    (through ``search``, a search of ``text``, when given).

    Raises ValueError when the text does not occur (a chunkviz chunk always does).
    """
    target = chunk_text[:-1] if chunk_text.endswith(".") else chunk_text
    start = text.find(target) if search is None else search.find(target)
    if start < 0:
        raise ValueError(f"chunk text {chunk_text[:40]!r} does not occur in the document")
    return start, start + len(target)


def place(text: str, chunks: Sequence[Chunk], placement: str = "exact") -> list[Chunk]:
    """``chunks`` with their spans as ``placement`` puts them (``text == text[start:end]`` holds)."""
    if check_placement(placement) == "exact":
        return list(chunks)
    placed = []
    search = TextSearch(text)
    for c in chunks:
        start, end = first_find_span(text, c.text, search)
        if (start, end) == (c.start, c.end):
            placed.append(c)
        else:
            placed.append(
                replace(
                    c,
                    start=start,
                    end=end,
                    text=text[start:end],
                    metadata={**c.metadata, "exact_span": [c.start, c.end]},
                )
            )
    return placed
