"""Readers, one per input format; :mod:`chunkviz.document.read` chooses one.

Text, Markdown, reStructuredText and Python need only the standard library. HTML, DOCX and
PDF need the ``formats`` extra (``pip install 'chunkviz[formats]'``); without it their
readers raise a :class:`~chunkviz.core.errors.DocumentError` that says so.
"""

from __future__ import annotations

from chunkviz.core.errors import DocumentError, missing_extra

#: Most characters a reader may produce (HTML, DOCX and PDF expand their input; the limit is on
#: what they expand to, as :data:`~chunkviz.document.read.MAX_BYTES` is on the input).
MAX_TEXT_CHARS = 20_000_000


def needs_formats_extra(what: str) -> DocumentError:
    """The error for a reader whose library is not installed (``what``: "reading PDF")."""
    return DocumentError(missing_extra(what, "formats"))


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (its type name when it has no message)."""
    message = " ".join(str(exc).split())
    return message or type(exc).__name__


def too_much_text(what: str, chars: int, limit: int = MAX_TEXT_CHARS) -> DocumentError:
    """The error for a reader whose text would exceed ``limit`` characters."""
    return DocumentError(
        f"{what} expands to more than {limit:,} characters of text ({chars:,} so far); "
        "split the document into smaller files"
    )
