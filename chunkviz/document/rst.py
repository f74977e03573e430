"""reStructuredText blocks as exact spans: a small line scanner (tested in tests/test_structure.py).

Headings are over- and underlined titles; their levels follow the order in which adornment
styles first appear, as docutils assigns them. ``#`` never makes a heading. Indented blocks
after ``::`` and directive bodies (``.. name::``) are code; pipe tables, list items, block
quotes and paragraphs are recognised as in Markdown. Markdown itself is parsed by
markdown-it-py (:mod:`chunkviz.document.markdown`).
"""

from __future__ import annotations

import re

from chunkviz.document.blocks import Block

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)+\|?\s*$")


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end-without-line-break) of every line."""
    spans = []
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        spans.append((pos, pos + len(body)))
        pos += len(line)
    return spans


_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT_1 = re.compile(r"^ {0,3}=+[ \t]*$")
_SETEXT_2 = re.compile(r"^ {0,3}-+[ \t]*$")
_RST_ADORNMENT = re.compile(r"^([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])\1{2,}[ \t]*$")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+\S")
_BLOCKQUOTE = re.compile(r"^ {0,3}>")
_INDENTED_CODE = re.compile(r"^(?: {4}|\t)")


_RST_MARKERS = re.compile(r"^\.\. [\w-]+::|::[ \t]*\r?\n[ \t]*\r?\n[ \t]+\S", re.MULTILINE)


def detect_markup(text: str) -> str:
    """``rst`` when the text has reStructuredText directives or literal blocks, else ``markdown``."""
    if "::" not in text:  # both markers contain it: a plain substring test skips the regex
        return "markdown"
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


def rst_blocks(text: str) -> list[Block]:  # noqa: C901 - one line scanner; each branch is one block kind
    """Headings, code, tables, list items, quotes and paragraphs of reStructuredText, in order."""
    rst = True
    lines = _lines(text)
    elements: list[Block] = []
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
            elements.append(Block("code", start, lines[last][1]))
            i, previous_blank = last + 1, False
            continue
        if previous_blank and _INDENTED_CODE.match(line) and not _LIST_ITEM.match(line.lstrip()):
            j = i
            while j + 1 < len(lines) and (_INDENTED_CODE.match(text[lines[j + 1][0] : lines[j + 1][1]]) or not text[lines[j + 1][0] : lines[j + 1][1]].strip()):
                j += 1
            while j > i and not text[lines[j][0] : lines[j][1]].strip():
                j -= 1
            elements.append(Block("code", start, lines[j][1]))
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
                elements.append(Block("heading", start, lines[i + 2][1], min(level, 6), title_line.strip()))
                i, previous_blank = i + 3, False
                continue
        if rst and (line.rstrip().endswith("::") or line.lstrip().startswith(".. ")):
            last = _rst_literal_end(text, lines, i)
            if last > i:
                elements.append(Block("code", start, lines[last][1]))
                i, previous_blank = last + 1, False
                continue
        atx = None if rst else _ATX.match(line)
        if atx:
            elements.append(Block("heading", start, end, len(atx.group(1)), (atx.group(2) or "").strip()))
            i, previous_blank = i + 1, False
            continue
        if _TABLE_CANDIDATE(line) and i + 1 < len(lines) and _TABLE_DELIMITER.match(text[lines[i + 1][0] : lines[i + 1][1]]):
            j = i + 2
            while j < len(lines) and "|" in text[lines[j][0] : lines[j][1]] and text[lines[j][0] : lines[j][1]].strip():
                j += 1
            elements.append(Block("table", start, lines[j - 1][1]))
            i, previous_blank = j, False
            continue
        if _LIST_ITEM.match(line):
            j = i
            while j + 1 < len(lines):
                nxt = text[lines[j + 1][0] : lines[j + 1][1]]
                if not nxt.strip() or _LIST_ITEM.match(nxt) or _ATX.match(nxt) or _FENCE.match(nxt):
                    break
                j += 1
            elements.append(Block("list_item", start, lines[j][1]))
            i, previous_blank = j + 1, False
            continue
        if _BLOCKQUOTE.match(line):
            j = i
            while j + 1 < len(lines) and _BLOCKQUOTE.match(text[lines[j + 1][0] : lines[j + 1][1]]):
                j += 1
            elements.append(Block("blockquote", start, lines[j][1]))
            i, previous_blank = j + 1, False
            continue
        # a paragraph: contiguous lines up to a blank line or another block; maybe a setext heading
        j = i
        heading: Block | None = None
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
                heading = Block("heading", start, lines[j + 1][1], min(level, 6), title)
                j += 1
                break
            underline = _RST_ADORNMENT.match(nxt)
            if underline and j == i and len(nxt.strip()) >= len(line.strip()):
                level = rst_levels.setdefault(underline.group(1), len(rst_levels) + 1)
                heading = Block("heading", start, lines[j + 1][1], min(level, 6), line.strip())
                j += 1
                break
            if (not rst and _ATX.match(nxt)) or _FENCE.match(nxt) or _LIST_ITEM.match(nxt) or _BLOCKQUOTE.match(nxt):
                break
            j += 1
        elements.append(heading or Block("paragraph", start, lines[j][1]))
        i, previous_blank = j + 1, False
    return elements


def _TABLE_CANDIDATE(line: str) -> bool:  # noqa: N802 - reads like a pattern
    return "|" in line


