"""Python source (chunkviz.document.readers.python): the text as-is, with ``function`` and
``class`` blocks from ``ast`` whose spans are exact, whatever the characters and line ends."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import REALDOCS
from test_read import check_blocks, span

from chunkviz.document.read import read_bytes, read_path
from chunkviz.document.readers.python import python_blocks

PY_SOURCE = (
    '"""Módulo — ünïcode ✓ 👍"""\r\n'
    'naïve = "café 👍"; π = 3.14\r\n'
    "\r\n"
    '@decorator("é")\r\n'
    "@ other.attr(\r\n"
    "    1)\r\n"
    "def first(x):\r\n"
    '    return "ü👍"\r\n'
    "\r\n"
    "class Ünïcode(Base):\r\n"
    '    """doc ✓"""\r\n'
    "\r\n"
    "    @property\r\n"
    '    def größe(self): return "ß"\r\n'
    "\r\n"
    "    async def fetch(self):\r\n"
    "        await x  # 🎉\r\n"
    "\r\n"
    "async def top(): pass\r\n"
    "\r\n"
    "if TYPE_CHECKING:\r\n"
    "    def typed() -> None: ...\r\n"
)


def _expected(text: str, start: str, end: str) -> tuple[int, int]:
    s = text.index(start)
    return s, text.index(end, s) + len(end)


def test_python_blocks_have_exact_spans() -> None:
    doc = read_bytes(PY_SOURCE.encode("utf-8"), "module.py")
    assert doc.text == PY_SOURCE
    assert doc.format == "python"
    t = PY_SOURCE
    expected = [
        ("function", *_expected(t, '@decorator("é")', 'return "ü👍"'), 1, "first"),
        ("class", *_expected(t, "class Ünïcode", "await x"), 1, "Ünïcode"),
        ("function", *_expected(t, "@property", 'return "ß"'), 2, "größe"),
        ("function", *_expected(t, "async def fetch", "await x"), 2, "fetch"),
        ("function", *_expected(t, "async def top", "pass"), 1, "top"),
        ("function", *_expected(t, "def typed", "..."), 1, "typed"),
    ]
    assert [(b.kind, b.start, b.end, b.level, b.title) for b in doc.extra_blocks] == expected
    assert list(doc.structure.blocks) == list(doc.extra_blocks)  # Python has no markup blocks
    for block in doc.extra_blocks:
        assert span(doc, block).startswith(("@", "def ", "async def ", "class "))
    check_blocks(doc)


def test_python_lone_cr_and_tabs() -> None:
    source = "x = 'é'\rdef f():\r\treturn 'ü'\r"
    blocks, note = python_blocks(source)
    assert note is None
    assert [source[b.start : b.end] for b in blocks] == ["def f():\r\treturn 'ü'"]


def test_python_syntax_error_is_a_note() -> None:
    doc = read_bytes(b"def ok():\n    pass\n\ndef broken(:\n    pass\n", "bad.py")
    assert doc.extra_blocks == () and doc.structure.blocks == ()
    assert doc.format == "python"
    assert any(
        note.startswith("Python syntax error at line 4: ") and note.endswith("(structure not available)")
        for note in doc.notes
    )


def test_realdoc_python_module() -> None:
    path = REALDOCS / "pep_zero_writer.py"
    if not path.is_file():
        pytest.skip(f"{path} is not in the shared realdocs folder")
    doc = read_path(path)
    assert doc.text == Path(path).read_bytes().decode("utf-8")
    assert doc.format == "python"
    assert {"function", "class"} <= {b.kind for b in doc.extra_blocks}
    for block in doc.extra_blocks:
        assert span(doc, block).startswith(("@", "def ", "async def ", "class "))
        assert block.title in span(doc, block)
    assert any(b.level == 2 for b in doc.extra_blocks)
    check_blocks(doc)


# The reader and the ``code`` strategy once mapped decorators differently: the reader searched
# for the ``@`` only on the decorator expression's own line, ``code`` searched back from offset 0
# and took the last ``@`` it met (one in a comment, too). Both now ask chunkviz.document.pysource;
# each case has the exact span of the definition, decorators included.
DECORATOR_CASES = [
    # (source, expected (start, end) of the one block)
    ("@\\\nfoo\ndef f():\n    pass\n", (0, 24)),  # line continuation: reader said (3, 24)
    ("@(\n    foo)\nclass C:\n    pass\n", (0, 29)),  # expression on the next line: reader said (7, 29)
    ("@(  # see @x\n    foo)\ndef f():\n    pass\n", (0, 39)),  # '@' in a comment: reader (17, 39), code 10
    ("@(\n    # @x\n    foo)\ndef f():\n    pass\n", (0, 38)),  # reader (16, 38), code 16 (line 2)
    ('x = "@"\n@ foo\ndef f():\n    pass\n', (8, 31)),  # '@ name' with a space, an '@' earlier in the file
    ("@(a)(b)\n@c\ndef f(): pass\n", (0, 24)),  # several decorators: from the first
    ("x = 'é👍'\r  \r@dé\rdef f(): pass\r", (12, 29)),  # non-ASCII and lone CR line ends
]


@pytest.mark.parametrize(("source", "expected"), DECORATOR_CASES)
def test_decorated_definitions_start_at_their_first_at(source: str, expected: tuple[int, int]) -> None:
    blocks, note = python_blocks(source)
    assert note is None
    assert [(b.start, b.end) for b in blocks] == [expected]
    assert source[expected[0]] == "@"
