"""E-mail (chunkviz.document.readers.eml, the standard library's email package): headers, the
text part (else the HTML part as Markdown), attachments listed. The messages are made by the
tests with :class:`email.message.EmailMessage`."""

from __future__ import annotations

from email.message import EmailMessage

import pytest
from support.files import make_pdf

from chunkviz.core.errors import DocumentError
from chunkviz.document.read import read_bytes
from chunkviz.document.readers import eml


def message_bytes(html_only: bool = False) -> bytes:
    message = EmailMessage()
    message["From"] = "Ann Okafor <ann@example.org>"
    message["To"] = "Field team <team@example.org>"
    message["Cc"] = "bo@example.org"
    message["Subject"] = "Gauge readings — week 12"
    message["Date"] = "Mon, 01 Dec 2025 10:00:00 +0000"
    if html_only:
        message.set_content("<html><body><h2>Readings</h2><p>All gauges <b>fine</b>.</p></body></html>", subtype="html")
    else:
        message.set_content("Hi team,\r\n\r\nThe readings are attached.\r\nAnn\r\n")
        message.add_alternative("<p>Hi team, the <b>HTML</b> copy.</p>", subtype="html")
    message.add_attachment(b"%PDF-1.4 fake", maintype="application", subtype="pdf", filename="week12.pdf")
    forwarded = EmailMessage()
    forwarded["Subject"] = "Old thread"
    forwarded.set_content("earlier")
    message.add_attachment(forwarded)
    return bytes(message)


HEADERS = (
    "# Gauge readings — week 12\n\n"
    "From: Ann Okafor <ann@example.org>\n"
    "To: Field team <team@example.org>\n"
    "Cc: bo@example.org\n"
    "Date: Mon, 01 Dec 2025 10:00:00 +0000\n\n"
)
ATTACHMENTS = "\n\n## Attachments\n\n- week12.pdf (application/pdf, 13 bytes)\n- an attached message: Old thread\n"


def test_headers_the_text_part_and_the_attachments() -> None:
    document = read_bytes(message_bytes(), "readings.eml")
    assert document.format == "eml"
    assert document.text == HEADERS + "Hi team,\n\nThe readings are attached.\nAnn" + ATTACHMENTS
    assert document.notes == (eml.EML_NOTE,)
    structure = document.structure
    assert [(h.level, h.title) for h in structure.headings] == [(1, "Gauge readings — week 12"), (2, "Attachments")]
    assert [b.kind for b in structure.blocks if b.kind == "list_item"] == ["list_item", "list_item"]


def test_without_a_text_part_the_html_part_is_converted() -> None:
    document = read_bytes(message_bytes(html_only=True), "readings.eml")
    assert document.text == HEADERS + "## Readings\n\nAll gauges **fine**." + ATTACHMENTS
    assert document.notes == (
        eml.EML_NOTE,
        "the message has no plain-text part: its HTML part is converted to Markdown",
    )


def test_too_many_multipart_containers_are_refused_before_parsing() -> None:
    """Nested multiparts: the standard parser's time grows with the square of the depth and it
    recurses; a message declaring more than MAX_MULTIPARTS is refused before it is parsed."""
    depth = 5_000
    parts = "".join(f"Content-Type: multipart/mixed; boundary=b{k}\n\n--b{k}\n" for k in range(depth))
    closing = "".join(f"--b{k}--\n" for k in reversed(range(depth)))
    data = f"From: a@example.org\nSubject: deep\nMIME-Version: 1.0\n{parts}Content-Type: text/plain\n\nhi\n{closing}"
    with pytest.raises(DocumentError) as info:
        read_bytes(data.encode(), "deep.eml")
    assert str(info.value) == (
        "deep.eml declares 5,000 multipart containers; the limit is 50 (a message nested this deep is not "
        "an ordinary e-mail). Save its text part instead"
    )


def test_a_message_of_too_many_part_delimiters_is_refused_before_parsing() -> None:
    body = "".join(f"--B\nContent-Type: text/plain\n\npart {k}\n" for k in range(2 * eml.MAX_PARTS))
    data = f"From: a@example.org\nSubject: flat\nContent-Type: multipart/mixed; boundary=B\n\n{body}--B--\n"
    with pytest.raises(DocumentError) as info:
        read_bytes(data.encode(), "flat.eml")
    assert str(info.value) == (
        "flat.eml has 2,001 lines that may delimit MIME parts; the limit is 2,000 (the parser takes about half "
        "a millisecond per part). Save its text part instead"
    )


def test_a_message_of_many_parts_lists_at_most_max_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eml, "MAX_PARTS", 5)
    document = read_bytes(message_bytes(), "readings.eml")
    assert (
        "an attached message" not in document.text and "week12.pdf" in document.text
    )  # the sixth part is not looked at
    assert document.notes == (eml.EML_NOTE, "only the first 5 MIME parts of the message are looked at")


def test_a_file_named_eml_without_headers_is_plain_text_with_a_note() -> None:
    document = read_bytes(b"Just some notes\nno headers here\n", "notes.eml")
    assert document.format == "text" and document.text == "Just some notes\nno headers here\n"
    assert document.notes == ("notes.eml is named .eml but has no e-mail headers: read as plain text",)


def test_a_pdf_named_eml_or_tex_is_read_as_a_pdf_with_a_note() -> None:
    pytest.importorskip("pypdf")
    for name in ("mail.eml", "paper.tex"):
        document = read_bytes(make_pdf([["Page one."]]), name)
        suffix = name.rsplit(".", 1)[1]
        what = "an e-mail message (EML)" if suffix == "eml" else "LaTeX"
        assert document.format == "pdf"
        assert document.notes[0] == f"{name} is named .{suffix} but is a PDF, not {what}: read as a PDF"


def test_an_unknown_charset_is_decoded_as_utf8_with_replacements() -> None:
    data = b"From: a@example.org\nSubject: x\nContent-Type: text/plain; charset=no-such-charset\n\ncaf\xc3\xa9 \xff\n"
    document = read_bytes(data, "odd.eml")
    assert document.text == "# x\n\nFrom: a@example.org\n\ncafé \ufffd\n"
