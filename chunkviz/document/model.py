"""A document: the exact text every span indexes into, its format and its structure."""

from __future__ import annotations

import collections
import threading
from dataclasses import dataclass
from functools import cached_property

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

    @property
    def elements(self) -> tuple[Block, ...]:
        """Every structural block (markup and reader blocks) in document order."""
        return self.structure.blocks


_SHARED: "collections.OrderedDict[tuple[int, int, str], Document]" = collections.OrderedDict()
_SHARED_MAX = 8
_SHARED_LOCK = threading.Lock()


def as_document(source: "str | Document", format: str | None = None) -> Document:
    """``source`` itself when it is a Document, else a Document of the text (``format`` given or
    ``text``, which sniffs the markup). Documents of the same text and format are shared, so
    their structure (paragraphs, sentences, headings) is computed once across calls."""
    if isinstance(source, Document):
        return source
    if not isinstance(source, str):
        raise TypeError(f"expected text (str) or a Document, got {type(source).__name__}")
    fmt = format or "text"
    key = (hash(source), len(source), fmt)
    with _SHARED_LOCK:
        found = _SHARED.get(key)
        if found is not None and found.text == source:
            _SHARED.move_to_end(key)
            return found
        document = Document(source, format=fmt)
        _SHARED[key] = document
        if len(_SHARED) > _SHARED_MAX:
            _SHARED.popitem(last=False)
        return document
