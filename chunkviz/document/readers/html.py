"""HTML to Markdown with markdownify (on a BeautifulSoup tree parsed by lxml).

The converted Markdown is the document's text: every span indexes it, and its structure
(``#`` headings, pipe tables, fenced code, ``-``/``1.`` list items) is parsed as Markdown.

Why markdownify and not html2text (measured on the test fixtures and on a generated 1.2 MB
page of 300 sections, each with a heading, paragraphs, a 6-row table, a list and code):

* tables: markdownify writes GFM pipe tables (``| a | b |`` with a ``| --- |`` row) that
  markdown-it finds with every row; html2text writes ``a| b`` rows without outer pipes and
  does not escape ``|`` in cells, so a cell with a pipe shifts the columns;
* code: markdownify writes fenced code (``` with the language taken from
  ``class="language-x"``); html2text indents code by four spaces (or ``[code]`` markers),
  which loses the language and is misread inside lists;
* headings: both write ATX headings when asked (``heading_style="ATX"``);
* speed: about the same on large pages (both are pure Python); markdownify is a subclassable
  converter, which keeps the few adjustments below small.

Adjustments: ``|`` in table cells is escaped, a table's first row is its header (and a
``<caption>`` a paragraph before the table), code fences are longer than any backtick run in
the code, images without a source or with an embedded ``data:``
source keep only their alt text, and scripts, styles, the head's metadata (``title``, ``meta``,
``link``, ``base``), ``noscript``, ``template`` and ``svg`` are dropped before conversion (a
note counts those that held text). Nothing else is lost:

* content a parser left inside ``<head>`` (HTML5 lets ``</head>`` and ``<body>`` be omitted;
  Python's ``html.parser`` then keeps the whole page in the head) is converted like the body;
* text and elements directly inside a ``<table>`` but outside its cells are moved before the
  table, as browsers do ("foster parenting"), instead of breaking its first row;
* a ``<pre>`` inside a heading or a table cell is inline text, separated by spaces;
* a table inside another table's cell is that cell's text, its cells separated by `` / `` and
  its rows by ``; `` (a note counts them): a pipe table cannot hold a table, and markdownify
  wrote the inner rows into the cell as escaped pipes (or broke the outer table when the inner
  one sat in its header row);
* ``<wbr>`` (a line break opportunity inside a word) is removed before parsing: lxml's parser
  does not know it as an empty element and nested the rest of the text in it, so many of them
  were flattened as deep nesting, with a line break (a space) inside the word;
* elements nested deeper than :data:`MAX_NESTING` keep their text, one line per text node,
  without the deeper structure (a note says how many were flattened): markdownify converts
  recursively and indents every nested list level again, so unbounded nesting would exhaust the
  stack or grow the text quadratically (``"<ul><li>item" * 20000``);
* converted text longer than :data:`~chunkviz.document.readers.MAX_TEXT_CHARS` is refused.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Iterator

from chunkviz.core.deadline import check_time
from chunkviz.core.errors import DocumentError
from chunkviz.document.model import Document
from chunkviz.document.readers import MAX_TEXT_CHARS, needs_formats_extra, too_much_text

try:
    from bs4 import BeautifulSoup
    from markdownify import ATX, MarkdownConverter

    HAVE_MARKDOWNIFY = True
except ImportError:  # the formats extra is not installed
    HAVE_MARKDOWNIFY = False
    MarkdownConverter = object  # type: ignore[assignment,misc]  # a stand-in base: read_html refuses first

try:
    import lxml  # noqa: F401 - only its presence matters: BeautifulSoup's "lxml" parser

    _PARSER = "lxml"  # closes <li>, <p> and <head> as browsers do
except ImportError:
    _PARSER = "html.parser"

HTML_NOTE = "converted from HTML to Markdown; offsets index the converted text"

_DROPPED_TAGS = ("script", "style", "noscript", "template", "title", "svg", "meta", "link", "base")
#: Elements nested deeper than this are flattened to their text before conversion.
MAX_NESTING = 48
_TABLE_PARTS = {
    "table": {"thead", "tbody", "tfoot", "tr", "caption", "colgroup", "col"},
    "thead": {"tr"},
    "tbody": {"tr"},
    "tfoot": {"tr"},
    "tr": {"td", "th"},
}
#: Most HTML elements a page may have (each costs about 1.6 kB and 0.1 ms in the parsed tree and the
#: conversion); ``<br>`` tags do not count (see :data:`BR_AS_TEXT_FROM`).
MAX_ELEMENTS = 250_000
#: Pages with more ``<br>`` tags than this have them read as text (one character each, replaced
#: by the line break markdownify writes for a ``<br>``) instead of elements: ``"x<br>" * 1_000_000``
#: was 2 million nodes, 88 s and 1.3 GB.
BR_AS_TEXT_FROM = 1_000
_BR_TAG = re.compile(r"<br\b[^<>]*>", re.IGNORECASE)  # lxml ignores "</br>"
_WBR_TAG = re.compile(r"</?wbr\b[^<>]*>", re.IGNORECASE)
#: What separates the cells and the rows of a table kept as text in another table's cell.
NESTED_CELL_SEPARATOR = " / "
NESTED_ROW_SEPARATOR = "; "
_TAG_STOP = re.compile(r"[>\"']")
_RAW_TEXT_OPENING = re.compile(r"<(script|style|title|textarea|xmp)\b", re.IGNORECASE)
_ELEMENT_OPENING = re.compile(r"<[A-Za-z]")
_CODE_LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang)-([\w+#.-]+)")
_EXTRA_BLANK_LINES = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")


class _Converter(MarkdownConverter):
    """markdownify with pipe-safe table cells, safe code fences and no inline image data."""

    #: the character that stands for each ``<br>`` in the text, if any (see :func:`_br_marker`)
    br_marker: str | None = None

    def process_text(self, el: Any, parent_tags: set[str] | None = None) -> str:
        text: str = super().process_text(el, parent_tags)  # type: ignore[misc]  # markdownify's stub omits it
        if self.br_marker is not None and self.br_marker in text:  # what convert_br writes, in place
            text = text.replace(self.br_marker, " " if "_inline" in (parent_tags or ()) else "  \n")
        return text

    def convert_td(self, el: Any, text: str, parent_tags: set[str]) -> str:
        return super().convert_td(el, _escape_pipes(text), parent_tags)  # type: ignore[misc]  # markdownify's stub omits it

    def convert_th(self, el: Any, text: str, parent_tags: set[str]) -> str:
        return super().convert_th(el, _escape_pipes(text), parent_tags)  # type: ignore[misc]  # markdownify's stub omits it

    def convert_pre(self, el: Any, text: str, parent_tags: set[str]) -> str:
        code = text.strip("\n")
        if not code.strip():
            return ""
        if "_inline" in parent_tags:  # a <pre> inside a table cell or a heading
            return " " + " ".join(code.split()) + " "
        return "\n\n" + fenced_code(code, _code_language(el)) + "\n\n"

    def convert_img(self, el: Any, text: str, parent_tags: set[str]) -> str:
        src = el.attrs.get("src") or ""
        if not src or src.startswith("data:"):
            return el.attrs.get("alt") or ""
        return super().convert_img(el, text, parent_tags)  # type: ignore[misc]  # markdownify's stub omits it


def _escape_pipes(text: str) -> str:
    return re.sub(r"(?<!\\)\|", r"\\|", text)


def _code_language(pre: Any) -> str:
    """The language of ``<pre class="language-x">`` or of its ``<code class="language-x">``."""
    for element in (pre, pre.find("code")):
        if element is not None:
            match = _CODE_LANGUAGE.search(" ".join(element.get("class") or []))
            if match:
                return match.group(1)
    return ""


def _captions_before_tables(soup: Any) -> None:
    """Move each ``<caption>`` out of its table, as a paragraph before it: markdownify gives a
    table a header row only when its first row has no element before it."""
    for caption in soup("caption"):
        table = caption.find_parent("table")
        caption.extract()
        if table is not None:
            caption.name = "p"
            table.insert_before(caption)


def fenced_code(code: str, language: str = "") -> str:
    """A backtick-fenced code block, the fence longer than any backtick run in ``code``."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{code}\n{fence}"


def _drop_non_text(soup: Any) -> list[str]:
    """Remove scripts, styles, head metadata ...; a note for those that held text."""
    dropped: dict[str, int] = {}
    for element in soup(_DROPPED_TAGS):
        if element.get_text().strip():
            dropped[element.name] = dropped.get(element.name, 0) + 1
        element.decompose()
    if not dropped:
        return []
    counts = ", ".join(f"{n} <{name}>" for name, n in dropped.items())
    return [f"left out of the text (not page content): {counts}"]


def _foster_parent_table_content(soup: Any) -> int:
    """Move text and elements that sit in a table but outside its cells to just before the
    nearest table, in document order (as browsers do). Returns how many were moved.

    Positions are found once and elements are moved with known indices (BeautifulSoup would
    otherwise look each one up among its siblings: quadratic on a page of many tables)."""
    found: list[tuple[Any, int, Any, Any]] = []  # (part, index in part, stray, its table)
    for part in soup.find_all(list(_TABLE_PARTS)):
        table = part if part.name == "table" else part.find_parent("table")
        if table is None:  # a <tr> outside any table: markdownify writes it as it is
            continue
        found.extend((part, i, child, table) for i, child in enumerate(part.contents) if _is_stray(part, child))
    if not found:
        return 0
    order = {id(node): n for n, node in enumerate(soup.descendants)}
    for _part, index, child, _ in sorted(found, key=lambda f: (id(f[0]), -f[1])):
        child.extract(_self_index=index)  # last first: the indices before it stay valid
    by_table: dict[int, list[Any]] = {}
    for _part, _index, child, table in sorted(found, key=lambda f: order[id(f[2])]):
        by_table.setdefault(id(table), [table]).append(_as_block(soup, child))
    pending = list(by_table.values())
    while pending:  # a table that is itself moved (it sat in another's row) has a parent again after
        ready = [entry for entry in pending if entry[0].parent is not None]
        pending = [entry for entry in pending if entry[0].parent is None]
        if not ready:  # pragma: no cover - every moved table is inserted before a table that stays
            break
        by_parent: dict[int, tuple[Any, list[list[Any]]]] = {}
        for entry in ready:
            by_parent.setdefault(id(entry[0].parent), (entry[0].parent, []))[1].append(entry)
        for parent, entries in by_parent.values():
            where = {id(child): i for i, child in enumerate(parent.contents)}
            for table, *moved in sorted(entries, key=lambda e: -where[id(e[0])]):
                parent.insert(where[id(table)], *moved)
    return len(found)


def _as_block(soup: Any, child: Any) -> Any:
    """A text node becomes a paragraph of its own; an element stays as it is."""
    if getattr(child, "name", None) is not None:
        return child
    paragraph = soup.new_tag("p")
    paragraph.string = str(child).strip()
    return paragraph


def _is_stray(part: Any, child: Any) -> bool:
    name = getattr(child, "name", None)
    if name is None:
        return type(child).__name__ == "NavigableString" and bool(str(child).strip())
    return name not in _TABLE_PARTS[part.name]


def _flatten_deep_nesting(soup: Any, limit: int = MAX_NESTING) -> int:
    """Replace what is inside each element at depth ``limit`` by its text (one line per text
    node); iterative, so no depth exhausts the stack. Returns how many elements were flattened."""
    flattened = 0
    stack = [(soup, 0)]
    while stack:
        check_time()
        element, depth = stack.pop()
        children = [c for c in element.children if getattr(c, "name", None) is not None]
        if depth < limit:
            stack.extend((child, depth + 1) for child in children)
            continue
        if not children:
            continue
        flattened += sum(1 for _ in element.find_all(True))
        text = "\n".join(piece.strip() for piece in element.stripped_strings)
        element.clear()
        element.append(text)
    return flattened


def _flatten_nested_tables(soup: Any) -> int:
    """Replace every table inside another table by its text (see :data:`NESTED_CELL_SEPARATOR`),
    innermost first, so a table nested in a nested table is text before its parent is read.
    Returns how many tables were replaced."""
    nested = [table for table in soup("table") if table.find_parent("table") is not None]
    for table in reversed(nested):  # document order reversed: inner tables before the ones around them
        check_time()
        table.replace_with(_spaced(table, _table_as_text(table)))
    return len(nested)


def _spaced(element: Any, text: str) -> str:
    """``text`` to stand for ``element``, with a space on each side where the text beside it has none."""
    before, after = element.previous_sibling, element.next_sibling
    left = "" if isinstance(before, str) and before[-1:].isspace() else " "
    right = "" if isinstance(after, str) and after[:1].isspace() else " "
    return left + text + right


def _table_as_text(table: Any) -> str:
    """A table's caption and rows on one line: cells joined by `` / ``, rows by ``; ``. Text in
    the table outside its cells (what :func:`_flatten_deep_nesting` left in a row) is kept in
    its place, as a cell or a row of its own."""
    caption: list[str] = []
    rows: list[str] = []
    for child in _table_children(table):  # its nested tables are text already
        name = getattr(child, "name", None)
        if name == "caption":
            caption.append(_text_of(child))
        elif name == "tr":
            rows.append(NESTED_CELL_SEPARATOR.join(cell for cell in map(_text_of, child.children) if cell))
        else:
            rows.append(_text_of(child))
    body = NESTED_ROW_SEPARATOR.join(row for row in rows if row)
    return ": ".join(part for part in (" ".join(caption).strip(), body) if part)


def _table_children(part: Any) -> Iterator[Any]:
    """The children of a table, those of its thead, tbody and tfoot in their place, in order."""
    for child in part.children:
        if getattr(child, "name", None) in ("thead", "tbody", "tfoot"):
            yield from _table_children(child)
        else:
            yield child


def _text_of(node: Any) -> str:
    """An element's text, its pieces joined by spaces; a text node's own text (not a comment's)."""
    if getattr(node, "name", None) is not None:
        return " ".join(node.stripped_strings)
    return str(node).strip() if type(node).__name__ == "NavigableString" else ""


def _br_marker(html: str) -> str | None:
    """A private-use character that does not occur in ``html``, to stand for its ``<br>`` tags
    when it has more than :data:`BR_AS_TEXT_FROM` of them; None otherwise."""
    if html.count("<") <= BR_AS_TEXT_FROM or len(_BR_TAG.findall(html)) <= BR_AS_TEXT_FROM:
        return None
    return next((chr(c) for c in range(0xE000, 0xF900) if chr(c) not in html), None)


def _breaks_as(html: str, marker: str) -> str:
    """``html`` with every ``<br>`` tag in the page's flow replaced by ``marker`` (see :func:`_tags_replaced`)."""
    return _tags_replaced(html, _BR_TAG, marker)


def _without_wbr(html: str) -> str:
    """``html`` without its ``<wbr>`` tags (see :func:`_tags_replaced`); looked for first."""
    return _tags_replaced(html, _WBR_TAG, "") if _WBR_TAG.search(html) else html


def _tags_replaced(html: str, tag: re.Pattern[str], by: str) -> str:
    """``html`` with every tag that ``tag`` matches whole, in the page's flow, replaced by ``by``:
    not those in comments, in attribute values (``alt="a<br>b"``) or in the raw text of scripts,
    styles, titles and text areas. One pass: every character is looked at once (a tag whose quote
    or ``>`` never closes ends the replacing; the tags after it stay elements)."""
    pieces: list[str] = []
    done = pos = 0
    n = len(html)
    while True:
        pos = html.find("<", pos)
        if pos < 0 or pos + 1 >= n:
            break
        if html.startswith("!--", pos + 1):
            close = html.find("-->", pos + 4)
            if close < 0:
                break
            pos = close + 3
            continue
        if not (html[pos + 1].isascii() and (html[pos + 1].isalpha() or html[pos + 1] in "/!?")):
            pos += 1
            continue
        end = _tag_end(html, pos + 1)
        if end < 0:
            break
        match = tag.match(html, pos, end)
        if match is not None and match.end() == end:
            pieces.append(html[done:pos])
            pieces.append(by)
            done = end
        else:
            raw = _RAW_TEXT_OPENING.match(html, pos, end)
            if raw is not None:
                close_match = re.compile(r"</" + raw.group(1) + r"\b", re.IGNORECASE).search(html, end)
                if close_match is None:
                    break
                end = close_match.start()
        pos = end
    pieces.append(html[done:])
    return "".join(pieces)


def _tag_end(html: str, pos: int) -> int:
    """Just past the ``>`` that closes the tag whose name starts at ``pos`` (quoted attribute
    values may hold ``>``); -1 when it never closes."""
    while True:
        match = _TAG_STOP.search(html, pos)
        if match is None:
            return -1
        if match.group() == ">":
            return match.end()
        close = html.find(match.group(), match.end())
        if close < 0:
            return -1
        pos = close + 1


def _check_element_count(html: str, name: str) -> None:
    """Refuse, before parsing, a page of more than :data:`MAX_ELEMENTS` elements (``<br>`` aside)."""
    elements = len(_ELEMENT_OPENING.findall(html)) - len(_BR_TAG.findall(html))
    if elements > MAX_ELEMENTS:
        raise DocumentError(
            f"{name} has about {elements:,} HTML elements; the limit is {MAX_ELEMENTS:,} (each takes memory "
            "and time to convert). Split the page, or save it as text first"
        )


def convert_html(html: str, name: str = "the HTML") -> tuple[str, list[str]]:
    """Markdown of an HTML document or fragment (ends with one line break unless empty) and
    notes about anything the conversion left out, moved or flattened."""
    if not HAVE_MARKDOWNIFY:
        raise needs_formats_extra("reading HTML")
    html = _without_wbr(re.sub(r"\r\n?", "\n", html))
    _check_element_count(html, name)
    marker = _br_marker(html)
    if marker is not None:  # many <br>: text, not elements (linear, no node per tag)
        html = _breaks_as(html, marker)
    soup = BeautifulSoup(html, _PARSER)
    notes = _drop_non_text(soup)
    moved = _foster_parent_table_content(soup)
    if moved:
        notes.append(
            f"{moved} piece{'s' if moved > 1 else ''} of text inside a table but outside its cells moved before the table"
        )
    flattened = _flatten_deep_nesting(soup)
    if flattened:
        notes.append(
            f"HTML nested deeper than {MAX_NESTING} levels: {flattened:,} deeper elements kept as plain text lines"
        )
    nested = _flatten_nested_tables(soup)  # after the deep nesting: each table's ancestors are few
    if nested:
        notes.append(
            f"{nested} table{'s' if nested > 1 else ''} inside another table's cell kept as text in that cell "
            f"(cells separated by '{NESTED_CELL_SEPARATOR.strip()}', rows by '{NESTED_ROW_SEPARATOR.strip()}')"
        )
    _captions_before_tables(soup)
    converter = _Converter(heading_style=ATX, bullets="-", wrap=True, wrap_width=None, table_infer_header=True)
    converter.br_marker = marker
    try:
        converted = converter.convert_soup(soup)
    except RecursionError:  # pragma: no cover - nesting is flattened above
        raise DocumentError(f"the HTML is nested too deeply to convert (over {MAX_NESTING} levels)") from None
    if len(converted) > 2 * MAX_TEXT_CHARS:  # before the clean-up copies, which need more memory
        raise too_much_text(name, len(converted), MAX_TEXT_CHARS)
    if marker is not None:  # where process_text did not see it (an attribute, e.g. an image's alt text)
        converted = converted.replace(marker, " ")
    markdown = _EXTRA_BLANK_LINES.sub("\n\n", converted)
    markdown = _LEADING_BLANK_LINES.sub("", markdown).rstrip()
    if len(markdown) > MAX_TEXT_CHARS:
        raise too_much_text(name, len(markdown), MAX_TEXT_CHARS)
    return (markdown + "\n" if markdown else ""), notes


def html_to_markdown(html: str) -> str:
    """Markdown of an HTML document or fragment (see :func:`convert_html`, without its notes)."""
    return convert_html(html)[0]


def html_document(document: Document) -> Document:
    """A decoded HTML document as Markdown (format ``html``); notes about the HTML source's
    line endings and whitespace no longer apply to the converted text and are dropped."""
    text, conversion_notes = convert_html(document.text, document.name)
    notes = [n for n in document.notes if not n.startswith(("line endings are", "document contains only"))]
    notes.append(HTML_NOTE)
    notes.extend(conversion_notes)
    if not text and document.text.strip():
        notes.append("no text found in the HTML")
    return replace(document, text=text, format="html", notes=tuple(notes), extra_blocks=())
