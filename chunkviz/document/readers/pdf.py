"""PDF with pypdf: the text of every page, pages joined by a blank line.

Each page is a ``page`` block (``level`` = 1-based page number, title ``"page N"``) given to
the document as an extra block; the text's own structure is parsed as Markdown. pypdf's log
warnings and Python warnings are collected into the document's notes instead of printed.
"""

from __future__ import annotations

import bisect
import io
import logging
import sys
import threading
import warnings
from types import TracebackType
from typing import Any, Callable

from chunkviz.core.deadline import RunTimeLimitExceeded, check_time, check_time_now
from chunkviz.core.errors import DocumentError
from chunkviz.document.blocks import Block
from chunkviz.document.model import Document, is_blank
from chunkviz.document.readers import MAX_TEXT_CHARS, needs_formats_extra, one_line, too_much_text

try:
    import pypdf
    from pypdf.errors import DependencyError, FileNotDecryptedError

    HAVE_PYPDF = True
except ImportError:  # the formats extra is not installed
    HAVE_PYPDF = False

_PAGE_SEPARATOR = "\n\n"
#: Most characters of text one page may give. pypdf's extraction of a page takes time that grows
#: with the square of the page's text (it appends to a string attribute), so a page that
#: expands hugely (a font whose codes each map to many characters: an 81 kB PDF gave 25 million
#: characters in 470 s) is stopped here, as pypdf goes; a dense printed page holds a few thousand.
MAX_PAGE_CHARS = 1_000_000
_PYPDF_LOCK = threading.Lock()  # pypdf's logger is adjusted while reading


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.messages.append(record.getMessage())
        except Exception:  # pragma: no cover - a broken log record
            pass


class _QuietPypdf:
    """Collects pypdf's log warnings and Python warnings instead of printing them."""

    def __enter__(self) -> list[str]:
        _PYPDF_LOCK.acquire()
        self.logger = logging.getLogger("pypdf")
        self.handler = _Collect()
        self.propagate = self.logger.propagate
        self.logger.addHandler(self.handler)
        self.logger.propagate = False
        self.warnings = warnings.catch_warnings(record=True)
        self.caught = self.warnings.__enter__()
        warnings.simplefilter("always")
        return self.handler.messages

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        try:
            self.warnings.__exit__(kind, error, trace)
            self.handler.messages.extend(str(w.message) for w in self.caught)
            self.logger.removeHandler(self.handler)
            self.logger.propagate = self.propagate
        finally:
            _PYPDF_LOCK.release()


def read_pdf(data: bytes, name: str = "document") -> Document:
    """A PDF's page texts (``page.extract_text()``) joined by a blank line, one ``page`` block
    per page. Encrypted PDFs that do not open with an empty password and unreadable files raise
    :class:`DocumentError`."""
    if not HAVE_PYPDF:
        raise needs_formats_extra("reading PDF")
    notes: list[str] = []
    with _QuietPypdf() as problems:
        pages = _open_pages(data, name, notes)
        texts, failed = _page_texts(pages, name)
    text, page_blocks = _join_pages(texts)
    notes.extend(_page_notes(texts, failed, text))
    notes.extend(_problem_notes(problems))
    return Document(
        text=text, name=name, encoding="", notes=tuple(notes), format="pdf", extra_blocks=tuple(page_blocks)
    )


def _aes_error(name: str) -> DocumentError:
    return DocumentError(
        f"{name} is encrypted with AES; decrypt it first (or install the 'cryptography' package, "
        "which pypdf needs to open AES-encrypted PDFs)"
    )


def _open_pages(data: bytes, name: str, notes: list[str]) -> list[Any]:
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            if not reader.decrypt(""):
                raise DocumentError(f"{name} is encrypted; decrypt it first (it needs a password to open)")
            notes.append("the PDF is encrypted but opens without a password")
        return list(reader.pages)
    except DocumentError:
        raise
    except DependencyError:
        raise _aes_error(name) from None
    except FileNotDecryptedError:
        raise DocumentError(f"{name} is encrypted; decrypt it first") from None
    except Exception as exc:  # pypdf raises many kinds of errors on damaged files
        raise DocumentError(f"{name} could not be read as a PDF: {one_line(exc)}") from None


class _PageTooLong(Exception):
    """Raised from inside pypdf's extraction of a page once its text passes the budget."""

    def __init__(self, chars: int) -> None:
        super().__init__(chars)
        self.chars = chars


def _extraction_progress(frame: Any) -> Callable[[], int] | None:
    """How many characters pypdf's extraction of a page has produced so far, read from its text
    extractor (the ``extractor`` of ``PageObject._extract_text``, the frame that calls the operand
    visitor); None when this pypdf keeps it elsewhere (tests/test_readers_pdf_limits.py checks
    that the installed pypdf is read)."""
    extractor: Any = frame.f_locals.get("extractor") if frame is not None else None
    if extractor is None or not (
        isinstance(getattr(extractor, "output", None), str) and isinstance(getattr(extractor, "text", None), str)
    ):
        return None
    return lambda: len(extractor.output) + len(extractor.text)


def _shown_codes(operator: bytes, operands: Any) -> int:
    """Bytes of text a text-showing operator draws (at least one character each, usually one)."""
    if operator not in (b"Tj", b"TJ", b"'", b'"'):
        return 0
    items = operands[0] if operator == b"TJ" and operands else operands[-1:] if operands else []
    return sum(len(item) for item in items if isinstance(item, (bytes, str)))


def _extract_within(page: Any, budget: int) -> str:
    """The page's text (``page.extract_text()``), stopped with :class:`_PageTooLong` as soon as
    the text pypdf has produced passes ``budget`` characters (see :data:`MAX_PAGE_CHARS`).

    The count is checked before every operator of the page's content: from pypdf's extractor
    when it can be read (exact: the text so far), else from the bytes the text operators draw."""
    progress: Callable[[], int] | None = None
    looked = False
    drawn = 0

    def before_operator(operator: bytes, operands: Any, *_: Any) -> None:
        nonlocal progress, looked, drawn
        if not looked:
            progress, looked = _extraction_progress(sys._getframe(1)), True
        drawn += _shown_codes(operator, operands)
        produced = progress() if progress is not None else drawn
        if produced > budget:
            raise _PageTooLong(produced)
        check_time()  # the app's time limit for reading, within a page too

    return page.extract_text(visitor_operand_before=before_operator) or ""


def _page_texts(pages: list[Any], name: str) -> tuple[list[str], list[int]]:
    """Every page's text, and the numbers of the pages whose text could not be extracted."""
    texts: list[str] = []
    failed: list[int] = []
    total = 0
    for number, page in enumerate(pages, 1):
        check_time_now()  # the app's time limit for reading (a no-op without one)
        try:
            page_text = _extract_within(page, min(MAX_PAGE_CHARS, MAX_TEXT_CHARS - total))
        except _PageTooLong as stop:  # stop extracting: the limits are on what the PDF expands to
            if total + stop.chars > MAX_TEXT_CHARS:
                raise too_much_text(
                    f"{name} (by page {number} of {len(pages)})", total + stop.chars, MAX_TEXT_CHARS
                ) from None
            raise DocumentError(
                f"page {number} of {len(pages)} of {name} expands to more than {MAX_PAGE_CHARS:,} characters "
                f"of text ({stop.chars:,} so far; a dense printed page holds a few thousand): "
                "re-export the PDF or extract its text another way"
            ) from None
        except DependencyError:
            raise _aes_error(name) from None
        except RunTimeLimitExceeded:
            raise
        except Exception:  # a damaged content stream: keep the other pages
            page_text = ""
            failed.append(number)
        texts.append(page_text.replace("\x00", ""))
        total += len(texts[-1]) + len(_PAGE_SEPARATOR)
        if total > MAX_TEXT_CHARS:  # stop extracting: the limit is on what the PDF expands to
            raise too_much_text(f"{name} (by page {number} of {len(pages)})", total, MAX_TEXT_CHARS)
    return texts, failed


def _join_pages(texts: list[str]) -> tuple[str, list[Block]]:
    blocks: list[Block] = []
    pos = 0
    for number, page_text in enumerate(texts, 1):
        if number > 1:
            pos += len(_PAGE_SEPARATOR)
        blocks.append(Block("page", pos, pos + len(page_text), number, f"page {number}"))
        pos += len(page_text)
    return _PAGE_SEPARATOR.join(texts), blocks


def _page_notes(texts: list[str], failed: list[int], text: str) -> list[str]:
    count = len(texts)
    if count == 0:
        return ["the PDF has no pages"]
    plural = "s" if count != 1 else ""
    notes = [
        f"text extracted from {count} PDF page{plural}; pages are joined by a blank line and offsets index the extracted text"
    ]
    if is_blank(text):
        notes.append("no text could be extracted (scanned PDF?)")
    else:
        empty = [n for n, page in enumerate(texts, 1) if not page.strip() and n not in failed]
        if empty:
            notes.append(f"no text on page{'s' if len(empty) > 1 else ''} {_number_list(empty)}")
    if failed:
        notes.append(f"text could not be extracted from page{'s' if len(failed) > 1 else ''} {_number_list(failed)}")
    return notes


def _problem_notes(problems: list[str]) -> list[str]:
    unique = list(dict.fromkeys(" ".join(p.split()) for p in problems if p.strip()))
    if not unique:
        return []
    more = f" (and {len(unique) - 3} more)" if len(unique) > 3 else ""
    return [f"pypdf reported problems reading the file: {'; '.join(unique[:3])}{more}"]


def _number_list(numbers: list[int], limit: int = 10) -> str:
    shown = ", ".join(str(n) for n in numbers[:limit])
    return shown + (f" and {len(numbers) - limit} more" if len(numbers) > limit else "")


def page_of(document: Document, pos: int) -> int | None:
    """The page number (1-based) of the page that holds character position ``pos``.

    A position in the blank line between two pages belongs to the page before it, and
    ``len(text)`` to the last page. ``None`` for documents without pages (anything but PDF)
    and for positions outside ``0..len(text)``.
    """
    if pos < 0 or pos > len(document.text):
        return None
    pages = [b for b in document.extra_blocks if b.kind == "page"]
    if not pages:
        return None
    k = bisect.bisect_right([p.start for p in pages], pos) - 1
    return pages[max(k, 0)].level
