"""Blocks that should not be cut: fenced code and pipe tables in Markdown-like text.

A light line scanner (no Markdown library): fenced code opens with three or more backticks or
tildes and closes with a fence of the same character at least as long; a pipe table is a header
row, a delimiter row of dashes (``|---|:--:|``) and the rows after it. Used to flag chunk
boundaries that split a table or a code block.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Sequence

from chunkviz.types import Chunk

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)+\|?\s*$")


@dataclass(frozen=True)
class Block:
    kind: str  # "code" or "table"
    start: int
    end: int


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end-without-line-break) of every line."""
    spans = []
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        spans.append((pos, pos + len(body)))
        pos += len(line)
    return spans


def find_blocks(text: str) -> list[Block]:
    """Fenced code blocks and pipe tables, as spans from their first to last character."""
    lines = _lines(text)
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        start, end = lines[i]
        line = text[start:end]
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(1)
            j = i + 1
            while j < len(lines):
                s, e = lines[j]
                close = _FENCE.match(text[s:e])
                if close and close.group(1)[0] == marker[0] and len(close.group(1)) >= len(marker) and not text[s:e].strip(" `~"):
                    break
                j += 1
            last = min(j, len(lines) - 1)
            blocks.append(Block("code", start, lines[last][1]))
            i = last + 1
            continue
        if "|" in line and i + 1 < len(lines):
            s2, e2 = lines[i + 1]
            if _TABLE_DELIMITER.match(text[s2:e2]):
                j = i + 2
                while j < len(lines) and "|" in text[lines[j][0] : lines[j][1]] and text[lines[j][0] : lines[j][1]].strip():
                    j += 1
                blocks.append(Block("table", start, lines[j - 1][1]))
                i = j
                continue
        i += 1
    return blocks


def split_block_flags(text: str, chunks: Sequence[Chunk], blocks: Sequence[Block] | None = None) -> dict[int, tuple[str, ...]]:
    """For each chunk whose end falls strictly inside a block: ``split_table`` / ``split_code``."""
    if blocks is None:
        blocks = find_blocks(text)
    flags: dict[int, tuple[str, ...]] = {}
    if not blocks:
        return flags
    ordered = sorted(blocks, key=lambda b: b.start)
    starts = [b.start for b in ordered]
    for c in chunks:
        k = bisect.bisect_left(starts, c.end) - 1  # last block starting before the cut
        if k < 0 or c.end >= len(text):
            continue
        block = ordered[k]
        if c.end < block.end and text[block.start : c.end].strip() and text[c.end : block.end].strip():
            flags[c.index] = (f"split_{block.kind}",)
    return flags
