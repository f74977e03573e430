"""Oracles of the ``code`` strategy: the multi-level convention of its chunks."""

from __future__ import annotations

from typing import Sequence

from chunkviz.core.types import Chunk


def assert_valid_levels(text: str, chunks: Sequence[Chunk]) -> None:
    """The multi-level convention: one list ordered by level then start; level 0 tiles the
    document; children lie inside their parent and tile it."""
    assert chunks, "non-blank text gave no chunks"
    for k, c in enumerate(chunks):
        assert c.index == k
        assert 0 <= c.start < c.end <= len(text)
        assert c.text == text[c.start : c.end]
    keys = [(c.level, c.start) for c in chunks]
    assert keys == sorted(keys), "chunks are not ordered by level then start"
    top = [c for c in chunks if c.level == 0]
    assert top[0].start == 0 and top[-1].end == len(text)
    for a, b in zip(top, top[1:]):
        assert a.end == b.start, f"level-0 chunks {a.index} and {b.index} do not tile"
    children: dict[int, list[Chunk]] = {}
    for c in chunks:
        if c.level == 0:
            assert c.parent is None
            continue
        assert c.parent is not None and 0 <= c.parent < c.index
        parent = chunks[c.parent]
        assert parent.level == c.level - 1
        assert parent.start <= c.start and c.end <= parent.end, f"child {c.index} is outside its parent"
        children.setdefault(c.parent, []).append(c)
    for parent_index, kids in children.items():
        parent = chunks[parent_index]
        assert kids[0].start == parent.start and kids[-1].end == parent.end
        for a, b in zip(kids, kids[1:]):
            assert a.end == b.start, f"children {a.index} and {b.index} of {parent_index} do not tile it"
    for c in chunks:
        if c.reason == "end_of_document":
            assert c.end == len(text)
