"""Python source: the text as-is, plus ``function``/``class`` blocks from :mod:`ast`."""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import replace

from chunkviz.document.blocks import Block
from chunkviz.document.model import Document

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what Python's tokenizer counts as a line end
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_TOP_LEVEL_BLOCKS = tuple(
    getattr(ast, name) for name in ("If", "Try", "TryStar", "With", "AsyncWith") if hasattr(ast, name)
)


def python_document(document: Document) -> Document:
    """A decoded Python document (format ``python``) with its definitions as extra blocks;
    source that does not parse keeps no blocks and gets a note saying why."""
    blocks, note = python_blocks(document.text)
    notes = document.notes + ((note,) if note else ())
    return replace(document, format="python", notes=notes, extra_blocks=tuple(blocks))


def python_blocks(text: str) -> tuple[list[Block], str | None]:
    """``function``/``class`` blocks of Python source, and a note when it does not parse.

    Top-level definitions are level 1, methods (and classes nested in classes) one level per
    enclosing class. A span starts at the ``@`` of the first decorator (else at ``def``,
    ``async`` or ``class``) and ends where :mod:`ast` ends the definition. Definitions inside
    top-level ``if``/``try``/``with`` blocks count as top level; nested functions are not listed.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for invalid escape sequences etc.
            tree = ast.parse(text)
    except SyntaxError as exc:
        where = f" at line {exc.lineno}" if exc.lineno else ""
        return [], f"Python syntax error{where}: {exc.msg} (structure not available)"
    except (ValueError, RecursionError, MemoryError) as exc:
        return [], f"Python source could not be parsed: {exc} (structure not available)"
    offsets = _Offsets(text)
    blocks: list[Block] = []
    _visit(tree.body, 1, offsets, blocks)
    blocks.sort(key=lambda b: (b.start, -b.end))
    return blocks, None


def _visit(body: list[ast.stmt], level: int, offsets: _Offsets, blocks: list[Block]) -> None:
    for node in body:
        if isinstance(node, _DEFINITIONS):
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            blocks.append(Block(kind, _start(node, offsets), _end(node, offsets), min(level, 6), node.name))
            if isinstance(node, ast.ClassDef):
                _visit(node.body, level + 1, offsets, blocks)
        elif level == 1 and isinstance(node, _TOP_LEVEL_BLOCKS):
            for field in ("body", "orelse", "finalbody"):
                _visit(getattr(node, field, []), level, offsets, blocks)
            for handler in getattr(node, "handlers", []):
                _visit(handler.body, level, offsets, blocks)


def _start(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, offsets: _Offsets) -> int:
    """The ``@`` of the first decorator, else the definition's first character."""
    if not node.decorator_list:
        return offsets.at(node.lineno, node.col_offset)
    first = min(node.decorator_list, key=lambda d: (d.lineno, d.col_offset))
    start = offsets.at(first.lineno, first.col_offset)
    at = offsets.text.rfind("@", offsets.line_starts[first.lineno - 1], start)  # "@ name" has a space
    return at if at >= 0 else start


def _end(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, offsets: _Offsets) -> int:
    return offsets.at(node.end_lineno or node.lineno, node.end_col_offset or 0)


class _Offsets:
    """Character offsets of :mod:`ast` positions (1-based line, UTF-8 byte column)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
        self._encoded: dict[int, bytes] = {}

    def at(self, lineno: int, col: int) -> int:
        start = self.line_starts[lineno - 1]
        if col == 0:
            return start
        encoded = self._encoded.get(lineno)
        if encoded is None:
            end = self.line_starts[lineno] if lineno < len(self.line_starts) else len(self.text)
            encoded = self.text[start:end].encode("utf-8", "surrogatepass")
            self._encoded[lineno] = encoded
        return start + len(encoded[:col].decode("utf-8", "surrogatepass"))
