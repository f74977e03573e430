"""XLSX (openpyxl, read-only) and CSV (the csv module): each sheet a section with one Markdown
table, its first row the header, so the ``tables`` strategy keeps rows whole and repeats the
header. The workbooks are made by the tests with openpyxl."""

from __future__ import annotations

import csv
import datetime
import io
import re
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.files import zip_bytes

import chunkviz
from chunkviz.core.errors import DocumentError
from chunkviz.document.model import Document
from chunkviz.document.read import read_bytes
from chunkviz.document.readers import sheets
from chunkviz.document.readers.archive import MAX_ENTRIES
from chunkviz.document.readers.sheets import csv_document

openpyxl = pytest.importorskip("openpyxl")


def workbook_bytes(build: object) -> bytes:
    workbook = openpyxl.Workbook()
    build(workbook)  # type: ignore[operator]
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _two_sheets(workbook: object) -> None:
    stations = workbook.active  # type: ignore[attr-defined]
    stations.title = "Stations"
    stations.append(["Station", "River", "Depth (m)", "Installed", "Heated"])
    stations.append(["Mill Weir", "Ouse", 2.5, datetime.datetime(2021, 4, 1), True])
    stations.append([])  # an empty row is left out
    stations.append(["Low | Bridge", "Trent\nlower reach", 3.0, datetime.date(2019, 9, 30), False])
    stations.append(["Ford", None, 1, None, None])
    stations["H2"] = None  # nothing after the last value
    notes = workbook.create_sheet("Notes")  # type: ignore[attr-defined]
    notes.append(["Topic", "Note"])
    notes.append(["Icing", "Heaters run below 2 °C"])
    hidden = workbook.create_sheet("Old")  # type: ignore[attr-defined]
    hidden.sheet_state = "hidden"
    hidden.append(["Kept"])
    workbook.create_sheet("Empty")  # type: ignore[attr-defined]


WORKBOOK_TEXT = (
    "# Stations\n\n"
    "| Station | River | Depth (m) | Installed | Heated |\n"
    "| --- | --- | --- | --- | --- |\n"
    "| Mill Weir | Ouse | 2.5 | 2021-04-01 | TRUE |\n"
    "| Low \\| Bridge | Trent lower reach | 3 | 2019-09-30 | FALSE |\n"
    "| Ford |  | 1 |  |  |\n"
    "\n# Notes\n\n"
    "| Topic | Note |\n"
    "| --- | --- |\n"
    "| Icing | Heaters run below 2 °C |\n"
    "\n# Old\n\n"
    "| Kept |\n"
    "| --- |\n"
    "\n# Empty\n"
)


def test_a_workbook_is_one_section_and_one_table_per_sheet() -> None:
    document = read_bytes(workbook_bytes(_two_sheets), "stations.xlsx")
    assert document.format == "xlsx"
    assert document.text == WORKBOOK_TEXT
    assert document.notes == (sheets.XLSX_NOTE, "hidden sheets read too: Old")
    structure = document.structure
    assert [(h.level, h.title) for h in structure.headings] == [(1, "Stations"), (1, "Notes"), (1, "Old"), (1, "Empty")]
    assert [s.path for s in structure.sections] == [("Stations",), ("Notes",), ("Old",), ("Empty",)]
    tables = structure.tables
    assert [len(t.rows) for t in tables] == [5, 3, 2]  # header, delimiter and the data rows, each a line
    first = document.text[tables[0].rows[0][0] : tables[0].rows[0][1]]
    assert first == "| Station | River | Depth (m) | Installed | Heated |"


def test_the_tables_strategy_repeats_a_sheets_header_in_every_row_group() -> None:
    document = read_bytes(workbook_bytes(_two_sheets), "stations.xlsx")
    chunks = [c for c in chunkviz.chunk(document, "tables", rows_per_chunk=1) if c.metadata.get("kind") == "table"]
    header = "| Station | River | Depth (m) | Installed | Heated |\n| --- | --- | --- | --- | --- |\n"
    assert [c.text for c in chunks[:3]] == [
        header + "| Mill Weir | Ouse | 2.5 | 2021-04-01 | TRUE |\n",
        "| Low \\| Bridge | Trent lower reach | 3 | 2019-09-30 | FALSE |\n",
        "| Ford |  | 1 |  |  |\n\n",
    ]
    assert [c.added_text for c in chunks[:3]] == ["", header, header]
    for c in chunks:
        assert c.text == document.text[c.start : c.end]


def test_a_cell_far_away_is_bounded_by_the_cell_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A value at column XFD makes openpyxl fill 16,384 cells into its row, and a row numbered a
    million makes it yield the empty rows before it: both count, and the budget stops the reading."""
    monkeypatch.setattr(sheets, "MAX_CELLS", 50_000)

    def far(workbook: object) -> None:
        sheet = workbook.active  # type: ignore[attr-defined]
        sheet["A1"] = "head"
        for row in range(2, 6):
            sheet.cell(row=row, column=16_384, value="far")

    with pytest.raises(DocumentError) as info:
        read_bytes(workbook_bytes(far), "wide.xlsx")
    assert str(info.value) == (
        "wide.xlsx has more than 50,000 cells (by sheet 'Sheet', row 5); "
        "split the workbook, or export the sheets you need as CSV"
    )

    def deep(workbook: object) -> None:
        sheet = workbook.active  # type: ignore[attr-defined]
        sheet["A1"] = "head"
        sheet["A1000000"] = "last"

    with pytest.raises(DocumentError, match=r"^deep\.xlsx has more than 50,000 cells \(by sheet 'Sheet', row 50,001\)"):
        read_bytes(workbook_bytes(deep), "deep.xlsx")


def test_a_declared_giant_dimension_does_not_pad_the_rows() -> None:
    """A sheet whose <dimension> claims A1:XFD1048576 holds two cells: two cells are read."""

    def two(workbook: object) -> None:
        sheet = workbook.active  # type: ignore[attr-defined]
        sheet["A1"], sheet["A2"] = "head", "value"

    data = workbook_bytes(two)
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            content = source.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                content = content.replace(b'<dimension ref="A1:A2"/>', b'<dimension ref="A1:XFD1048576"/>')
                assert b"XFD1048576" in content
            archive.writestr(info, content)
    document = read_bytes(out.getvalue(), "claims.xlsx")
    assert document.text == "# Sheet\n\n| head |\n| --- |\n| value |\n"


def test_a_workbook_bomb_is_refused_before_it_is_inflated(monkeypatch: pytest.MonkeyPatch) -> None:
    opened = []
    monkeypatch.setattr(openpyxl, "load_workbook", lambda *a, **k: opened.append(1))
    data = workbook_bytes(_two_sheets)
    monkeypatch.setattr(sheets, "MAX_XML_BYTES", 1_000)
    with pytest.raises(DocumentError) as info:
        read_bytes(data, "bomb.xlsx")
    message = str(info.value)
    assert message.startswith("bomb.xlsx is too large once unpacked: its XML inflates to ")
    assert message.endswith("the limit is 1 kB. Split the document, or save it as plain text or Markdown first")
    assert opened == []


def test_an_archive_of_too_many_entries_is_refused_before_it_is_opened() -> None:
    parts = {"xl/workbook.xml": "<w/>", **{f"x/{k}.xml": "" for k in range(MAX_ENTRIES)}}
    with pytest.raises(DocumentError) as info:
        read_bytes(zip_bytes(parts), "many.xlsx")
    assert str(info.value) == (
        f"many.xlsx is an archive of {MAX_ENTRIES + 1:,} entries; the limit is {MAX_ENTRIES:,}. "
        "Split the document, or save it as plain text or Markdown first"
    )


def test_a_damaged_workbook_says_so_in_one_line() -> None:
    data = workbook_bytes(_two_sheets)
    with pytest.raises(DocumentError) as info:
        read_bytes(data[: len(data) // 2], "cut.xlsx")
    assert str(info.value).startswith("cut.xlsx could not be read as an Excel workbook (XLSX): ")
    assert "\n" not in str(info.value)


def test_mislabelled_workbooks_and_text_named_xlsx_are_read_as_what_they_are() -> None:
    workbook = workbook_bytes(_two_sheets)
    as_csv = read_bytes(workbook, "stations.csv")
    assert as_csv.format == "xlsx" and as_csv.text == WORKBOOK_TEXT
    assert as_csv.notes[0] == (
        "stations.csv is named .csv but is an Excel workbook (XLSX), not CSV: read as an Excel workbook (XLSX)"
    )
    text = read_bytes(b"Station,River\nMill Weir,Ouse\n", "export.xlsx")
    assert text.format == "text" and text.text == "Station,River\nMill Weir,Ouse\n"
    assert text.notes[0] == (
        "export.xlsx is named .xlsx but is plain text, not an Excel workbook (XLSX): read as plain text"
    )
    with pytest.raises(DocumentError, match=r"^photo\.xlsx looks like a PNG image, not text$"):
        read_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64), "photo.xlsx")


def test_without_openpyxl_the_message_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sheets, "HAVE_OPENPYXL", False)
    with pytest.raises(DocumentError) as info:
        read_bytes(workbook_bytes(_two_sheets), "stations.xlsx")
    assert str(info.value) == "reading XLSX needs the formats extra: pip install 'chunkviz[formats]'"


# ----------------------------------------------------------------------------------------- CSV


def test_a_csv_is_one_section_with_its_header_known() -> None:
    data = 'id;name;note\r\n1;Ann;"two\r\nlines"\r\n\r\n2;Bo|b;\r\n3;Cy;x;extra\r\n'.encode()
    document = read_bytes(data, "people.csv")
    assert document.format == "csv"
    assert document.text == (
        "# people.csv\n\n"
        "| id | name | note |  |\n"
        "| --- | --- | --- | --- |\n"
        "| 1 | Ann | two lines |  |\n"
        "| 2 | Bo\\|b |  |  |\n"
        "| 3 | Cy | x | extra |\n"
    )
    assert document.notes == (sheets.CSV_NOTE, "fields separated by a semicolon")
    (table,) = document.structure.tables
    assert len(table.rows) == 5
    assert [(h.level, h.title) for h in document.structure.headings] == [(1, "people.csv")]


def test_a_tsv_is_split_at_tabs() -> None:
    document = read_bytes(b"a\tb\n1,5\t2\n", "t.tsv")
    assert document.text == "# t.tsv\n\n| a | b |\n| --- | --- |\n| 1,5 | 2 |\n"


def test_a_csv_field_over_the_csv_modules_limit_is_a_message() -> None:
    data = b'a,b\n1,"' + b"x" * 200_000 + b'"\n'
    with pytest.raises(DocumentError) as info:
        read_bytes(data, "long.csv")
    assert str(info.value).startswith("long.csv could not be read as CSV: line 2: field larger than field limit")


def test_a_csv_of_too_many_cells_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sheets, "MAX_CELLS", 1_000)
    with pytest.raises(DocumentError) as info:
        read_bytes(b"a,b\n" + b"1,2\n" * 600, "rows.csv")
    assert str(info.value) == (
        "rows.csv has more than 1,000 cells (by the CSV, row 501); "
        "split the workbook, or export the sheets you need as CSV"
    )


def test_binary_named_csv_says_what_it_is() -> None:
    with pytest.raises(DocumentError, match=r"^data\.csv looks like gzip-compressed data; decompress it first$"):
        read_bytes(b"\x1f\x8b\x08\x00" + bytes(40), "data.csv")


_CELL = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from('|\\,;\n\t"'), max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_CELL, min_size=1, max_size=5), min_size=1, max_size=8))
def test_every_csv_row_is_one_table_line_with_its_cells(rows: list[list[str]]) -> None:
    """Written by the csv module and read back: each row with a value is one line of the table,
    its cells the values with whitespace runs as one space and pipes escaped (split back here at
    the unescaped pipes); the header is the first such row."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    document = csv_document(Document(buffer.getvalue(), "data.csv"), dialect=csv.excel)
    expected = [[" ".join(c.split()) for c in row] for row in rows]
    expected = [row[: max((k + 1 for k, c in enumerate(row) if c), default=0)] for row in expected]
    expected = [row for row in expected if row]
    if not expected:
        assert document.text == "# data.csv\n"
        return
    (table,) = document.structure.tables
    lines = [document.text[a:b] for a, b in table.rows]
    assert len(lines) == len(expected) + 1  # the delimiter row after the header
    width = max(len(row) for row in expected)
    for line, row in zip([lines[0], *lines[2:]], expected):
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line[1:-1])]
        assert cells == [c.strip() for c in row] + [""] * (width - len(row))
