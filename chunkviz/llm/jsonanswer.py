"""Reading a model's JSON answer leniently, recording every repair (as :mod:`chunkviz.llm.sections` does).

Models asked for "one JSON object and nothing else" still wrap it in a Markdown code fence, put
a sentence before or after it, or write a Python-style literal with single quotes. Each of these
is repaired and the repair named, so a view can say what the model really sent; an answer with
no JSON value in it at all is unusable (``None``), and so is one nested deeper than any answer
needs (the side files' bound, :func:`chunkviz.core.sidefile.too_deep_at`: the parser would recurse
once per level), so it is asked for again instead of ending the run.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from chunkviz.core.limits import MAX_SIDE_FILE_DEPTH
from chunkviz.core.sidefile import too_deep_at

_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```$", re.DOTALL)
_OPENERS = re.compile(r"[\[{]")

REPAIR_FENCE = "removed a Markdown code fence around the JSON"
REPAIR_AROUND = "ignored text around the JSON"
REPAIR_PYTHON = "read a Python-style literal (single quotes) as JSON"


@dataclass(frozen=True)
class JSONAnswer:
    """A JSON value read from an answer, and the repairs it needed (empty: used as given)."""

    value: Any
    repairs: tuple[str, ...] = ()


def read_json_answer(answer: str) -> JSONAnswer | None:
    """The JSON object or list in ``answer``: the whole answer, the inside of a code fence, a
    Python-style literal, or the first object/list inside surrounding text; None when there is
    none."""
    repairs: list[str] = []
    text = answer.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
        repairs.append(REPAIR_FENCE)
    if too_deep_at(text) is not None:
        return None
    whole = _parse(text, repairs)
    if whole is not _NOTHING:
        return JSONAnswer(whole, tuple(repairs))
    for match in _OPENERS.finditer(text):
        value = _parse_prefix(text, match.start(), repairs)
        if value is not _NOTHING:
            return JSONAnswer(value, (*repairs, REPAIR_AROUND))
    return None


_NOTHING: Any = object()


def _parse(text: str, repairs: list[str]) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        value = _python_literal(text, repairs)
    return value if isinstance(value, (dict, list)) else _NOTHING


def _parse_prefix(text: str, start: int, repairs: list[str]) -> Any:
    """The JSON (or Python-literal) object or list that starts at ``start``."""
    try:
        value, _ = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        end = _matching_close(text, start)
        value = _python_literal(text[start:end], repairs) if end else _NOTHING
    return value if isinstance(value, (dict, list)) else _NOTHING


def _python_literal(text: str, repairs: list[str]) -> Any:
    if not text.startswith(("{", "[")):
        return _NOTHING
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return _NOTHING
    if not _json_like(value):
        return _NOTHING
    repairs.append(REPAIR_PYTHON)
    return _lists(value)


def _lists(value: Any) -> Any:
    """Tuples of a Python literal as JSON lists."""
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    return value


def _json_like(value: Any, depth: int = 0) -> bool:
    """Whether a Python literal is made of what JSON has (no sets, tuples as lists are fine)."""
    if depth > MAX_SIDE_FILE_DEPTH:
        return False
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_json_like(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_like(v, depth + 1) for k, v in value.items())
    return False


def _matching_close(text: str, start: int) -> int | None:
    """The end of the bracketed literal opened at ``start`` (quotes respected), or None."""
    depth = 0
    quote: str | None = None
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


__all__ = ["REPAIR_AROUND", "REPAIR_FENCE", "REPAIR_PYTHON", "JSONAnswer", "read_json_answer"]
