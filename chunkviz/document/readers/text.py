"""Decoding bytes into the exact text that chunk spans index.

The text is decoded once and never normalized: CRLF and CR line endings are kept, so a
chunk's ``start``/``end`` are offsets into the document exactly as read. What decoding had to
decide (a stripped byte order mark, a legacy-encoding fallback, an empty input) is reported in
``Document.notes`` rather than done silently. Binary input is refused with a message that says
what it looks like.
"""

from __future__ import annotations

import codecs
import io
import re
import tokenize

from chunkviz.core.errors import DocumentError
from chunkviz.document.model import Document, is_blank

#: Refuse text in which more than this share of the characters are control characters.
MAX_CONTROL_RATIO = 0.10

_UTF8_BOM = b"\xef\xbb\xbf"
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),  # before UTF-16 LE, whose mark it starts with
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)

# Control characters other than tab, LF, VT, FF and CR (C0, DEL and C1).
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")

_CONVERT_HINT = "save or export it as plain text or Markdown first"

#: (magic prefix, what the input is) for binary formats that are refused.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        f"a legacy Microsoft Office file (DOC/XLS/PPT), which is not supported; {_CONVERT_HINT}",
    ),
    (b"\x89PNG\r\n\x1a\n", "a PNG image, not text"),
    (b"\xff\xd8\xff", "a JPEG image, not text"),
    (b"GIF87a", "a GIF image, not text"),
    (b"GIF89a", "a GIF image, not text"),
    (b"\x7fELF", "an ELF executable, not text"),
    (b"\x1f\x8b", "gzip-compressed data; decompress it first"),
    (b"\xfd7zXZ\x00", "xz-compressed data; decompress it first"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive, not text"),
    (b"SQLite format 3\x00", "an SQLite database, not text"),
    (b"PK\x03\x04", "a ZIP archive, not text"),
    (b"PK\x05\x06", "a ZIP archive, not text"),
    (b"%PDF-", "a PDF document, not plain text; read it with chunkviz.document.read.read_bytes"),
)


def binary_kind(data: bytes) -> str | None:
    """What a known binary format is, from its magic number (None if not recognized)."""
    return next((kind for magic, kind in _MAGIC if data.startswith(magic)), None)


#: An HTML ``<meta>`` tag that declares a character set (``<meta charset="...">`` or
#: ``<meta http-equiv="Content-Type" content="text/html; charset=...">``), in the first bytes.
_META_CHARSET = re.compile(rb"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([-\w.:]+)", re.IGNORECASE)
_HTML_PRESCAN_BYTES = 4096
_HTML_START = re.compile(
    rb"\A\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|meta)[\s>/]", re.I | re.S
)
#: Labels the HTML standard reads as windows-1252 (a page that says latin-1 means cp1252).
_HTML_AS_CP1252 = {"iso-8859-1", "latin-1", "latin1", "l1", "ascii", "us-ascii", "iso8859-1", "cp819", "windows-1252"}


def declared_encoding(data: bytes, format: str | None = None) -> tuple[str, str] | None:
    """The encoding the file declares for itself, and how: a Python coding cookie (PEP 263, read
    by :func:`tokenize.detect_encoding`) for ``format == "python"``, an HTML ``<meta>`` charset
    for ``"html"`` (or for content that starts like HTML when the format is unknown). None when
    it declares none, or a name Python does not know (noted by the caller)."""
    if format == "python":
        try:
            encoding, lines = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError:  # an unknown encoding name, or a cookie that contradicts a BOM
            return None
        if not any(_is_cookie(line) for line in lines):
            return None
        return encoding, "its PEP 263 coding cookie"
    head = data[:_HTML_PRESCAN_BYTES]
    if format == "html" or (format is None and _HTML_START.match(head)):
        match = _META_CHARSET.search(head)
        if match is None:
            return None
        label = match.group(1).decode("ascii", "replace").lower()
        whole = head[match.start() : head.find(b">", match.end()) + 1 or len(head)]
        tag = "<meta http-equiv>" if b"http-equiv" in whole.lower() else "<meta charset>"
        if label in _HTML_AS_CP1252:
            label = "cp1252"
        return label, f"its {tag}"
    return None


def _is_cookie(line: bytes) -> bool:
    return re.match(rb"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+", line) is not None


def _decode_declared(data: bytes, declared: tuple[str, str] | None, notes: list[str]) -> tuple[str, str] | None:
    """``data`` decoded with its declared encoding, with a note; None (and a note why) when the
    declaration cannot be used, so the caller falls back."""
    if declared is None:
        return None
    label, how = declared
    try:
        codec = codecs.lookup(label).name
    except LookupError:
        notes.append(f"ignored the encoding {label!r} declared by {how}: Python does not know it")
        return None
    if codec.startswith(("utf-16", "utf-32")):  # bytes that spell the declaration are not UTF-16/32
        notes.append(f"ignored the encoding {label!r} declared by {how}: the bytes are not {codec.upper()}")
        return None
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as exc:
        notes.append(f"ignored the encoding {label!r} declared by {how}: {exc.reason} at byte {exc.start}")
        return None
    if codec not in ("utf-8", "ascii") or not data.isascii():
        notes.append(f"decoded as {codec} (declared by {how})")
    return text, codec


def decode_bytes(data: bytes, name: str = "document", format: str | None = None) -> Document:
    """Decode raw input into a plain-text :class:`Document`, refusing binary input.

    A byte order mark first (UTF-8, UTF-16, UTF-32; stripped and noted); else the encoding the
    file declares (:func:`declared_encoding`: a Python coding cookie, an HTML ``<meta>``
    charset; noted); else UTF-8, then cp1252 and latin-1 as noted fallbacks. Line endings are
    kept as they are. Empty or whitespace-only input is not an error; it is noted.
    """
    kind = binary_kind(data)
    if kind is not None:
        raise DocumentError(f"{name} looks like {kind}")
    notes: list[str] = []
    text, encoding = _decode(data, name, notes, format)
    _refuse_control_characters(text, name)
    notes.extend(_content_notes(text))
    return Document(text=text, name=name, encoding=encoding, notes=tuple(notes))


def _decode(data: bytes, name: str, notes: list[str], format: str | None = None) -> tuple[str, str]:
    """(text, encoding): by byte order mark, else as declared, else UTF-8 with legacy fallbacks."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _decode_by_bom(data[len(bom) :], encoding, name, notes), encoding
    if b"\x00" in data:
        raise DocumentError(
            f"{name} looks like a binary file: it contains NUL bytes "
            "(UTF-16/UTF-32 text is read only when it starts with a byte order mark)"
        )
    if not data.startswith(_UTF8_BOM):
        declared = _decode_declared(data, declared_encoding(data, format), notes)
        return declared if declared is not None else _decode_with_fallbacks(data, notes)
    notes.append("removed UTF-8 byte order mark")
    text, encoding = _decode_with_fallbacks(data[len(_UTF8_BOM) :], notes)
    return text, "utf-8-sig" if encoding == "utf-8" else encoding


def _decode_by_bom(body: bytes, encoding: str, name: str, notes: list[str]) -> str:
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        bom_length = 4 if encoding.startswith("utf-32") else 2
        raise DocumentError(
            f"{name} starts with a {encoding.upper()} byte order mark but is not valid "
            f"{encoding.upper()} ({exc.reason} at byte {exc.start + bom_length})"
        ) from None
    family, endian = encoding.rsplit("-", 1)
    byte_order = "little" if endian == "le" else "big"
    notes.append(f"decoded as {family.upper()} ({byte_order}-endian, from its byte order mark)")
    return text


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


def _refuse_control_characters(text: str, name: str) -> None:
    if "\x00" in text:
        raise DocumentError(f"{name} looks like a binary file: it contains NUL characters")
    if not text:
        return
    ratio = len(_CONTROL.findall(text)) / len(text)
    if ratio > MAX_CONTROL_RATIO:
        raise DocumentError(f"{name} looks like a binary file: {ratio:.0%} of its characters are control characters")


def _content_notes(text: str) -> list[str]:
    if not text:
        return ["document is empty"]
    if is_blank(text):
        return ["document contains only whitespace"]
    line_endings = line_ending_note(text)
    return [line_endings] if line_endings else []


def line_ending_note(text: str) -> str | None:
    """A remark when line endings are not plain LF: offsets count every ``\\r``."""
    crlf = text.count("\r\n")
    cr = text.count("\r") - crlf
    lf = text.count("\n") - crlf
    if not crlf and not cr:
        return None
    kinds = [kind for kind, n in (("CRLF", crlf), ("CR", cr), ("LF", lf)) if n]
    if len(kinds) == 1:
        return f"line endings are {kinds[0]} (kept as-is; offsets count each \\r)"
    return f"line endings are mixed ({', '.join(kinds)}; kept as-is; offsets count each \\r)"
