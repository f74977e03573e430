"""Files built in memory: ZIP archives (fake Office files), DOCX documents and files that attack a
reader (for the tests and bench/bench_memory.py): no pytest here."""

from __future__ import annotations

import io
import zipfile


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
