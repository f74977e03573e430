"""Structural blocks of a document as exact spans of its text."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Block:
    """A structural block from its first to its last non-space character.

    ``kind`` is one of heading, paragraph, code, table, list_item, blockquote (from the markup)
    or page, function, class (from a reader). Headings carry ``level`` (1 = top) and ``title``;
    tables carry ``rows``: the (start, end) span of each line, header and delimiter included.
    """

    kind: str
    start: int
    end: int
    level: int = 0
    title: str = ""
    rows: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Section:
    """A heading and everything under it up to the next heading of the same or a higher level."""

    heading: Block
    start: int
    end: int
    path: tuple[str, ...]  # titles from the top-level ancestor down to this heading
    parent: int | None  # index of the enclosing section in the section list


@dataclass(frozen=True)
class LeafSection:
    """A section cut at every kept heading: from its heading to the next kept heading."""

    start: int
    end: int
    path: tuple[str, ...]  # () for the text before the first heading
    heading_level: int  # 0 for the text before the first heading
