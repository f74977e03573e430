"""E-mail (EML, RFC 5322 with MIME) with the standard library's :mod:`email` package.

The text is Markdown: the subject as a ``#`` heading, the ``From``, ``To``, ``Cc`` and ``Date``
headers one per line, the message's text, and a ``## Attachments`` section listing each
attachment's file name, type and size (their content is not read). The text is the first
``text/plain`` part of the message's body, else its ``text/html`` part converted by the HTML
reader (:func:`~chunkviz.document.readers.html.convert_html`, which needs the ``formats``
extra); line endings become ``\\n``. A file named ``.eml`` without any e-mail header is read as
plain text, with a note.

Bounds: the input is at most :data:`~chunkviz.document.read.MAX_BYTES`; before it is parsed,
a message that declares more than :data:`MAX_MULTIPARTS` multipart containers is refused (the
standard parser takes time that grows with the square of their nesting, and recurses), and so
is one with more than twice :data:`MAX_PARTS` lines that may delimit a part (``--`` at a line's
start: the parser takes about 0.5 ms per part, 117 s for 200,000 here); at most
:data:`MAX_PARTS` parts are looked at.
"""

from __future__ import annotations

import re
from dataclasses import replace
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from typing import Iterator

from chunkviz.core.errors import DocumentError
from chunkviz.core.sizes import format_size
from chunkviz.document.model import Document

#: Most multipart containers a message may declare (a reply with attachments has two or three).
MAX_MULTIPARTS = 50
#: Most MIME parts looked at.
MAX_PARTS = 1_000
EML_NOTE = (
    "converted from an e-mail message to Markdown (headers, text, attachments listed); offsets index the converted text"
)
_SHOWN_HEADERS = ("From", "To", "Cc", "Date")
_KNOWN_HEADERS = ("from", "to", "subject", "date", "message-id", "received", "mime-version", "return-path")
_MULTIPART = re.compile(rb"^content-type:[ \t]*multipart/", re.IGNORECASE | re.MULTILINE)
_HEADER_LINE = re.compile(rb"([A-Za-z0-9-]{1,76}):")


def looks_like_email(data: bytes) -> bool:
    """Whether the input opens with header lines, one of them a header every message has."""
    names = []
    for line in data[:8192].splitlines()[:100]:
        if not line.strip():
            break
        if line[:1] in (b" ", b"\t"):  # a folded header's continuation
            continue
        match = _HEADER_LINE.match(line)
        if match is None:
            return False
        names.append(match.group(1).decode("ascii").lower())
    return any(name in _KNOWN_HEADERS for name in names)


def eml_document(data: bytes, document: Document) -> Document:
    """A decoded ``.eml`` file (``document``, from its raw ``data``) as Markdown (format ``eml``);
    without e-mail headers, ``document`` as plain text with a note."""
    if not looks_like_email(data):
        note = f"{document.name} is named .eml but has no e-mail headers: read as plain text"
        return replace(document, notes=(note, *document.notes))
    declared = len(_MULTIPART.findall(data))
    if declared > MAX_MULTIPARTS:
        raise DocumentError(
            f"{document.name} declares {declared:,} multipart containers; the limit is {MAX_MULTIPARTS} "
            "(a message nested this deep is not an ordinary e-mail). Save its text part instead"
        )
    delimiters = data.count(b"\n--")
    if delimiters > 2 * MAX_PARTS:
        raise DocumentError(
            f"{document.name} has {delimiters:,} lines that may delimit MIME parts; the limit is {2 * MAX_PARTS:,} "
            "(the parser takes about half a millisecond per part). Save its text part instead"
        )
    try:
        message = BytesParser(policy=policy.default).parsebytes(data)
    except (RecursionError, MemoryError):  # pragma: no cover - the multipart count bounds the nesting
        raise DocumentError(f"{document.name} is nested too deeply to read as an e-mail message") from None
    assert isinstance(message, EmailMessage)  # policy.default makes EmailMessage objects
    notes = [EML_NOTE]
    if _part_count(message) > MAX_PARTS:
        notes.append(f"only the first {MAX_PARTS:,} MIME parts of the message are looked at")
    body, body_notes = _body_text(message, document.name)
    notes.extend(body_notes)
    text = _markdown(message, body, list(_attachments(message)))
    return replace(document, text=text, format="eml", notes=tuple(notes), encoding="")


def _header(message: Message, name: str) -> str:
    try:
        value = message.get(name)
    except Exception:  # a header the policy cannot parse: its raw value
        value = message.get_all(name, failobj=[""])[0] if hasattr(message, "get_all") else ""
    return " ".join(str(value or "").split())


def _parts(message: Message) -> Iterator[tuple[Message, bool]]:
    """Every part (depth first, in order) and whether it is an attachment; at most :data:`MAX_PARTS`."""
    stack: list[Message] = [message]
    seen = 0
    while stack:
        part = stack.pop()
        seen += 1
        if seen > MAX_PARTS:
            return
        if part.get_content_type() == "message/rfc822" and part is not message:  # listed, not read
            yield part, True
            continue
        if part.is_multipart():
            payload = part.get_payload()
            if isinstance(payload, list):
                stack.extend(sub for sub in reversed(payload) if isinstance(sub, Message))
            continue
        disposition = (part.get_content_disposition() or "").lower()
        is_attachment = disposition == "attachment" or (
            part is not message and bool(part.get_filename()) and disposition != "inline"
        )
        yield part, is_attachment


def _part_count(message: Message) -> int:
    """How many parts the message has, multiparts included (counted up to ``MAX_PARTS + 1``)."""
    stack: list[Message] = [message]
    count = 0
    while stack and count <= MAX_PARTS:
        part = stack.pop()
        count += 1
        payload = part.get_payload() if part.is_multipart() else None
        if isinstance(payload, list):
            stack.extend(sub for sub in payload if isinstance(sub, Message))
    return count


def _body_text(message: Message, name: str) -> tuple[str, list[str]]:
    """The message's text: its first plain-text part, else its HTML part as Markdown."""
    plain = html = None
    for part, attached in _parts(message):
        if attached:
            continue
        kind = part.get_content_type()
        if kind == "text/plain" and plain is None:
            plain = part
        elif kind == "text/html" and html is None:
            html = part
    if plain is not None:
        return _part_text(plain).strip("\n"), []
    if html is not None:
        from chunkviz.document.readers.html import convert_html

        markdown, notes = convert_html(_part_text(html), f"{name} (its HTML part)")
        return markdown.strip("\n"), [
            "the message has no plain-text part: its HTML part is converted to Markdown",
            *notes,
        ]
    return "", ["the message has no text part"]


def _part_text(part: Message) -> str:
    """A text part decoded with its declared charset (replacing what does not decode), line endings as ``\\n``."""
    payload = part.get_payload(decode=True)
    raw = payload if isinstance(payload, bytes) else b""
    charset = part.get_content_charset() or "utf-8"
    try:
        text = raw.decode(charset, errors="replace")
    except LookupError:  # a charset Python does not know
        text = raw.decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _attachments(message: Message) -> Iterator[str]:
    """One line per attachment: its file name, type and size."""
    for part, attached in _parts(message):
        if not attached:
            continue
        kind = part.get_content_type()
        if kind == "message/rfc822":
            inner = part.get_payload()
            inner_message = inner[0] if isinstance(inner, list) and inner else None
            subject = _header(inner_message, "Subject") if isinstance(inner_message, Message) else ""
            yield f"an attached message: {subject or '(no subject)'}"
            continue
        payload = part.get_payload(decode=True)
        size = len(payload) if isinstance(payload, bytes) else 0
        filename = " ".join((part.get_filename() or "(no name)").split())
        yield f"{filename} ({kind}, {format_size(size)})"


def _markdown(message: Message, body: str, attachments: list[str]) -> str:
    subject = _header(message, "Subject") or "(no subject)"
    lines = [f"# {subject}", ""]
    lines.extend(f"{header}: {value}" for header in _SHOWN_HEADERS if (value := _header(message, header)))
    if body:
        lines += ["", body]
    if attachments:
        lines += ["", "## Attachments", ""]
        lines.extend(f"- {line}" for line in attachments)
    return "\n".join(lines).rstrip("\n") + "\n"
