"""PDF (chunkviz.document.readers.pdf, pypdf): page texts joined by a blank line, one ``page``
block per page. The PDFs are written by the tests themselves (a minimal hand-written PDF)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from support.files import make_pdf
from test_read import check_blocks, span

from chunkviz.core.errors import DocumentError
from chunkviz.document import Block
from chunkviz.document.read import read_bytes, read_path, read_stdin
from chunkviz.document.readers import pdf as pdf_reader
from chunkviz.document.readers.pdf import page_of

pypdf = pytest.importorskip("pypdf")


PDF_PAGES = [
    ["Field Station Handbook", "Chapter one covers arrival (and safety)."],
    ["Chapter two covers the weather.", "Rain is frequent."],
]
PDF_TEXT = (
    "Field Station Handbook\nChapter one covers arrival (and safety)."
    "\n\n"
    "Chapter two covers the weather.\nRain is frequent."
)


def encrypt_pdf(data: bytes, user_password: str, owner_password: str | None = None) -> bytes:
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password, owner_password, algorithm="RC4-128")  # RC4 needs no 'cryptography'
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def test_the_hand_written_pdf_is_valid_for_pypdf() -> None:
    reader = pypdf.PdfReader(io.BytesIO(make_pdf(PDF_PAGES)))
    assert len(reader.pages) == 2
    assert reader.pages[0].extract_text() == "Field Station Handbook\nChapter one covers arrival (and safety)."


def test_pdf_pages_are_joined_by_a_blank_line_with_page_blocks() -> None:
    doc = read_bytes(make_pdf(PDF_PAGES), "handbook.pdf")
    assert doc.text == PDF_TEXT
    assert (doc.format, doc.encoding, doc.name) == ("pdf", "", "handbook.pdf")
    first_end = PDF_TEXT.index("\n\n")
    pages = [
        Block("page", 0, first_end, 1, "page 1"),
        Block("page", first_end + 2, len(PDF_TEXT), 2, "page 2"),
    ]
    assert list(doc.extra_blocks) == pages
    assert doc.structure.of_kind("page") == pages  # the structure holds the reader's pages
    assert span(doc, pages[0]) == "\n".join(PDF_PAGES[0])
    assert span(doc, pages[1]) == "\n".join(PDF_PAGES[1])
    assert any("2 PDF pages" in note for note in doc.notes)
    check_blocks(doc)


def test_pdf_text_structure_is_parsed_as_markdown() -> None:
    doc = read_bytes(make_pdf([["# Field notes", "", "| a | b |", "| --- | --- |", "| 1 | 2 |"]]), "md.pdf")
    assert [h.title for h in doc.structure.headings] == ["Field notes"]
    (table,) = doc.structure.tables
    assert len(table.rows) == 3


def test_page_of() -> None:
    doc = read_bytes(make_pdf(PDF_PAGES), "handbook.pdf")
    second = PDF_TEXT.index("Chapter two")
    assert page_of(doc, 0) == 1
    assert page_of(doc, second - 1) == 1  # the blank line between pages belongs to the page before
    assert page_of(doc, second) == 2
    assert page_of(doc, len(doc.text)) == 2
    assert page_of(doc, len(doc.text) + 1) is None
    assert page_of(doc, -1) is None
    assert page_of(read_bytes(b"# not a pdf\n", "a.md"), 0) is None


def test_pdf_by_magic_bytes_without_a_pdf_name() -> None:
    data = make_pdf(PDF_PAGES)
    assert read_bytes(data, "upload.bin").format == "pdf"
    assert read_bytes(data, "document").text == PDF_TEXT
    assert read_bytes(data, "notes.txt").text == PDF_TEXT  # the magic bytes win over the extension


def test_read_path_and_stdin_read_pdf(tmp_path, monkeypatch) -> None:
    path = tmp_path / "handbook.pdf"
    path.write_bytes(make_pdf(PDF_PAGES))
    assert read_path(path).text == PDF_TEXT
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(make_pdf(PDF_PAGES))))
    doc = read_stdin()
    assert (doc.name, doc.format, doc.text) == ("<stdin>", "pdf", PDF_TEXT)


def test_encrypted_pdf_is_refused() -> None:
    data = encrypt_pdf(make_pdf(PDF_PAGES), "secret")
    with pytest.raises(DocumentError) as info:
        read_bytes(data, "locked.pdf")
    assert str(info.value).startswith("locked.pdf is encrypted; decrypt it first")


def test_pdf_encrypted_with_an_empty_user_password_opens() -> None:
    doc = read_bytes(encrypt_pdf(make_pdf(PDF_PAGES), "", "owner"), "owner-only.pdf")
    assert doc.text == PDF_TEXT
    assert "the PDF is encrypted but opens without a password" in doc.notes


def test_pdf_without_text_is_noted() -> None:
    doc = read_bytes(make_pdf([[], []]), "scan.pdf")
    assert doc.text == "\n\n"
    assert "no text could be extracted (scanned PDF?)" in doc.notes
    assert [b.level for b in doc.structure.of_kind("page")] == [1, 2]
    check_blocks(doc)


def test_pdf_with_an_empty_page_says_which() -> None:
    doc = read_bytes(make_pdf([["Only text."], [], ["More text."]]), "gaps.pdf")
    assert doc.text == "Only text.\n\n\n\nMore text."
    assert "no text on page 2" in doc.notes
    assert [page_of(doc, doc.text.index(word)) for word in ("Only", "More")] == [1, 3]


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj",
        b"%PDF-1.4 ...",
        make_pdf(PDF_PAGES)[:150],
    ],
)
def test_corrupt_pdf_is_a_document_error(data: bytes) -> None:
    with pytest.raises(DocumentError) as info:
        read_bytes(data, "broken.pdf")
    assert str(info.value).startswith("broken.pdf could not be read as a PDF: ")
    assert "\n" not in str(info.value)


def test_pdf_reading_prints_nothing(capsys) -> None:
    read_bytes(make_pdf(PDF_PAGES), "quiet.pdf")
    with pytest.raises(DocumentError):
        read_bytes(make_pdf(PDF_PAGES)[:-60], "damaged.pdf")
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "")


def test_pdf_needs_the_formats_extra(monkeypatch) -> None:
    monkeypatch.setattr(pdf_reader, "HAVE_PYPDF", False)
    with pytest.raises(DocumentError) as info:
        read_bytes(make_pdf(PDF_PAGES), "handbook.pdf")
    assert str(info.value) == "reading PDF needs the formats extra: pip install 'chunkviz[formats]'"


def test_many_pages_read_with_one_block_each() -> None:
    count = 200
    data = make_pdf([[f"Page {n} heading", f"Body text of page {n}, with a few words."] for n in range(1, count + 1)])
    doc = read_bytes(data, "long.pdf")  # bench/bench_readers.py times this
    pages = doc.structure.of_kind("page")
    assert [p.level for p in pages] == list(range(1, count + 1))
    assert all(span(doc, p).startswith(f"Page {p.level} heading") for p in pages)


# ----------------------------------------------------------------------------- CLI end to end


def test_cli_chunks_a_pdf(capsys, tmp_path: Path) -> None:
    from chunkviz.cli import commands as cli

    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf(PDF_PAGES))
    code = cli.main(["chunk", str(path), "-s", "recursive", "-p", "chunk_size=20", "-p", "overlap=0"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    records = [json.loads(line) for line in captured.out.splitlines()]
    assert read_path(path).text == PDF_TEXT
    assert len(records) > 1 and records[0]["start"] == 0
    for record in records:
        assert record["text"] == PDF_TEXT[record["start"] : record["end"]]
    assert "note: " in captured.err and "PDF page" in captured.err


def test_cli_reports_an_encrypted_pdf_as_one_line(capsys, tmp_path: Path) -> None:
    from chunkviz.cli import commands as cli

    path = tmp_path / "locked.pdf"
    path.write_bytes(encrypt_pdf(make_pdf(PDF_PAGES), "pw"))
    code = cli.main(["chunk", str(path), "-s", "recursive"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.startswith("chunkviz: error: ") and "encrypted; decrypt it first" in captured.err
    assert captured.err.count("\n") == 1
