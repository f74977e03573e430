"""JSON Lines, written once for every writer (chunk records, the batch, interop exports, question
files, the batch manifest): one JSON value per line, and nothing inside a value that any reader
takes for a line end.

``json.dumps(..., ensure_ascii=False)`` escapes the C0 controls (``\\n``, ``\\x0b``, ``\\x0c``,
``\\x1c``-``\\x1e`` ...) but writes U+0085 (NEL), U+2028 (LINE SEPARATOR) and U+2029 (PARAGRAPH
SEPARATOR) raw; ``str.splitlines()`` and JavaScript line readers end a line at each of them, so a
chunk holding one split its record in two. They are written as ``\\u0085``, ``\\u2028`` and
``\\u2029`` escapes. A lone surrogate (U+D800-U+DFFF, which UTF-8 cannot encode) is written as its
``\\uXXXX`` escape too, so every line is valid UTF-8. Every other character stays as it is, and
``json.loads`` gives back exactly the value written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

#: What a line-splitting reader may take for a line end, or UTF-8 cannot encode, inside a JSON string.
_UNSAFE = re.compile("[\x85\u2028\u2029\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_line(value: Any, **dumps: Any) -> str:
    """``value`` as one JSON line with its ``\\n`` (``json.dumps`` options such as ``sort_keys``
    pass through; ``ensure_ascii`` is False and ``default`` is ``str`` unless given)."""
    dumps.setdefault("ensure_ascii", False)
    dumps.setdefault("default", str)
    return _UNSAFE.sub(_escape, json.dumps(value, **dumps)) + "\n"


def to_jsonl(values: Iterable[Any], **dumps: Any) -> str:
    """Every value as one line (see :func:`json_line`)."""
    return "".join(json_line(v, **dumps) for v in values)


__all__ = ["json_line", "to_jsonl"]
