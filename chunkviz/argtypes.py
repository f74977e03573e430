"""Argument types shared by the command-line parsers (``type=`` of ``argparse``)."""

from __future__ import annotations

import argparse
from typing import Callable


def whole_number(low: int, high: int | None = None, what: str = "a whole number") -> Callable[[str], int]:
    """An ``argparse`` type: an integer of at least ``low`` (and at most ``high``), with errors
    that name what was expected (``what``) and the allowed range."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if high is None and value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more, got {value}")
        if high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be in {low}..{high}, got {value}")
        return value

    return parse
