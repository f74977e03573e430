"""Reading input into the exact text that chunk spans index, plus its structure.

The text is decoded once and never normalized: CRLF and CR line endings are kept, so a
chunk's ``start``/``end`` are offsets into the document exactly as read. What reading had
to decide (a stripped byte order mark, a legacy-encoding fallback, an empty input) is
reported in ``Document.notes`` rather than done silently.

Readers (:func:`read_bytes` picks one by file extension, then by magic bytes, else decodes
text) normalize every format to Markdown-like text, so the text-based strategies see the same
structure whatever the source was:

* Markdown, reStructuredText and plain text: the decoded text as-is; elements from
  :func:`chunkviz.structure.document_elements`.
* Python: the decoded text as-is; ``function``/``class`` elements from :mod:`ast`.
* HTML: converted to Markdown-like text (``#`` headings, ``-``/``1.`` list items, pipe tables,
  fenced code); offsets index the converted text.
* PDF (pypdf): the text of each page, pages joined by a blank line; ``page`` elements carry the
  1-based page number in ``level``.
* DOCX (python-docx): headings, list items, tables and paragraphs in body order, as
  Markdown-like text.
"""

from __future__ import annotations

import ast
import bisect
import io
import logging
import re
import sys
import threading
import warnings
import zipfile
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterator

from chunkviz.errors import DocumentError
from chunkviz.structure import Element, document_elements

#: Largest input accepted, in bytes (20 MB).
MAX_BYTES = 20_000_000

#: Refuse text in which more than this share of the characters are control characters.
MAX_CONTROL_RATIO = 0.10

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF32_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"))
_UTF16_BOMS = ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))

# Control characters other than tab, LF, VT, FF and CR (C0, DEL and C1).
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")

_CONVERT_HINT = "save or export it as plain text or Markdown first"

# (magic prefix, what the input is)
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", f"a legacy Microsoft Office file (DOC/XLS/PPT), which is not supported; {_CONVERT_HINT}"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image, not text"),
    (b"\xff\xd8\xff", "a JPEG image, not text"),
    (b"GIF87a", "a GIF image, not text"),
    (b"GIF89a", "a GIF image, not text"),
    (b"\x7fELF", "an ELF executable, not text"),
    (b"\x1f\x8b", "gzip-compressed data; decompress it first"),
    (b"\xfd7zXZ\x00", "xz-compressed data; decompress it first"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive, not text"),
    (b"SQLite format 3\x00", "an SQLite database, not text"),
)
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_PDF_MAGIC = b"%PDF-"
_DOCX_MAIN_PART = b"word/document.xml"

#: Formats a :class:`Document` can have (``Document.format``).
FORMATS = ("markdown", "rst", "text", "python", "html", "pdf", "docx")

#: File extensions (lower case) that choose a reader.
EXTENSION_FORMATS: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
    ".rst": "rst",
    ".rest": "rst",
    ".txt": "text",
    ".text": "text",
    ".py": "python",
    ".pyw": "python",
    ".pyi": "python",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pdf": "pdf",
    ".docx": "docx",
}


@dataclass(frozen=True)
class Document:
    """A decoded input: ``text`` is what every chunk span indexes into.

    ``encoding`` is the codec used (``utf-8``, ``utf-8-sig``, ``utf-16-le``, ``cp1252`` ...;
    ``""`` for PDF and DOCX, which are not decoded as a whole);
    ``notes`` are human-readable remarks about the reading (fallbacks, stripped BOM, emptiness).
    ``format`` is what the input was read as (one of :data:`FORMATS`); ``elements`` are its
    structural elements (headings, paragraphs, tables, code, list items, pages, Python
    functions and classes) as spans of ``text``, in document order.
    """

    text: str
    name: str
    encoding: str
    notes: tuple[str, ...] = ()
    format: str = "text"
    elements: tuple[Element, ...] = ()


def format_size(n_bytes: int) -> str:
    """``20000000`` -> ``'20 MB'``; ``1500`` -> ``'1.5 kB'`` (decimal units)."""
    for unit, scale in (("MB", 1_000_000), ("kB", 1_000)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f}".rstrip("0").rstrip(".") + f" {unit}"
    return f"{n_bytes} bytes"


def _too_large(name: str, size: int, max_bytes: int) -> DocumentError:
    return DocumentError(
        f"{name} is too large: {size:,} bytes ({format_size(size)}); "
        f"the limit is {format_size(max_bytes)} ({max_bytes:,} bytes)"
    )


def _binary_kind(data: bytes, name: str) -> str | None:
    """What a known non-text format is, from its magic number (None if not recognized)."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    if data.startswith(_ZIP_MAGIC):
        return "a ZIP archive, not text"
    return None


def _binary_format(data: bytes, name: str) -> str | None:
    """``pdf`` or ``docx`` when the magic bytes say so (a ZIP holding ``word/document.xml``,
    or any ZIP named ``.docx``), else None."""
    if data.startswith(_PDF_MAGIC):
        return "pdf"
    if data.startswith(_ZIP_MAGIC) and (name.lower().endswith(".docx") or _zip_has_docx_part(data)):
        return "docx"
    return None


def _zip_has_docx_part(data: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return "word/document.xml" in archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return _DOCX_MAIN_PART in data  # a damaged archive: the docx reader reports the damage


def _decode_with_fallbacks(data: bytes, notes: list[str]) -> tuple[str, str]:
    """UTF-8, else cp1252, else latin-1 (which decodes any bytes); notes say which."""
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp1252")
        notes.append("decoded as cp1252 (not valid UTF-8)")
        return text, "cp1252"
    except UnicodeDecodeError:
        pass
    notes.append("decoded as latin-1 (not valid UTF-8 or cp1252)")
    return data.decode("latin-1"), "latin-1"


def decode_bytes(data: bytes, name: str = "document", max_bytes: int = MAX_BYTES) -> Document:
    """Decode raw input into a :class:`Document`, refusing binary and oversized input.

    UTF-8 (a leading byte order mark is stripped and noted), UTF-16/UTF-32 with a byte order
    mark, otherwise cp1252 then latin-1 as noted fallbacks. Line endings are kept as they are.
    Empty or whitespace-only input is not an error; it is noted.

    Text comes back as ``format="text"`` without elements (:func:`read_bytes` adds structure).
    PDF and DOCX input (by magic bytes) is handed to its reader; other binary input is refused.
    """
    if len(data) > max_bytes:
        raise _too_large(name, len(data), max_bytes)
    binary_format = _binary_format(data, name)
    if binary_format == "pdf":
        return read_pdf(data, name)
    if binary_format == "docx":
        return read_docx(data, name)
    kind = _binary_kind(data, name)
    if kind is not None:
        raise DocumentError(f"{name} looks like {kind}")

    notes: list[str] = []
    bom_encoding = next(
        (enc for bom, enc in (*_UTF32_BOMS, *_UTF16_BOMS) if data.startswith(bom)),
        None,
    )
    if bom_encoding is not None:
        bom_length = 4 if bom_encoding.startswith("utf-32") else 2
        try:
            text = data[bom_length:].decode(bom_encoding)
        except UnicodeDecodeError as exc:
            raise DocumentError(
                f"{name} starts with a {bom_encoding.upper()} byte order mark but is not valid "
                f"{bom_encoding.upper()} ({exc.reason} at byte {exc.start + bom_length})"
            ) from None
        encoding = bom_encoding
        family, endian = bom_encoding.rsplit("-", 1)
        notes.append(
            f"decoded as {family.upper()} ({'little' if endian == 'le' else 'big'}-endian, "
            "from its byte order mark)"
        )
    else:
        if b"\x00" in data:
            raise DocumentError(
                f"{name} looks like a binary file: it contains NUL bytes "
                "(UTF-16/UTF-32 text is read only when it starts with a byte order mark)"
            )
        if data.startswith(_UTF8_BOM):
            notes.append("removed UTF-8 byte order mark")
            text, encoding = _decode_with_fallbacks(data[len(_UTF8_BOM):], notes)
            if encoding == "utf-8":
                encoding = "utf-8-sig"
        else:
            text, encoding = _decode_with_fallbacks(data, notes)

    if "\x00" in text:
        raise DocumentError(f"{name} looks like a binary file: it contains NUL characters")
    if text:
        n_control = len(_CONTROL.findall(text))
        if n_control / len(text) > MAX_CONTROL_RATIO:
            raise DocumentError(
                f"{name} looks like a binary file: {n_control / len(text):.0%} of its characters "
                "are control characters"
            )

    if not text:
        notes.append("document is empty")
    elif not text.strip():
        notes.append("document contains only whitespace")
    else:
        line_endings = _line_ending_note(text)
        if line_endings:
            notes.append(line_endings)
    return Document(text=text, name=name, encoding=encoding, notes=tuple(notes))


def _line_ending_note(text: str) -> str | None:
    """A remark when line endings are not plain LF: offsets count every ``\\r``."""
    crlf = text.count("\r\n")
    cr = text.count("\r") - crlf
    lf = text.count("\n") - crlf
    kinds = [k for k, n in (("CRLF", crlf), ("CR", cr), ("LF", lf)) if n]
    if not crlf and not cr:
        return None
    if len(kinds) == 1:
        return f"line endings are {kinds[0]} (kept as-is; offsets count each \\r)"
    return f"line endings are mixed ({', '.join(kinds)}; kept as-is; offsets count each \\r)"


# ============================================================================ dispatch


def format_for_name(name: str) -> str | None:
    """The format a file name's extension chooses (``None`` when the extension says nothing)."""
    suffix = Path(name).suffix.lower()
    return EXTENSION_FORMATS.get(suffix)


def read_bytes(data: bytes, name: str = "document", max_bytes: int = MAX_BYTES) -> Document:
    """Read raw input into a :class:`Document` with its text and structural elements.

    The reader is chosen by the file extension of ``name`` (see :data:`EXTENSION_FORMATS`),
    then by magic bytes (``%PDF-``; a ZIP holding ``word/document.xml``), else the bytes are
    decoded as text (:func:`decode_bytes`: other binary input is refused) and sniffed for HTML.
    """
    if len(data) > max_bytes:
        raise _too_large(name, len(data), max_bytes)
    by_name = format_for_name(name)
    by_magic = _binary_format(data, name)
    if by_name in ("pdf", "docx") and by_magic is None:
        kind = _binary_kind(data, name)  # e.g. a PNG or a legacy .doc renamed to .docx
        if kind is not None:
            raise DocumentError(f"{name} looks like {kind}")
    fmt = by_magic or by_name
    if fmt == "pdf":
        return read_pdf(data, name)
    if fmt == "docx":
        return read_docx(data, name)
    document = decode_bytes(data, name=name, max_bytes=max_bytes)
    if fmt is None and looks_like_html(document.text):
        fmt = "html"
    return structure_text(document, fmt or "text")


def structure_text(document: Document, fmt: str) -> Document:
    """Add the structure of a decoded text document read as ``fmt``."""
    text = document.text
    if fmt == "markdown":
        return replace(document, format="markdown", elements=tuple(document_elements(text, markup="markdown")))
    if fmt == "rst":
        return replace(document, format="rst", elements=tuple(document_elements(text, markup="rst")))
    if fmt == "python":
        elements, note = python_elements(text)
        notes = document.notes + ((note,) if note else ())
        return replace(document, format="python", elements=tuple(elements), notes=notes)
    if fmt == "html":
        return html_document(document)
    return replace(document, format="text", elements=tuple(document_elements(text)))


_HTML_SNIFF = re.compile(
    r"\A\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)[\s>/]",
    re.IGNORECASE | re.DOTALL,
)


def looks_like_html(text: str) -> bool:
    """True when the text starts (after comments and an XML declaration) with an HTML doctype
    or an ``<html>``, ``<head>`` or ``<body>`` tag."""
    return bool(_HTML_SNIFF.match(text[:4096]))


# ============================================================================ Python


_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what Python's tokenizer counts as a line end
_PY_BLOCKS = tuple(
    getattr(ast, name) for name in ("If", "Try", "TryStar", "With", "AsyncWith") if hasattr(ast, name)
)


def python_elements(text: str) -> tuple[list[Element], str | None]:
    """``function``/``class`` elements of Python source, and a note when it does not parse.

    Top-level definitions are level 1, methods (and classes nested in classes) one level per
    enclosing class. A span starts at the ``@`` of the first decorator (else at ``def``,
    ``async`` or ``class``) and ends where :mod:`ast` ends the definition. Definitions inside
    top-level ``if``/``try``/``with`` blocks count as top level; nested functions are not listed.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for invalid escape sequences etc.
            tree = ast.parse(text)
    except SyntaxError as exc:
        where = f" at line {exc.lineno}" if exc.lineno else ""
        return [], f"Python syntax error{where}: {exc.msg} (structure not available)"
    except (ValueError, RecursionError, MemoryError) as exc:
        return [], f"Python source could not be parsed: {exc} (structure not available)"

    line_starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
    line_cache: dict[int, bytes] = {}

    def offset(lineno: int, col: int) -> int:
        """Character offset of (1-based line, UTF-8 byte column)."""
        start = line_starts[lineno - 1]
        if col == 0:
            return start
        encoded = line_cache.get(lineno)
        if encoded is None:
            end = line_starts[lineno] if lineno < len(line_starts) else len(text)
            encoded = text[start:end].encode("utf-8", "surrogatepass")
            line_cache[lineno] = encoded
        return start + len(encoded[:col].decode("utf-8", "surrogatepass"))

    elements: list[Element] = []

    def visit(body: list[ast.stmt], level: int) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node.decorator_list:
                    first = min(node.decorator_list, key=lambda d: (d.lineno, d.col_offset))
                    start = offset(first.lineno, first.col_offset)
                    at = text.rfind("@", line_starts[first.lineno - 1], start)
                    start = at if at >= 0 else start
                else:
                    start = offset(node.lineno, node.col_offset)
                end = offset(node.end_lineno or node.lineno, node.end_col_offset or 0)
                kind = "class" if isinstance(node, ast.ClassDef) else "function"
                elements.append(Element(kind, start, end, min(level, 6), node.name))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, level + 1)
            elif level == 1 and isinstance(node, _PY_BLOCKS):
                for block in ("body", "orelse", "finalbody"):
                    visit(getattr(node, block, []), level)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body, level)

    visit(tree.body, 1)
    elements.sort(key=lambda e: (e.start, -e.end))
    return elements, None


# ============================================================================ Markdown-like output

_CELL_WS = re.compile(r"[ \t\n\r\f\v]+")


def _table_cell(text: str) -> str:
    """One line, whitespace collapsed, ``|`` escaped."""
    return _CELL_WS.sub(" ", text).strip().replace("|", "\\|")


def pipe_table(rows: list[list[str]]) -> str:
    """A Markdown pipe table: the first row is the header, then a ``| --- |`` delimiter row."""
    rows = [[_table_cell(cell) for cell in row] for row in rows]
    rows = [row for row in rows if row]
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "|".join(["---"] * width) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows[1:])
    return "\n".join(lines)


def fenced_code(code: str, language: str = "") -> str:
    """A backtick-fenced code block, the fence longer than any backtick run in ``code``."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{code}\n{fence}"


# ============================================================================ HTML

_HTML_WS = re.compile(r"[ \t\n\r\f]+")
_HTML_SKIP = frozenset({"script", "style", "head", "noscript", "template", "title", "svg"})
_HTML_BLOCK = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "center", "dd", "details", "dialog",
        "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header",
        "hgroup", "hr", "html", "legend", "main", "menu", "nav", "p", "section", "summary",
    }
)
_HTML_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_CODE_LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang)-([\w+#.-]+)")


class _HtmlToMarkdown(HTMLParser):
    """Converts HTML to Markdown-like text with the standard-library parser (see ``html_to_text``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[str, str, int | None]] = []  # (kind, text, list group)
        self.skip: list[str] = []
        self.lines: list[str] = []  # finished lines of the current paragraph
        self.line: list[str] = []  # the current line, raw
        self.lists: list[dict[str, Any]] = []  # open ul/ol: ordered, counter, marker width
        self.list_group = 0
        self.marker: str | None = None  # list marker waiting for the item's first text
        self.item_indent = ""  # continuation indent inside the current list item
        self.heading: tuple[int, list[str]] | None = None
        self.pre: list[str] | None = None
        self.pre_depth = 0
        self.pre_language = ""
        self.table: dict[str, Any] | None = None
        self.table_depth = 0
        self.cell: list[str] | None = None
        self.caption: list[str] | None = None

    # -- paragraphs
    def _flush(self) -> None:
        lines = [*self.lines, "".join(self.line)]
        self.lines, self.line = [], []
        cleaned = [_HTML_WS.sub(" ", line).strip(" ") for line in lines]
        cleaned = [line for line in cleaned if line]
        if not cleaned:
            return
        if self.marker is not None:
            first = self.marker + cleaned[0]
            self.marker = None
        else:
            first = self.item_indent + cleaned[0]
        text = "\n".join([first, *(self.item_indent + line for line in cleaned[1:])])
        self.blocks.append(("paragraph", text, self.list_group if self.lists else None))

    def _line_break(self) -> None:
        if "".join(self.line).strip(" \t\n\r\f"):
            self.lines.append("".join(self.line))
            self.line = []
        elif self.lines:  # a second <br> in a row ends the paragraph
            self._flush()

    # -- tables
    def _close_cell(self) -> None:
        if self.table is not None and self.cell is not None:
            row = self.table["row"]
            if row is None:
                row = self.table["row"] = []
            row.append(("".join(self.cell), self.table["cell_is_th"]))
            for _ in range(self.table["colspan"] - 1):
                row.append(("", self.table["cell_is_th"]))
        self.cell = None

    def _close_row(self) -> None:
        self._close_cell()
        if self.table is not None and self.table["row"] is not None:
            if self.table["row"]:
                self.table["rows"].append(self.table["row"])
            self.table["row"] = None

    def _close_table(self) -> None:
        self._close_row()
        table, self.table, self.table_depth = self.table, None, 0
        if table is None:
            return
        caption = _HTML_WS.sub(" ", "".join(table["caption"])).strip(" ")
        if caption:
            self.blocks.append(("paragraph", caption, None))
        rows = table["rows"]
        header_index = next((k for k, row in enumerate(rows) if all(is_th for _, is_th in row)), 0)
        if rows:
            ordered = [rows[header_index], *rows[:header_index], *rows[header_index + 1 :]]
            rendered = pipe_table([[cell for cell, _ in row] for row in ordered])
            if rendered:
                self.blocks.append(("table", rendered, None))

    # -- parser callbacks
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":  # an unclosed <head> ends here
            while "head" in self.skip:
                self.skip.pop()
        if tag in _HTML_SKIP:
            self.skip.append(tag)
            return
        if self.skip:
            return
        if self.pre is not None:
            if tag == "br":
                self.pre.append("\n")
            elif tag == "pre":
                self.pre_depth += 1
            elif tag == "code" and not self.pre_language:
                self.pre_language = _language(attrs)
            return
        if self.table is not None:
            if tag == "table":
                self.table_depth += 1
            if self.table_depth > 1 or tag not in ("tr", "td", "th", "caption", "table"):
                if self.cell is not None and (tag in _HTML_BLOCK or tag in ("br", "li", "tr", "td", "th", "pre")):
                    self.cell.append(" ")
                return
            if tag == "tr":
                self._close_row()
                self.table["row"] = []
            elif tag in ("td", "th"):
                self._close_cell()
                self.cell = []
                self.table["cell_is_th"] = tag == "th"
                try:
                    self.table["colspan"] = max(1, min(int(dict(attrs).get("colspan") or 1), 100))
                except ValueError:
                    self.table["colspan"] = 1
            elif tag == "caption":
                self._close_row()
                self.caption = self.table["caption"]
            return
        if self.heading is not None:
            if tag == "br":
                self.heading[1].append(" ")
            return
        if tag == "table":
            self._flush()
            self.table = {"rows": [], "row": None, "caption": [], "cell_is_th": False, "colspan": 1}
            self.table_depth = 1
        elif tag == "pre":
            self._flush()
            self.pre, self.pre_depth, self.pre_language = [], 1, _language(attrs)
        elif tag in _HTML_HEADINGS:
            self._flush()
            self.heading = (_HTML_HEADINGS[tag], [])
        elif tag in ("ul", "ol"):
            self._flush()
            if not self.lists:
                self.list_group += 1
            start = 1
            if tag == "ol":
                try:
                    start = int(dict(attrs).get("start") or 1)
                except ValueError:
                    start = 1
            self.lists.append({"ordered": tag == "ol", "next": start, "width": 2})
        elif tag == "li":
            self._flush()
            if not self.lists:
                self.list_group += 1
                self.lists.append({"ordered": False, "next": 1, "width": 2, "implicit": True})
            current = self.lists[-1]
            indent = "".join(" " * outer["width"] for outer in self.lists[:-1])
            if current["ordered"]:
                marker = f"{current['next']}. "
                current["next"] += 1
            else:
                marker = "- "
            current["width"] = len(marker)
            self.marker = indent + marker
            self.item_indent = indent + " " * len(marker)
        elif tag == "br":
            self._line_break()
        elif tag in _HTML_BLOCK:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in _HTML_SKIP:
            if tag in self.skip:
                while self.skip and self.skip.pop() != tag:
                    pass
            return
        if self.skip:
            return
        if self.pre is not None:
            if tag == "pre":
                self.pre_depth -= 1
                if self.pre_depth <= 0:
                    code = "".join(self.pre)
                    code = re.sub(r"\r\n?", "\n", code)
                    code = code[1:] if code.startswith("\n") else code
                    code = code.rstrip()
                    if code.strip():
                        self.blocks.append(("code", fenced_code(code, self.pre_language), None))
                    self.pre = None
            return
        if self.table is not None:
            if tag == "table":
                if self.table_depth > 1:
                    self.table_depth -= 1
                    if self.cell is not None:
                        self.cell.append(" ")
                else:
                    self._close_table()
                return
            if self.table_depth > 1:
                if self.cell is not None:
                    self.cell.append(" ")
                return
            if tag in ("td", "th"):
                self._close_cell()
            elif tag == "tr":
                self._close_row()
            elif tag == "caption":
                self.caption = None
            elif self.cell is not None and tag in _HTML_BLOCK | {"li"}:
                self.cell.append(" ")
            return
        if self.heading is not None:
            if tag in _HTML_HEADINGS:
                level, parts = self.heading
                self.heading = None
                title = _HTML_WS.sub(" ", "".join(parts)).strip(" ")
                if title:
                    self.blocks.append(("heading", "#" * level + " " + title, None))
            return
        if tag in ("ul", "ol"):
            self._flush()
            if self.lists:
                self.lists.pop()
                while self.lists and self.lists[-1].get("implicit"):
                    self.lists.pop()
            self.marker = None
            self.item_indent = "".join(" " * outer["width"] for outer in self.lists)
        elif tag == "li":
            self._flush()
            self.marker = None
            if self.lists and self.lists[-1].get("implicit"):  # a stray <li> outside ul/ol
                self.lists.pop()
            self.item_indent = "".join(" " * outer["width"] for outer in self.lists[:-1])
        elif tag in _HTML_BLOCK:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre is not None:
            self.pre.append(data)
        elif self.table is not None:
            if self.cell is not None:
                self.cell.append(data)
            elif self.caption is not None:
                self.caption.append(data)
        elif self.heading is not None:
            self.heading[1].append(data)
        else:
            self.line.append(data)

    def finish(self) -> str:
        self.close()
        if self.pre is not None:  # an unclosed <pre>
            self.pre_depth = 1
            self.handle_endtag("pre")
        if self.table is not None:
            self._close_table()
        if self.heading is not None:
            self.handle_endtag(f"h{self.heading[0]}")
        self._flush()
        out: list[str] = []
        previous: tuple[str, str, int | None] | None = None
        for block in self.blocks:
            if previous is not None:
                tight = block[0] == previous[0] == "paragraph" and block[2] is not None and block[2] == previous[2]
                out.append("\n" if tight else "\n\n")
            out.append(block[1])
            previous = block
        return "".join(out) + ("\n" if out else "")


def _language(attrs: list[tuple[str, str | None]]) -> str:
    match = _CODE_LANGUAGE.search(dict(attrs).get("class") or "")
    return match.group(1) if match else ""


def html_to_text(html: str) -> str:
    """Markdown-like text from HTML: ``#`` headings, paragraphs separated by blank lines,
    ``- ``/``1. `` list items, pipe tables, fenced code for ``<pre>``; scripts, styles, head,
    noscript, template and comments dropped; entities decoded; whitespace collapsed."""
    parser = _HtmlToMarkdown()
    parser.feed(re.sub(r"\r\n?", "\n", html))
    return parser.finish()


_HTML_NOTE = "converted from HTML to Markdown-like text; offsets index the converted text"


def html_document(document: Document) -> Document:
    """A decoded HTML document converted to Markdown-like text with its elements."""
    text = html_to_text(document.text)
    notes = [n for n in document.notes if not n.startswith(("line endings are", "document contains only"))]
    notes.append(_HTML_NOTE)
    if not text.strip() and document.text.strip():
        notes.append("no text found in the HTML")
    return replace(
        document,
        text=text,
        format="html",
        notes=tuple(notes),
        elements=tuple(document_elements(text, markup="markdown")),
    )


# ============================================================================ PDF

_PDF_LOCK = threading.Lock()  # pypdf's logger is adjusted while reading


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.messages.append(record.getMessage())
        except Exception:  # pragma: no cover - a broken log record
            pass


class _QuietPypdf:
    """Collects pypdf's log warnings and Python warnings instead of printing them."""

    def __enter__(self) -> list[str]:
        _PDF_LOCK.acquire()
        self.logger = logging.getLogger("pypdf")
        self.handler = _Collect()
        self.propagate = self.logger.propagate
        self.logger.addHandler(self.handler)
        self.logger.propagate = False
        self.warnings = warnings.catch_warnings(record=True)
        self.caught = self.warnings.__enter__()
        warnings.simplefilter("always")
        return self.handler.messages

    def __exit__(self, *exc: object) -> None:
        try:
            self.warnings.__exit__(*exc)
            self.handler.messages.extend(str(w.message) for w in self.caught)
            self.logger.removeHandler(self.handler)
            self.logger.propagate = self.propagate
        finally:
            _PDF_LOCK.release()


def _one_line(exc: BaseException) -> str:
    message = " ".join(str(exc).split())
    return message or type(exc).__name__


def read_pdf(data: bytes, name: str = "document") -> Document:
    """The text of every page (``page.extract_text()``), pages joined by a blank line.

    Elements: the Markdown-like structure of the text plus one ``page`` element per page
    (``level`` = 1-based page number, title ``"page N"``). Encrypted PDFs that do not open with
    an empty password and unreadable files raise :class:`DocumentError`.
    """
    try:
        import pypdf
        from pypdf.errors import DependencyError
    except ImportError:  # pragma: no cover - pypdf is a dependency
        raise DocumentError(f"{name} is a PDF; reading PDF needs the 'pypdf' package (pip install pypdf)") from None

    aes_message = (
        f"{name} is encrypted with AES; decrypt it first (or install the 'cryptography' package, "
        "which pypdf needs to open AES-encrypted PDFs)"
    )
    notes: list[str] = []
    pages: list[str] = []
    with _QuietPypdf() as problems:
        try:
            reader = pypdf.PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                if not reader.decrypt(""):
                    raise DocumentError(f"{name} is encrypted; decrypt it first (it needs a password to open)")
                notes.append("the PDF is encrypted but opens without a password")
            page_list = list(reader.pages)
        except DocumentError:
            raise
        except DependencyError:
            raise DocumentError(aes_message) from None
        except Exception as exc:  # pypdf raises many kinds of errors on damaged files
            if type(exc).__name__ == "FileNotDecryptedError":
                raise DocumentError(f"{name} is encrypted; decrypt it first") from None
            raise DocumentError(f"{name} could not be read as a PDF: {_one_line(exc)}") from None
        failed: list[int] = []
        for number, page in enumerate(page_list, 1):
            try:
                page_text = page.extract_text() or ""
            except DependencyError:
                raise DocumentError(aes_message) from None
            except Exception:  # a damaged content stream: keep the other pages
                page_text = ""
                failed.append(number)
            pages.append(page_text.replace("\x00", ""))

    text_parts: list[str] = []
    page_elements: list[Element] = []
    pos = 0
    for number, page_text in enumerate(pages, 1):
        if number > 1:
            text_parts.append("\n\n")
            pos += 2
        text_parts.append(page_text)
        page_elements.append(Element("page", pos, pos + len(page_text), number, f"page {number}"))
        pos += len(page_text)
    text = "".join(text_parts)

    count = len(pages)
    if count == 0:
        notes.append("the PDF has no pages")
    else:
        notes.append(
            f"text extracted from {count} PDF page{'s' if count != 1 else ''}; pages are joined by a "
            "blank line and offsets index the extracted text"
        )
    if count and not text.strip():
        notes.append("no text could be extracted (scanned PDF?)")
    else:
        empty = [str(n) for n, p in enumerate(pages, 1) if not p.strip() and n not in failed]
        if empty:
            notes.append(f"no text on page{'s' if len(empty) > 1 else ''} {_number_list(empty)}")
    if failed:
        notes.append(
            f"text could not be extracted from page{'s' if len(failed) > 1 else ''} {_number_list([str(n) for n in failed])}"
        )
    unique_problems = list(dict.fromkeys(" ".join(p.split()) for p in problems if p.strip()))
    if unique_problems:
        shown = "; ".join(unique_problems[:3]) + (f" (and {len(unique_problems) - 3} more)" if len(unique_problems) > 3 else "")
        notes.append(f"pypdf reported problems reading the file: {shown}")

    elements = [*page_elements, *document_elements(text, markup="markdown")]
    elements.sort(key=lambda e: (e.start, e.kind != "page"))
    return Document(text=text, name=name, encoding="", notes=tuple(notes), format="pdf", elements=tuple(elements))


def _number_list(numbers: list[str], limit: int = 10) -> str:
    shown = ", ".join(numbers[:limit])
    return shown + (f" and {len(numbers) - limit} more" if len(numbers) > limit else "")


def page_of(document: Document, pos: int) -> int | None:
    """The page number (1-based) of the page that holds character position ``pos``.

    A position in the blank line between two pages belongs to the page before it, and
    ``len(text)`` to the last page. ``None`` for documents without pages (anything but PDF)
    and for positions outside ``0..len(text)``.
    """
    if pos < 0 or pos > len(document.text):
        return None
    pages = [e for e in document.elements if e.kind == "page"]
    if not pages:
        return None
    starts = [p.start for p in pages]
    k = bisect.bisect_right(starts, pos) - 1
    return pages[max(k, 0)].level


# ============================================================================ DOCX

_DOCX_HEADING = re.compile(r"^heading\s*(\d+)$", re.IGNORECASE)
_DOCX_LIST_STYLE = re.compile(r"^list\s+(bullet|number)(?:\s+(\d+))?$", re.IGNORECASE)


def read_docx(data: bytes, name: str = "document") -> Document:
    """A Word document as Markdown-like text, body paragraphs and tables in document order.

    ``Heading N`` styles become ``#``×N headings (``Title`` is level 1), list paragraphs
    (``List Bullet``/``List Number`` styles or Word numbering) ``- ``/``1. `` items, tables pipe
    tables (the first row is the header), other paragraphs are separated by blank lines.
    """
    try:
        import docx
        from docx.oxml.ns import qn
        from docx.table import Table, _Cell
        from docx.text.paragraph import Paragraph
    except ImportError:  # pragma: no cover - python-docx is a dependency
        raise DocumentError(f"{name} is a DOCX document; reading DOCX needs the 'python-docx' package") from None

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            word = docx.Document(io.BytesIO(data))
            body = word.element.body
            parent = word._body  # noqa: SLF001 - the block container python-docx uses itself
    except Exception as exc:  # zipfile, lxml, KeyError ... on damaged or non-Word files
        raise DocumentError(f"{name} could not be read as a DOCX (Word) document: {_docx_problem(exc)}") from None

    numbering = _DocxNumbering(word, qn)
    blocks: list[tuple[str, str]] = []  # (kind, text); list items of one run are joined tightly
    counters: list[tuple[bool, int]] = []  # per list level: (ordered, items so far)

    def children(element: Any) -> Iterator[Any]:
        for child in element.iterchildren():
            tag = child.tag
            if tag in (qn("w:sdt"),):
                content = child.find(qn("w:sdtContent"))
                if content is not None:
                    yield from children(content)
            elif tag in (qn("w:customXml"),):
                yield from children(child)
            else:
                yield child

    try:
        for child in children(body):
            if child.tag == qn("w:p"):
                paragraph = Paragraph(child, parent)
                raw = paragraph.text
                style = _style_name(paragraph)
                heading = _DOCX_HEADING.match(style)
                if heading or style.lower() == "title":
                    title = " ".join(raw.split())
                    counters.clear()
                    if title:
                        level = min(max(int(heading.group(1)), 1), 6) if heading else 1
                        blocks.append(("heading", "#" * level + " " + title))
                    continue
                lines = [" ".join(line.split()) for line in raw.splitlines()]
                lines = [line for line in lines if line]
                if not lines:
                    continue
                item = _list_item(paragraph, style, numbering)
                if item is None:
                    counters.clear()
                    blocks.append(("paragraph", "\n".join(lines)))
                    continue
                ordered, level = item
                del counters[level + 1 :]
                counters.extend([(ordered, 0)] * (level + 1 - len(counters)))
                previous_ordered, count = counters[level]
                count = count + 1 if previous_ordered == ordered else 1  # bullets <-> numbers: a new list
                counters[level] = (ordered, count)
                indent = "".join(" " * (len(f"{n}. ") if o else 2) for o, n in counters[:level])
                marker = f"{count}. " if ordered else "- "
                continuation = "\n".join(indent + " " * len(marker) + line for line in lines[1:])
                blocks.append(("item", indent + marker + lines[0] + ("\n" + continuation if continuation else "")))
            elif child.tag == qn("w:tbl"):
                counters.clear()
                rendered = pipe_table(_docx_rows(Table(child, parent), _Cell, qn))
                if rendered:
                    blocks.append(("table", rendered))
    except DocumentError:
        raise
    except Exception as exc:
        raise DocumentError(f"{name} could not be read as a DOCX (Word) document: {_docx_problem(exc)}") from None

    out: list[str] = []
    for k, (kind, text) in enumerate(blocks):
        if k:
            out.append("\n" if kind == "item" and blocks[k - 1][0] == "item" else "\n\n")
        out.append(text)
    text = "".join(out) + ("\n" if out else "")
    notes = ["converted from DOCX to Markdown-like text; offsets index the converted text"]
    if not text:
        notes.append("no text found in the DOCX")
    return Document(
        text=text,
        name=name,
        encoding="",
        notes=tuple(notes),
        format="docx",
        elements=tuple(document_elements(text, markup="markdown")),
    )


def _docx_problem(exc: BaseException) -> str:
    if isinstance(exc, zipfile.BadZipFile):
        return f"it is not a valid ZIP archive ({_one_line(exc)})"
    if type(exc).__name__ == "PackageNotFoundError":
        return f"it is not a Word package ({_one_line(exc)})"
    return f"the file is damaged or not a Word document ({type(exc).__name__}: {_one_line(exc)})"


def _style_name(paragraph: Any) -> str:
    try:
        style = paragraph.style
        return (style.name or "") if style is not None else ""
    except Exception:  # a dangling style reference
        return ""


def _list_item(paragraph: Any, style: str, numbering: "_DocxNumbering") -> tuple[bool, int] | None:
    """(ordered, level) for a list paragraph, else None."""
    by_style = _DOCX_LIST_STYLE.match(style)
    if by_style:
        level = int(by_style.group(2) or 1) - 1
        return by_style.group(1).lower() == "number", max(0, min(level, 8))
    num = numbering.properties(paragraph)
    if num is None:
        return None
    num_id, level = num
    return numbering.is_ordered(num_id, level), level


class _DocxNumbering:
    """Word numbering lookups: does a paragraph have numbering, and is it a bullet or a number."""

    def __init__(self, word: Any, qn: Any) -> None:
        self.qn = qn
        self.cache: dict[tuple[str, int], bool] = {}
        try:
            self.root = word.part.numbering_part.element
        except Exception:  # no numbering part
            self.root = None

    def properties(self, paragraph: Any) -> tuple[str, int] | None:
        qn = self.qn
        for source in (paragraph._p, getattr(_safe_style(paragraph), "element", None)):  # noqa: SLF001
            if source is None:
                continue
            ppr = source.find(qn("w:pPr"))
            num_pr = ppr.find(qn("w:numPr")) if ppr is not None else None
            if num_pr is None:
                continue
            num_id = num_pr.find(qn("w:numId"))
            ilvl = num_pr.find(qn("w:ilvl"))
            value = num_id.get(qn("w:val")) if num_id is not None else None
            if not value or value == "0":
                return None  # numbering explicitly removed
            try:
                level = int(ilvl.get(qn("w:val"))) if ilvl is not None else 0
            except (TypeError, ValueError):
                level = 0
            return value, max(0, min(level, 8))
        return None

    def is_ordered(self, num_id: str, level: int) -> bool:
        key = (num_id, level)
        if key not in self.cache:
            self.cache[key] = self._lookup(num_id, level)
        return self.cache[key]

    def _lookup(self, num_id: str, level: int) -> bool:
        if self.root is None:
            return False
        qn = self.qn
        try:
            for num in self.root.iterchildren(qn("w:num")):
                if num.get(qn("w:numId")) != num_id:
                    continue
                abstract = num.find(qn("w:abstractNumId"))
                abstract_id = abstract.get(qn("w:val")) if abstract is not None else None
                for definition in self.root.iterchildren(qn("w:abstractNum")):
                    if definition.get(qn("w:abstractNumId")) != abstract_id:
                        continue
                    for lvl in definition.iterchildren(qn("w:lvl")):
                        if lvl.get(qn("w:ilvl")) == str(level):
                            fmt = lvl.find(qn("w:numFmt"))
                            value = fmt.get(qn("w:val")) if fmt is not None else "decimal"
                            return value not in ("bullet", "none")
        except Exception:  # malformed numbering definitions: call it a bullet
            return False
        return False


def _safe_style(paragraph: Any) -> Any:
    try:
        return paragraph.style
    except Exception:
        return None


def _docx_rows(table: Any, cell_class: Any, qn: Any) -> list[list[str]]:
    """Cell texts row by row; a horizontally merged cell fills its first grid column, a
    vertically merged continuation is empty, so no text is repeated."""
    rows: list[list[str]] = []
    for tr in table._tbl.tr_lst:  # noqa: SLF001
        row: list[str] = [""] * _int_or_zero(getattr(tr, "grid_before", 0))
        for tc in tr.tc_lst:
            span = max(1, _int_or_zero(getattr(tc, "grid_span", 1)))
            text = "" if tc.vMerge == "continue" else cell_class(tc, table).text
            row.append(text)
            row.extend([""] * (span - 1))
        if row:
            rows.append(row)
    return rows


def _int_or_zero(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


# ============================================================================ files and stdin


def read_path(path: str | Path, max_bytes: int = MAX_BYTES) -> Document:
    """Read a file with :func:`read_bytes`; a missing or unreadable file is a :class:`DocumentError`."""
    p = Path(path)
    name = str(path)
    try:
        if p.is_dir():
            raise DocumentError(f"{name} is a directory, not a file")
        size = p.stat().st_size
        if size > max_bytes:
            raise _too_large(name, size, max_bytes)
        with p.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise DocumentError(f"file not found: {name}") from None
    except PermissionError:
        raise DocumentError(f"permission denied: cannot read {name}") from None
    except OSError as exc:
        raise DocumentError(f"cannot read {name}: {exc.strerror or exc}") from None
    return read_bytes(data, name=name, max_bytes=max_bytes)


def read_stdin(max_bytes: int = MAX_BYTES) -> Document:
    """Read standard input with :func:`read_bytes` (its raw bytes, so the same rules apply as
    for files; the format comes from the content since there is no file name)."""
    name = "<stdin>"
    stream = sys.stdin
    if stream is None:
        raise DocumentError("no standard input to read from")
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        data = buffer.read(max_bytes + 1)
    else:  # a text stream without bytes underneath (e.g. io.StringIO)
        text = stream.read()
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            data = text.encode("utf-8", "replace")
    return read_bytes(data, name=name, max_bytes=max_bytes)
