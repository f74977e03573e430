"""A document: the exact text every span indexes into, its format, language and structure."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import cached_property

from chunkviz.core.cache import BoundedLRU, text_key
from chunkviz.document.blocks import Block
from chunkviz.document.code.languages import LANGUAGES
from chunkviz.document.language import LanguageGuess, detect_language, given, language_notes, normalize_language
from chunkviz.document.structure import Structure, markup_for

#: Formats a :class:`Document` can have (``Document.format``); the programming languages read on
#: tree-sitter (``go``, ``rust`` ...: the code extra) are formats too.
FORMATS: tuple[str, ...] = (
    "markdown",
    "rst",
    "text",
    "python",
    "html",
    "pdf",
    "docx",
    "pptx",
    "xlsx",
    "csv",
    "epub",
    "latex",
    "eml",
    *LANGUAGES,
)


@dataclass(frozen=True)
class Document:
    """A decoded input: ``text`` is what every chunk span indexes into.

    ``format`` is what the input was read as (one of :data:`FORMATS`); it decides how the
    structure is parsed (Markdown, reStructuredText, or sniffed for plain text). ``encoding``
    is the codec used (``""`` for PDF and DOCX); ``notes`` are remarks about the reading
    (fallbacks, stripped BOM, emptiness). ``extra_blocks`` are blocks only a reader knows
    (PDF pages, Python functions and classes). ``structure`` is built once, on first use.

    ``language`` (an ISO 639-1 code such as ``"ja"``) is ``given_language`` when the user gave
    one (``"de-DE"`` is kept as ``"de"``; ``"auto"`` detects), else detected from the text on
    first use (:mod:`chunkviz.document.language`); it chooses the sentence segmenter.
    """

    text: str
    name: str = "document"
    encoding: str = "utf-8"
    notes: tuple[str, ...] = ()
    format: str = "text"
    extra_blocks: tuple[Block, ...] = ()
    given_language: str | None = None

    def __post_init__(self) -> None:
        if self.given_language is not None:
            object.__setattr__(self, "given_language", normalize_language(self.given_language))

    @cached_property
    def structure(self) -> Structure:
        return Structure(
            self.text, markup_for(self.format, self.text), self.extra_blocks, language_of=lambda: self.language
        )

    @cached_property
    def language_guess(self) -> LanguageGuess:
        """The language, how it is known (given or detected) and with what confidence; detected once."""
        if self.given_language is not None:
            return given(self.given_language)
        return detect_language(self.text)

    @property
    def language(self) -> str:
        """The document's language (ISO 639-1 where there is a code, e.g. ``"ja"``): the given
        one, else the dominant one detected."""
        return self.language_guess.code

    @property
    def languages(self) -> tuple[tuple[str, float], ...]:
        """Each language of a mixed document with its share of the sampled text, largest first
        (one entry, or none for a given language, otherwise)."""
        return self.language_guess.shares

    def language_notes(self) -> list[str]:
        """Remarks about the language once it is known (a mixed document, a missing extra);
        none while nothing has needed it, so reading a document never loads the detector."""
        if "language_guess" not in self.__dict__:
            return []
        return language_notes(self.language_guess)

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
    """BLAKE2b (16 bytes, hex) of a document's format, name, given language (when given) and text."""
    digest = hashlib.blake2b(digest_size=16)
    parts = [document.format, document.name]
    if document.given_language is not None:
        parts.append(f"language={document.given_language}")
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    digest.update(document.text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


#: Documents made from the same text, format and given language, shared so that their
#: structure is built once (the public API takes text; the 8 most recently used are kept).
SHARED_DOCUMENTS: BoundedLRU[tuple[tuple[int, str], str, str | None], Document] = BoundedLRU(max_entries=8)


def with_language(document: Document, language: str | None) -> Document:
    """``document`` with ``language`` given (``None`` or ``"auto"``: ``document`` itself, its
    language as it is); a new Document only when the language changes."""
    code = normalize_language(language)
    if code is None or code == document.given_language:
        return document
    return replace(document, given_language=code)


def as_document(source: "str | Document", format: str | None = None, language: str | None = None) -> Document:
    """``source`` itself when it is a Document (with ``language`` given, see :func:`with_language`),
    else a Document of the text (``format`` given or ``text``, which sniffs the markup; its
    language ``language``, else detected). Documents of the same text, format and language are
    shared, so their structure (paragraphs, sentences, headings) is computed once across calls."""
    if isinstance(source, Document):
        return with_language(source, language)
    if not isinstance(source, str):
        raise TypeError(f"expected text (str) or a Document, got {type(source).__name__}")
    fmt = format or "text"
    code = normalize_language(language)
    key = (text_key(source), fmt, code)
    found = SHARED_DOCUMENTS.get(key)
    if found is not None and found.text == source:
        return found
    document = Document(source, format=fmt, given_language=code)
    SHARED_DOCUMENTS.put(key, document)
    return document
