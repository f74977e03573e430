"""Reading a side file (a configuration, a question file) within bounds: one home for both.

A side file is small by nature, so it is read with a size bound (``--config /dev/zero`` reads
one byte past the limit and stops, instead of growing to the machine's memory), decoded as
UTF-8 with or without a byte order mark, and its JSON is parsed only after a linear scan has
checked the nesting depth (Python's parser recurses once per level, and 100,000 levels end in a
``RecursionError``) and with whole numbers bounded in length (Python refuses to convert more
than 4,300 digits, with a message about ``sys.set_int_max_str_digits``). Every problem is an
error made by the caller's ``error(line, message)``, so each file type keeps its own exception
and the message reads ``FILE, line N: what to fix``. The bounds are in :mod:`chunkviz.core.limits`.

The same bounds hold for every other JSON chunkviz parses: ``-p`` values and separators given
as JSON text (:func:`parse_json`), and a model's answers (:func:`too_deep_at`, before
:mod:`chunkviz.llm.jsonanswer` and :mod:`chunkviz.llm.sections` read them leniently; a number
past Python's own digit limit there is a ValueError, which they read as "not JSON").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chunkviz.core.files import NotRegularFileError, open_regular
from chunkviz.core.limits import MAX_SIDE_FILE_DEPTH, MAX_SIDE_FILE_DIGITS

#: ``error(line or None, message)``: the exception a side file's problem raises.
ErrorFactory = Callable[[int | None, str], Exception]

#: JSON strings (kept as blanks of the same length, so positions stay) and the brackets outside them.
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")
_OPENS = frozenset("[{")


def _size(n: int) -> str:
    from chunkviz.core.sizes import format_size

    return format_size(n)


def read_side_file(path: str | Path, max_bytes: int, what: str, error: ErrorFactory) -> bytes:
    """The bytes of ``path``, at most ``max_bytes`` of them: one more is refused with ``error``
    before any more is read. A pipe, a socket or a device is refused with ``error`` at once
    (:func:`chunkviz.core.files.open_regular`: never waited on). Other OS errors (a missing file, a
    folder, permissions) pass through for the caller to phrase."""
    try:
        with open_regular(path) as handle:
            data = handle.read(max_bytes + 1)
    except NotRegularFileError as exc:
        raise error(None, exc.problem) from None
    if len(data) > max_bytes:
        raise error(
            None,
            f"is larger than {_size(max_bytes)}, the limit of {what}; give the file itself "
            "(not a device or a stream of data), or a smaller one",
        )
    return data


def check_side_text(text: str | bytes, max_chars: int, what: str, error: ErrorFactory) -> None:
    """Refuse text or bytes already in memory (an upload) longer than a side file may be."""
    if len(text) > max_chars:
        raise error(None, f"is larger than {_size(max_chars)}, the limit of {what}; give a smaller one")


def decode_side_file(data: bytes, what: str, error: ErrorFactory) -> str:
    """UTF-8 text, a leading byte order mark dropped; bad bytes are ``error`` naming their line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise error(line, f"is not valid UTF-8 (byte {exc.start:,}); save {what} as UTF-8") from None


def _line_at(text: str, position: int, first_line: int) -> int:
    return first_line + text.count("\n", 0, position)


def too_deep_at(text: str, max_depth: int = MAX_SIDE_FILE_DEPTH) -> int | None:
    """Where JSON in ``text`` first opens a level deeper than ``max_depth``, or None (one pass over
    the text; strings skipped): what must be refused before a JSON parser recurses into it."""
    if text.count("[") + text.count("{") <= max_depth:
        return None
    blanked = _STRING.sub(lambda m: '"' + " " * (len(m.group()) - 2) + '"', text)
    depth = 0
    for match in _BRACKET.finditer(blanked):
        if match.group() in _OPENS:
            depth += 1
            if depth > max_depth:
                return match.start()
        else:
            depth = max(0, depth - 1)
    return None


def check_depth(text: str, error: ErrorFactory, *, first_line: int = 1, max_depth: int = MAX_SIDE_FILE_DEPTH) -> None:
    """Refuse JSON nested deeper than ``max_depth`` (:func:`too_deep_at`) with ``error``."""
    at = too_deep_at(text, max_depth)
    if at is not None:
        raise error(
            _line_at(text, at, first_line),
            f"JSON nested more than {max_depth} levels deep (at character {at + 1:,}); "
            "nothing chunkviz reads needs more than a few levels: check for a run of [ or {",
        )


class _TooManyDigits(ValueError):
    def __init__(self, digits: str) -> None:
        super().__init__(digits)
        self.digits = digits


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_SIDE_FILE_DIGITS:
        raise _TooManyDigits(text)
    return int(text)


def parse_json(text: str, error: ErrorFactory, *, first_line: int = 1) -> Any:
    """``json.loads(text)`` within the depth and digit bounds. A syntax error stays a
    :class:`json.JSONDecodeError` (callers phrase it their way); a bound is ``error``."""
    check_depth(text, error, first_line=first_line)
    try:
        return json.loads(text, parse_int=_bounded_int)
    except _TooManyDigits as exc:
        digits = exc.digits.lstrip("-")
        at = text.find(exc.digits)
        raise error(
            _line_at(text, max(at, 0), first_line),
            f"a whole number of {len(digits):,} digits ({digits[:12]}…); numbers here are offsets, sizes or "
            f"counts of at most {MAX_SIDE_FILE_DIGITS} digits",
        ) from None
    except RecursionError:  # pragma: no cover - check_depth comes first
        raise error(first_line, "JSON nested too deeply") from None


__all__ = [
    "ErrorFactory",
    "check_depth",
    "check_side_text",
    "decode_side_file",
    "parse_json",
    "read_side_file",
    "too_deep_at",
]
