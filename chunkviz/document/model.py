"""A document: the exact text every span indexes into, its format and its structure."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property

from chunkviz.cache import BoundedLRU, text_key
from chunkviz.document.blocks import Block
from chunkviz.document.structure import Structure, markup_for

#: Formats a :class:`Document` can have (``Document.format``).
FORMATS = ("markdown", "rst", "text", "python", "html", "pdf", "docx")


@dataclass(frozen=True)
class Document:
    """A decoded input: ``text`` is what every chunk span indexes into.

    ``format`` is what the input was read as (one of :data:`FORMATS`); it decides how the
    structure is parsed (Markdown, reStructuredText, or sniffed for plain text). ``encoding``
    is the codec used (``""`` for PDF and DOCX); ``notes`` are remarks about the reading
    (fallbacks, stripped BOM, emptiness). ``extra_blocks`` are blocks only a reader knows
    (PDF pages, Python functions and classes). ``structure`` is built once, on first use.
    """

    text: str
    name: str = "document"
    encoding: str = "utf-8"
    notes: tuple[str, ...] = ()
    format: str = "text"
    extra_blocks: tuple[Block, ...] = ()

    @cached_property
    def structure(self) -> Structure:
        return Structure(self.text, markup_for(self.format, self.text), self.extra_blocks)

    @cached_property
    def digest(self) -> str:
        """What identifies this document to a cache (BLAKE2b of its format, name and text), computed once."""
        return content_digest(self)

    @property
    def elements(self) -> tuple[Block, ...]:
        """Every structural block (markup and reader blocks) in document order."""
        return self.structure.blocks


def is_blank(text: str) -> bool:
    """True for an empty or whitespace-only text, read only up to its first non-space character
    (``not text.strip()`` copies a long text that has whitespace at either end)."""
    return not text or text.isspace()


def content_digest(document: Document) -> str:
    """BLAKE2b (16 bytes, hex) of a document's format, name and text."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (document.format, document.name):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    digest.update(document.text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


#: Documents made from the same text and format, shared so that their structure is built once
#: (the public API takes text; the 8 most recently used documents are kept).
SHARED_DOCUMENTS: BoundedLRU[tuple[tuple[int, str], str], Document] = BoundedLRU(max_entries=8)


def as_document(source: "str | Document", format: str | None = None) -> Document:
    """``source`` itself when it is a Document, else a Document of the text (``format`` given or
    ``text``, which sniffs the markup). Documents of the same text and format are shared, so
    their structure (paragraphs, sentences, headings) is computed once across calls."""
    if isinstance(source, Document):
        return source
    if not isinstance(source, str):
        raise TypeError(f"expected text (str) or a Document, got {type(source).__name__}")
    fmt = format or "text"
    key = (text_key(source), fmt)
    found = SHARED_DOCUMENTS.get(key)
    if found is not None and found.text == source:
        return found
    document = Document(source, format=fmt)
    SHARED_DOCUMENTS.put(key, document)
    return document
