"""Mislabelled files are read as what their content is, with a note saying so (issue 23 item 14):
HTML or text named ``.pdf`` failed with pypdf's "Stream has ended unexpectedly"; a ZIP that is
not a Word document named ``.docx`` now says what it really is."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.files import make_pdf, zip_bytes

from chunkviz.core.errors import DocumentError
from chunkviz.document.read import read_bytes

pytest.importorskip("pypdf")
pytest.importorskip("mammoth")

PAGES = [
    "<!DOCTYPE html><html><body><h1>Report</h1><p>Body text.</p></body></html>",
    "<html lang=fr><head><title>t</title></head><body><h2>Résumé</h2><p>Deux.</p></body></html>",
    "<!-- saved page -->\n<body><table><tr><th>a</th></tr><tr><td>1</td></tr></table></body>",
]


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("suffix", [".pdf", ".PDF", ".docx"])
def test_html_named_as_a_binary_format_is_read_as_html(page: str, suffix: str) -> None:
    document = read_bytes(page.encode("utf-8"), f"download{suffix}")
    assert document.format == "html" and document.text == read_bytes(page.encode(), "page.html").text
    kind = "a PDF" if suffix.lower() == ".pdf" else "a Word document (DOCX)"
    assert document.notes[0] == f"download{suffix} is named {suffix} but is HTML, not {kind}: read as HTML"


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=200))
def test_text_named_pdf_is_read_as_text(text: str) -> None:
    if text.lstrip().startswith(("<", "%PDF-", "PK")):
        return  # HTML-like, or the start of another format's magic
    data = text.encode("utf-8")
    document = read_bytes(data, "notes.pdf")
    assert document.text == text and document.format == "text"
    assert document.notes[0] == "notes.pdf is named .pdf but is plain text, not a PDF: read as plain text"


def test_a_pdf_or_docx_under_another_name_says_what_it_is() -> None:
    pdf = read_bytes(make_pdf([["Page one."]]), "letter.txt")
    assert (
        pdf.format == "pdf" and pdf.notes[0] == "letter.txt is named .txt but is a PDF, not plain text: read as a PDF"
    )
    as_docx = read_bytes(make_pdf([["Page one."]]), "letter.docx")
    assert as_docx.format == "pdf" and "is named .docx but is a PDF, not a Word document (DOCX)" in as_docx.notes[0]
    plain = read_bytes(make_pdf([["Page one."]]), "letter.pdf")
    assert not any("is named" in note for note in plain.notes)


@pytest.mark.parametrize(
    ("parts", "kind"),
    [
        ({"mimetype": "application/vnd.oasis.opendocument.text", "content.xml": "<x/>"}, "an OpenDocument text (ODT)"),
        (
            {"a.txt": "x", "b.txt": "y", "c.txt": "z", "d.txt": "w"},
            "a ZIP archive of 4 files (a.txt, b.txt, c.txt and 1 more)",
        ),
    ],
)
@pytest.mark.parametrize("name", ["report.docx", "report.pdf", "report.xlsx", "report.pptx", "report.epub"])
def test_a_zip_of_no_format_read_says_what_it_is(parts: dict[str, str], kind: str, name: str) -> None:
    expected = {"docx": "a Word document (DOCX)", "pdf": "a PDF", "xlsx": "an Excel workbook (XLSX)"}.get(
        name.rsplit(".", 1)[1], "a PowerPoint presentation (PPTX)" if name.endswith(".pptx") else "an EPUB book"
    )
    with pytest.raises(DocumentError) as info:
        read_bytes(zip_bytes(parts), name)
    assert str(info.value) == f"{name} is {kind}, not {expected}"


@pytest.mark.parametrize(
    ("parts", "kind"),
    [
        ({"xl/workbook.xml": "<w/>", "[Content_Types].xml": "<T/>"}, "an Excel workbook (XLSX)"),
        ({"ppt/presentation.xml": "<p/>"}, "a PowerPoint presentation (PPTX)"),
        ({"mimetype": "application/epub+zip", "META-INF/container.xml": "<c/>"}, "an EPUB book"),
    ],
)
@pytest.mark.parametrize("name", ["report.docx", "report.pdf"])
def test_a_zip_of_another_format_read_goes_to_its_reader_which_names_it(
    parts: dict[str, str], kind: str, name: str
) -> None:
    """A workbook, a presentation or a book named .docx is read by its own reader (these are
    damaged: their reader says what it tried to read them as)."""
    with pytest.raises(DocumentError) as info:
        read_bytes(zip_bytes(parts), name)
    assert str(info.value).startswith(f"{name} could not be read as {kind}: ")


def test_binary_content_named_pdf_still_says_what_it_looks_like() -> None:
    with pytest.raises(DocumentError, match=r"^scan\.pdf looks like a JPEG image"):
        read_bytes(b"\xff\xd8\xff\xe0" + bytes(range(256)), "scan.pdf")
