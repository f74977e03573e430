"""DOCX with mammoth: Word -> HTML -> the HTML reader's Markdown.

mammoth maps Word styles to HTML (``Heading N`` to ``<hN>``, numbered and bulleted paragraphs
to nested ``<ul>``/``<ol>``, tables to ``<table>``); the HTML is then converted to Markdown as
for any HTML input, so headings, pipe tables and list items are found by the Markdown parser.
The style map below adds what mammoth's default map leaves out: the ``Title`` style is a top
heading, and ``List Bullet 2``/``List Number 2`` ... styles are nested list items. Images keep
only their alt text.
"""

from __future__ import annotations

import io

from chunkviz.document.model import Document
from chunkviz.document.readers import needs_formats_extra, one_line
from chunkviz.document.readers.html import html_to_markdown
from chunkviz.errors import DocumentError

try:
    import mammoth

    HAVE_MAMMOTH = True
except ImportError:  # the formats extra is not installed
    HAVE_MAMMOTH = False

DOCX_NOTE = "converted from DOCX to Markdown; offsets index the converted text"


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
    html, messages = _docx_to_html(data, name)
    text = html_to_markdown(html)
    notes = [DOCX_NOTE]
    if not text:
        notes.append("no text found in the DOCX")
    if messages:
        more = f" (and {len(messages) - 3} more)" if len(messages) > 3 else ""
        notes.append(f"mammoth reported: {'; '.join(messages[:3])}{more}")
    return Document(text=text, name=name, encoding="", notes=tuple(notes), format="docx")


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
