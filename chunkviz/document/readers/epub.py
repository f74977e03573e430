"""EPUB with ebooklib: the chapters in reading (spine) order, each as Markdown through the HTML reader.

Each XHTML document of the spine is converted by
:func:`~chunkviz.document.readers.html.convert_html` (headings, lists, tables, code), and the
chapters are joined by a blank line. A chapter whose text does not open with a heading gets one
(``# title``: its title in the table of contents, else its own ``<title>``, else its file
name), so every chapter is a section. The navigation document and chapters without text are
left out; images keep only their alt text.

Before ebooklib opens the book (it reads every part into memory), the archive may hold at most
:data:`~chunkviz.document.readers.archive.MAX_ENTRIES` entries declaring at most
:data:`MAX_INFLATED_BYTES` in all (:mod:`~chunkviz.document.readers.archive`).
"""

from __future__ import annotations

import io
import posixpath
import re
import warnings
from typing import Any, Iterator

from chunkviz.core.deadline import check_time_now
from chunkviz.core.errors import DocumentError
from chunkviz.document.model import Document
from chunkviz.document.readers import MAX_TEXT_CHARS, needs_formats_extra, one_line, too_much_text
from chunkviz.document.readers.archive import check_archive
from chunkviz.document.readers.text import decode_bytes

try:
    import ebooklib
    from ebooklib import epub

    HAVE_EBOOKLIB = True
except ImportError:  # the formats extra is not installed
    HAVE_EBOOKLIB = False

#: Most bytes the parts of a book may declare in all, images included (ebooklib reads them all).
MAX_INFLATED_BYTES = 100_000_000
#: Table of contents entries nested deeper than this are not looked at for chapter titles.
MAX_TOC_DEPTH = 16
EPUB_NOTE = "converted from EPUB to Markdown (chapters in reading order); offsets index the converted text"
_STARTS_WITH_HEADING = re.compile(r"\A#{1,6} ")
_TITLE = re.compile(rb"<title[^<>]{0,200}>(.{0,2000}?)</title>", re.IGNORECASE | re.DOTALL)
#: an XHTML file's XML declaration (BeautifulSoup warns about it; the HTML parser needs none)
_XML_DECLARATION = re.compile(r"\A\s*<\?xml[^>]*\?>")
_HEAD_TITLE = re.compile(r"<title[^<>]{0,200}>.{0,2000}?</title>", re.IGNORECASE | re.DOTALL)


def _raw(item: Any) -> bytes:
    """A chapter's bytes as stored in the book: ebooklib's ``get_content()`` rebuilds an XHTML
    document through lxml, which drops what is nested deeper than 255 elements (and the head)."""
    content = item.content
    return content if isinstance(content, bytes) else str(content).encode("utf-8")


def read_epub(data: bytes, name: str = "document") -> Document:
    """A book's chapters as Markdown, each a section (format ``epub``). A damaged or non-EPUB
    file raises :class:`DocumentError`."""
    if not HAVE_EBOOKLIB:
        raise needs_formats_extra("reading EPUB")
    from chunkviz.document.readers.html import convert_html

    check_archive(data, name, MAX_INFLATED_BYTES, counted=lambda _: True, parts="its content")
    book = _open_book(data, name)
    titles: dict[str, str] = {}
    for href, title in _toc_titles(book.toc, 0):
        titles.setdefault(href, title)
    chapters: list[str] = []
    notes: list[str] = [EPUB_NOTE]
    size = 0
    for item in _spine_documents(book):
        check_time_now()  # the app's time limit for reading (a no-op without one)
        markup = decode_bytes(_raw(item), f"{name}:{item.get_name()}", "html").text
        markup = _HEAD_TITLE.sub("", _XML_DECLARATION.sub("", markup), count=1)  # the title heads the chapter instead
        markdown, conversion_notes = convert_html(markup, f"{name}:{item.get_name()}")
        notes.extend(note for note in conversion_notes if note not in notes)
        if not markdown.strip():
            continue
        if not _STARTS_WITH_HEADING.match(markdown):
            markdown = f"# {_chapter_title(item, titles)}\n\n{markdown}"
        size += len(markdown) + 1
        if size > MAX_TEXT_CHARS:
            raise too_much_text(name, size)
        chapters.append(markdown)
    if not chapters:
        notes.append("no text found in the EPUB")
    text = "\n".join(chapters)
    return Document(text=text, name=name, encoding="", notes=tuple(notes), format="epub")


def _open_book(data: bytes, name: str) -> Any:
    try:
        with warnings.catch_warnings():  # ebooklib warns about its future defaults
            warnings.simplefilter("ignore")
            return epub.read_epub(io.BytesIO(data), {"ignore_ncx": True})
    except Exception as exc:  # zipfile, XML, KeyError and ebooklib's own on damaged files
        raise DocumentError(f"{name} could not be read as an EPUB book: {_problem(exc)}") from None


def _problem(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"it is not an EPUB package (missing part {one_line(exc)})"
    message = one_line(exc)
    if "Bad Zip" in message or type(exc).__name__ == "BadZipFile":
        return "it is not a valid ZIP archive"
    return f"the file is damaged or not an EPUB book ({type(exc).__name__}: {message})"


def _spine_documents(book: Any) -> Iterator[Any]:
    """The XHTML documents of the spine, in order, without the navigation document."""
    for idref, _linear in book.spine:
        item = book.get_item_with_id(idref)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT or isinstance(item, epub.EpubNav):
            continue
        yield item


def _toc_titles(entries: Any, depth: int) -> Iterator[tuple[str, str]]:
    """(file name, title) of every table of contents entry, the first entry of a file first."""
    if depth > MAX_TOC_DEPTH:
        return
    if not isinstance(entries, (list, tuple)):  # one entry, not a list of them
        entries = [entries] if entries else []
    elif len(entries) == 2 and not isinstance(entries[0], (list, tuple)) and isinstance(entries[1], (list, tuple)):
        entries = [entries]  # one (section, children) pair
    for entry in entries:
        if isinstance(entry, tuple) and len(entry) == 2:  # (a section, its children)
            section, children = entry
            yield from _toc_entry(section)
            yield from _toc_titles(children, depth + 1)
        else:
            yield from _toc_entry(entry)


def _toc_entry(entry: Any) -> Iterator[tuple[str, str]]:
    href = getattr(entry, "href", "") or ""
    title = " ".join((getattr(entry, "title", "") or "").split())
    if href and title:
        yield href.split("#", 1)[0], title


def _chapter_title(item: Any, titles: dict[str, str]) -> str:
    """The chapter's title in the table of contents, else its ``<title>``, else its file name."""
    file_name = item.get_name()
    for href, title in titles.items():
        if href == file_name or posixpath.basename(href) == posixpath.basename(file_name):
            return title
    match = _TITLE.search(_raw(item)[:4096])
    if match is not None:
        own = " ".join(match.group(1).decode("utf-8", "replace").split())
        if own:
            return own
    return posixpath.splitext(posixpath.basename(file_name))[0] or "Chapter"
