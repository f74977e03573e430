"""Reading input into a :class:`~chunkviz.document.Document`: choosing the reader.

:func:`read_bytes` picks the reader by magic bytes (``%PDF-``; a ZIP holding ``word/document.xml``,
``ppt/presentation.xml``, ``xl/workbook.xml`` or an EPUB's container), else by file extension
(:data:`EXTENSION_FORMATS`), else decodes the bytes as text
(:mod:`~chunkviz.document.readers.text`, which refuses other binary input) and sniffs HTML.
Markdown, reStructuredText and plain text keep the decoded text as it is; the document's
``structure`` parses it on first use. HTML, DOCX, PPTX, XLSX, CSV, EPUB and e-mail are
converted to Markdown, PDF is the text of its pages, LaTeX is its body without comments and
with its sections as headings, Python gets its functions and classes as blocks. The readers
other than text and Python are imported on first use: their libraries take about 0.6 s to
import, which reading a Markdown or text file should not pay.
"""

from __future__ import annotations

import io
import os
import re
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

from chunkviz.core.errors import DocumentError
from chunkviz.core.files import NotRegularFileError, open_regular
from chunkviz.core.sizes import format_size
from chunkviz.document.code.languages import CODE_EXTENSION_FORMATS, LANGUAGES
from chunkviz.document.language import normalize_language
from chunkviz.document.model import Document, with_language
from chunkviz.document.readers.python import python_document
from chunkviz.document.readers.text import binary_kind, decode_bytes

#: Largest input accepted, in bytes (20 MB).
MAX_BYTES = 20_000_000

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
    **CODE_EXTENSION_FORMATS,  # .js, .ts, .go, .rs, ... (chunkviz.document.code.languages)
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".epub": "epub",
    ".csv": "csv",
    ".tsv": "csv",
    ".tex": "latex",
    ".latex": "latex",
    ".ltx": "latex",
    ".eml": "eml",
}
#: Formats read from their bytes by a reader of their own (the others are decoded as text first).
BINARY_FORMATS = ("pdf", "docx", "pptx", "xlsx", "epub")

_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_PDF_MAGIC = b"%PDF-"
_HTML_SNIFF = re.compile(
    r"\A\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)[\s>/]",
    re.IGNORECASE | re.DOTALL,
)


def _too_large(name: str, size: int, max_bytes: int) -> DocumentError:
    return DocumentError(
        f"{name} is too large: {size:,} bytes ({format_size(size)}); "
        f"the limit is {format_size(max_bytes)} ({max_bytes:,} bytes)"
    )


def format_for_name(name: str) -> str | None:
    """The format a file name's extension chooses (``None`` when the extension says nothing)."""
    return EXTENSION_FORMATS.get(Path(name).suffix.lower())


def looks_like_html(text: str) -> bool:
    """True when the text starts (after comments and an XML declaration) with an HTML doctype
    or an ``<html>``, ``<head>`` or ``<body>`` tag."""
    return bool(_HTML_SNIFF.match(text[:4096]))


def _format_by_magic(data: bytes, name: str) -> str | None:
    """``pdf``, or the ZIP-based format (``docx``, ``pptx``, ``xlsx``, ``epub``) a ZIP's parts
    say it is (or a damaged ZIP names, or a damaged ZIP's name says), when the magic bytes say
    so; else None."""
    if data.startswith(_PDF_MAGIC):
        return "pdf"
    if data.startswith(_ZIP_MAGIC):
        kind = _zip_kind(data, name)
        return kind if kind in BINARY_FORMATS else None
    return None


#: (a part only that kind of ZIP holds, its format)
_ZIP_KINDS = (
    ("word/document.xml", "docx"),
    ("xl/workbook.xml", "xlsx"),
    ("ppt/presentation.xml", "pptx"),
    ("META-INF/container.xml", "epub"),
)
_ODF_MIMETYPES = {
    "application/vnd.oasis.opendocument.text": "an OpenDocument text (ODT)",
    "application/vnd.oasis.opendocument.spreadsheet": "an OpenDocument spreadsheet (ODS)",
    "application/vnd.oasis.opendocument.presentation": "an OpenDocument presentation (ODP)",
}


def _zip_kind(data: bytes, name: str) -> str:
    """The format of a Word document, a presentation, a workbook or an EPUB book (``docx``,
    ``pptx``, ``xlsx``, ``epub``; a damaged ZIP that names the format's main part, or any
    damaged ZIP named for one of them: its reader reports it), else what the ZIP really is."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
            mimetype = archive.read("mimetype")[:100].decode("ascii", "replace") if "mimetype" in names else ""
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, KeyError, RuntimeError, NotImplementedError):
        named = next((kind for part, kind in _ZIP_KINDS if part.encode() in data), None)
        by_name = format_for_name(name)
        return named or (by_name if by_name in BINARY_FORMATS and by_name != "pdf" else "a damaged ZIP archive")
    if mimetype.strip() in _ODF_MIMETYPES:
        return _ODF_MIMETYPES[mimetype.strip()]
    if mimetype.strip() == "application/epub+zip":
        return "epub"
    for part, kind in _ZIP_KINDS:
        if part in names:
            return kind
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"a ZIP archive of {len(names)} file{'s' if len(names) != 1 else ''} ({shown or 'empty'})"


_FORMAT_NAMES = {
    "pdf": "a PDF",
    "docx": "a Word document (DOCX)",
    "pptx": "a PowerPoint presentation (PPTX)",
    "xlsx": "an Excel workbook (XLSX)",
    "epub": "an EPUB book",
    "csv": "CSV",
    "latex": "LaTeX",
    "eml": "an e-mail message (EML)",
    "html": "HTML",
    "text": "plain text",
}


def _mislabel_note(name: str, by_name: str | None, actual: str) -> str | None:
    """A note when the content is another format than the file's extension says."""
    text_formats = ("markdown", "rst", "python", "text", "csv", "latex", "eml")
    if by_name is None or by_name == actual or (by_name in text_formats and actual == "text"):
        return None
    suffix = Path(name).suffix
    return (
        f"{Path(name).name} is named {suffix} but is {_FORMAT_NAMES.get(actual, actual)}, "
        f"not {_FORMAT_NAMES.get(by_name, by_name)}: read as {_FORMAT_NAMES.get(actual, actual)}"
    )


def _with_note(document: Document, note: str | None) -> Document:
    return document if note is None else replace(document, notes=(note, *document.notes))


def read_bytes(
    data: bytes,
    name: str = "document",
    max_bytes: int = MAX_BYTES,
    language: str | None = None,
    *,
    slide_notes: bool = False,
) -> Document:
    """Read raw input into a :class:`Document` (see :func:`_read_bytes`); its language is
    ``language`` when given (an ISO 639-1 code such as ``"de"``), else detected on first use.
    ``slide_notes``: a presentation's speaker notes are read too."""
    code = normalize_language(language)  # a bad code fails before the reading
    return with_language(_read_bytes(data, name, max_bytes, slide_notes), code)


def _read_binary(fmt: str, data: bytes, name: str, slide_notes: bool) -> Document:
    """The reader of a format read from its bytes (:data:`BINARY_FORMATS`), imported on first use."""
    if fmt == "pdf":
        from chunkviz.document.readers.pdf import read_pdf  # loads pypdf only for PDF input

        return read_pdf(data, name)
    if fmt == "docx":
        from chunkviz.document.readers.docx import read_docx  # loads mammoth only for DOCX input

        return read_docx(data, name)
    if fmt == "pptx":
        from chunkviz.document.readers.slides import read_pptx  # loads python-pptx only for PPTX input

        return read_pptx(data, name, notes=slide_notes)
    if fmt == "xlsx":
        from chunkviz.document.readers.sheets import read_xlsx  # loads openpyxl only for XLSX input

        return read_xlsx(data, name)
    from chunkviz.document.readers.epub import read_epub  # loads ebooklib only for EPUB input

    return read_epub(data, name)


def _read_text_format(fmt: str, data: bytes, document: Document) -> Document:
    """The reader of a format decoded as text first (``document``: the decoded text)."""
    if fmt == "html":
        from chunkviz.document.readers.html import html_document  # loads markdownify only for HTML

        return html_document(document)
    if fmt == "python":
        return python_document(document)
    if fmt in LANGUAGES:
        from chunkviz.document.code.outline import code_document

        return code_document(document, fmt)
    if fmt == "csv":
        from chunkviz.document.readers.sheets import csv_document

        return csv_document(document)
    if fmt == "latex":
        from chunkviz.document.readers.latex import latex_document

        return latex_document(document)
    if fmt == "eml":
        from chunkviz.document.readers.eml import eml_document

        return eml_document(data, document)
    return replace(document, format=fmt)


def _read_bytes(data: bytes, name: str, max_bytes: int, slide_notes: bool = False) -> Document:
    """Read raw input into a :class:`Document` with the reader its content, else its name, chooses.

    The content decides when it says something else than the name (a PDF, DOCX, PPTX, XLSX or
    EPUB by its magic bytes and parts; HTML or text named ``.pdf`` or ``.xlsx``), with a note
    saying what the file really is. Input over ``max_bytes``, binary input of another format,
    and a ZIP of another kind named for one of those formats raise :class:`DocumentError` with a
    message that says what it is.
    """
    if len(data) > max_bytes:
        raise _too_large(name, len(data), max_bytes)
    by_name = format_for_name(name)
    by_magic = _format_by_magic(data, name)
    fmt = by_magic or by_name
    if by_name in BINARY_FORMATS and by_magic is None:
        if data.startswith(_ZIP_MAGIC):  # e.g. an ODT renamed to .docx
            raise DocumentError(f"{name} is {_zip_kind(data, name)}, not {_FORMAT_NAMES[by_name]}")
        kind = binary_kind(data)
        if kind is not None:  # e.g. a PNG or a legacy .doc renamed to .docx
            raise DocumentError(f"{name} looks like {kind}")
        fmt = None  # text named .pdf or .xlsx: what the decoded content is decides
    if fmt in BINARY_FORMATS:
        return _with_note(_read_binary(fmt, data, name, slide_notes), _mislabel_note(name, by_name, fmt))
    document = decode_bytes(data, name, fmt)  # the format says which declaration to honour
    if fmt is None and looks_like_html(document.text):
        fmt = "html"
    note = _mislabel_note(name, by_name, fmt or "text") if by_name in BINARY_FORMATS else None
    return _with_note(_read_text_format(fmt or "text", data, document), note)


def accepted_formats() -> str:
    """The file types the readers take, one extension per format (its first in
    :data:`EXTENSION_FORMATS`), for a file chooser's label: ``md, rst, txt, ..., eml``."""
    first: dict[str, str] = {}
    for suffix, fmt in EXTENSION_FORMATS.items():
        first.setdefault(fmt, suffix.lstrip("."))
    return ", ".join(first.values())


def read_path(
    path: str | Path, max_bytes: int = MAX_BYTES, language: str | None = None, *, slide_notes: bool = False
) -> Document:
    """Read a file with :func:`read_bytes` (``language``, ``slide_notes``: see there); a missing
    or unreadable file is a :class:`DocumentError`."""
    normalize_language(language)  # a bad code fails before the reading
    name = str(path)
    try:
        with open_regular(path) as handle:  # a pipe or a device is refused, never waited on
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                raise _too_large(name, size, max_bytes)
            data = handle.read(max_bytes + 1)
    except IsADirectoryError:
        raise DocumentError(f"{name} is a directory, not a file") from None
    except NotRegularFileError as exc:
        raise DocumentError(f"{name} {exc.problem}") from None
    except FileNotFoundError:
        raise DocumentError(f"file not found: {name}") from None
    except PermissionError:
        raise DocumentError(f"permission denied: cannot read {name}") from None
    except OSError as exc:
        raise DocumentError(f"cannot read {name}: {exc.strerror or exc}") from None
    return read_bytes(data, name=name, max_bytes=max_bytes, language=language, slide_notes=slide_notes)


def read_stdin(max_bytes: int = MAX_BYTES, language: str | None = None, *, slide_notes: bool = False) -> Document:
    """Read standard input with :func:`read_bytes` (its raw bytes, so the same rules apply as
    for files; the format comes from the content since there is no file name)."""
    stream = sys.stdin
    if stream is None:
        raise DocumentError("no standard input to read from")
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        data = buffer.read(max_bytes + 1)
    else:  # a text stream without bytes underneath (e.g. io.StringIO)
        data = _text_bytes(stream.read())
    return read_bytes(data, name="<stdin>", max_bytes=max_bytes, language=language, slide_notes=slide_notes)


def _text_bytes(text: str) -> bytes:
    """UTF-8 bytes of text read from a text stream (bytes it could not decode restored)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is not an escaped byte
        return text.encode("utf-8", "replace")


__all__ = [
    "BINARY_FORMATS",
    "EXTENSION_FORMATS",
    "MAX_BYTES",
    "accepted_formats",
    "format_for_name",
    "looks_like_html",
    "read_bytes",
    "read_path",
    "read_stdin",
]
