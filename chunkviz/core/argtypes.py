"""Argument types shared by the command-line parsers (``type=`` of ``argparse``)."""

from __future__ import annotations

import argparse
from typing import Callable

#: The most characters of a command-line value an error quotes.
_QUOTED = 40


def _quoted(text: str) -> str:
    """``text`` as an error quotes it: cut short, with its length, past 40 characters (a number
    of thousands of digits is no help in a message)."""
    if len(text) <= _QUOTED:
        return repr(text)
    return f"{text[:20]!r}… ({len(text):,} characters)"


def whole_number(low: int, high: int | None = None, what: str = "a whole number") -> Callable[[str], int]:
    """An ``argparse`` type: an integer of at least ``low`` (and at most ``high``), with errors
    that name what was expected (``what``) and the allowed range."""

    def parse(text: str) -> int:
        digits = text.strip().lstrip("+-")
        if len(digits) > 30:  # no count or index has that many digits (and int() stops at 4,300)
            if digits.isdigit():
                allowed = f"{low} or more" if high is None else f"in {low}..{high}"
                raise argparse.ArgumentTypeError(f"must be {allowed}, got a number of {len(digits):,} digits")
            raise argparse.ArgumentTypeError(f"expected {what}, got {_quoted(text)}")
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {_quoted(text)}") from None
        if high is None and value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more, got {value}")
        if high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be in {low}..{high}, got {value}")
        return value

    return parse
