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
    """Fenced or indented code blocks and pipe tables, as spans from first to last character."""
    return [Block(e.kind, e.start, e.end) for e in document_elements(text) if e.kind in ("code", "table")]


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


# --- Markdown / reStructuredText elements ------------------------------------------------------
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT_1 = re.compile(r"^ {0,3}=+[ \t]*$")
_SETEXT_2 = re.compile(r"^ {0,3}-+[ \t]*$")
_RST_ADORNMENT = re.compile(r"^([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])\1{2,}[ \t]*$")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+\S")
_BLOCKQUOTE = re.compile(r"^ {0,3}>")
_INDENTED_CODE = re.compile(r"^(?: {4}|\t)")


@dataclass(frozen=True)
class Element:
    """A structural element as a span of the text: heading, paragraph, table, code, list_item,
    blockquote (readers add page). Headings carry ``level`` (1 = top) and ``title``."""

    kind: str
    start: int
    end: int
    level: int = 0
    title: str = ""


@dataclass(frozen=True)
class Section:
    """A heading and everything under it up to the next heading of the same or a higher level."""

    heading: Element
    start: int
    end: int
    path: tuple[str, ...]  # titles from the top-level ancestor down to this heading
    parent: int | None  # index of the enclosing section in the section list


_RST_MARKERS = re.compile(r"^\.\. [\w-]+::|::[ \t]*\r?\n[ \t]*\r?\n[ \t]+\S", re.MULTILINE)


def detect_markup(text: str) -> str:
    """``rst`` when the text has reStructuredText directives or literal blocks, else ``markdown``."""
    return "rst" if _RST_MARKERS.search(text) else "markdown"


def _rst_literal_end(text: str, lines: list[tuple[int, int]], i: int) -> int:
    """Last line of the indented literal block that follows line ``i`` (a ``::`` line)."""
    base = len(text[lines[i][0] : lines[i][1]]) - len(text[lines[i][0] : lines[i][1]].lstrip())
    j = i
    last = i
    while j + 1 < len(lines):
        body = text[lines[j + 1][0] : lines[j + 1][1]]
        if body.strip():
            indent = len(body) - len(body.lstrip())
            if indent <= base:
                break
            last = j + 1
        j += 1
    return last


def document_elements(text: str, markup: str = "auto") -> list[Element]:
    """Headings (ATX, setext, reStructuredText underlines), code, tables, list items, quotes and
    paragraphs, in document order. ``#`` lines inside fenced or indented code are not headings;
    in reStructuredText (``markup="rst"``, detected by default) ``#`` never makes a heading and
    indented blocks after ``::`` are code."""
    if markup == "auto":
        markup = detect_markup(text)
    rst = markup == "rst"
    lines = _lines(text)
    elements: list[Element] = []
    rst_levels: dict[str, int] = {}
    i = 0
    previous_blank = True
    while i < len(lines):
        start, end = lines[i]
        line = text[start:end]
        if not line.strip():
            previous_blank = True
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(1)
            j = i + 1
            while j < len(lines):
                body = text[lines[j][0] : lines[j][1]]
                close = _FENCE.match(body)
                if close and close.group(1)[0] == marker[0] and len(close.group(1)) >= len(marker) and not body.strip(" `~"):
                    break
                j += 1
            last = min(j, len(lines) - 1)
            elements.append(Element("code", start, lines[last][1]))
            i, previous_blank = last + 1, False
            continue
        if previous_blank and _INDENTED_CODE.match(line) and not _LIST_ITEM.match(line.lstrip()):
            j = i
            while j + 1 < len(lines) and (_INDENTED_CODE.match(text[lines[j + 1][0] : lines[j + 1][1]]) or not text[lines[j + 1][0] : lines[j + 1][1]].strip()):
                j += 1
            while j > i and not text[lines[j][0] : lines[j][1]].strip():
                j -= 1
            elements.append(Element("code", start, lines[j][1]))
            i, previous_blank = j + 1, False
            continue
        # reStructuredText overline + title + underline
        over = _RST_ADORNMENT.match(line)
        if over and i + 2 < len(lines):
            title_line = text[lines[i + 1][0] : lines[i + 1][1]]
            under = _RST_ADORNMENT.match(text[lines[i + 2][0] : lines[i + 2][1]])
            if title_line.strip() and under and under.group(1) == over.group(1):
                style = "over" + over.group(1)
                level = rst_levels.setdefault(style, len(rst_levels) + 1)
                elements.append(Element("heading", start, lines[i + 2][1], min(level, 6), title_line.strip()))
                i, previous_blank = i + 3, False
                continue
        if rst and (line.rstrip().endswith("::") or line.lstrip().startswith(".. ")):
            last = _rst_literal_end(text, lines, i)
            if last > i:
                elements.append(Element("code", start, lines[last][1]))
                i, previous_blank = last + 1, False
                continue
        atx = None if rst else _ATX.match(line)
        if atx:
            elements.append(Element("heading", start, end, len(atx.group(1)), (atx.group(2) or "").strip()))
            i, previous_blank = i + 1, False
            continue
        if _TABLE_CANDIDATE(line) and i + 1 < len(lines) and _TABLE_DELIMITER.match(text[lines[i + 1][0] : lines[i + 1][1]]):
            j = i + 2
            while j < len(lines) and "|" in text[lines[j][0] : lines[j][1]] and text[lines[j][0] : lines[j][1]].strip():
                j += 1
            elements.append(Element("table", start, lines[j - 1][1]))
            i, previous_blank = j, False
            continue
        if _LIST_ITEM.match(line):
            j = i
            while j + 1 < len(lines):
                nxt = text[lines[j + 1][0] : lines[j + 1][1]]
                if not nxt.strip() or _LIST_ITEM.match(nxt) or _ATX.match(nxt) or _FENCE.match(nxt):
                    break
                j += 1
            elements.append(Element("list_item", start, lines[j][1]))
            i, previous_blank = j + 1, False
            continue
        if _BLOCKQUOTE.match(line):
            j = i
            while j + 1 < len(lines) and _BLOCKQUOTE.match(text[lines[j + 1][0] : lines[j + 1][1]]):
                j += 1
            elements.append(Element("blockquote", start, lines[j][1]))
            i, previous_blank = j + 1, False
            continue
        # a paragraph: contiguous lines up to a blank line or another block; maybe a setext heading
        j = i
        heading: Element | None = None
        while j + 1 < len(lines):
            nxt = text[lines[j + 1][0] : lines[j + 1][1]]
            if not nxt.strip():
                break
            if _SETEXT_1.match(nxt) or _SETEXT_2.match(nxt):
                level = 1 if _SETEXT_1.match(nxt) else 2
                if rst and j == i and len(nxt.strip()) >= 3 and _RST_ADORNMENT.match(nxt):
                    # reStructuredText: levels follow the order in which adornment styles appear
                    level = rst_levels.setdefault(nxt.strip()[0], len(rst_levels) + 1)
                title = " ".join(text[s:e].strip() for s, e in lines[i : j + 1])
                heading = Element("heading", start, lines[j + 1][1], min(level, 6), title)
                j += 1
                break
            underline = _RST_ADORNMENT.match(nxt)
            if underline and j == i and len(nxt.strip()) >= len(line.strip()):
                level = rst_levels.setdefault(underline.group(1), len(rst_levels) + 1)
                heading = Element("heading", start, lines[j + 1][1], min(level, 6), line.strip())
                j += 1
                break
            if (not rst and _ATX.match(nxt)) or _FENCE.match(nxt) or _LIST_ITEM.match(nxt) or _BLOCKQUOTE.match(nxt):
                break
            j += 1
        elements.append(heading or Element("paragraph", start, lines[j][1]))
        i, previous_blank = j + 1, False
    return elements


def _TABLE_CANDIDATE(line: str) -> bool:  # noqa: N802 - reads like a pattern
    return "|" in line


def sections(text: str, elements: Sequence[Element] | None = None) -> list[Section]:
    """Every heading's section: from the heading to the next heading of the same or higher level."""
    heads = [e for e in (elements if elements is not None else document_elements(text)) if e.kind == "heading"]
    out: list[Section] = []
    stack: list[int] = []  # indices into out of the open ancestors
    for k, head in enumerate(heads):
        end = len(text)
        for later in heads[k + 1 :]:
            if later.level <= head.level:
                end = later.start
                break
        while stack and out[stack[-1]].heading.level >= head.level:
            stack.pop()
        parent = stack[-1] if stack else None
        path = (*(out[parent].path if parent is not None else ()), head.title)
        out.append(Section(head, head.start, end, path, parent))
        stack.append(len(out) - 1)
    return out


def heading_path_at(section_list: Sequence[Section], pos: int) -> tuple[str, ...]:
    """Titles of the sections that contain ``pos`` (innermost last); () before the first heading."""
    best: tuple[str, ...] = ()
    for section in section_list:
        if section.start <= pos < section.end and len(section.path) > len(best):
            best = section.path
    return best
