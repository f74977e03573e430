"""Reading input into the exact text that chunk spans index.

The text is decoded once and never normalized: CRLF and CR line endings are kept, so a
chunk's ``start``/``end`` are offsets into the document exactly as read. What reading had
to decide (a stripped byte order mark, a legacy-encoding fallback, an empty input) is
reported in ``Document.notes`` rather than done silently.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from chunkviz.errors import DocumentError

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
    (b"%PDF-", "a PDF file; PDF documents are not supported yet: extract the text first (e.g. with pdftotext)"),
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


@dataclass(frozen=True)
class Document:
    """A decoded input: ``text`` is what every chunk span indexes into.

    ``encoding`` is the codec used (``utf-8``, ``utf-8-sig``, ``utf-16-le``, ``cp1252`` ...);
    ``notes`` are human-readable remarks about the reading (fallbacks, stripped BOM, emptiness).
    """

    text: str
    name: str
    encoding: str
    notes: tuple[str, ...] = ()


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
        if name.lower().endswith(".docx") or b"word/" in data:
            return f"a DOCX (Word) document; DOCX is not supported yet: {_CONVERT_HINT}"
        return "a ZIP archive, not text"
    return None


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
    """
    if len(data) > max_bytes:
        raise _too_large(name, len(data), max_bytes)
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


def read_path(path: str | Path, max_bytes: int = MAX_BYTES) -> Document:
    """Read and decode a file; a missing or unreadable file is a :class:`DocumentError`."""
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
    return decode_bytes(data, name=name, max_bytes=max_bytes)


def read_stdin(max_bytes: int = MAX_BYTES) -> Document:
    """Read and decode standard input (its raw bytes, so the same rules apply as for files)."""
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
    return decode_bytes(data, name=name, max_bytes=max_bytes)
