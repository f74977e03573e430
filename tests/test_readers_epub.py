"""EPUB (ebooklib -> each spine document through the HTML reader): chapters in reading order,
each a section with a heading. The books are made by the tests with ebooklib."""

from __future__ import annotations

import io
import zipfile

import pytest
from support.files import large_epub, zip_bytes

from chunkviz.core.errors import DocumentError
from chunkviz.document.read import read_bytes
from chunkviz.document.readers import epub as epub_reader
from chunkviz.document.readers.archive import MAX_ENTRIES

ebooklib_epub = pytest.importorskip("ebooklib.epub")
pytest.importorskip("markdownify")


def book_bytes() -> bytes:
    book = ebooklib_epub.EpubBook()
    book.set_identifier("chunkviz-test")
    book.set_title("River Notes")
    book.set_language("en")
    opening = ebooklib_epub.EpubHtml(title="Opening", file_name="text/opening.xhtml", lang="en")
    opening.content = "<html><body><p>The river rose at dawn.</p><p>By noon the weir was gone.</p></body></html>"
    gauges = ebooklib_epub.EpubHtml(title="Gauges", file_name="text/gauges.xhtml", lang="en")
    gauges.content = (
        "<html><body><h1>Reading the gauges</h1><p>Each gauge has a board.</p>"
        "<h2>Boards</h2><table><tr><th>Board</th><th>Metres</th></tr><tr><td>A</td><td>2.5</td></tr></table>"
        "</body></html>"
    )
    untitled = ebooklib_epub.EpubHtml(title="", file_name="text/after.xhtml", lang="en")
    untitled.content = "<html><head><title>Afterword</title></head><body><p>Thanks.</p></body></html>"
    empty = ebooklib_epub.EpubHtml(title="Blank", file_name="text/blank.xhtml", lang="en")
    empty.content = "<html><body><p> </p></body></html>"
    for item in (opening, gauges, untitled, empty):
        book.add_item(item)
    book.toc = (
        ebooklib_epub.Link("text/opening.xhtml", "Opening", "opening"),
        (ebooklib_epub.Section("Part two"), (ebooklib_epub.Link("text/gauges.xhtml", "Gauges", "gauges"),)),
    )
    book.add_item(ebooklib_epub.EpubNcx())
    book.add_item(ebooklib_epub.EpubNav())
    book.spine = ["nav", gauges, opening, empty, untitled]  # reading order is the spine's, not the files'
    buffer = io.BytesIO()
    ebooklib_epub.write_epub(buffer, book)
    return buffer.getvalue()


BOOK_TEXT = (
    "# Reading the gauges\n\n"
    "Each gauge has a board.\n\n"
    "## Boards\n\n"
    "| Board | Metres |\n"
    "| --- | --- |\n"
    "| A | 2.5 |\n"
    "\n# Opening\n\n"
    "The river rose at dawn.\n\n"
    "By noon the weir was gone.\n"
    "\n# Afterword\n\n"
    "Thanks.\n"
)
BOOK_WITHOUT_TITLES = BOOK_TEXT.replace("# Afterword", "# after")  # its file name


def test_chapters_in_spine_order_each_a_section() -> None:
    with_title = replaced_part(  # ebooklib writes an empty <head>: the chapter's own <title> added here
        book_bytes(), "EPUB/text/after.xhtml", lambda c: c.replace(b"<head/>", b"<head><title>Afterword</title></head>")
    )
    document = read_bytes(with_title, "river.epub")
    assert document.format == "epub"
    assert document.text == BOOK_TEXT
    assert document.notes == (epub_reader.EPUB_NOTE,)
    structure = document.structure
    assert [(h.level, h.title) for h in structure.headings] == [
        (1, "Reading the gauges"),
        (2, "Boards"),
        (1, "Opening"),  # its title in the table of contents
        (1, "Afterword"),  # not in the table of contents: its own <title>
    ]
    assert [s.path for s in structure.sections][:2] == [("Reading the gauges",), ("Reading the gauges", "Boards")]
    (table,) = structure.tables
    assert len(table.rows) == 3


def replaced_part(data: bytes, part: str, change: object) -> bytes:
    """The archive ``data`` with ``part`` changed by ``change`` (bytes -> bytes)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            content = source.read(info)
            archive.writestr(info, change(content) if info.filename == part else content)  # type: ignore[operator]
    return out.getvalue()


def test_deep_nesting_in_a_chapter_is_flattened_by_the_html_reader() -> None:
    nested = b"<div>" * 5_000 + b"deep text" + b"</div>" * 5_000
    data = replaced_part(book_bytes(), "EPUB/text/gauges.xhtml", lambda c: c.replace(b"</body>", nested + b"</body>"))
    document = read_bytes(data, "deep.epub")
    assert document.text == BOOK_WITHOUT_TITLES.replace("| A | 2.5 |\n", "| A | 2.5 |\n\ndeep text\n")
    assert any("nested deeper than 48 levels" in note for note in document.notes)


def test_a_book_bomb_is_refused_before_it_is_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    opened = []
    monkeypatch.setattr(ebooklib_epub, "read_epub", lambda *a, **k: opened.append(1))
    source = zipfile.ZipFile(io.BytesIO(book_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            archive.writestr(info, source.read(info))
        with archive.open("EPUB/images/huge.png", "w", force_zip64=True) as image:
            for _ in range(101):
                image.write(bytes(1_000_000))
    with pytest.raises(DocumentError) as info:
        read_bytes(out.getvalue(), "bomb.epub")
    assert str(info.value).startswith("bomb.epub is too large once unpacked: its content inflates to 101")
    assert "the limit is 100 MB" in str(info.value)
    assert opened == []


def test_an_archive_of_too_many_entries_is_refused() -> None:
    parts = {"mimetype": "application/epub+zip", **{f"OEBPS/{k}.xhtml": "" for k in range(MAX_ENTRIES)}}
    with pytest.raises(DocumentError, match=r"^many\.epub is an archive of 10,001 entries; the limit is 10,000\."):
        read_bytes(zip_bytes(parts), "many.epub")


def test_a_damaged_book_says_so_in_one_line() -> None:
    with pytest.raises(DocumentError) as info:
        read_bytes(zip_bytes({"mimetype": "application/epub+zip", "META-INF/container.xml": "<c/>"}), "broken.epub")
    assert str(info.value).startswith("broken.epub could not be read as an EPUB book: ")
    assert "\n" not in str(info.value)


def test_html_named_epub_is_read_as_html_with_a_note() -> None:
    document = read_bytes(b"<!DOCTYPE html><html><body><h1>Saved</h1><p>page</p></body></html>", "book.epub")
    assert document.format == "html" and document.text == "# Saved\n\npage\n"
    assert document.notes[0] == "book.epub is named .epub but is HTML, not an EPUB book: read as HTML"


def test_without_ebooklib_the_message_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(epub_reader, "HAVE_EBOOKLIB", False)
    with pytest.raises(DocumentError) as info:
        read_bytes(book_bytes(), "river.epub")
    assert str(info.value) == "reading EPUB needs the formats extra: pip install 'chunkviz[formats]'"


def test_a_table_of_contents_of_one_entry_or_none_is_read() -> None:
    """ebooklib gives a lone Link (not a list) for some books: it failed with 'Link object is not iterable'."""
    link = ebooklib_epub.Link("text/a.xhtml#top", "Only chapter", "a")
    assert list(epub_reader._toc_titles(link, 0)) == [("text/a.xhtml", "Only chapter")]
    section = (ebooklib_epub.Section("Part"), [link])
    assert list(epub_reader._toc_titles(section, 0)) == [("text/a.xhtml", "Only chapter")]
    document = read_bytes(large_epub(2), "no_toc.epub")  # a book without a navigation document
    assert [(h.level, h.title) for h in document.structure.headings] == [(1, "Chapter 0"), (1, "Chapter 1")]
