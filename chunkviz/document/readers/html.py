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
source keep only their alt text, and scripts, styles, the head,
``noscript``, ``template`` and ``svg`` are dropped before conversion.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from chunkviz.document.model import Document
from chunkviz.document.readers import needs_formats_extra

try:
    from bs4 import BeautifulSoup
    from markdownify import ATX, MarkdownConverter

    HAVE_MARKDOWNIFY = True
except ImportError:  # the formats extra is not installed
    HAVE_MARKDOWNIFY = False
    MarkdownConverter = object  # type: ignore[assignment,misc]

try:
    import lxml  # noqa: F401 - only its presence matters: BeautifulSoup's "lxml" parser

    _PARSER = "lxml"  # closes <li>, <p> and <head> as browsers do
except ImportError:
    _PARSER = "html.parser"

HTML_NOTE = "converted from HTML to Markdown; offsets index the converted text"

_DROPPED_TAGS = ("script", "style", "head", "noscript", "template", "title", "svg")
_CODE_LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang)-([\w+#.-]+)")
_EXTRA_BLANK_LINES = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")


class _Converter(MarkdownConverter):  # type: ignore[misc,valid-type]
    """markdownify with pipe-safe table cells, safe code fences and no inline image data."""

    def convert_td(self, el: Any, text: str, parent_tags: set[str]) -> str:
        return super().convert_td(el, _escape_pipes(text), parent_tags)

    def convert_th(self, el: Any, text: str, parent_tags: set[str]) -> str:
        return super().convert_th(el, _escape_pipes(text), parent_tags)

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
        return super().convert_img(el, text, parent_tags)


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


def html_to_markdown(html: str) -> str:
    """Markdown of an HTML document or fragment (ends with one line break unless empty)."""
    if not HAVE_MARKDOWNIFY:
        raise needs_formats_extra("reading HTML")
    soup = BeautifulSoup(re.sub(r"\r\n?", "\n", html), _PARSER)
    for element in soup(_DROPPED_TAGS):
        element.decompose()
    _captions_before_tables(soup)
    converter = _Converter(heading_style=ATX, bullets="-", wrap=True, wrap_width=None, table_infer_header=True)
    markdown = _EXTRA_BLANK_LINES.sub("\n\n", converter.convert_soup(soup))
    markdown = _LEADING_BLANK_LINES.sub("", markdown).rstrip()
    return markdown + "\n" if markdown else ""


def html_document(document: Document) -> Document:
    """A decoded HTML document as Markdown (format ``html``); notes about the HTML source's
    line endings and whitespace no longer apply to the converted text and are dropped."""
    text = html_to_markdown(document.text)
    notes = [n for n in document.notes if not n.startswith(("line endings are", "document contains only"))]
    notes.append(HTML_NOTE)
    if not text and document.text.strip():
        notes.append("no text found in the HTML")
    return replace(document, text=text, format="html", notes=tuple(notes), extra_blocks=())
