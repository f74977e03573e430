"""chunkviz.document.pysource: syntax-tree positions as exact character offsets (the reader's and
the ``code`` strategy's one mapping)."""

from __future__ import annotations

import ast

import pytest

from chunkviz.document.pysource import PARSE_ERRORS, PythonSource, parse_module


def test_columns_are_utf8_bytes_converted_line_by_line() -> None:
    text = "a = 'é👍'; b = 1\r\nc = 2\rd = 3\n"
    source = PythonSource(text)
    assert source.starts == [0, 17, 23, 29]
    first, second = ast.parse(text).body[:2]
    assert source.node_start(second) == text.index("b = 1")
    assert source.node_end(first) == text.index(";")
    assert source.offset(3, 0) == text.index("d = 3")
    assert [source.line_of(p) for p in (0, 16, 17, 23)] == [1, 1, 2, 3]
    assert source.line_start(99) == len(text)


@pytest.mark.parametrize(
    ("text", "at"),
    [
        ("@dec\ndef f(): pass\n", 0),
        ("    \n@ dec\ndef f(): pass\n", 5),
        ("@\\\nfoo\ndef f(): pass\n", 0),
        ("@(  # @x\n    foo)\ndef f(): pass\n", 0),
        ("@(\n    # @x\n    foo)\nclass C: pass\n", 0),
        ("class C:\n    x = '@'\n    @property  # @y\n    def p(self): pass\n", 25),
    ],
)
def test_a_decorated_definition_starts_at_the_at_of_its_first_decorator(text: str, at: int) -> None:
    tree = parse_module(text)
    node = tree.body[-1]
    if isinstance(node, ast.ClassDef) and node.body and not node.decorator_list:
        node = node.body[-1]
    assert PythonSource(text).node_start(node) == at
    assert text[at] == "@"


def test_parse_module_silences_syntax_warnings_and_raises_parse_errors(recwarn: pytest.WarningsRecorder) -> None:
    parse_module("x = '\\d'\n")  # an invalid escape: a SyntaxWarning from ast.parse
    assert not recwarn.list
    with pytest.raises(PARSE_ERRORS):
        parse_module("def broken(:\n")
