"""Readers, one per input format; :mod:`chunkviz.document.read` chooses one.

Text, Markdown, reStructuredText and Python need only the standard library. HTML, DOCX and
PDF need the ``formats`` extra (``pip install 'chunkviz[formats]'``); without it their
readers raise a :class:`~chunkviz.errors.DocumentError` that says so.
"""

from __future__ import annotations

from chunkviz.errors import DocumentError

FORMATS_EXTRA_INSTALL = "pip install 'chunkviz[formats]'"


def needs_formats_extra(what: str) -> DocumentError:
    """The error for a reader whose library is not installed (``what``: "reading PDF")."""
    return DocumentError(f"{what} needs the formats extra: {FORMATS_EXTRA_INSTALL}")


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (its type name when it has no message)."""
    message = " ".join(str(exc).split())
    return message or type(exc).__name__
