"""Files built in memory: ZIP archives (fake Office files), minimal PDFs, large DOCX and HTML documents,
and files that attack a reader (for the tests and bench/bench_memory.py, bench/bench_readers.py): no
pytest here."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence


def zip_bytes(files: dict[str, str]) -> bytes:
    """A ZIP archive holding ``files`` (name -> text), e.g. to fake an Office file."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def docx_bytes(paragraphs: list[str]) -> bytes:
    import docx

    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def docx_with_nested_table() -> bytes:
    """A DOCX with a 2 x 2 table whose last cell holds a 2 x 2 table (parts and counts)."""
    import docx

    document = docx.Document()
    document.add_paragraph("Before.")
    outer = document.add_table(rows=2, cols=2)
    outer.cell(0, 0).text, outer.cell(0, 1).text, outer.cell(1, 0).text = "Kit", "Parts", "A"
    inner = outer.cell(1, 1).add_table(rows=2, cols=2)
    for r, row in enumerate([["Bolt", "4"], ["Nut", "8"]]):
        for c, value in enumerate(row):
            inner.cell(r, c).text = value
    document.add_paragraph("After.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def docx_bomb(inflated_bytes: int) -> bytes:
    """A valid DOCX whose document.xml inflates to about ``inflated_bytes`` (written in pieces)."""
    source = zipfile.ZipFile(io.BytesIO(docx_bytes(["Real start."])))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            if info.filename != "word/document.xml":
                archive.writestr(info, source.read(info))
                continue
            head, tail = source.read(info).decode().split("<w:body>")
            piece = ("<w:p><w:r><w:t>" + "bomb " * 2000 + "</w:t></w:r></w:p>").encode() * 100
            with archive.open("word/document.xml", "w", force_zip64=True) as xml:
                xml.write((head + "<w:body>").encode())
                for _ in range(inflated_bytes // len(piece) + 1):
                    xml.write(piece)
                xml.write(tail.encode())
    return out.getvalue()


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
    return pdf_file(objects)


def large_docx(sections: int) -> bytes:
    """A Word document of ``sections`` sections, each a heading (levels 1-3), a paragraph, a 4x3 table,
    a bullet and a numbered list item (python-docx)."""
    import docx

    word = docx.Document()
    for k in range(sections):
        word.add_heading(f"Section {k}", level=1 + k % 3)
        word.add_paragraph(f"Paragraph {k} explains the numbers below in a sentence or two.")
        table = word.add_table(rows=4, cols=3)
        for r in range(4):
            for c in range(3):
                table.cell(r, c).text = f"r{r}c{c} | {k}"
        word.add_paragraph(f"point {k}", style="List Bullet")
        word.add_paragraph(f"step {k}", style="List Number")
    buffer = io.BytesIO()
    word.save(buffer)
    return buffer.getvalue()


def large_html(sections: int) -> str:
    """A web page of ``sections`` sections, each an h2, a paragraph with markup, a 6-row table, a list
    and a code block."""
    parts = ["<html><body>"]
    for k in range(sections):
        rows = "".join(f"<tr><td>item {k}.{r}</td><td>{r * k}</td><td>note | {r}</td></tr>" for r in range(5))
        parts.append(
            f"<h2>Section {k}</h2><p>Paragraph {k} with <b>bold</b> and <a href='#{k}'>a link</a>.</p>"
            f"<table><tr><th>Name</th><th>Value</th><th>Note</th></tr>{rows}</table>"
            f"<ul><li>first {k}</li><li>second {k}</li></ul>"
            f"<pre><code class='language-python'>def f{k}():\n    return {k}\n</code></pre>"
        )
    parts.append("</body></html>")
    return "".join(parts)


def pdf_file(objects: Sequence[bytes]) -> bytes:
    """A PDF file of these objects (numbered from 1, the first the catalog), with its xref table."""
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


def large_xlsx(rows: int, columns: int = 8) -> bytes:
    """A one-sheet workbook of a header and ``rows`` rows of ``columns`` short texts and numbers."""
    import openpyxl

    workbook = openpyxl.Workbook(write_only=True)
    sheet = workbook.create_sheet("Readings")
    sheet.append([f"column {c}" for c in range(columns)])
    for r in range(rows):
        sheet.append([f"station {r % 97}" if c % 2 == 0 else r * 0.25 + c for c in range(columns)])
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def large_pptx(slides: int) -> bytes:
    """A deck of ``slides`` slides, each a title and five bullets (one nested)."""
    import pptx

    deck = pptx.Presentation()
    for n in range(slides):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Slide title {n}"
        body = slide.placeholders[1].text_frame
        body.text = f"First point of slide {n}, with a few more words to read"
        for k in range(4):
            paragraph = body.add_paragraph()
            paragraph.text, paragraph.level = f"Point {k} of slide {n}: words words words", k % 2
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def large_epub(chapters: int) -> bytes:
    """A book of ``chapters`` chapters, each a heading and twenty paragraphs."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("large")
    book.set_title("Large")
    items = []
    for n in range(chapters):
        item = epub.EpubHtml(title=f"Chapter {n}", file_name=f"c{n}.xhtml", lang="en")
        paragraphs = "".join(f"<p>Paragraph {k} of chapter {n}, with some words to read.</p>" for k in range(20))
        item.content = f"<html><body><h1>Chapter {n}</h1>{paragraphs}</body></html>"
        book.add_item(item)
        items.append(item)
    book.add_item(epub.EpubNcx())
    book.spine = items
    out = io.BytesIO()
    epub.write_epub(out, book)
    return out.getvalue()
