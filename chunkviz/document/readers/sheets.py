"""Spreadsheets: XLSX with openpyxl (read-only) and CSV with the csv module, as Markdown tables.

Each sheet is a section: a ``#`` heading (the sheet's name; a CSV's file name) and one GFM pipe
table whose first line is the sheet's first non-empty row, its header. The document structure
finds that table with every row, so the ``tables`` strategy keeps rows whole and repeats the
header in every row group after the first, as for a table in Markdown, HTML or DOCX. A row is
one line: line breaks inside a cell become spaces and ``|`` is escaped. Empty rows and the empty
columns after a sheet's last value are left out; a row shorter than the widest is padded.

Bounds: an XLSX's XML parts may declare at most :data:`MAX_XML_BYTES` (checked before anything
is inflated, see :mod:`~chunkviz.document.readers.archive`); at most :data:`MAX_CELLS` cells are
read in all, counting the empty cells openpyxl fills in up to a row's last value and one per
empty row it steps over (a cell at column XFD or a row numbered 10⁹ cannot make it read more);
the Markdown is at most :data:`~chunkviz.document.readers.MAX_TEXT_CHARS` characters.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable

from chunkviz.core.deadline import RunTimeLimitExceeded, check_time
from chunkviz.core.errors import DocumentError
from chunkviz.document.model import Document
from chunkviz.document.readers import MAX_TEXT_CHARS, needs_formats_extra, one_line, too_much_text
from chunkviz.document.readers.archive import check_archive

try:
    import openpyxl

    HAVE_OPENPYXL = True
except ImportError:  # the formats extra is not installed
    HAVE_OPENPYXL = False

#: Most bytes the XML parts of a workbook may declare (openpyxl streams the sheets in read-only
#: mode; the shared strings are read whole).
MAX_XML_BYTES = 100_000_000
#: Most cells read from a workbook or a CSV (empty ones that are filled in count too). openpyxl reads
#: about 10,000 cells a second on the loaded machine here (bench/bench_readers.py: 160,000 in 20 s).
MAX_CELLS = 2_000_000
XLSX_NOTE = "converted from XLSX: each sheet is a section with one Markdown table (its first row the header)"
CSV_NOTE = "converted from CSV to a Markdown table (its first row the header); offsets index the converted text"
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


@dataclass
class _Budget:
    """Cells read so far against :data:`MAX_CELLS`."""

    name: str
    cells: int = 0

    def spend(self, cells: int, where: str, row: int) -> None:
        self.cells += max(cells, 1)
        check_time()
        if self.cells > MAX_CELLS:
            raise DocumentError(
                f"{self.name} has more than {MAX_CELLS:,} cells (by {where}, row {row:,}); "
                "split the workbook, or export the sheets you need as CSV"
            )


@dataclass(frozen=True)
class Sheet:
    """One sheet's title and its rows of cell texts (empty rows left out)."""

    title: str
    rows: list[list[str]]


def cell_text(value: Any) -> str:
    """A cell's value as table text: whitespace runs (line breaks too) as one space, ``|``
    escaped; whole floats without ``.0``, dates in ISO form, booleans as TRUE/FALSE."""
    if value is None:
        return ""
    if type(value) is str:  # the commonest case first
        text = " ".join(value.split())
        return _UNESCAPED_PIPE.sub(r"\\|", text) if "|" in text else text
    if isinstance(value, bool):
        text = "TRUE" if value else "FALSE"
    elif isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        text = str(int(value))
    elif isinstance(value, datetime.datetime) and value.time() == datetime.time(0):
        text = value.date().isoformat()
    elif isinstance(value, (datetime.date, datetime.time)):
        text = value.isoformat()
    else:
        text = str(value)
    text = " ".join(text.split())
    return _UNESCAPED_PIPE.sub(r"\\|", text) if "|" in text else text


def markdown_table(rows: list[list[str]]) -> str:
    """A GFM pipe table of ``rows`` (the first is the header), every row as wide as the widest."""
    width = max(len(row) for row in rows)
    lines = []
    for k, row in enumerate(rows):
        cells = row + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
        if k == 0:
            lines.append("|" + " --- |" * width)
    return "\n".join(lines)


def sheets_markdown(sheets: list[Sheet], name: str) -> str:
    """Each sheet as ``# title``, a blank line and its table (nothing under an empty sheet's title)."""
    parts = []
    size = 0
    for sheet in sheets:
        title = " ".join(sheet.title.split()) or "Sheet"
        part = f"# {title}\n\n{markdown_table(sheet.rows)}\n" if sheet.rows else f"# {title}\n"
        size += len(part) + 1
        if size > MAX_TEXT_CHARS:
            raise too_much_text(name, size)
        parts.append(part)
    return "\n".join(parts)


def _kept_rows(rows: Iterable[Iterable[Any]], budget: _Budget, where: str) -> list[list[str]]:
    """The non-empty rows as cell texts, without the empty columns after the last value."""
    kept: list[list[str]] = []
    for number, row in enumerate(rows, 1):
        cells = [cell_text(value) for value in row]
        budget.spend(len(cells), where, number)
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            kept.append(cells)
    return kept


# ---------------------------------------------------------------------------------------- XLSX


def read_xlsx(data: bytes, name: str = "document") -> Document:
    """Every worksheet of a workbook, in order, as a section with one Markdown table (format
    ``xlsx``); cells show their saved values (a formula's last computed result). A damaged or
    non-Excel file raises :class:`DocumentError`."""
    if not HAVE_OPENPYXL:
        raise needs_formats_extra("reading XLSX")
    check_archive(data, name, MAX_XML_BYTES)
    with warnings.catch_warnings():  # openpyxl warns about extensions it does not read
        warnings.simplefilter("ignore")
        sheets, hidden = _read_workbook(data, name)
    notes = [XLSX_NOTE]
    if hidden:
        notes.append(f"hidden sheets read too: {', '.join(hidden)}")
    if not sheets:
        notes.append("the workbook has no worksheets")
    elif not any(sheet.rows for sheet in sheets):
        notes.append("no values found in the workbook")
    text = sheets_markdown(sheets, name)
    return Document(text=text, name=name, encoding="", notes=tuple(notes), format="xlsx")


def _read_workbook(data: bytes, name: str) -> tuple[list[Sheet], list[str]]:
    budget = _Budget(name)
    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # zipfile, XML, KeyError and openpyxl's own on damaged files
        raise DocumentError(f"{name} could not be read as an Excel workbook (XLSX): {_xlsx_problem(exc)}") from None
    sheets: list[Sheet] = []
    hidden: list[str] = []
    try:
        for worksheet in workbook.worksheets:
            if getattr(worksheet, "sheet_state", "visible") != "visible":
                hidden.append(worksheet.title)
            worksheet.reset_dimensions()  # a declared A1:XFD1048576 must not pad every row
            rows = worksheet.iter_rows(values_only=True)
            sheets.append(Sheet(worksheet.title, _kept_rows(rows, budget, f"sheet {worksheet.title!r}")))
    except (DocumentError, RunTimeLimitExceeded):
        raise
    except Exception as exc:  # a damaged sheet part
        raise DocumentError(f"{name} could not be read as an Excel workbook (XLSX): {_xlsx_problem(exc)}") from None
    finally:
        workbook.close()
    return sheets, hidden


def _xlsx_problem(exc: BaseException) -> str:
    if type(exc).__name__ == "BadZipFile":
        return f"it is not a valid ZIP archive ({one_line(exc)})"
    if isinstance(exc, KeyError):
        return f"it is not an Excel package (missing part {one_line(exc)})"
    return f"the file is damaged or not an Excel workbook ({type(exc).__name__}: {one_line(exc)})"


# ----------------------------------------------------------------------------------------- CSV

_SNIFF_CHARS = 64_000
_DELIMITERS = ",;\t|"


def csv_dialect(text: str, name: str) -> type[csv.Dialect] | csv.Dialect:
    """Tab-separated for a ``.tsv`` file, else what :class:`csv.Sniffer` finds in the first
    lines among ``, ; tab |``, else the one of those the first line holds most of (a comma when
    it holds none)."""
    if Path(name).suffix.lower() in (".tsv", ".tab"):
        return csv.excel_tab
    try:
        return csv.Sniffer().sniff(text[:_SNIFF_CHARS], delimiters=_DELIMITERS)
    except csv.Error:
        pass
    first_line = text[: text.find("\n")] if "\n" in text[:_SNIFF_CHARS] else text[:_SNIFF_CHARS]
    counts = {delimiter: first_line.count(delimiter) for delimiter in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda d: counts[d])  # the first of equals: a comma
    if counts[best] == 0 or best == ",":
        return csv.excel
    return type("Sniffed", (csv.excel,), {"delimiter": best})


def csv_document(document: Document, dialect: type[csv.Dialect] | csv.Dialect | None = None) -> Document:
    """A decoded CSV (or TSV) as one section: its file name as the heading and one Markdown
    table (format ``csv``). Quoted fields may hold line breaks and delimiters. The dialect is
    ``dialect`` when given, else found by :func:`csv_dialect`."""
    text = document.text
    title = Path(document.name).name
    budget = _Budget(document.name)
    dialect = dialect or csv_dialect(text, document.name)
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    try:
        rows = _kept_rows(reader, budget, "the CSV")
    except csv.Error as exc:
        raise DocumentError(
            f"{document.name} could not be read as CSV: line {reader.line_num}: {one_line(exc)}"
        ) from None
    notes = [n for n in document.notes if not n.startswith(("line endings are", "document contains only"))]
    notes.append(CSV_NOTE)
    delimiter = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe"}.get(
        dialect.delimiter, repr(dialect.delimiter)
    )
    notes.append(f"fields separated by a {delimiter}")
    if not rows:
        notes.append("no values found in the CSV")
    markdown = sheets_markdown([Sheet(title, rows)], document.name)
    return replace(document, text=markdown, format="csv", notes=tuple(notes))
