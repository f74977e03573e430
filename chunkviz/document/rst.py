"""reStructuredText blocks as exact spans: a small line scanner (tested in tests/test_rst.py).

Headings are over- and underlined titles; their levels follow the order in which adornment
styles first appear, as docutils assigns them. A line starting with ``#`` is never a heading
(``#`` is only an adornment character, as in ``#####`` lines). Indented blocks
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


#: a line like a Markdown ATX heading: never a heading in rst, but it ends a list item
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
#: lines of "=" or "-" (up to three spaces in): under one line they are adornments; under several
#: lines they still make a title, of level 1 ("=") or 2 ("-")
_EQUALS_LINE = re.compile(r"^ {0,3}=+[ \t]*$")
_DASH_LINE = re.compile(r"^ {0,3}-+[ \t]*$")
_RST_ADORNMENT = re.compile(r"^([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])\1{2,}[ \t]*$")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+\S")
_BLOCKQUOTE = re.compile(r"^ {0,3}>")
_INDENTED_CODE = re.compile(r"^(?: {4}|\t)")


_DOUBLE_COLON = re.compile(":(?=:)")  # every "::", overlapping ones too
_RST_DIRECTIVE = re.compile(r"\.\. [\w-]+::")
_RST_LITERAL = re.compile(r"::[ \t]*\r?\n[ \t]*\r?\n[ \t]+\S")


def detect_markup(text: str) -> str:
    """``rst`` when the text has a reStructuredText directive (a line ``.. name::``) or a literal
    block (``::``, a blank line, indented text), else ``markdown``. Both contain ``::``: only
    its occurrences are examined (a regex over the whole text costs ~70 ms on 3 MB)."""
    for match in _DOUBLE_COLON.finditer(text):  # the regex engine finds it ~3x faster than str.find
        pos = match.start()
        if _RST_LITERAL.match(text, pos) or _ends_a_directive(text, pos):
            return "rst"
    return "markdown"


def _ends_a_directive(text: str, pos: int) -> bool:
    """Whether the ``::`` at ``pos`` ends a ``.. name::`` at the start of its line."""
    newline = text.rfind("\n", 0, pos)
    line_start = max(newline, text.rfind("\r", newline + 1, pos)) + 1
    match = _RST_DIRECTIVE.match(text, line_start)
    return match is not None and match.end() == pos + 2


class _Lines:
    """The lines of a text and the heading level of every adornment style met so far."""

    def __init__(self, text: str) -> None:
        self.spans = _lines(text)
        self.text = text
        self._levels: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.spans)

    def __getitem__(self, i: int) -> str:
        start, end = self.spans[i]
        return self.text[start:end]

    def block(self, kind: str, first: int, last: int, level: int = 0, title: str = "") -> Block:
        """A block from the start of line ``first`` to the end of line ``last``."""
        return Block(kind, self.spans[first][0], self.spans[last][1], level, title)

    def level(self, style: str) -> int:
        """The level of an adornment style: styles get levels in the order they first appear."""
        return min(self._levels.setdefault(style, len(self._levels) + 1), 6)


#: a block and the index of the line after it
_Found = tuple[Block, int]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _fenced_code(lines: _Lines, i: int) -> _Found | None:
    """A ``` or ~~~ fence up to its closing fence (or the end of the text)."""
    fence = _FENCE.match(lines[i])
    if not fence:
        return None
    marker = fence.group(1)
    j = i + 1
    while j < len(lines):
        close = _FENCE.match(lines[j])
        if (
            close
            and close.group(1)[0] == marker[0]
            and len(close.group(1)) >= len(marker)
            and not lines[j].strip(" `~")
        ):
            break
        j += 1
    last = min(j, len(lines) - 1)
    return lines.block("code", i, last), last + 1


def _indented_code(lines: _Lines, i: int) -> _Found | None:
    """Lines indented by four spaces or a tab after a blank line (not a list item)."""
    after_blank = i == 0 or not lines[i - 1].strip()
    if not (after_blank and _INDENTED_CODE.match(lines[i]) and not _LIST_ITEM.match(lines[i].lstrip())):
        return None
    j = i
    while j + 1 < len(lines) and (_INDENTED_CODE.match(lines[j + 1]) or not lines[j + 1].strip()):
        j += 1
    while j > i and not lines[j].strip():
        j -= 1
    return lines.block("code", i, j), j + 1


def _overlined_title(lines: _Lines, i: int) -> _Found | None:
    """An adornment line, a title line and the same adornment again."""
    over = _RST_ADORNMENT.match(lines[i])
    if not over or i + 2 >= len(lines):
        return None
    title = lines[i + 1].strip()
    under = _RST_ADORNMENT.match(lines[i + 2])
    if not title or not under or under.group(1) != over.group(1):
        return None
    return lines.block("heading", i, i + 2, lines.level("over" + over.group(1)), title), i + 3


def _literal_block(lines: _Lines, i: int) -> _Found | None:
    """A line ending in ``::`` or a ``.. directive`` with the lines indented deeper after it."""
    line = lines[i]
    if not (line.rstrip().endswith("::") or line.lstrip().startswith(".. ")):
        return None
    base = _indent(line)
    last = i
    for j in range(i + 1, len(lines)):
        if lines[j].strip():
            if _indent(lines[j]) <= base:
                break
            last = j
    if last == i:
        return None
    return lines.block("code", i, last), last + 1


def _table(lines: _Lines, i: int) -> _Found | None:
    """A pipe table: a row, a delimiter row, and the non-blank lines with ``|`` after them."""
    if "|" not in lines[i] or i + 1 >= len(lines) or not _TABLE_DELIMITER.match(lines[i + 1]):
        return None
    j = i + 2
    while j < len(lines) and "|" in lines[j] and lines[j].strip():
        j += 1
    return lines.block("table", i, j - 1), j


def _list_item(lines: _Lines, i: int) -> _Found | None:
    """A bullet or enumerated item up to a blank line, the next item, a ``#`` line or a fence."""
    if not _LIST_ITEM.match(lines[i]):
        return None
    j = i
    while j + 1 < len(lines):
        nxt = lines[j + 1]
        if not nxt.strip() or _LIST_ITEM.match(nxt) or _ATX.match(nxt) or _FENCE.match(nxt):
            break
        j += 1
    return lines.block("list_item", i, j), j + 1


def _block_quote(lines: _Lines, i: int) -> _Found | None:
    """Consecutive lines starting with ``>``."""
    if not _BLOCKQUOTE.match(lines[i]):
        return None
    j = i
    while j + 1 < len(lines) and _BLOCKQUOTE.match(lines[j + 1]):
        j += 1
    return lines.block("blockquote", i, j), j + 1


def _paragraph_or_title(lines: _Lines, i: int) -> _Found:
    """Lines up to a blank line or the start of a fence, list item or quote; underlined, a title."""
    j = i
    while j + 1 < len(lines):
        nxt = lines[j + 1]
        if not nxt.strip():
            break
        title = _underlined_title(lines, i, j)
        if title is not None:
            return title, j + 2
        if _FENCE.match(nxt) or _LIST_ITEM.match(nxt) or _BLOCKQUOTE.match(nxt):
            break
        j += 1
    return lines.block("paragraph", i, j), j + 1


def _underlined_title(lines: _Lines, i: int, j: int) -> Block | None:
    """Lines ``i``..``j`` as a title when line ``j + 1`` underlines them, else None."""
    underline = lines[j + 1]
    adornment = _RST_ADORNMENT.match(underline)
    if _EQUALS_LINE.match(underline) or _DASH_LINE.match(underline):
        if j == i and adornment:
            level = lines.level(adornment.group(1))
        else:
            level = 1 if _EQUALS_LINE.match(underline) else 2
        title = " ".join(lines[k].strip() for k in range(i, j + 1))
        return lines.block("heading", i, j + 1, level, title)
    if adornment and j == i and len(underline.strip()) >= len(lines[i].strip()):
        return lines.block("heading", i, j + 1, lines.level(adornment.group(1)), lines[i].strip())
    return None


#: the block kinds tried at a non-blank line, in this order; a paragraph (or title) when none fits
_BLOCK_KINDS = (_fenced_code, _indented_code, _overlined_title, _literal_block, _table, _list_item, _block_quote)


def _block_at(lines: _Lines, i: int) -> _Found:
    """The block that starts at the non-blank line ``i``."""
    for kind in _BLOCK_KINDS:
        found = kind(lines, i)
        if found is not None:
            return found
    return _paragraph_or_title(lines, i)


def rst_blocks(text: str) -> list[Block]:
    """Headings, code, tables, list items, quotes and paragraphs of reStructuredText, in order."""
    lines = _Lines(text)
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        if lines[i].strip():
            block, i = _block_at(lines, i)
            blocks.append(block)
        else:
            i += 1
    return blocks
