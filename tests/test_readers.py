"""Readers that keep structure (chunkviz.documents.read_bytes and the format readers).

Every reader gives the text the spans index plus structural elements as spans of that text.
PDF and DOCX inputs are made by the tests themselves (a hand-written PDF, python-docx).
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import zipfile
from pathlib import Path
from typing import Sequence

import pytest

from chunkviz import cli
from chunkviz.documents import (
    MAX_BYTES,
    Document,
    decode_bytes,
    html_to_text,
    looks_like_html,
    page_of,
    python_elements,
    read_bytes,
    read_path,
    read_stdin,
)
from chunkviz.errors import DocumentError
from chunkviz.structure import Element

docx = pytest.importorskip("docx")
pypdf = pytest.importorskip("pypdf")


def _realdocs() -> Path:
    """``<repo>/../shared/realdocs`` (``$CHUNKVIZ_SHARED/realdocs`` when that is set)."""
    shared = os.environ.get("CHUNKVIZ_SHARED")
    base = Path(shared).expanduser() if shared else Path(__file__).resolve().parents[2] / "shared"
    return base / "realdocs"


REALDOCS = _realdocs()


def check_elements(document: Document) -> None:
    """Every element is a span of the text, in document order."""
    n = len(document.text)
    for element in document.elements:
        assert isinstance(element, Element)
        assert 0 <= element.start <= element.end <= n, element
    starts = [e.start for e in document.elements]
    assert starts == sorted(starts)


def headings(document: Document) -> list[tuple[int, str]]:
    return [(e.level, e.title) for e in document.elements if e.kind == "heading"]


def span(document: Document, element: Element) -> str:
    return document.text[element.start : element.end]


# ----------------------------------------------------------------------------- PDF helpers


def make_pdf(pages: Sequence[Sequence[str]]) -> bytes:
    """A minimal valid PDF: one page per entry, each line drawn with Helvetica (BT/Tf/Td/Tj/ET),
    a cross-reference table with exact byte offsets."""
    count = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for i, lines in enumerate(pages):
        ops = ["BT", "/F1 12 Tf", "72 720 Td"]
        for k, line in enumerate(lines):
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            if k:
                ops.append("0 -16 Td")
            ops.append(f"({escaped}) Tj")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


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


# ----------------------------------------------------------------------------- PDF


def test_the_hand_written_pdf_is_valid_for_pypdf() -> None:
    reader = pypdf.PdfReader(io.BytesIO(make_pdf(PDF_PAGES)))
    assert len(reader.pages) == 2
    assert reader.pages[0].extract_text() == "Field Station Handbook\nChapter one covers arrival (and safety)."


def test_pdf_pages_are_joined_by_a_blank_line_with_page_elements() -> None:
    doc = read_bytes(make_pdf(PDF_PAGES), "handbook.pdf")
    assert doc.text == PDF_TEXT
    assert (doc.format, doc.encoding, doc.name) == ("pdf", "", "handbook.pdf")
    pages = [e for e in doc.elements if e.kind == "page"]
    first_end = PDF_TEXT.index("\n\n")
    assert pages == [
        Element("page", 0, first_end, 1, "page 1"),
        Element("page", first_end + 2, len(PDF_TEXT), 2, "page 2"),
    ]
    assert span(doc, pages[0]) == "\n".join(PDF_PAGES[0])
    assert span(doc, pages[1]) == "\n".join(PDF_PAGES[1])
    assert [e.kind for e in doc.elements] == ["page", "paragraph", "page", "paragraph"]
    assert any("2 PDF pages" in note for note in doc.notes)
    check_elements(doc)


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
    assert decode_bytes(data, "paper").text == PDF_TEXT  # decode_bytes hands PDF to the reader


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
    assert [e.level for e in doc.elements if e.kind == "page"] == [1, 2]
    check_elements(doc)


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


def test_pdf_name_with_other_binary_content_names_the_content() -> None:
    with pytest.raises(DocumentError, match=r"x\.pdf looks like a PNG image"):
        read_bytes(b"\x89PNG\r\n\x1a\n\x00\x00", "x.pdf")


def test_pdf_reading_prints_nothing(capsys) -> None:
    read_bytes(make_pdf(PDF_PAGES), "quiet.pdf")
    with pytest.raises(DocumentError):
        read_bytes(make_pdf(PDF_PAGES)[:-60], "damaged.pdf")
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "")


# ----------------------------------------------------------------------------- DOCX


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
    "|---|---|---|\n"
    "| North | 10 | 12 |\n"
    "| South \\| East | 7 | 9 |\n"
    "\n"
    "Key points:\n"
    "\n"
    "- Sales grew\n"
    "- Costs fell\n"
    "1. Plan the launch\n"
    "2. Hire two people\n"
    "\n"
    "## Outlook\n"
    "\n"
    "Steady.\n"
)


def test_docx_text_and_elements() -> None:
    doc = read_bytes(make_docx(), "report.docx")
    assert doc.text == DOCX_TEXT
    assert (doc.format, doc.encoding) == ("docx", "")
    assert headings(doc) == [(1, "Quarterly Report"), (2, "Results"), (2, "Outlook")]
    heading_spans = [span(doc, e) for e in doc.elements if e.kind == "heading"]
    assert heading_spans == ["# Quarterly Report", "## Results", "## Outlook"]
    tables = [e for e in doc.elements if e.kind == "table"]
    assert len(tables) == 1 and span(doc, tables[0]).startswith("| Region | Q1 | Q2 |")
    assert span(doc, tables[0]).endswith("| South \\| East | 7 | 9 |")
    items = [span(doc, e) for e in doc.elements if e.kind == "list_item"]
    assert items == ["- Sales grew", "- Costs fell", "1. Plan the launch", "2. Hire two people"]
    assert any("DOCX" in note for note in doc.notes)
    check_elements(doc)


def test_docx_title_style_and_nested_lists() -> None:
    word = docx.Document()
    word.add_heading("The Title", level=0)  # style "Title"
    word.add_paragraph("Outer", style="List Bullet")
    word.add_paragraph("Inner", style="List Bullet 2")
    word.add_paragraph("Line one\nline two", style="List Bullet")
    buffer = io.BytesIO()
    word.save(buffer)
    doc = read_bytes(buffer.getvalue(), "t.docx")
    assert doc.text == "# The Title\n\n- Outer\n  - Inner\n- Line one\n  line two\n"
    assert headings(doc) == [(1, "The Title")]


def test_docx_by_magic_bytes_without_a_docx_name() -> None:
    doc = read_bytes(make_docx(), "upload")
    assert (doc.format, doc.text) == ("docx", DOCX_TEXT)
    assert decode_bytes(make_docx(), "memo").text == DOCX_TEXT


def _zip(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (b"PK\x03\x04 this is not really a zip", "broken.docx"),
        (make_docx()[:400], "broken.docx"),
        (_zip({"[Content_Types].xml": "<Types/>", "word/document.xml": "<w:document/>"}), "broken.docx"),
        (_zip({"[Content_Types].xml": "<Types/>", "word/document.xml": "<w:document/>"}), "broken"),
        (b"plain text renamed to .docx", "broken.docx"),
    ],
)
def test_corrupt_docx_is_a_document_error(data: bytes, name: str) -> None:
    with pytest.raises(DocumentError) as info:
        read_bytes(data, name)
    assert str(info.value).startswith(f"{name} could not be read as a DOCX (Word) document: ")
    assert "\n" not in str(info.value)


def test_other_zip_and_legacy_office_files_are_still_refused() -> None:
    with pytest.raises(DocumentError, match="looks like a ZIP archive, not text"):
        read_bytes(_zip({"notes.txt": "hello"}), "files.zip")
    with pytest.raises(DocumentError, match="legacy Microsoft Office file"):
        read_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "old.docx")


# ----------------------------------------------------------------------------- HTML

HTML = """<!DOCTYPE html>
<html>
<head>
  <title>Page title</title>
  <style>body { color: red; }</style>
  <script>var secret = "SCRIPT TEXT <p>not a paragraph</p>";</script>
</head>
<body>
<!-- COMMENT TEXT -->
<h1>Field   Guide &amp; Notes</h1>
<p>Birds   are
   <b>warm-blooded</b> &mdash; mostly &lt;always&gt;.</p>
<div>First line<br>Second line</div>
<h2>Counts</h2>
<table>
  <tr><th>Species</th><th>Count</th></tr>
  <tr><td>Wren</td><td>3</td></tr>
  <tr><td>Tit | Blue</td><td>12</td></tr>
</table>
<ul><li>one</li><li>two <a href="x">links</a></li></ul>
<ol><li>first<li>second</ol>
<pre><code class="language-python">
# not a heading
def f():
    return "&lt;b&gt;"
</code></pre>
<noscript>NOSCRIPT TEXT</noscript>
<template><p>TEMPLATE TEXT</p></template>
<script>document.write("MORE SCRIPT")</script>
<h3>End</h3>
<p>Last.</p>
</body>
</html>
"""

HTML_TEXT = (
    "# Field Guide & Notes\n"
    "\n"
    "Birds are warm-blooded \u2014 mostly <always>.\n"
    "\n"
    "First line\n"
    "Second line\n"
    "\n"
    "## Counts\n"
    "\n"
    "| Species | Count |\n"
    "|---|---|\n"
    "| Wren | 3 |\n"
    "| Tit \\| Blue | 12 |\n"
    "\n"
    "- one\n"
    "- two links\n"
    "\n"
    "1. first\n"
    "2. second\n"
    "\n"
    "```python\n"
    "# not a heading\n"
    "def f():\n"
    '    return "<b>"\n'
    "```\n"
    "\n"
    "### End\n"
    "\n"
    "Last.\n"
)


def test_html_is_converted_to_markdown_like_text() -> None:
    doc = read_bytes(HTML.encode("utf-8"), "guide.html")
    assert doc.text == HTML_TEXT
    assert doc.format == "html"
    assert "converted from HTML to Markdown-like text; offsets index the converted text" in doc.notes
    for dropped in ("SCRIPT", "COMMENT", "NOSCRIPT", "TEMPLATE", "Page title", "color: red", "not a paragraph"):
        assert dropped not in doc.text
    assert headings(doc) == [(1, "Field Guide & Notes"), (2, "Counts"), (3, "End")]
    assert [e.kind for e in doc.elements].count("table") == 1
    code = [e for e in doc.elements if e.kind == "code"]
    assert len(code) == 1 and span(doc, code[0]).startswith("```python\n# not a heading")
    check_elements(doc)


def test_html_sniffed_from_content_and_crlf_normalized() -> None:
    source = "<!-- saved page -->\r\n<html><body><h2>Title</h2>\r\n<p>one\r\ntwo</p></body></html>\r\n"
    assert looks_like_html(source)
    doc = read_bytes(source.encode("utf-8"), "page")
    assert doc.format == "html"
    assert doc.text == "## Title\n\none two\n"
    assert not any(note.startswith("line endings") for note in doc.notes)
    assert not looks_like_html("# Markdown\n\n<p>inline html</p>\n")
    assert read_bytes(b"<html><p>x</p></html>", "notes.txt").format == "text"  # the extension decides


def test_html_details() -> None:
    assert html_to_text("<p>a&nbsp;b</p><p></p><p>  </p><p>c<br><br>d</p>") == "a\u00a0b\n\nc\n\nd\n"
    assert html_to_text("<table><tr><td>x</td><td>y</td></tr><tr><td>1</td></tr></table>") == (
        "| x | y |\n|---|---|\n| 1 |  |\n"
    )
    assert html_to_text("<pre>a ```b``` c</pre>") == "````\na ```b``` c\n````\n"
    assert html_to_text("<ol start=3><li>c</li><li>d<ul><li>e</li></ul></li></ol>") == "3. c\n4. d\n   - e\n"
    assert html_to_text("<head><title>x</title><body><p>shown</p>") == "shown\n"  # unclosed head
    assert html_to_text("") == ""


# ----------------------------------------------------------------------------- Markdown, rst, text

MARKDOWN = """Setext Title
============

Intro text.

```bash
# this is a shell comment, not a heading
echo hi
```

Second Level
------------

## ATX heading

- item
"""


def test_markdown_fenced_hash_is_not_a_heading_and_setext_is() -> None:
    doc = read_bytes(MARKDOWN.encode(), "notes.md")
    assert doc.text == MARKDOWN
    assert doc.format == "markdown"
    assert headings(doc) == [(1, "Setext Title"), (2, "Second Level"), (2, "ATX heading")]
    code = [e for e in doc.elements if e.kind == "code"]
    assert len(code) == 1 and "# this is a shell comment" in span(doc, code[0])
    check_elements(doc)


def test_rst_and_plain_text_get_elements() -> None:
    rst = "Title\n=====\n\nText::\n\n    # a comment in a literal block\n\nSub\n---\n"
    doc = read_bytes(rst.encode(), "doc.rst")
    assert doc.format == "rst"
    assert headings(doc) == [(1, "Title"), (2, "Sub")]
    text = read_bytes(b"First paragraph.\n\nSecond paragraph.\n", "a.txt")
    assert text.format == "text"
    assert [span(text, e) for e in text.elements] == ["First paragraph.", "Second paragraph."]
    unknown = read_bytes(b"Just words.\r\n", "README")
    assert unknown.format == "text" and unknown.text == "Just words.\r\n"


def test_text_reading_keeps_decoding_behaviour() -> None:
    data = "# Titre\r\n\r\nÉté\r\n".encode("cp1252")
    doc = read_bytes(data, "t.md")
    assert doc.text == data.decode("cp1252")
    assert doc.encoding == "cp1252"
    assert doc.notes == decode_bytes(data, "t.md").notes
    assert decode_bytes(data, "t.md").elements == ()  # decode_bytes alone adds no structure
    with pytest.raises(DocumentError, match="too large"):
        read_bytes(b"x" * 11, "big.md", max_bytes=10)
    with pytest.raises(DocumentError, match="NUL bytes"):
        read_bytes(b"abc\x00def", "x.md")


def test_document_defaults_keep_old_constructors_working() -> None:
    doc = Document("text", "name", "utf-8")
    assert (doc.notes, doc.format, doc.elements) == ((), "text", ())
    assert MAX_BYTES == 20_000_000


# ----------------------------------------------------------------------------- Python

PY_SOURCE = (
    '"""Módulo — ünïcode ✓ 👍"""\r\n'
    'naïve = "café 👍"; π = 3.14\r\n'
    "\r\n"
    '@decorator("é")\r\n'
    "@ other.attr(\r\n"
    "    1)\r\n"
    "def first(x):\r\n"
    '    return "ü👍"\r\n'
    "\r\n"
    "class Ünïcode(Base):\r\n"
    '    """doc ✓"""\r\n'
    "\r\n"
    "    @property\r\n"
    '    def größe(self): return "ß"\r\n'
    "\r\n"
    "    async def fetch(self):\r\n"
    "        await x  # 🎉\r\n"
    "\r\n"
    "async def top(): pass\r\n"
    "\r\n"
    "if TYPE_CHECKING:\r\n"
    "    def typed() -> None: ...\r\n"
)


def _expected(text: str, start: str, end: str) -> tuple[int, int]:
    s = text.index(start)
    return s, text.index(end, s) + len(end)


def test_python_elements_have_exact_spans() -> None:
    doc = read_bytes(PY_SOURCE.encode("utf-8"), "module.py")
    assert doc.text == PY_SOURCE
    assert doc.format == "python"
    t = PY_SOURCE
    expected = [
        ("function", *_expected(t, '@decorator("é")', 'return "ü👍"'), 1, "first"),
        ("class", *_expected(t, "class Ünïcode", "await x"), 1, "Ünïcode"),
        ("function", *_expected(t, "@property", 'return "ß"'), 2, "größe"),
        ("function", *_expected(t, "async def fetch", "await x"), 2, "fetch"),
        ("function", *_expected(t, "async def top", "pass"), 1, "top"),
        ("function", *_expected(t, "def typed", "..."), 1, "typed"),
    ]
    assert [(e.kind, e.start, e.end, e.level, e.title) for e in doc.elements] == expected
    for element in doc.elements:
        assert span(doc, element).startswith(("@", "def ", "async def ", "class "))
    check_elements(doc)


def test_python_lone_cr_and_tabs() -> None:
    source = "x = 'é'\rdef f():\r\treturn 'ü'\r"
    elements, note = python_elements(source)
    assert note is None
    assert [source[e.start : e.end] for e in elements] == ["def f():\r\treturn 'ü'"]


def test_python_syntax_error_is_a_note() -> None:
    doc = read_bytes(b"def ok():\n    pass\n\ndef broken(:\n    pass\n", "bad.py")
    assert doc.elements == ()
    assert doc.format == "python"
    assert any(
        note.startswith("Python syntax error at line 4: ") and note.endswith("(structure not available)")
        for note in doc.notes
    )


# ----------------------------------------------------------------------------- real documents


@pytest.fixture(scope="module")
def realdocs() -> Path:
    if not REALDOCS.is_dir():
        pytest.skip(f"shared realdocs folder not found at {REALDOCS}")
    return REALDOCS


def _realdoc(folder: Path, name: str) -> Document:
    path = folder / name
    if not path.is_file():
        pytest.skip(f"{name} is not in {folder}")
    doc = read_path(path)
    assert doc.text == path.read_bytes().decode("utf-8")  # text formats are read unchanged
    check_elements(doc)
    return doc


def test_realdoc_ripgrep_readme(realdocs: Path) -> None:
    doc = _realdoc(realdocs, "ripgrep_README.md")
    kinds = {e.kind for e in doc.elements}
    assert {"heading", "table", "code"} <= kinds
    assert "ripgrep (rg)" in [title for _, title in headings(doc)]
    code = [e for e in doc.elements if e.kind == "code"]
    assert any("\n#" in span(doc, e) or "\n$ " in span(doc, e) for e in code)
    for element in doc.elements:
        if element.kind == "table":
            assert span(doc, element).lstrip().startswith("|")
        if element.kind == "heading":  # ATX or setext, never inside a code block
            assert span(doc, element).lstrip().startswith(("#", element.title))
            assert not any(c.start <= element.start < c.end for c in code)


def test_realdoc_pep8_rst(realdocs: Path) -> None:
    doc = _realdoc(realdocs, "pep-0008.rst")
    assert doc.format == "rst"
    titles = [title for _, title in headings(doc)]
    assert "Introduction" in titles and "Code Lay-out" in titles and "Indentation" in titles
    for element in doc.elements:
        if element.kind == "heading":
            assert not element.title.startswith("#")
            assert not span(doc, element).lstrip().startswith("#")
    code = [e for e in doc.elements if e.kind == "code"]
    comment_lines = [m.start() for m in re.finditer(r"(?m)^[ \t]*# ", doc.text)]
    assert comment_lines
    for pos in comment_lines:  # every "# comment" line is inside a code element
        assert any(c.start <= pos <= c.end for c in code), doc.text[pos : pos + 60]


def test_realdoc_python_module(realdocs: Path) -> None:
    doc = _realdoc(realdocs, "pep_zero_writer.py")
    assert doc.format == "python"
    kinds = {e.kind for e in doc.elements}
    assert {"function", "class"} <= kinds
    for element in doc.elements:
        assert span(doc, element).startswith(("@", "def ", "async def ", "class "))
        assert element.title in span(doc, element)
    assert any(e.level == 2 for e in doc.elements)


def test_realdocs_all_read_with_valid_elements(realdocs: Path) -> None:
    for path in sorted(realdocs.iterdir()):
        if path.is_file() and not path.name.startswith("."):
            check_elements(read_path(path))


# ----------------------------------------------------------------------------- CLI end to end


def _cli_records(capsys, path: Path) -> tuple[list[dict], str]:
    code = cli.main(["chunk", str(path), "-s", "recursive", "-p", "chunk_size=20", "-p", "overlap=0"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return [json.loads(line) for line in captured.out.splitlines()], captured.err


@pytest.mark.parametrize("kind", ["docx", "pdf"])
def test_cli_chunks_docx_and_pdf(capsys, tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"report.{kind}"
    path.write_bytes(make_docx() if kind == "docx" else make_pdf(PDF_PAGES))
    records, err = _cli_records(capsys, path)
    text = read_path(path).text
    assert text == (DOCX_TEXT if kind == "docx" else PDF_TEXT)
    assert len(records) > 1
    for record in records:
        assert record["text"] == text[record["start"] : record["end"]]
    assert records[0]["start"] == 0
    assert "note: " in err and ("DOCX" in err if kind == "docx" else "PDF page" in err)


def test_cli_reports_an_encrypted_pdf_as_one_line(capsys, tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    path.write_bytes(encrypt_pdf(make_pdf(PDF_PAGES), "pw"))
    code = cli.main(["chunk", str(path), "-s", "recursive"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.startswith("chunkviz: error: ") and "encrypted; decrypt it first" in captured.err
    assert captured.err.count("\n") == 1
