"""The ``code`` strategy (seed 000 §13.5.4): Python chunked on its syntax tree.

Decorators and comments stay with their def, module-level code is kept in chunks of its own,
oversized classes get level-1 method children.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunking import assert_valid_chunking
from support.codechunks import assert_valid_levels
from support.paths import REALDOCS, read_realdoc
from support.texts import SETTINGS

from chunkviz import chunk
from chunkviz.core.types import Chunk
from chunkviz.text.tokenizers import get_tokenizer

REPO = Path(__file__).resolve().parent.parent


# ============================================================================ helpers


def containing(chunks: Sequence[Chunk], start: int, end: int, level: int = 0) -> list[Chunk]:
    return [c for c in chunks if c.level == level and c.start <= start and end <= c.end]


# ============================================================================ exact outputs


INVENTORY = (REPO / "chunkviz/sample_docs" / "inventory.py").read_text(encoding="utf-8")


def top_level_nodes(text: str) -> list[ast.stmt]:
    return list(ast.parse(text).body)


def char_offset(text: str, lineno: int, col: int) -> int:
    lines = re.split(r"(?<=\r\n)|(?<=\r)(?!\n)|(?<=\n)", text)
    start = sum(len(line) for line in lines[: lineno - 1])
    return start + len(lines[lineno - 1].encode("utf-8")[:col].decode("utf-8"))


def test_module_level_code_is_kept_between_functions() -> None:
    text = (
        '"""Docstring."""\n'
        "import os\n"
        "import sys\n\n"
        "LIMIT = 10\n\n\n"
        "def first():\n"
        "    return 1\n\n\n"
        "REGISTRY = {}\n"
        "REGISTRY['a'] = first\n\n\n"
        "def second():\n"
        "    return 2\n\n\n"
        'if __name__ == "__main__":\n'
        "    print(first(), second())\n"
    )
    chunks = chunk(text, "code")
    assert_valid_levels(text, chunks)
    assert [(c.metadata["type"], c.metadata["name"]) for c in chunks] == [
        ("module_code", "<module>"),
        ("function", "first"),
        ("module_code", "<module>"),
        ("function", "second"),
        ("module_code", "<module>"),
    ]
    assert chunks[0].text == '"""Docstring."""\nimport os\nimport sys\n\nLIMIT = 10\n\n\n'
    assert chunks[1].text == "def first():\n    return 1\n\n\n"
    assert chunks[2].text == "REGISTRY = {}\nREGISTRY['a'] = first\n\n\n"
    assert chunks[4].text == 'if __name__ == "__main__":\n    print(first(), second())\n'
    assert [c.reason for c in chunks] == ["unit_end"] * 4 + ["end_of_document"]  # was ast_node
    assert [(c.metadata["start_line"], c.metadata["end_line"]) for c in chunks] == [
        (1, 5),
        (8, 9),
        (12, 13),
        (16, 17),
        (20, 21),
    ]


def test_decorators_and_comments_above_stay_with_their_def() -> None:
    text = (
        "import functools\n\n"
        "# Cache the answer.\n"
        "# It never changes.\n"
        "@functools.lru_cache(maxsize=None)\n"
        "@ staticmethod\n"
        "def answer():\n"
        "    return 42\n"
        "    # return 41\n\n"
        "# a section comment, separated by a blank line\n\n"
        "@dataclass\n"
        "class Point:\n"
        "    x: int\n"
    )
    chunks = chunk(text, "code")
    assert_valid_levels(text, chunks)
    by_name = {c.metadata["name"]: c for c in chunks}
    answer = by_name["answer"]
    assert answer.text.startswith("# Cache the answer.\n# It never changes.\n@functools.lru_cache")
    assert "    # return 41\n" in answer.text  # an indented comment after the body stays with it
    assert answer.metadata["start_line"] == 3 and answer.metadata["end_line"] == 9
    assert by_name["Point"].text == "@dataclass\nclass Point:\n    x: int\n"
    section = [c for c in chunks if "section comment" in c.text]
    assert len(section) == 1 and section[0].metadata["type"] == "module_code"


def test_a_decorator_split_over_lines_stays_with_its_def() -> None:
    # the '@' of "@(" is on line 1, its expression on line 3, and a comment between holds an '@':
    # the function's chunk starts at the decorator's '@' (code once started it at "# @x", leaving
    # "@(\n" to a module_code chunk of its own)
    text = "@(\n    # @x\n    foo)\ndef f():\n    pass\n"
    chunks = chunk(text, "code")
    assert [(c.start, c.end, c.metadata["type"], c.metadata["name"]) for c in chunks] == [
        (0, len(text), "function", "f")
    ]
    assert chunks[0].metadata["start_line"] == 1


def test_every_top_level_statement_of_inventory_is_in_a_chunk() -> None:
    chunks = chunk(INVENTORY, "code", max_tokens=500)  # room for the whole `if __name__` block
    assert_valid_levels(INVENTORY, chunks)
    top = [c for c in chunks if c.level == 0]
    for node in top_level_nodes(INVENTORY):
        start = char_offset(INVENTORY, node.lineno, node.col_offset)
        end = char_offset(INVENTORY, node.end_lineno, node.end_col_offset)
        assert len(containing(top, start, end)) == 1, ast.dump(node)[:80]
    names = [c.metadata["name"] for c in top if c.metadata["type"] != "module_code"]
    assert names == ["audited", "Item", "Reservation", "parse_sku", "Inventory", "category_of"]
    parse_sku = next(c for c in top if c.metadata["name"] == "parse_sku")
    assert parse_sku.text.startswith("@audited\ndef parse_sku")
    main = top[-1]
    assert main.metadata["type"] == "module_code" and main.text.startswith('if __name__ == "__main__":')


def test_oversized_class_gets_header_and_method_children() -> None:
    chunks = chunk(INVENTORY, "code", max_tokens=200)
    assert_valid_levels(INVENTORY, chunks)
    (cls,) = [c for c in chunks if c.level == 0 and c.metadata["name"] == "Inventory"]
    assert cls.metadata["type"] == "class" and cls.metadata["over_size_limit"] is True
    kids = [c for c in chunks if c.parent == cls.index]
    assert all(k.level == 1 for k in kids) and cls.metadata["children"] == len(kids)
    assert [k.metadata["type"] for k in kids] == ["class_header"] + ["method"] * 7
    assert [k.metadata["name"] for k in kids] == [
        "Inventory",
        "__init__",
        "add_item",
        "receive",
        "reserved",
        "available",
        "reserve",
        "reorder_suggestions",
    ]
    assert kids[0].text.startswith('class Inventory:\n    """Stock levels')
    assert "def " not in kids[0].text
    receive = kids[3]
    assert receive.text.startswith("    @audited\n    def receive(")  # the decorator stays with its method
    assert receive.metadata["qualname"] == "Inventory.receive"
    assert "".join(k.text for k in kids) == cls.text  # children tile the class
    # the level-1 chunks come after every level-0 chunk
    assert min(k.index for k in kids) > max(c.index for c in chunks if c.level == 0)


def test_class_children_include_class_level_code_after_methods() -> None:
    body = "\n".join(f"    def m{i}(self):\n        return {i}\n" for i in range(6))
    text = f"class Big:\n    '''Doc.'''\n    a = 1\n\n{body}\n    alias = m0\n\n\nx = Big()\n"
    chunks = chunk(text, "code", max_tokens=25, tokenizer="words")
    assert_valid_levels(text, chunks)
    kinds = [(c.level, c.metadata["type"]) for c in chunks]
    assert kinds[:2] == [(0, "class"), (0, "module_code")]
    kids = [c for c in chunks if c.level == 1]
    assert [k.metadata["type"] for k in kids] == ["class_header"] + ["method"] * 6 + ["class_code"]
    assert kids[0].text == "class Big:\n    '''Doc.'''\n    a = 1\n\n"
    assert kids[-1].text.strip() == "alias = m0"
    assert {k.parent for k in kids} == {0}


def test_oversized_function_is_split_with_the_python_preset() -> None:
    body = "\n\n".join(f"    step_{i} = compute({i})\n    log(step_{i})" for i in range(12))
    text = f"import x\n\n\n@decorate\ndef long_one():\n{body}\n\n\ndef short():\n    pass\n"
    chunks = chunk(text, "code", max_tokens=15, tokenizer="words")
    assert_valid_levels(text, chunks)
    pieces = [c for c in chunks if c.metadata["name"] == "long_one"]
    assert len(pieces) > 2 and all(c.level == 0 for c in pieces)
    assert all(p.metadata["type"] == "function" and p.metadata["split_unit"] for p in pieces)
    assert [p.metadata["part"] for p in pieces] == list(range(1, len(pieces) + 1))
    assert pieces[0].text.startswith("@decorate\ndef long_one():")  # not cut off its decorator
    tok = get_tokenizer("words")
    assert all(tok.count(p.text) <= 15 for p in pieces)
    # vocabulary: the cuts inside the split def are "size_limit" at blank lines (boundary paragraph)
    assert (
        all(p.reason == "size_limit" and p.boundary == "paragraph" for p in pieces[:-1])
        and pieces[-1].reason == "unit_end"
    )
    assert chunks[-1].metadata["name"] == "short"


def test_syntax_error_falls_back_to_recursive_with_a_note() -> None:
    text = "def broken(:\n    pass\n\n\ndef fine():\n    return 1\n"
    chunks = chunk(text, "code", max_tokens=5, tokenizer="words")
    expected = chunk(text, "recursive", chunk_size=5, overlap=0, separators="python", tokenizer="words")
    assert [(c.start, c.end, c.reason) for c in chunks] == [(c.start, c.end, c.reason) for c in expected]
    assert all(c.metadata["fallback"] == "syntax error at line 1: invalid syntax" for c in chunks)
    markdown = (REPO / "chunkviz/sample_docs" / "api_guide.md").read_text(encoding="utf-8")
    md_chunks = chunk(markdown, "code")
    assert all(c.metadata["fallback"].startswith("syntax error at line ") for c in md_chunks)
    assert_valid_chunking(markdown, md_chunks)
    nul = chunk("x = 1\x00\n", "code")
    assert nul[0].metadata["fallback"].startswith("syntax error at line ?: ")


NON_ASCII = (
    '"""Überprüfung der Daten — 日本語 😀."""\n'
    'GREETING = "héllo wörld 👨\u200d👩\u200d👧"  # 😀 a comment with émoji\n'
    "# коментар над функцією\n"
    "@decorator('ü')\n"
    "def grüße(name='😀'):\n"
    "    return f'{name} ü'\n\n"
    "class Ñandú:\n"
    "    '''ñ'''\n"
    "    def método(self): return '€'\n"
)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_non_ascii_and_crlf_spans_are_exact(newline: str) -> None:
    text = NON_ASCII.replace("\n", newline)
    chunks = chunk(text, "code")
    assert_valid_levels(text, chunks)
    by_name = {c.metadata["name"]: c for c in chunks}
    f = by_name["grüße"]
    assert (
        f.text
        == f"# коментар над функцією{newline}@decorator('ü'){newline}def grüße(name='😀'):{newline}    return f'{{name}} ü'{newline}{newline}"
    )
    assert (f.metadata["start_line"], f.metadata["end_line"]) == (3, 6)
    assert (
        by_name["Ñandú"].text == f"class Ñandú:{newline}    '''ñ'''{newline}    def método(self): return '€'{newline}"
    )
    assert chunks[0].text == NON_ASCII.split("# коментар")[0].replace("\n", newline)


def test_non_ascii_class_children_are_exact() -> None:
    text = NON_ASCII + "".join(f"    def m{i}(self):\n        return 'ü{i}😀'\n" for i in range(5))
    for newline in ("\n", "\r\n"):
        doc = text.replace("\n", newline)
        chunks = chunk(doc, "code", max_tokens=12, tokenizer="words")
        assert_valid_levels(doc, chunks)
        kids = [c for c in chunks if c.level == 1]
        assert [k.metadata["name"] for k in kids] == ["Ñandú", "método", "m0", "m1", "m2", "m3", "m4"]
        assert kids[1].text == f"    def método(self): return '€'{newline}"


def test_sample_and_real_python_files_have_no_gaps() -> None:
    docs = [INVENTORY]
    real = REALDOCS / "pep_zero_writer.py"
    if real.exists():
        docs.append(read_realdoc(real))
    for text in docs:
        for max_tokens in (500, 120, 40):
            chunks = chunk(text, "code", max_tokens=max_tokens)
            assert_valid_levels(text, chunks)
            assert not any("fallback" in c.metadata for c in chunks)


def test_real_pep_zero_writer() -> None:
    path = REALDOCS / "pep_zero_writer.py"
    if not path.exists():
        pytest.skip("pep_zero_writer.py is not in the shared folder")
    text = read_realdoc(path)
    chunks = chunk(text, "code")
    assert_valid_levels(text, chunks)
    (writer,) = [c for c in chunks if c.level == 0 and c.metadata["name"] == "PEPZeroWriter"]
    assert writer.metadata["over_size_limit"]
    kids = [c for c in chunks if c.parent == writer.index]
    assert kids[0].metadata["type"] == "class_header"
    assert "write_pep0" in [k.metadata["name"] for k in kids]
    module_code = [c for c in chunks if c.metadata["type"] == "module_code"]
    assert any("TYPE_CHECKING" in c.text for c in module_code)


def test_blank_text_and_comment_only_module() -> None:
    assert chunk("", "code") == [] and chunk(" \n\t\r\n", "code") == []
    text = "# just a comment\n\n# and another\n"
    chunks = chunk(text, "code")
    assert [(c.start, c.end, c.metadata["type"]) for c in chunks] == [(0, len(text), "module_code")]


# ----------------------------------------------------------------------------- code: property


@st.composite
def python_module(draw: st.DrawFn) -> tuple[str, dict[str, dict]]:
    """Valid Python from random functions, classes, decorators, comments and module statements;
    also returns, per def/class name, whether it has decorators / a comment directly above."""
    counter = draw(st.integers(0, 10**6))
    names = (f"n{counter}_{k}" for k in range(10**6))
    text_piece = st.sampled_from(["x", "é", "日本語", "😀", "a b", "ü\u2028", "\\u00e9"])
    comment = st.sampled_from(["# note", "# ünïcode 😀 comment", "#", "# TODO: é"])
    statement = st.sampled_from(
        [
            "import os",
            "from collections import defaultdict",
            "X = 1",
            "Y = {'a': 1,\n     'b': 2}",
            "print('hi')",
            "z = 1; w = 2",
            "T = '''multi\n\nline é'''",
            "for i in range(2):\n    pass",
            "if __name__ == \"__main__\":\n    print('main')",
            "try:\n    import json\nexcept ImportError:\n    json = None",
        ]
    )
    decorator = st.sampled_from(["@dec", "@dec(1, 'é')", "@a.b.c", "@ spaced", "@functools.wraps(f)"])
    info: dict[str, dict] = {}

    def body(indent: str) -> list[str]:
        lines = []
        if draw(st.booleans()):
            lines.append(f"{indent}'''Doc {draw(text_piece)}.'''")
        for _ in range(draw(st.integers(1, 4))):
            lines.append(f"{indent}v = '{draw(text_piece)}'")
            if draw(st.integers(0, 4)) == 0:
                lines.append("")
        lines.append(f"{indent}return v")
        if draw(st.integers(0, 3)) == 0:
            lines.append(f"{indent}{draw(comment)}")
        return lines

    def function(indent: str) -> tuple[str, list[str]]:
        name = next(names)
        lines = []
        comments = draw(st.integers(0, 2)) if draw(st.booleans()) else 0
        lines += [indent + draw(comment) for _ in range(comments)]
        decorators = [indent + draw(decorator) for _ in range(draw(st.integers(0, 2)))]
        lines += decorators
        kw = draw(st.sampled_from(["def", "async def"]))
        lines.append(f"{indent}{kw} {name}(self, a='{draw(text_piece)}'):")
        lines += body(indent + "    ")
        info[name] = {"decorators": bool(decorators), "comments": comments}
        return name, lines

    def klass() -> list[str]:
        name = next(names)
        comments = draw(st.integers(0, 1))
        lines = [draw(comment) for _ in range(comments)]
        decorators = [draw(decorator) for _ in range(draw(st.integers(0, 1)))]
        lines += decorators
        lines.append(f"class {name}(Base):")
        if draw(st.booleans()):
            lines.append(f"    '''Class doc {draw(text_piece)}.'''")
        for _ in range(draw(st.integers(0, 2))):
            lines.append(f"    attr_{next(names)} = '{draw(text_piece)}'")
        methods = draw(st.integers(0, 4))
        if methods == 0 and len(lines) == comments + len(decorators) + 1:
            lines.append("    pass")
        for _ in range(methods):
            if draw(st.booleans()):
                lines.append("")
            _, method_lines = function("    ")
            lines += method_lines
            if draw(st.integers(0, 4)) == 0:
                lines.append(f"    alias_{next(names)} = 1")
        info[name] = {"decorators": bool(decorators), "comments": comments}
        return lines

    items = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["function", "class", "statement", "statement", "comment"]))
        if kind == "function":
            items.append("\n".join(function("")[1]).replace("(self, ", "("))
        elif kind == "class":
            items.append("\n".join(klass()))
        elif kind == "statement":
            items.append(draw(statement))
        else:
            items.append(draw(comment))
    parts = [items[0]]
    for item in items[1:]:
        parts.append(draw(st.sampled_from(["\n\n", "\n\n\n", "\n\n"])))
        parts.append(item)
    text = "".join(parts) + draw(st.sampled_from(["", "\n", "\n\n"]))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = text.replace("\n", newline)
    ast.parse(text)  # the generator only makes valid modules
    return text, info


def _def_nodes(text: str) -> list[tuple[ast.stmt, str | None]]:
    """Top-level defs/classes and methods, with the owning class name."""
    out: list[tuple[ast.stmt, str | None]] = []
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((node, None))
            if isinstance(node, ast.ClassDef):
                out += [
                    (m, node.name)
                    for m in node.body
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                ]
    return out


@settings(max_examples=150, **SETTINGS)
@given(
    module=python_module(),
    max_tokens=st.one_of(st.integers(5, 60), st.integers(60, 600)),
    tokenizer=st.sampled_from(["words", "cl100k_base"]),
)
def test_property_python_modules(module: tuple[str, dict[str, dict]], max_tokens: int, tokenizer: str) -> None:
    text, info = module
    chunks = chunk(text, "code", max_tokens=max_tokens, tokenizer=tokenizer)
    assert_valid_levels(text, chunks)  # exact spans, level 0 tiles the document, children tile parents
    assert not any("fallback" in c.metadata for c in chunks)
    # only a parent (an oversized class) or an indivisible piece may exceed max_tokens
    tok = get_tokenizer(tokenizer)
    parents = {c.parent for c in chunks}
    for c in chunks:
        if c.index in parents:
            assert c.metadata["over_size_limit"] and c.metadata["type"] == "class"
        elif not c.metadata.get("indivisible"):
            assert tok.count(c.text) <= max_tokens
    top = [c for c in chunks if c.level == 0]
    # no level-0 cut inside a top-level statement, unless that statement is split
    for node in ast.parse(text).body:
        start = char_offset(text, node.lineno, node.col_offset)
        end = char_offset(text, node.end_lineno, node.end_col_offset)
        holders = [c for c in top if c.start < end and start < c.end]
        if len(holders) > 1:
            assert all(c.metadata.get("split_unit") for c in holders), (
                ast.dump(node)[:60],
                [c.metadata for c in holders],
            )
    for node, owner in _def_nodes(text):
        level = 0 if owner is None else 1
        mine = [
            c
            for c in chunks
            if c.level == level
            and c.metadata.get("name") == node.name
            and c.metadata["type"] not in ("class_header", "class_code")
        ]
        if owner is not None:
            parents = [c for c in top if c.metadata.get("name") == owner and c.metadata["type"] == "class"]
            if not parents or not any(c.parent == parents[0].index for c in chunks):
                continue  # the class fitted: its methods are inside it, no children
        assert mine, f"no chunk for {node.name}"
        first, last = mine[0], mine[-1]
        assert all(a.end == b.start for a, b in zip(mine, mine[1:])), "the pieces of one def are contiguous"
        def_start = char_offset(text, node.lineno, node.col_offset)
        def_end = char_offset(text, node.end_lineno, node.end_col_offset)
        assert first.start <= def_start and def_end <= last.end
        if node.decorator_list:
            dec = node.decorator_list[0]
            at = text.rindex("@", 0, char_offset(text, dec.lineno, dec.col_offset))
            assert first.start <= at, f"decorator of {node.name} is outside its chunk"
        # comment lines directly above belong to the def
        meta = info.get(node.name, {})
        if meta.get("comments"):
            head = text[first.start : def_start]
            assert head.count("#") >= meta["comments"], f"comments above {node.name} are not in its chunk"
        if len(mine) == 1:
            assert first.metadata.get("split_unit") is None
