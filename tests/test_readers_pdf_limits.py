"""The PDF text limits are checked while a page is extracted, not after it (issue 23 item 7).

An 81 kB one-page PDF that expands to 25 million characters took 470 s before the limit refused
it: pypdf's extraction of a page takes time growing with the square of its text. The reader now
checks before every operator of a page how much text pypdf has produced, and stops a page at
``MAX_PAGE_CHARS`` (and the whole document at ``MAX_TEXT_CHARS``). The PDFs are written here: a
font whose ToUnicode map turns one code into many characters, compressed, so a small file
expands to any length. No clock is read: the work is the operators pypdf runs.
"""

from __future__ import annotations

import zlib
from typing import Any

import pytest
from support.files import pdf_file

from chunkviz.core.errors import DocumentError
from chunkviz.document.read import read_bytes
from chunkviz.document.readers import pdf as pdf_reader

pypdf = pytest.importorskip("pypdf")


def expanding_pdf(pages: list[tuple[int, int, int]], letter: str = "é") -> bytes:
    """One page per ``(operations, codes per operation, expansion)``: each operation shows that
    many codes, and the font maps every code to ``expansion`` copies of ``letter``."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    kids = []
    for ops, per_op, expansion in pages:
        target = (letter * expansion).encode("utf-16-be").hex().upper()
        cmap = (
            "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def "
            "1 begincodespacerange <00> <FF> endcodespacerange "
            f"1 beginbfchar <41> <{target}> endbfchar endcmap CMapName currentdict /CMap defineresource pop end end"
        ).encode()
        lines = ["BT", "/F1 12 Tf", "72 720 Td", *([f"({'A' * per_op}) Tj 0 -1 Td"] * ops), "ET"]
        content = zlib.compress("\n".join(lines).encode(), 9)
        cmap_z = zlib.compress(cmap, 9)
        first = len(objects) + 1  # font, page, content, cmap
        objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode %d 0 R >>" % (first + 3))
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> "
            b"/Contents %d 0 R >>" % (first, first + 2)
        )
        objects.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content) + content + b"\nendstream")
        objects.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(cmap_z) + cmap_z + b"\nendstream")
        kids.append(f"{first + 1} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>".encode()
    return pdf_file(objects)


def test_an_expanding_page_reads_when_within_the_limits() -> None:
    document = read_bytes(expanding_pdf([(3, 2, 5)], letter="ж"), "small.pdf")
    assert document.text.replace("\n", "") == "ж" * 30


def operators_run(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """(operators pypdf ran before the reader stopped, the refusal)."""
    seen = [0]
    shown = pdf_reader._shown_codes

    def counting(operator: bytes, operands: Any) -> int:
        seen[0] += 1
        return shown(operator, operands)

    monkeypatch.setattr(pdf_reader, "_shown_codes", counting)
    with pytest.raises(DocumentError) as refused:
        read_bytes(data, "expanding.pdf")
    return seen[0], str(refused.value)


@pytest.mark.parametrize("ops", [200, 800, 3_200])
def test_a_page_is_stopped_once_it_passes_the_page_limit(ops: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same small budget stops pages of three sizes after the same number of operators."""
    monkeypatch.setattr(pdf_reader, "MAX_PAGE_CHARS", 5_000)
    run, message = operators_run(expanding_pdf([(ops, 4, 50)]), monkeypatch)
    assert run <= 2 * (5_000 // (4 * 50)) + 6  # two operators per line (Tj, Td), and BT, Tf, Td
    assert message.startswith("page 1 of 1 of expanding.pdf expands to more than 5,000 characters of text")


def test_the_document_limit_is_checked_inside_the_page_that_crosses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_reader, "MAX_TEXT_CHARS", 12_000)
    data = expanding_pdf([(50, 10, 20), (50, 10, 20), (2_000, 10, 20)])  # 10,000 + 10,000 + 400,000
    run, message = operators_run(data, monkeypatch)
    assert "expanding.pdf (by page 2 of 3) expands to more than 12,000 characters" in message
    assert run < 2 * (50 * 2 + 5)


def test_without_the_extractor_the_drawn_codes_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pypdf that keeps its text elsewhere: the bytes the text operators draw bound the page."""
    monkeypatch.setattr(pdf_reader, "_extraction_progress", lambda frame: None)
    monkeypatch.setattr(pdf_reader, "MAX_PAGE_CHARS", 1_000)
    run, message = operators_run(expanding_pdf([(5_000, 10, 1)]), monkeypatch)
    assert "more than 1,000 characters" in message and run <= 2 * 100 + 5


def test_the_installed_pypdf_exposes_its_extractor(monkeypatch: pytest.MonkeyPatch) -> None:
    found: list[object] = []
    progress = pdf_reader._extraction_progress

    def recording(frame: Any) -> Any:
        found.append(progress(frame))
        return found[-1]

    monkeypatch.setattr(pdf_reader, "_extraction_progress", recording)
    read_bytes(expanding_pdf([(2, 1, 3)]), "one.pdf")
    assert found and found[0] is not None, "pypdf's extractor moved: the exact count falls back to drawn codes"
