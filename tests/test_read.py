"""Reading input into the exact text that chunk spans index (chunkviz.document.read and
chunkviz.document.readers.text): choosing a reader, decoding, refusing binary input.

The HTML, PDF, DOCX and Python readers have their own test modules (tests/test_readers_*.py).
"""

from __future__ import annotations

import gzip
import io
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.files import zip_bytes
from support.paths import REALDOCS

from chunkviz.core.errors import DocumentError
from chunkviz.core.sizes import format_size
from chunkviz.document import Block, Document
from chunkviz.document.model import FORMATS
from chunkviz.document.read import (
    EXTENSION_FORMATS,
    MAX_BYTES,
    format_for_name,
    looks_like_html,
    read_bytes,
    read_path,
    read_stdin,
)
from chunkviz.document.readers.text import decode_bytes


def check_blocks(document: Document) -> None:
    """Every block is a span of the text, in document order."""
    n = len(document.text)
    for block in document.structure.blocks:
        assert isinstance(block, Block)
        assert 0 <= block.start <= block.end <= n, block
    starts = [b.start for b in document.structure.blocks]
    assert starts == sorted(starts)


def headings(document: Document) -> list[tuple[int, str]]:
    return [(h.level, h.title) for h in document.structure.headings]


def span(document: Document, block: Block) -> str:
    return document.text[block.start : block.end]


# ----------------------------------------------------------------------------- encodings


def test_plain_utf8_is_read_unchanged_without_notes() -> None:
    data = "héllo wörld — ✓ 👍\n".encode()
    assert decode_bytes(data, name="a.txt") == Document("héllo wörld — ✓ 👍\n", "a.txt", "utf-8", ())


def test_utf8_bom_is_stripped_and_noted() -> None:
    doc = decode_bytes(b"\xef\xbb\xbfcaf\xc3\xa9\n")
    assert doc == Document("café\n", "document", "utf-8-sig", ("removed UTF-8 byte order mark",))


def test_cp1252_fallback_is_reported() -> None:
    doc = decode_bytes(b"caf\xe9 \x93quoted\x94")
    assert doc == Document("café \u201cquoted\u201d", "document", "cp1252", ("decoded as cp1252 (not valid UTF-8)",))


def test_latin1_fallback_when_not_cp1252() -> None:
    # 0x81 is undefined in cp1252, so only latin-1 can read these bytes
    data = b"na\xefve text " * 5 + b"\x81"
    doc = decode_bytes(data)
    assert doc.text == data.decode("latin-1")
    assert doc.encoding == "latin-1"
    assert doc.notes == ("decoded as latin-1 (not valid UTF-8 or cp1252)",)


def test_bom_then_cp1252_notes_both() -> None:
    doc = decode_bytes(b"\xef\xbb\xbfcaf\xe9")
    assert doc.text == "café"
    assert doc.encoding == "cp1252"
    assert doc.notes == ("removed UTF-8 byte order mark", "decoded as cp1252 (not valid UTF-8)")


def test_utf16_little_endian_with_bom() -> None:
    data = b"\xff\xfe" + "héllo\r\nwörld 👍".encode("utf-16-le")
    doc = decode_bytes(data, name="u16.txt")
    assert doc == Document(
        "héllo\r\nwörld 👍",
        "u16.txt",
        "utf-16-le",
        (
            "decoded as UTF-16 (little-endian, from its byte order mark)",
            "line endings are CRLF (kept as-is; offsets count each \\r)",
        ),
    )


def test_utf16_big_endian_with_bom() -> None:
    doc = decode_bytes(b"\xfe\xff" + "ok ✓".encode("utf-16-be"))
    assert doc.text == "ok ✓"
    assert doc.encoding == "utf-16-be"
    assert doc.notes == ("decoded as UTF-16 (big-endian, from its byte order mark)",)


def test_utf32_with_bom() -> None:
    doc = decode_bytes(b"\xff\xfe\x00\x00" + "wide ✓".encode("utf-32-le"))
    assert (doc.text, doc.encoding) == ("wide ✓", "utf-32-le")


def test_truncated_utf16_is_refused() -> None:
    with pytest.raises(DocumentError, match=r"byte order mark but is not valid UTF-16"):
        decode_bytes(b"\xff\xfe" + "abc".encode("utf-16-le") + b"\x00")


def test_utf16_without_bom_is_refused_with_a_hint() -> None:
    with pytest.raises(DocumentError, match=r"NUL bytes.*byte order mark"):
        decode_bytes("hello".encode("utf-16-le"))


# ----------------------------------------------------------------------------- line endings


def test_crlf_and_cr_are_kept_byte_exact() -> None:
    data = b"first line\r\nsecond line\r\n\r\nthird\rfourth\n"
    doc = decode_bytes(data)
    assert doc.text == data.decode("ascii")
    assert doc.text.encode("utf-8") == data
    assert doc.notes == ("line endings are mixed (CRLF, CR, LF; kept as-is; offsets count each \\r)",)


def test_crlf_only_note() -> None:
    doc = decode_bytes(b"a\r\nb\r\n")
    assert doc.text == "a\r\nb\r\n"
    assert doc.notes == ("line endings are CRLF (kept as-is; offsets count each \\r)",)


# ----------------------------------------------------------------------------- binary


_DOCX_LIKE = zip_bytes({"[Content_Types].xml": "<Types/>", "word/document.xml": "<w:document/>"})


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        # PDF and DOCX go to their readers (tests/test_readers_pdf.py, _docx.py); damaged ones are refused there
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "paper.pdf", "paper.pdf could not be read as a PDF: "),
        (_DOCX_LIKE, "memo.docx", "memo.docx could not be read as a DOCX (Word) document: "),
        (_DOCX_LIKE, "document", "document could not be read as a DOCX (Word) document: "),
        (zip_bytes({"notes.txt": "hello"}), "files.zip", "files.zip looks like a ZIP archive, not text"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "img.png", "img.png looks like a PNG image, not text"),
        (b"\x7fELF\x02\x01\x01\x00", "a.out", "a.out looks like an ELF executable, not text"),
        (gzip.compress(b"hello", mtime=0), "x.gz", "x.gz looks like gzip-compressed data; decompress it first"),
        (b"plain start\x00then binary", "blob", "blob looks like a binary file: it contains NUL bytes"),
        (bytes(range(1, 32)) * 3 + b"some text", "ctl", "ctl looks like a binary file: "),
    ],
)
def test_binary_input_is_refused_with_a_clear_message(data: bytes, name: str, message: str) -> None:
    pytest.importorskip("mammoth")
    pytest.importorskip("pypdf")
    with pytest.raises(DocumentError) as info:
        read_bytes(data, name=name)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_decoding_alone_refuses_pdf_and_zip_bytes() -> None:
    with pytest.raises(DocumentError, match=r"paper looks like a PDF document, not plain text"):
        decode_bytes(b"%PDF-1.7\n", "paper")
    with pytest.raises(DocumentError, match=r"memo looks like a ZIP archive"):
        decode_bytes(_DOCX_LIKE, "memo")


def test_control_character_ratio_message() -> None:
    with pytest.raises(DocumentError, match=r"\d+% of its characters are control characters"):
        decode_bytes(b"\x01\x02\x03abc")


def test_a_few_control_characters_are_fine() -> None:
    text = "\x1b[1mbold\x1b[0m and a form feed\x0c then a tab\t and more ordinary words here"
    assert decode_bytes(text.encode()).text == text


def test_other_zip_and_legacy_office_files_are_refused() -> None:
    with pytest.raises(DocumentError, match="looks like a ZIP archive, not text"):
        read_bytes(zip_bytes({"notes.txt": "hello"}), "files.zip")
    with pytest.raises(DocumentError, match="legacy Microsoft Office file"):
        read_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "old.docx")


def test_pdf_name_with_other_binary_content_names_the_content() -> None:
    with pytest.raises(DocumentError, match=r"x\.pdf looks like a PNG image"):
        read_bytes(b"\x89PNG\r\n\x1a\n\x00\x00", "x.pdf")


# ----------------------------------------------------------------------------- empty and size


def test_empty_document_is_a_note_not_an_error() -> None:
    assert decode_bytes(b"") == Document("", "document", "utf-8", ("document is empty",))


def test_whitespace_only_document_is_a_note_not_an_error() -> None:
    assert decode_bytes(b" \n\t \r\n") == Document(
        " \n\t \r\n", "document", "utf-8", ("document contains only whitespace",)
    )


def test_bom_only_document_is_empty() -> None:
    assert decode_bytes(b"\xef\xbb\xbf").notes == ("removed UTF-8 byte order mark", "document is empty")


def test_size_limit_message_states_the_limit() -> None:
    with pytest.raises(DocumentError) as info:
        read_bytes(b"x" * 1_500, name="big.txt", max_bytes=1_000)
    assert str(info.value) == "big.txt is too large: 1,500 bytes (1.5 kB); the limit is 1 kB (1,000 bytes)"


def test_default_limit_is_20_mb() -> None:
    assert MAX_BYTES == 20_000_000
    with pytest.raises(DocumentError, match=r"the limit is 20 MB \(20,000,000 bytes\)"):
        read_bytes(b"a" * (MAX_BYTES + 1))
    assert len(read_bytes(b"a" * MAX_BYTES).text) == MAX_BYTES


def test_format_size() -> None:
    assert [format_size(n) for n in (0, 999, 1_000, 1_500, 20_000_000, 25_300_000)] == [
        "0 bytes",
        "999 bytes",
        "1 kB",
        "1.5 kB",
        "20 MB",
        "25.3 MB",
    ]


# ----------------------------------------------------------------------------- dispatch


def test_format_for_name() -> None:
    assert format_for_name("notes.MD") == "markdown"
    assert format_for_name("dir.v2/README") is None
    assert format_for_name("page.htm") == "html"
    assert set(EXTENSION_FORMATS.values()) == set(FORMATS)  # every format a document can have has an extension
    assert format_for_name("main.GO") == "go" and format_for_name("app.tsx") == "tsx"


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
    code = doc.structure.of_kind("code")
    assert len(code) == 1 and "# this is a shell comment" in span(doc, code[0])
    check_blocks(doc)


def test_rst_and_plain_text_set_the_format_and_keep_the_text() -> None:
    rst = "Title\n=====\n\nText::\n\n    # a comment in a literal block\n\nSub\n---\n"
    doc = read_bytes(rst.encode(), "doc.rst")
    assert (doc.format, doc.text, doc.extra_blocks) == ("rst", rst, ())
    assert headings(doc) == [(1, "Title"), (2, "Sub")]
    text = read_bytes(b"First paragraph.\n\nSecond paragraph.\n", "a.txt")
    assert text.format == "text"
    assert [text.text[s:e] for s, e in text.structure.paragraphs] == ["First paragraph.", "Second paragraph."]
    unknown = read_bytes(b"Just words.\r\n", "README")
    assert unknown.format == "text" and unknown.text == "Just words.\r\n"


def test_text_reading_keeps_decoding_behaviour() -> None:
    data = "# Titre\r\n\r\nÉté\r\n".encode("cp1252")
    doc = read_bytes(data, "t.md")
    assert doc.text == data.decode("cp1252")
    assert doc.encoding == "cp1252"
    assert doc.notes == decode_bytes(data, "t.md").notes
    assert decode_bytes(data, "t.md").format == "text"  # decoding alone does not choose a format
    with pytest.raises(DocumentError, match="too large"):
        read_bytes(b"x" * 11, "big.md", max_bytes=10)
    with pytest.raises(DocumentError, match="NUL bytes"):
        read_bytes(b"abc\x00def", "x.md")


def test_html_is_sniffed_only_without_a_telling_extension() -> None:
    assert looks_like_html("<!-- saved -->\r\n<!DOCTYPE html><p>x</p>")
    assert looks_like_html("<?xml version='1.0'?>\n<html><body>x</body></html>")
    assert not looks_like_html("# Markdown\n\n<p>inline html</p>\n")
    assert read_bytes(b"<html><p>x</p></html>", "notes.txt").format == "text"  # the extension decides


def test_document_defaults_keep_old_constructors_working() -> None:
    doc = Document("text", "name", "utf-8")
    assert (doc.notes, doc.format, doc.extra_blocks) == ((), "text", ())
    assert MAX_BYTES == 20_000_000


# ----------------------------------------------------------------------------- files and stdin


def test_read_path_reads_bytes_exactly(tmp_path) -> None:
    path = tmp_path / "doc.md"
    data = "# Titre\r\n\r\nÉté — “quotes”\r\n".encode()
    path.write_bytes(data)
    doc = read_path(path)
    assert doc.text.encode("utf-8") == data
    assert doc.name == str(path)
    assert doc.encoding == "utf-8"


def test_read_path_accepts_str(tmp_path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"caf\xe9")
    doc = read_path(str(path))
    assert (doc.text, doc.encoding, doc.notes) == ("café", "cp1252", ("decoded as cp1252 (not valid UTF-8)",))


def test_missing_file_names_the_path(tmp_path) -> None:
    missing = tmp_path / "nope.txt"
    with pytest.raises(DocumentError) as info:
        read_path(missing)
    assert str(info.value) == f"file not found: {missing}"


def test_directory_is_refused(tmp_path) -> None:
    with pytest.raises(DocumentError, match="is a directory"):
        read_path(tmp_path)


def test_read_path_checks_size_before_reading(tmp_path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)  # sparse: nothing is written or read
    with pytest.raises(DocumentError, match=r"huge\.txt is too large: 20,000,001 bytes .*the limit is 20 MB"):
        read_path(path)


def test_read_path_binary_message_names_the_file(tmp_path) -> None:
    pytest.importorskip("pypdf")
    path = tmp_path / "scan.pdf"
    path.write_bytes(b"%PDF-1.4 ...")
    with pytest.raises(DocumentError, match=r"scan\.pdf could not be read as a PDF: "):
        read_path(path)


def test_read_stdin_uses_raw_bytes(monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"caf\xe9\r\nline")))
    doc = read_stdin()
    assert doc.text == "café\r\nline"
    assert doc.name == "<stdin>"
    assert doc.encoding == "cp1252"


def test_read_stdin_text_stream_without_buffer(monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("plain ✓"))
    assert read_stdin().text == "plain ✓"


# ----------------------------------------------------------------------------- property

_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="\ufeff")
    | st.sampled_from("\n\r\t "),
    max_size=200,
)


@given(_TEXT)
def test_utf8_text_round_trips_exactly(text: str) -> None:
    doc = decode_bytes(text.encode("utf-8"))
    assert doc.text == text
    assert doc.encoding == "utf-8"


@given(_TEXT)
def test_utf16_text_round_trips_exactly(text: str) -> None:
    doc = decode_bytes(text.encode("utf-16"))  # Python writes a byte order mark
    assert doc.text == text


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
    check_blocks(doc)
    return doc


def test_realdoc_ripgrep_readme(realdocs: Path) -> None:
    doc = _realdoc(realdocs, "ripgrep_README.md")
    kinds = {b.kind for b in doc.structure.blocks}
    assert {"heading", "table", "code"} <= kinds
    assert "ripgrep (rg)" in [title for _, title in headings(doc)]
    code = doc.structure.of_kind("code")
    assert any("\n#" in span(doc, b) or "\n$ " in span(doc, b) for b in code)
    for block in doc.structure.tables:
        assert span(doc, block).lstrip().startswith("|")
    for block in doc.structure.headings:  # ATX or setext, never inside a code block
        assert span(doc, block).lstrip().startswith(("#", block.title))
        assert not any(c.start <= block.start < c.end for c in code)


def test_realdoc_pep8_rst(realdocs: Path) -> None:
    doc = _realdoc(realdocs, "pep-0008.rst")
    assert doc.format == "rst"
    titles = [title for _, title in headings(doc)]
    assert "Introduction" in titles and "Code Lay-out" in titles and "Indentation" in titles
    for block in doc.structure.headings:
        assert not block.title.startswith("#")
        assert not span(doc, block).lstrip().startswith("#")
    code = doc.structure.of_kind("code")
    comment_lines = [m.start() for m in re.finditer(r"(?m)^[ \t]*# ", doc.text)]
    assert comment_lines
    for pos in comment_lines:  # every "# comment" line is inside a code block
        assert any(c.start <= pos <= c.end for c in code), doc.text[pos : pos + 60]


def test_realdocs_all_read_with_valid_blocks(realdocs: Path) -> None:
    for path in sorted(realdocs.iterdir()):
        if path.is_file() and not path.name.startswith("."):
            check_blocks(read_path(path))
