"""Python source as the parser sees it: :mod:`ast` positions as exact character offsets.

The one home of this mapping, used by the Python reader (its ``function``/``class`` blocks) and
the ``code`` strategy (its statement groups). :mod:`ast` gives positions as a 1-based line and
a UTF-8 *byte* column; lines are counted as Python's tokenizer counts them (``\\n``, ``\\r\\n``
and a lone ``\\r``, nothing else), so :class:`PythonSource` splits lines the same way and
converts columns line by line.

A decorated definition starts at the ``@`` of its first decorator. :mod:`ast` gives only the
decorator's *expression*, and the ``@`` may stand before it on the same line (``@ name``,
``@(name)``) or on an earlier line (``@(`` and the name on the next line, or ``@\\`` with a line
continuation); comments between them may themselves contain ``@``. The ``@`` is the first
non-blank character of its line (a decorator begins a logical line), and every line between it
and the expression holds only whitespace, brackets, comments or a continuation, none of which
begins with ``@``: so the ``@`` is the first character of the nearest line, at or above the
expression's (that line only up to the expression), whose first non-blank character is ``@``.
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings

#: What Python's tokenizer counts as a line end.
LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: The statements that are definitions (they can carry decorators).
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: What :func:`parse_module` raises for source that does not parse (null bytes on older
#: Pythons are a ValueError; very deep nesting a RecursionError or MemoryError).
PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)
INDENT_CHARS = " \t\x0c"


def parse_module(text: str) -> ast.Module:
    """The module's syntax tree (SyntaxWarnings, e.g. for invalid escapes, silenced); raises
    one of :data:`PARSE_ERRORS` when ``text`` does not parse."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


class PythonSource:
    """The line table of a Python source and exact conversion of :mod:`ast` positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]
        self.n_lines = len(self.starts)
        self._encoded: dict[int, bytes] = {}

    def line_start(self, lineno: int) -> int:
        """Character offset where line ``lineno`` (1-based) starts; past the last line: the end."""
        if lineno > self.n_lines:
            return len(self.text)
        return self.starts[lineno - 1]

    def line_text(self, lineno: int) -> str:
        """Line ``lineno`` without its line break."""
        start = self.starts[lineno - 1]
        end = self.starts[lineno] if lineno < self.n_lines else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def offset(self, lineno: int, col: int) -> int:
        """Character offset of ``(lineno, col)`` where ``col`` counts UTF-8 bytes (as ``ast``)."""
        start = self.starts[lineno - 1]
        if col == 0:
            return start
        encoded = self._encoded.get(lineno)
        if encoded is None:
            encoded = self._encoded[lineno] = self.line_text(lineno).encode("utf-8", "surrogatepass")
        return start + len(encoded[:col].decode("utf-8", "surrogatepass"))

    def line_of(self, pos: int) -> int:
        """1-based line of character ``pos``."""
        return bisect.bisect_right(self.starts, pos)

    def is_blank(self, lineno: int) -> bool:
        return not self.line_text(lineno).strip()

    def is_comment(self, lineno: int) -> bool:
        return self.line_text(lineno).lstrip(INDENT_CHARS).startswith("#")

    def indent(self, lineno: int) -> int:
        line = self.line_text(lineno)
        return len(line) - len(line.lstrip(INDENT_CHARS))

    def content_lines(self, start: int, end: int) -> tuple[int, int]:
        """First and last line (1-based, inclusive) with a non-whitespace character in [start, end)."""
        piece = self.text[start:end]
        stripped = piece.lstrip()
        first = start + len(piece) - len(stripped)
        last = start + len(piece.rstrip()) - 1
        if last < first:  # only whitespace
            return self.line_of(start), self.line_of(max(start, end - 1))
        return self.line_of(first), self.line_of(last)

    # ---- statements ------------------------------------------------------------------------
    def node_start(self, node: ast.stmt) -> int:
        """Where a statement starts: at the ``@`` of its first decorator, if it has any."""
        decorators: list[ast.expr] = getattr(node, "decorator_list", None) or []
        if decorators:
            return self.decorator_start(decorators[0])  # ast lists decorators in source order
        return self.offset(node.lineno, node.col_offset)

    def node_end(self, node: ast.stmt) -> int:
        """Where a statement ends (exclusive), as :mod:`ast` ends it."""
        return self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)

    def decorator_start(self, expression: ast.expr) -> int:
        """The ``@`` of the decorator whose expression is ``expression`` (see the module docstring)."""
        at_expression = self.offset(expression.lineno, expression.col_offset)
        lineno = expression.lineno
        before = self.text[self.starts[lineno - 1] : at_expression]
        while True:
            code = before.lstrip(INDENT_CHARS)
            if code.startswith("@"):
                return self.starts[lineno - 1] + len(before) - len(code)
            lineno -= 1
            if lineno < 1:  # not reached for source that parsed
                return at_expression
            before = self.line_text(lineno)


__all__ = ["DEFINITIONS", "LINE_BREAK", "PARSE_ERRORS", "PythonSource", "parse_module"]
