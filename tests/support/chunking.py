"""The span contract: ``assert_valid_chunking`` is the one place that states what every flat
chunking must satisfy (strategy, property and real-document tests all go through it), the
multi-level convention, and short views of a chunk list for exact expected-output comparisons."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import pytest

from chunkviz.core.types import Chunk, Reason
from chunkviz.document.model import as_document
from chunkviz.text.tokenizers import Tokenizer, get_tokenizer

REASONS = {str(r) for r in Reason}


def _tokenizer(tokenizer: str | Tokenizer | None) -> Tokenizer | None:
    if tokenizer is None:
        return None
    return get_tokenizer(tokenizer)


def assert_valid_chunking(
    text: str,
    chunks: Sequence[Chunk],
    *,
    limit: int | None = None,
    tokenizer: str | Tokenizer | None = None,
    overlap_tokens: int | None = None,
    limit_of: Any = None,
    strictly_advancing: bool = False,
    allow_added_text: bool = False,
    format: str | None = None,
) -> None:
    """Check the span contract of a chunking of ``text``.

    - every chunk is a Chunk with ``0 <= start < end <= len(text)`` and ``text == doc[start:end]``;
    - its boundary is the document structure's boundary at its end (``format`` as given to chunk);
    - its reason is a known reason; ``end_of_document`` only on a chunk ending at the end;
    - indexes are ``0..n-1``; chunks are ordered by ``(start, end)`` with non-decreasing starts
      and ends (strictly increasing ends when ``strictly_advancing``);
    - the union of the spans covers every non-whitespace character of ``text``;
    - with ``limit`` (and ``tokenizer``): no chunk has more than ``limit`` tokens (counted on its
      text alone; ``limit_of(chunk)`` overrides the measure, e.g. ``len``) unless its metadata
      says ``indivisible``;
    - with ``overlap_tokens`` (and ``tokenizer``): the text shared by two consecutive chunks has
      at most that many tokens;
    - no chunk carries ``added_text`` unless ``allow_added_text`` (flat span strategies add none).
    Empty or whitespace-only text must give no chunks.

    Multi-level chunkings (some chunk has ``level > 0`` or a ``parent``) are checked level by
    level: order, limit and overlap hold within each level; the outermost level covers the text
    (a deeper level may cover only the parts that have finer structure); levels come in
    increasing order; a parent is an earlier chunk one level up whose span contains its child's.
    """
    tok = _tokenizer(tokenizer)
    if (limit is not None and limit_of is None) or overlap_tokens is not None:
        assert tok is not None, "a tokenizer is needed to check token limits"
    chunks = list(chunks)
    if not text.strip():
        assert chunks == [], f"whitespace-only text gave chunks: {chunks!r}"
        return
    assert chunks, "non-blank text gave no chunks"
    n = len(text)
    structure = as_document(text, format).structure
    for k, c in enumerate(chunks):
        assert isinstance(c, Chunk), f"chunk {k} is {type(c).__name__}, not Chunk"
        assert c.index == k, f"chunk {k} has index {c.index}"
        assert 0 <= c.start < c.end <= n, f"chunk {k} has span [{c.start}, {c.end}) in a text of length {n}"
        assert c.text == text[c.start : c.end], (
            f"chunk {k}: text {c.text!r} != doc[{c.start}:{c.end}] {text[c.start : c.end]!r}"
        )
        assert c.reason in REASONS, f"chunk {k} has unknown reason {c.reason!r}"
        assert c.boundary == structure.boundary_at(c.end), (
            f"chunk {k} says its cut at {c.end} is a {c.boundary!s} boundary; the document says {structure.boundary_at(c.end)!s}"
        )
        if c.reason == Reason.END_OF_DOCUMENT:
            assert c.end == n, f"chunk {k} says end_of_document but ends at {c.end} of {n}"
        assert allow_added_text or c.added_text == "", (
            f"chunk {k} of a flat span strategy has added text {c.added_text!r}"
        )
    multilevel = any(c.level != 0 or c.parent is not None for c in chunks)
    if multilevel:
        levels = [c.level for c in chunks]
        assert levels == sorted(levels), f"levels are not in increasing order: {levels}"
        for k, c in enumerate(chunks):
            if c.parent is None:
                assert c.level == levels[0], f"chunk {k} at level {c.level} has no parent"
                continue
            assert 0 <= c.parent < k, f"chunk {k} has parent {c.parent}, not an earlier chunk"
            parent = chunks[c.parent]
            assert parent.level == c.level - 1, f"chunk {k} (level {c.level}) has a parent at level {parent.level}"
            assert parent.start <= c.start and c.end <= parent.end, (
                f"chunk {k} [{c.start}, {c.end}) is not inside its parent {c.parent} [{parent.start}, {parent.end})"
            )
        groups = [[c for c in chunks if c.level == lvl] for lvl in sorted(set(levels))]
    else:
        groups = [chunks]
    for depth, group in enumerate(groups):
        _check_one_level(text, group, tok, limit, limit_of, overlap_tokens, strictly_advancing, coverage=depth == 0)


def _check_one_level(
    text: str,
    chunks: list[Chunk],
    tok: Tokenizer | None,
    limit: int | None,
    limit_of: Any,
    overlap_tokens: int | None,
    strictly_advancing: bool,
    coverage: bool = True,
) -> None:
    for k in range(1, len(chunks)):
        prev, cur = chunks[k - 1], chunks[k]
        where = f"chunks {prev.index} and {cur.index}"
        assert (prev.start, prev.end) <= (cur.start, cur.end), f"{where} are out of order"
        assert prev.start <= cur.start, f"{where}: the second starts at {cur.start} before the first ({prev.start})"
        assert prev.end <= cur.end, f"{where}: the second ends at {cur.end} before the first ({prev.end})"
        if strictly_advancing:
            assert prev.end < cur.end, (
                f"chunk {cur.index} [{cur.start}, {cur.end}) adds nothing after chunk {prev.index}"
            )
    # coverage: every non-whitespace character lies in some chunk
    covered_to = 0
    for c in chunks if coverage else []:
        if c.start > covered_to:
            gap = text[covered_to : c.start]
            assert not gap.strip(), f"text[{covered_to}:{c.start}] = {gap!r} is in no chunk (level {c.level})"
        covered_to = max(covered_to, c.end)
    tail = text[covered_to:]
    assert not coverage or not tail.strip(), f"text[{covered_to}:] = {tail!r} is in no chunk"
    if limit is not None:
        measure = limit_of or tok.count  # type: ignore[union-attr]
        for c in chunks:
            size = measure(c) if limit_of else measure(c.text)
            if c.metadata.get("indivisible"):
                continue
            assert size <= limit, (
                f"chunk {c.index} {c.text!r} has {size} > {limit} tokens and is not flagged indivisible"
            )
    if overlap_tokens is not None:
        for k in range(1, len(chunks)):
            prev, cur = chunks[k - 1], chunks[k]
            if cur.start < prev.end:
                shared = text[cur.start : min(prev.end, cur.end)]
                got = tok.count(shared)  # type: ignore[union-attr]
                assert got <= overlap_tokens, (
                    f"chunks {prev.index} and {cur.index} share {shared!r} = {got} tokens > overlap {overlap_tokens}"
                )


@pytest.fixture
def valid_chunking():
    """The contract checker as a fixture (for tests that prefer fixtures to imports)."""
    return assert_valid_chunking


def spans(chunks: Iterable[Chunk]) -> list[tuple[int, int, str]]:
    """(start, end, reason) of every chunk, for exact expected-output comparisons."""
    return [(c.start, c.end, str(c.reason)) for c in chunks]


def cuts(chunks: Iterable[Chunk]) -> list[tuple[int, int, str]]:
    """(start, end, boundary) of every chunk: where each cut falls in the document's structure."""
    return [(c.start, c.end, str(c.boundary)) for c in chunks]


def boundaries(chunks: Iterable[Chunk]) -> list[str]:
    return [str(c.boundary) for c in chunks]


def reasons(chunks: Iterable[Chunk]) -> list[str]:
    return [str(c.reason) for c in chunks]


def texts(chunks: Iterable[Chunk]) -> list[str]:
    return [c.text for c in chunks]


# ----------------------------------------------------------------------------- multi-level chunkings


def assert_valid_multilevel(text: str, chunks: list[Chunk]) -> tuple[list[Chunk], list[Chunk]]:
    """The multi-level convention; returns (parents, children)."""
    if not text.strip():
        assert chunks == []
        return [], []
    reasons = {str(r) for r in Reason}
    n = len(text)
    assert chunks
    for k, c in enumerate(chunks):
        assert c.index == k
        assert 0 <= c.start < c.end <= n, (k, c.start, c.end)
        assert c.text == text[c.start : c.end]
        assert c.reason in reasons
        if c.reason == Reason.END_OF_DOCUMENT:
            assert c.end == n
        assert c.added_text == ""
        assert c.level in (0, 1)
    levels = [c.level for c in chunks]
    assert levels == sorted(levels), "all parents first, then all children"
    parents = [c for c in chunks if c.level == 0]
    children = [c for c in chunks if c.level == 1]
    assert parents and children
    for level in (parents, children):
        for a, b in zip(level, level[1:]):
            assert (a.start, a.end) <= (b.start, b.end) and a.end <= b.end, "each level in document order"
    # parents: no parent, tile the document (so they cover every non-whitespace character)
    assert all(p.parent is None for p in parents)
    assert parents[0].start == 0 and parents[-1].end == n
    for a, b in zip(parents, parents[1:]):
        assert a.end == b.start
    # children: inside their parent, grouped by parent in order, covering the parent's non-space
    assert [c.parent for c in children] == sorted(c.parent for c in children)
    by_parent: dict[int, list[Chunk]] = {}
    for c in children:
        assert c.parent is not None and 0 <= c.parent < len(parents)
        p = chunks[c.parent]
        assert p.level == 0 and p.start <= c.start and c.end <= p.end, (c, p)
        by_parent.setdefault(c.parent, []).append(c)
    assert set(by_parent) == set(range(len(parents))), "every parent has children"
    for index, kids in by_parent.items():
        p = chunks[index]
        covered = p.start
        for c in kids:
            assert not text[covered : c.start].strip(), f"parent {index}: {text[covered : c.start]!r} in no child"
            covered = max(covered, c.end)
        assert not text[covered : p.end].strip()
    return parents, children
