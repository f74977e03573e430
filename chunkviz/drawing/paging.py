"""A rendered column cut into pages at line ends (a pure function over :func:`chunkviz.drawing.render.render_html`).

The document view sends the browser only the pages of a long column near what it shows, so the
cut lives here, once: :func:`cut_pages` walks render.py's HTML (a root ``<div class="cv-doc">``
around escaped text and whole ``span``/``i``/``ins`` elements; no text or attribute value holds
``<`` or ``>``, so a tag runs from ``<`` to the next ``>``) and cuts it, in document text only,
right after a line end once a page holds ``page_chars`` characters (a page with no line end is cut
mid-line at twice that, never inside a character reference nor between CR and LF, at a space when
one follows soon). Each page is well-formed: the elements a cut runs through are closed at the page
end and continued on the next page, as render.py continues a chunk (no ``id``; a chunk's own element
becomes ``data-continues="N"``). So, exactly:

- the pages' text (the escaped text outside ``<ins>`` added text, unescaped) concatenated is the
  document text, and page ``k`` holds ``text[pages[k].start:pages[k].end]``;
- the pages are contiguous from 0 to the document's length;
- a column with fewer characters is one page whose HTML is the root's body unchanged.

HTML without render.py's root (a fragment of chunk elements) is cut as if inside a bare root.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Mapping

#: Characters of document text per page of a long column (a column with fewer is one page).
PAGE_CHARS = 20_000
#: The root around HTML given without render.py's (a fragment of chunk elements).
BARE_ROOT = '<div class="cv-doc">'
#: How far past the cut point a mid-line cut may move to land after a space.
SPACE_REACH = 200

_TOKEN = re.compile(r"<[^>]*>|[^<]+")
_CHUNK_INDEX = re.compile(r'\sdata-chunk-index="(\d+)"')
_CONTINUES = re.compile(r'\sdata-continues="(\d+)"')
_CLASS = re.compile(r'\sclass="([^"]*)"')
_ID = re.compile(r'\sid="[^"]*"')
_PARENT = re.compile(r'\sdata-parent="(\d+)"')
_NAME = re.compile(r"<([a-zA-Z]+)")
#: The character references html.escape writes, and how many characters each stands for beyond one.
_REFERENCES = {"&amp;": 4, "&lt;": 3, "&gt;": 3, "&quot;": 5, "&#x27;": 5}


@dataclass(frozen=True)
class Page:
    """One page: the document span ``[start, end)``, its line ends, and its well-formed HTML."""

    start: int
    end: int
    lines: int  # line ends in the page's text (with ``end - start``, enough to size a spacer)
    html: str
    continued: tuple[int, ...]  # chunks whose elements run in from the previous page (outermost first)


@dataclass(frozen=True)
class ColumnPages:
    """A column's HTML cut into pages, with where each chunk's own element is."""

    html: str  # the whole column, as rendered
    root: str  # the root's opening tag (``<div class="cv-doc" ...>``)
    pages: tuple[Page, ...]
    chunk_page: Mapping[int, int]  # chunk index -> the page holding its own element (data-chunk-index)
    tag_spans: Mapping[int, tuple[int, int]]  # chunk index -> [start, end) of its opening tag in ``html``

    def tag(self, index: int) -> str | None:
        """The opening tag of chunk ``index``'s own element (its facts as ``data-*``), or None."""
        span = self.tag_spans.get(index)
        return None if span is None else self.html[span[0] : span[1]]

    def parent_of(self, index: int) -> int | None:
        """The ``data-parent`` of chunk ``index`` (None for a top-level or unknown chunk)."""
        tag = self.tag(index)
        match = _PARENT.search(tag) if tag else None
        return int(match.group(1)) if match else None

    def page_at(self, offset: int) -> int:
        """The page holding document offset ``offset`` (the last page for the document's end)."""
        starts = [p.start for p in self.pages]
        return max(0, min(len(self.pages) - 1, bisect_right(starts, offset) - 1))

    def window(self, start: int, end: int, margin: int = 1, most: int = 8) -> range:
        """The pages that overlap ``[start, end)`` plus ``margin`` pages either side, at most ``most``
        pages from the first (offsets outside the document are clamped: never an empty range)."""
        if most < 1:
            raise ValueError(f"most must be at least one page, got {most}")
        first = self.page_at(start)
        last = max(first, self.page_at(max(start, end - 1)))
        lo, hi = max(0, first - margin), min(len(self.pages) - 1, last + margin)
        return range(lo, min(hi, lo + most - 1) + 1)

    @property
    def size(self) -> int:
        """Characters held (the whole HTML and every page's): the page cache's byte estimate."""
        return len(self.html) + sum(len(p.html) for p in self.pages)


def doc_chars(escaped: str) -> int:
    """Document characters of a piece of render.py's escaped text (each reference counts as one)."""
    n = len(escaped)
    if "&" in escaped:
        for reference, extra in _REFERENCES.items():
            n -= extra * escaped.count(reference)
    return n


def continuation(tag: str) -> str:
    """The opening tag that continues an element on the next page: no ``id``, and a chunk's own
    element becomes a continuation of it (``data-continues``, as render.py draws a chunk's second stretch)."""
    index = _CHUNK_INDEX.search(tag)
    if not index:
        return _ID.sub("", tag, count=1)
    cls = _CLASS.search(tag)
    return f'<span class="{cls.group(1) if cls else ""}" data-continues="{index.group(1)}">'


def advance(t: str, i: int, n: int) -> int:
    """The index in escaped text ``t`` that lies ``n`` document characters after index ``i`` (past
    ``len(t)`` when the text ends sooner); a character reference is one character."""
    j = t.find("&", i)
    while n > 0 and 0 <= j < i + n:
        n -= j - i + 1
        i = t.index(";", j) + 1
        j = t.find("&", i)
    return i + max(0, n)


def safe_cut(t: str, i: int) -> int:
    """A cut at or after ``t[i]`` that splits no character reference and no CR LF and, when a space
    follows within :data:`SPACE_REACH` (before any line end), no word."""
    amp = t.rfind("&", 0, i)
    if amp >= 0 and amp > t.rfind(";", 0, i):
        i = t.index(";", amp) + 1
    space = t.find(" ", i)
    if 0 <= space and space - i < SPACE_REACH and "\n" not in t[i:space]:
        i = space + 1
    if 0 < i < len(t) and t[i - 1] == "\r" and t[i] == "\n":
        i += 1
    return min(i, len(t))


def _chunk_of(tag: str) -> int | None:
    """The chunk an opening tag draws (its own element or a continuation of it), or None."""
    match = _CHUNK_INDEX.search(tag) or _CONTINUES.search(tag)
    return int(match.group(1)) if match else None


def cut_pages(html: str, page_chars: int = PAGE_CHARS) -> ColumnPages:
    """render.py's HTML of a column cut into pages of about ``page_chars`` document characters."""
    if page_chars < 1:
        raise ValueError(f"page_chars must be at least 1 character, got {page_chars}")
    if not (html.startswith("<div") and html.endswith("</div>")):
        html = BARE_ROOT + html + "</div>"  # a fragment without render.py's root is drawn inside a bare one
    open_end = html.find(">") + 1
    close = len(html) - len("</div>")
    root = html[:open_end]
    body = html[open_end:close]
    pages: list[Page] = []
    chunk_page: dict[int, int] = {}
    tag_spans: dict[int, tuple[int, int]] = {}
    stack: list[tuple[str, str]] = []  # open elements: (name, opening tag)
    in_added = 0  # depth of <ins> (added text is not document text)
    at = page_start = page_from = 0
    reopen = ""  # the opening tags that continue the open elements on the next page
    continued: tuple[int, ...] = ()
    closed = 0  # length of the closing tags the last page got
    for m in _TOKEN.finditer(body):
        t = m.group(0)
        if t[0] == "<":
            if t[1] == "/":
                name, _ = stack.pop()
                in_added -= name == "ins"
                continue
            name_match = _NAME.match(t)
            name = name_match.group(1).lower() if name_match else "span"
            stack.append((name, t))
            in_added += name == "ins"
            own = _CHUNK_INDEX.search(t)
            if own:
                index = int(own.group(1))
                chunk_page.setdefault(index, len(pages))
                tag_spans.setdefault(index, (open_end + m.start(), open_end + m.end()))
            continue
        if in_added:
            continue
        done = 0  # characters of t already on earlier pages
        while True:
            need = advance(t, done, page_start + page_chars - at)  # where this page has enough characters
            hard = advance(t, done, page_start + 2 * page_chars - at)  # a page with no line end is cut here
            nl = t.find("\n", need)
            if 0 <= nl < hard:
                cut = nl + 1
            elif hard < len(t):
                cut = safe_cut(t, hard)
            else:
                break
            end = at + doc_chars(t[done:cut])
            piece = body[page_from : m.start() + cut]
            closers = "".join(f"</{name}>" for name, _ in reversed(stack))
            pages.append(_page(page_start, end, reopen + piece + closers, continued))
            closed = len(closers)
            reopen = "".join(continuation(tag) for _, tag in stack)
            continued = tuple(i for i in (_chunk_of(tag) for _, tag in stack) if i is not None)
            page_from = m.start() + cut
            page_start = at = end
            done = cut
        at += doc_chars(t[done:])
    if pages and at == page_start:  # the last cut fell at the end of the text: the rest joins its page
        last = pages.pop()
        pages.append(
            _page(last.start, last.end, last.html[: len(last.html) - closed] + body[page_from:], last.continued)
        )
    else:
        pages.append(_page(page_start, at, reopen + body[page_from:], continued))
    return ColumnPages(html, root, tuple(pages), chunk_page, tag_spans)


def _page(start: int, end: int, html: str, continued: tuple[int, ...]) -> Page:
    return Page(start, end, html.count("\n"), html, continued)


__all__ = [
    "BARE_ROOT",
    "PAGE_CHARS",
    "ColumnPages",
    "Page",
    "advance",
    "continuation",
    "cut_pages",
    "doc_chars",
    "safe_cut",
]
