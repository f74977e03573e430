"""Reading input into a :class:`~chunkviz.document.Document`: choosing the reader.

:func:`read_bytes` picks the reader by file extension (:data:`EXTENSION_FORMATS`), then by
magic bytes (``%PDF-``; a ZIP holding ``word/document.xml``), else decodes the bytes as text
(:mod:`~chunkviz.document.readers.text`, which refuses other binary input) and sniffs HTML.
Markdown, reStructuredText and plain text keep the decoded text as it is; the document's
``structure`` parses it on first use. HTML and DOCX are converted to Markdown, PDF is the
text of its pages, Python gets its functions and classes as blocks. The HTML, DOCX and PDF
readers are imported on first use: their libraries take about 0.6 s to import, which reading
a Markdown or text file should not pay.
"""

from __future__ import annotations

import io
import os
import re
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

from chunkviz.document.code.languages import CODE_EXTENSION_FORMATS, LANGUAGES
from chunkviz.document.language import normalize_language
from chunkviz.document.model import Document, with_language
from chunkviz.document.readers.python import python_document
from chunkviz.document.readers.text import binary_kind, decode_bytes
from chunkviz.document.sizes import format_size
from chunkviz.errors import DocumentError
from chunkviz.files import NotRegularFileError, open_regular

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
}

_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_PDF_MAGIC = b"%PDF-"
_DOCX_MAIN_PART = "word/document.xml"
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
    """``pdf`` or ``docx`` when the magic bytes say so (a ZIP holding ``word/document.xml``, or a
    damaged ZIP named ``.docx``), else None."""
    if data.startswith(_PDF_MAGIC):
        return "pdf"
    if data.startswith(_ZIP_MAGIC) and _zip_kind(data, name) == "docx":
        return "docx"
    return None


#: (a part only that kind of ZIP holds, what the file is)
_ZIP_KINDS = (
    ("xl/workbook.xml", "an Excel workbook (XLSX)"),
    ("ppt/presentation.xml", "a PowerPoint presentation (PPTX)"),
    ("META-INF/container.xml", "an EPUB book"),
)
_ODF_MIMETYPES = {
    "application/vnd.oasis.opendocument.text": "an OpenDocument text (ODT)",
    "application/vnd.oasis.opendocument.spreadsheet": "an OpenDocument spreadsheet (ODS)",
    "application/vnd.oasis.opendocument.presentation": "an OpenDocument presentation (ODP)",
}


def _zip_kind(data: bytes, name: str) -> str:
    """``docx`` for a Word document (or a damaged ZIP that names its main part, or any damaged
    ZIP named ``.docx``: the DOCX reader reports it), else what the ZIP really is."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
            mimetype = archive.read("mimetype")[:100].decode("ascii", "replace") if "mimetype" in names else ""
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, KeyError, RuntimeError, NotImplementedError):
        damaged_docx = _DOCX_MAIN_PART.encode() in data or name.lower().endswith(".docx")
        return "docx" if damaged_docx else "a damaged ZIP archive"
    if _DOCX_MAIN_PART in names:
        return "docx"
    if mimetype.strip() in _ODF_MIMETYPES:
        return _ODF_MIMETYPES[mimetype.strip()]
    for part, kind in _ZIP_KINDS:
        if part in names:
            return kind
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"a ZIP archive of {len(names)} file{'s' if len(names) != 1 else ''} ({shown or 'empty'})"


_FORMAT_NAMES = {"pdf": "a PDF", "docx": "a Word document (DOCX)", "html": "HTML", "text": "plain text"}


def _mislabel_note(name: str, by_name: str | None, actual: str) -> str | None:
    """A note when the content is another format than the file's extension says."""
    if by_name is None or by_name == actual or (by_name in ("markdown", "rst", "python", "text") and actual == "text"):
        return None
    suffix = Path(name).suffix
    return (
        f"{Path(name).name} is named {suffix} but is {_FORMAT_NAMES.get(actual, actual)}, "
        f"not {_FORMAT_NAMES.get(by_name, by_name)}: read as {_FORMAT_NAMES.get(actual, actual)}"
    )


def _with_note(document: Document, note: str | None) -> Document:
    return document if note is None else replace(document, notes=(note, *document.notes))


def read_bytes(
    data: bytes, name: str = "document", max_bytes: int = MAX_BYTES, language: str | None = None
) -> Document:
    """Read raw input into a :class:`Document` (see :func:`_read_bytes`); its language is
    ``language`` when given (an ISO 639-1 code such as ``"de"``), else detected on first use."""
    code = normalize_language(language)  # a bad code fails before the reading
    return with_language(_read_bytes(data, name, max_bytes), code)


def _read_bytes(data: bytes, name: str, max_bytes: int) -> Document:
    """Read raw input into a :class:`Document` with the reader its content, else its name, chooses.

    The content decides when it says something else than the name (a PDF or DOCX by its magic
    bytes; HTML or text named ``.pdf`` or ``.docx``), with a note saying what the file really is.
    Input over ``max_bytes``, binary input that is not PDF or DOCX, and a ZIP that is not a Word
    document named ``.docx`` raise :class:`DocumentError` with a message that says what it is.
    """
    if len(data) > max_bytes:
        raise _too_large(name, len(data), max_bytes)
    by_name = format_for_name(name)
    by_magic = _format_by_magic(data, name)
    fmt = by_magic or by_name
    if by_name in ("pdf", "docx") and by_magic is None:
        if data.startswith(_ZIP_MAGIC):  # e.g. an XLSX or an ODT renamed to .docx
            raise DocumentError(f"{name} is {_zip_kind(data, name)}, not {_FORMAT_NAMES[by_name]}")
        kind = binary_kind(data)
        if kind is not None:  # e.g. a PNG or a legacy .doc renamed to .docx
            raise DocumentError(f"{name} looks like {kind}")
        fmt = None  # text named .pdf or .docx: what the decoded content is decides
    if fmt == "pdf":
        from chunkviz.document.readers.pdf import (
            read_pdf,  # loads pypdf only for PDF input
        )

        return _with_note(read_pdf(data, name), _mislabel_note(name, by_name, "pdf"))
    if fmt == "docx":
        from chunkviz.document.readers.docx import (
            read_docx,  # loads mammoth only for DOCX input
        )

        return _with_note(read_docx(data, name), _mislabel_note(name, by_name, "docx"))
    document = decode_bytes(data, name, fmt)  # the format says which declaration to honour
    if fmt is None and looks_like_html(document.text):
        fmt = "html"
    note = _mislabel_note(name, by_name, fmt or "text") if by_name in ("pdf", "docx") else None
    if fmt == "html":
        from chunkviz.document.readers.html import (
            html_document,  # loads markdownify only for HTML
        )

        return _with_note(html_document(document), note)
    if fmt == "python":
        return python_document(document)
    if fmt in LANGUAGES:
        from chunkviz.document.code.outline import code_document

        return code_document(document, fmt)
    return _with_note(replace(document, format=fmt or "text"), note)


def read_path(path: str | Path, max_bytes: int = MAX_BYTES, language: str | None = None) -> Document:
    """Read a file with :func:`read_bytes` (``language``: see there); a missing or unreadable file
    is a :class:`DocumentError`."""
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
    return read_bytes(data, name=name, max_bytes=max_bytes, language=language)


def read_stdin(max_bytes: int = MAX_BYTES, language: str | None = None) -> Document:
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
    return read_bytes(data, name="<stdin>", max_bytes=max_bytes, language=language)


def _text_bytes(text: str) -> bytes:
    """UTF-8 bytes of text read from a text stream (bytes it could not decode restored)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is not an escaped byte
        return text.encode("utf-8", "replace")


__all__ = [
    "EXTENSION_FORMATS",
    "MAX_BYTES",
    "format_for_name",
    "looks_like_html",
    "read_bytes",
    "read_path",
    "read_stdin",
]
