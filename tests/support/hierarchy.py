"""Oracles of the section strategies (headings, hierarchical): the contract of one section chunk,
tiling, the multi-level rule of ``hierarchical`` and the heading paths a generated document must give."""

from __future__ import annotations

from typing import Sequence

from chunkviz.core.types import Chunk
from support.chunking import REASONS
from support.texts import Head


def check_section_chunk(text: str, c: Chunk, k: int) -> None:
    """The span contract of one chunk of a section strategy (headings, hierarchical)."""
    assert isinstance(c, Chunk)
    assert c.index == k, f"chunk {k} has index {c.index}"
    assert 0 <= c.start < c.end <= len(text), (k, c.start, c.end, len(text))
    assert c.text == text[c.start : c.end]
    assert c.reason in REASONS, c.reason
    assert (c.reason == "end_of_document") == (c.end == len(text)), (k, c.reason, c.end, len(text))
    assert c.added_text == ""
    path = c.metadata["heading_path"]
    assert isinstance(path, list) and all(isinstance(t, str) for t in path)
    assert c.metadata["section"] == " > ".join(path)


def assert_tiles(text: str, parts: Sequence[Chunk], start: int, end: int, what: str) -> None:
    """``parts`` (in order) run contiguously from ``start`` to ``end``."""
    assert parts, f"{what}: no chunks"
    assert parts[0].start == start, f"{what}: starts at {parts[0].start}, not {start}"
    for a, b in zip(parts, parts[1:]):
        assert a.end == b.start, f"{what}: gap or overlap between [{a.start},{a.end}) and [{b.start},{b.end})"
    assert parts[-1].end == end, f"{what}: ends at {parts[-1].end}, not {end}"


def children_of(chunks: Sequence[Chunk]) -> dict[int, list[Chunk]]:
    kids: dict[int, list[Chunk]] = {}
    for c in chunks:
        if c.parent is not None:
            kids.setdefault(c.parent, []).append(c)
    return kids


def check_hierarchy(text: str, chunks: Sequence[Chunk]) -> None:
    """The multi-level rule of ``hierarchical`` (see its module docstring)."""
    if not text.strip():
        assert chunks == []
        return
    assert chunks
    for k, c in enumerate(chunks):
        check_section_chunk(text, c, k)
    # order: by level, then start; levels 0, 1, ... without holes; starts strictly increase in a level
    keys = [(c.level, c.start) for c in chunks]
    assert keys == sorted(keys) and len(set(keys)) == len(keys), "not ordered by (level, start)"
    levels = sorted({c.level for c in chunks})
    assert levels == list(range(len(levels)))
    for c in chunks:
        if c.level == 0:
            assert c.parent is None
        else:
            assert c.parent is not None and 0 <= c.parent < len(chunks)
            p = chunks[c.parent]
            assert p.level == c.level - 1, f"chunk {c.index} (level {c.level}) has parent of level {p.level}"
            assert p.start <= c.start and c.end <= p.end, f"chunk {c.index} lies outside its parent {p.index}"
            assert c.metadata["heading_path"][: len(p.metadata["heading_path"])] == p.metadata["heading_path"]
    # level 0 tiles the document
    top = [c for c in chunks if c.level == 0]
    assert_tiles(text, top, 0, len(text), "level 0")
    # children tile their parent exactly; no sibling overlaps
    kids = children_of(chunks)
    for parent_index, children in kids.items():
        p = chunks[parent_index]
        assert_tiles(text, children, p.start, p.end, f"children of chunk {parent_index}")
    # the leaves tile the document
    leaves = sorted((c for c in chunks if c.index not in kids), key=lambda c: c.start)
    assert_tiles(text, leaves, 0, len(text), "leaves")
    # within a level, chunks do not overlap
    for level in levels:
        row = [c for c in chunks if c.level == level]
        for a, b in zip(row, row[1:]):
            assert a.end <= b.start


def oracle_paths(heads: Sequence[Head]) -> list[list[str]]:
    """Each heading's title path: titles of the open headings of lower level, then its own."""
    out: list[list[str]] = []
    stack: list[Head] = []
    for h in heads:
        while stack and stack[-1].level >= h.level:
            stack.pop()
        stack.append(h)
        out.append([s.title for s in stack])
    return out
