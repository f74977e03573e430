"""Python source: the text as-is, plus ``function``/``class`` blocks from :mod:`ast`."""

from __future__ import annotations

import ast
from dataclasses import replace

from chunkviz.document.blocks import Block
from chunkviz.document.model import Document
from chunkviz.document.pysource import DEFINITIONS, PARSE_ERRORS, PythonSource, parse_module

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
    ``async`` or ``class``) and ends where :mod:`ast` ends the definition (positions by
    :class:`~chunkviz.document.pysource.PythonSource`). Definitions inside top-level
    ``if``/``try``/``with`` blocks count as top level; nested functions are not listed.
    """
    try:
        tree = parse_module(text)
    except SyntaxError as exc:
        where = f" at line {exc.lineno}" if exc.lineno else ""
        return [], f"Python syntax error{where}: {exc.msg} (structure not available)"
    except PARSE_ERRORS as exc:
        return [], f"Python source could not be parsed: {exc} (structure not available)"
    source = PythonSource(text)
    blocks: list[Block] = []
    _visit(tree.body, 1, source, blocks)
    blocks.sort(key=lambda b: (b.start, -b.end))
    return blocks, None


def _visit(body: list[ast.stmt], level: int, source: PythonSource, blocks: list[Block]) -> None:
    for node in body:
        if isinstance(node, DEFINITIONS):
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            blocks.append(Block(kind, source.node_start(node), source.node_end(node), min(level, 6), node.name))
            if isinstance(node, ast.ClassDef):
                _visit(node.body, level + 1, source, blocks)
        elif level == 1 and isinstance(node, _TOP_LEVEL_BLOCKS):
            for field in ("body", "orelse", "finalbody"):
                _visit(getattr(node, field, []), level, source, blocks)
            for handler in getattr(node, "handlers", []):
                _visit(handler.body, level, source, blocks)
