"""DOCX with mammoth: Word -> HTML -> the HTML reader's Markdown.

mammoth maps Word styles to HTML (``Heading N`` to ``<hN>``, numbered and bulleted paragraphs
to nested ``<ul>``/``<ol>``, tables to ``<table>``); the HTML is then converted to Markdown as
for any HTML input, so headings, pipe tables and list items are found by the Markdown parser.
The style map below adds what mammoth's default map leaves out: the ``Title`` style is a top
heading, and ``List Bullet 2``/``List Number 2`` ... styles are nested list items. Images keep
only their alt text.

A DOCX is a ZIP archive, and its XML can inflate a thousandfold (2.4 MB of ZIP to 1 GB of XML).
Before anything is inflated, the sizes the archive declares for its XML parts are added up and
a document over :data:`MAX_XML_BYTES` is refused; Python's ``zipfile`` never inflates a member
past its declared size (a member that lies fails its CRC check), so the declared sizes bound
the work. Image and other binary parts are not read and do not count.
"""

from __future__ import annotations

import io

from chunkviz.core.deadline import check_time_now
from chunkviz.core.errors import DocumentError
from chunkviz.document.model import Document
from chunkviz.document.readers import (
    MAX_TEXT_CHARS,
    needs_formats_extra,
    one_line,
    too_much_text,
)
from chunkviz.document.readers.archive import check_archive
from chunkviz.document.readers.html import convert_html

try:
    import mammoth

    HAVE_MAMMOTH = True
except ImportError:  # the formats extra is not installed
    HAVE_MAMMOTH = False

DOCX_NOTE = "converted from DOCX to Markdown; offsets index the converted text"

#: Most bytes the XML parts of a DOCX may inflate to (mammoth reads them into memory as a DOM,
#: about 30 times their size; 0.3-0.4 ms per paragraph, 0.65 s per MB of XML on one core here).
MAX_XML_BYTES = 20_000_000


def _nested_list_rules() -> str:
    rules = []
    for level in range(2, 6):
        outer = "ul|ol > li > " * (level - 1)
        rules.append(f"p[style-name='List Bullet {level}'] => {outer}ul > li:fresh")
        rules.append(f"p[style-name='List Number {level}'] => {outer}ol > li:fresh")
    return "\n".join(rules)


_STYLE_MAP = "p[style-name='Title'] => h1:fresh\n" + _nested_list_rules()


def _image_attributes(image: object) -> dict[str, str]:
    """An ``<img>`` with the alt text and no source: the image data is never read."""
    return {"alt": getattr(image, "alt_text", None) or ""}


_alt_text_only = mammoth.images.img_element(_image_attributes) if HAVE_MAMMOTH else None


def read_docx(data: bytes, name: str = "document") -> Document:
    """A Word document as Markdown (format ``docx``): headings, paragraphs, lists and tables
    in body order. A damaged or non-Word file raises :class:`DocumentError`."""
    if not HAVE_MAMMOTH:
        raise needs_formats_extra("reading DOCX")
    check_inflated_size(data, name)
    html, messages = _docx_to_html(data, name)
    check_time_now()  # the app's time limit for reading (a no-op without one)
    if len(html) > 4 * MAX_TEXT_CHARS:  # markup included; the text itself is checked below
        raise too_much_text(name, len(html), 4 * MAX_TEXT_CHARS)
    text, conversion_notes = convert_html(html, name)
    notes = [DOCX_NOTE, *conversion_notes]
    if not text:
        notes.append("no text found in the DOCX")
    if messages:
        more = f" (and {len(messages) - 3} more)" if len(messages) > 3 else ""
        notes.append(f"mammoth reported: {'; '.join(messages[:3])}{more}")
    return Document(text=text, name=name, encoding="", notes=tuple(notes), format="docx")


def check_inflated_size(data: bytes, name: str, limit: int = MAX_XML_BYTES) -> None:
    """Refuse a DOCX whose XML parts declare more than ``limit`` bytes in total, before any of
    them is inflated (:func:`~chunkviz.document.readers.archive.check_archive`)."""
    check_archive(data, name, limit)


def _docx_to_html(data: bytes, name: str) -> tuple[str, list[str]]:
    """mammoth's HTML and its messages worth showing (unrecognised styles are left out: they
    are the normal case for documents with custom styles)."""
    try:
        result = mammoth.convert_to_html(io.BytesIO(data), style_map=_STYLE_MAP, convert_image=_alt_text_only)
    except Exception as exc:  # zipfile, XML and KeyError on damaged or non-Word files
        raise DocumentError(f"{name} could not be read as a DOCX (Word) document: {_docx_problem(exc)}") from None
    messages = [m.message for m in result.messages if "Unrecognised" not in m.message]
    return result.value, list(dict.fromkeys(messages))


def _docx_problem(exc: BaseException) -> str:
    if type(exc).__name__ == "BadZipFile":
        return f"it is not a valid ZIP archive ({one_line(exc)})"
    if isinstance(exc, KeyError):
        return f"it is not a Word package (missing part {one_line(exc)})"
    return f"the file is damaged or not a Word document ({type(exc).__name__}: {one_line(exc)})"
