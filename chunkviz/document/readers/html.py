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
* elements nested deeper than :data:`MAX_NESTING` keep their text, one line per text node,
  without the deeper structure (a note says how many were flattened): markdownify converts
  recursively and indents every nested list level again, so unbounded nesting would exhaust the
  stack or grow the text quadratically (``"<ul><li>item" * 20000``);
* converted text longer than :data:`~chunkviz.document.readers.MAX_TEXT_CHARS` is refused.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from chunkviz.deadline import check_time
from chunkviz.document.model import Document
from chunkviz.document.readers import MAX_TEXT_CHARS, needs_formats_extra, too_much_text
from chunkviz.errors import DocumentError

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
_CODE_LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang)-([\w+#.-]+)")
_EXTRA_BLANK_LINES = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")


class _Converter(MarkdownConverter):
    """markdownify with pipe-safe table cells, safe code fences and no inline image data."""

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
    by_parent: dict[int, tuple[Any, list[list[Any]]]] = {}
    for entry in by_table.values():
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


def convert_html(html: str, name: str = "the HTML") -> tuple[str, list[str]]:
    """Markdown of an HTML document or fragment (ends with one line break unless empty) and
    notes about anything the conversion left out, moved or flattened."""
    if not HAVE_MARKDOWNIFY:
        raise needs_formats_extra("reading HTML")
    soup = BeautifulSoup(re.sub(r"\r\n?", "\n", html), _PARSER)
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
    _captions_before_tables(soup)
    converter = _Converter(heading_style=ATX, bullets="-", wrap=True, wrap_width=None, table_infer_header=True)
    try:
        converted = converter.convert_soup(soup)
    except RecursionError:  # pragma: no cover - nesting is flattened above
        raise DocumentError(f"the HTML is nested too deeply to convert (over {MAX_NESTING} levels)") from None
    if len(converted) > 2 * MAX_TEXT_CHARS:  # before the clean-up copies, which need more memory
        raise too_much_text(name, len(converted), MAX_TEXT_CHARS)
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
