"""DOCX (chunkviz.document.readers.docx, mammoth -> HTML -> Markdown). The Word documents are
made by the tests with python-docx; headings, tables and list items must survive as Markdown."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from support.files import docx_with_nested_table, large_docx, zip_bytes
from test_read import check_blocks, headings, span

from chunkviz.core.errors import DocumentError
from chunkviz.document.read import read_bytes, read_path
from chunkviz.document.readers import docx as docx_reader

docx = pytest.importorskip("docx")
pytest.importorskip("mammoth")


def make_docx() -> bytes:
    word = docx.Document()
    word.add_heading("Quarterly Report", level=1)
    word.add_paragraph("The first   paragraph introduces the report.")
    word.add_heading("Results", level=2)
    word.add_paragraph("Numbers are in the table below.")
    table = word.add_table(rows=3, cols=3)
    cells = [["Region", "Q1", "Q2"], ["North", "10", "12"], ["South | East", "7", "9"]]
    for r, row in enumerate(cells):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    word.add_paragraph("Key points:")
    word.add_paragraph("Sales grew", style="List Bullet")
    word.add_paragraph("Costs fell", style="List Bullet")
    word.add_paragraph("Plan the launch", style="List Number")
    word.add_paragraph("Hire two people", style="List Number")
    word.add_heading("Outlook", level=2)
    word.add_paragraph("Steady.")
    buffer = io.BytesIO()
    word.save(buffer)
    return buffer.getvalue()


# The bulleted and the numbered list are two lists (a blank line between them); the table's
# delimiter row is markdownify's "| --- |" form.
DOCX_TEXT = (
    "# Quarterly Report\n"
    "\n"
    "The first paragraph introduces the report.\n"
    "\n"
    "## Results\n"
    "\n"
    "Numbers are in the table below.\n"
    "\n"
    "| Region | Q1 | Q2 |\n"
    "| --- | --- | --- |\n"
    "| North | 10 | 12 |\n"
    "| South \\| East | 7 | 9 |\n"
    "\n"
    "Key points:\n"
    "\n"
    "- Sales grew\n"
    "- Costs fell\n"
    "\n"
    "1. Plan the launch\n"
    "2. Hire two people\n"
    "\n"
    "## Outlook\n"
    "\n"
    "Steady.\n"
)


def test_docx_text_and_structure() -> None:
    doc = read_bytes(make_docx(), "report.docx")
    assert doc.text == DOCX_TEXT
    assert (doc.format, doc.encoding) == ("docx", "")
    assert headings(doc) == [(1, "Quarterly Report"), (2, "Results"), (2, "Outlook")]
    assert [span(doc, h) for h in doc.structure.headings] == ["# Quarterly Report", "## Results", "## Outlook"]
    (table,) = doc.structure.tables
    assert [doc.text[s:e] for s, e in table.rows] == [
        "| Region | Q1 | Q2 |",
        "| --- | --- | --- |",
        "| North | 10 | 12 |",
        "| South \\| East | 7 | 9 |",
    ]
    items = [span(doc, b) for b in doc.structure.of_kind("list_item")]
    assert items == ["- Sales grew", "- Costs fell", "1. Plan the launch", "2. Hire two people"]
    assert any("DOCX" in note for note in doc.notes)
    check_blocks(doc)


def test_docx_title_style_and_nested_lists() -> None:
    word = docx.Document()
    word.add_heading("The Title", level=0)  # style "Title"
    word.add_paragraph("Outer", style="List Bullet")
    word.add_paragraph("Inner", style="List Bullet 2")
    word.add_paragraph("Line one\nline two", style="List Bullet")
    buffer = io.BytesIO()
    word.save(buffer)
    doc = read_bytes(buffer.getvalue(), "t.docx")
    # a line break inside a paragraph is a Markdown hard break (two spaces, then the break)
    assert doc.text == "# The Title\n\n- Outer\n  - Inner\n- Line one  \n  line two\n"
    assert headings(doc) == [(1, "The Title")]
    assert [span(doc, b) for b in doc.structure.of_kind("list_item")] == [
        "- Outer\n  - Inner",
        "- Line one  \n  line two",
    ]


def test_docx_by_magic_bytes_without_a_docx_name() -> None:
    doc = read_bytes(make_docx(), "upload")
    assert (doc.format, doc.text) == ("docx", DOCX_TEXT)
    assert read_bytes(make_docx(), "memo.txt").text == DOCX_TEXT  # the magic bytes win over the extension


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (b"PK\x03\x04 this is not really a zip", "broken.docx"),
        (make_docx()[:400], "broken.docx"),
        (zip_bytes({"[Content_Types].xml": "<Types/>", "word/document.xml": "<w:document/>"}), "broken.docx"),
        (zip_bytes({"[Content_Types].xml": "<Types/>", "word/document.xml": "<w:document/>"}), "broken"),
    ],
)
def test_corrupt_docx_is_a_document_error(data: bytes, name: str) -> None:
    with pytest.raises(DocumentError) as info:
        read_bytes(data, name)
    assert str(info.value).startswith(f"{name} could not be read as a DOCX (Word) document: ")
    assert "\n" not in str(info.value)


def test_plain_text_renamed_to_docx_is_read_as_what_it_is() -> None:
    """Issue 23 item 14: the content decides, and a note says what the file really is (this
    was a 'could not be read as a DOCX' error)."""
    document = read_bytes(b"plain text renamed to .docx", "broken.docx")
    assert (document.format, document.text) == ("text", "plain text renamed to .docx")
    assert (
        document.notes[0]
        == "broken.docx is named .docx but is plain text, not a Word document (DOCX): read as plain text"
    )


def test_docx_needs_the_formats_extra(monkeypatch) -> None:
    monkeypatch.setattr(docx_reader, "HAVE_MAMMOTH", False)
    with pytest.raises(DocumentError) as info:
        read_bytes(make_docx(), "report.docx")
    assert str(info.value) == "reading DOCX needs the formats extra: pip install 'chunkviz[formats]'"


def test_large_docx_keeps_every_heading_table_and_list() -> None:
    sections = 100
    data = large_docx(sections)
    doc = read_bytes(data, "large.docx")  # bench/bench_readers.py times this
    assert len(doc.structure.headings) == sections
    assert len(doc.structure.tables) == sections and all(len(t.rows) == 5 for t in doc.structure.tables)
    assert len(doc.structure.of_kind("list_item")) == 2 * sections


def test_cli_chunks_a_docx(capsys, tmp_path: Path) -> None:
    from chunkviz.cli import commands as cli

    path = tmp_path / "report.docx"
    path.write_bytes(make_docx())
    code = cli.main(["chunk", str(path), "-s", "recursive", "-p", "chunk_size=20", "-p", "overlap=0"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    records = [json.loads(line) for line in captured.out.splitlines()]
    assert read_path(path).text == DOCX_TEXT
    assert len(records) > 1 and records[0]["start"] == 0
    for record in records:
        assert record["text"] == DOCX_TEXT[record["start"] : record["end"]]
    assert "note: " in captured.err and "DOCX" in captured.err


def test_docx_nested_table_is_text_in_its_cell_with_a_note() -> None:
    """Issue 36 item 15: the inner table's rows were written into the outer cell as escaped pipes."""
    doc = read_bytes(docx_with_nested_table(), "kit.docx")
    assert doc.text == "Before.\n\n| Kit | Parts |\n| --- | --- |\n| A | Bolt / 4; Nut / 8 |\n\nAfter.\n"
    assert "1 table inside another table's cell kept as text in that cell (cells separated by '/', rows by ';')" in (
        doc.notes
    )
    (table,) = doc.structure.tables
    assert len(table.rows) == 3
    check_blocks(doc)
