"""The ``code`` strategy on tree-sitter: JavaScript, TypeScript/TSX, Go, Rust, Java, C, C++, C#,
Ruby and PHP keep the Python strategy's promises.

Per language, a source of one shape (``support.codesamples``): every function under the limit
is one chunk with its doc comment, the big one is split at statement starts and flagged, a big
class-like definition gets its members as children; spans are exact (a property over generated
sources); a source that does not parse, or whose grammar is not installed, is chunked by text
rules with a note; real files written elsewhere chunk with the same promises.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.codechunks import assert_valid_levels
from support.codesamples import BIG_STATEMENTS, GO, JAVA, RUST, SAMPLES
from support.texts import SETTINGS, examples

from chunkviz import chunk
from chunkviz.core.types import Chunk
from chunkviz.document import Document
from chunkviz.document.code.languages import LANGUAGES, language_for_name
from chunkviz.document.code.outline import Item, parse_outline
from chunkviz.document.read import read_bytes
from chunkviz.splitting.syntax import MAX_LEVEL
from chunkviz.text.spancount import clear_shared_counters
from chunkviz.text.tokenizers import get_tokenizer

REPO = Path(__file__).resolve().parent.parent
LIMIT = 40
#: What may follow the last member of a class-like definition in its chunk: the closing of its owners.
CLOSERS = re.compile(r"(?:\s|[};]|end\b)*")
TOKENIZER = get_tokenizer("cl100k_base")


def needs_grammar(language: str) -> None:
    """Skip when the language's grammar (the code extra) is not installed."""
    pytest.importorskip("tree_sitter")
    pytest.importorskip(LANGUAGES[language].module)


def code_chunks(text: str, language: str, max_tokens: int = LIMIT) -> list[Chunk]:
    document = Document(text, name=f"sample{LANGUAGES[language].extensions[0]}", format=language)
    chunks = chunk(document, "code", max_tokens=max_tokens)
    assert_valid_levels(text, chunks)
    return chunks


def function_span(text: str, name: str) -> tuple[int, int]:
    """From the start of the line of ``Doc of <name>`` to the end of the line of ``end <name>``."""
    doc = text.index(f"Doc of {name.lower()}") if f"Doc of {name.lower()}" in text else text.index(f"Doc of {name}")
    start = text.rindex("\n", 0, doc) + 1
    if text[text.rindex("\n", 0, start - 1) + 1 : start].strip() == "/**":  # a Javadoc opened on the line above
        start = text.rindex("\n", 0, start - 1) + 1
    end = text.index("\n", text.index(f"end {name.lower()}", doc)) + 1
    return start, end


def at_line_boundary(text: str, pos: int) -> bool:
    """A cut after a line break or before one (the recursive splitter keeps a separator with the
    piece after it), or at an end of the text."""
    return pos in (0, len(text)) or text[pos - 1] == "\n" or text[pos] == "\n"


def named(chunks: Sequence[Chunk], name: str) -> list[Chunk]:
    return [c for c in chunks if c.metadata.get("name") == name]


# ============================================================================ per language


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_functions_whole_with_their_doc_comments_and_the_big_one_split_at_statements(language: str) -> None:
    needs_grammar(language)
    extension, text, small = SAMPLES[language]
    chunks = code_chunks(text, language)
    assert all(c.metadata["language"] == language for c in chunks)
    for name in small:
        start, end = function_span(text, name)
        found = named(chunks, name)
        assert len(found) == 1, (name, [(c.metadata["type"], c.text) for c in found])
        piece = found[0]
        body, closers = piece.text.strip(), CLOSERS.fullmatch(piece.text.strip()[len(text[start:end].strip()) :])
        assert body.startswith(text[start:end].strip()) and closers, (
            name,
            piece.text,
        )  # a last member closes its owner
        assert piece.metadata["type"] in ("function", "method")
        assert not piece.metadata.get("split_unit")
        assert TOKENIZER.count(piece.text) <= LIMIT
    big_name = "Big" if language == "csharp" else "big"
    start, end = function_span(text, big_name)
    parts = named(chunks, big_name)
    assert len(parts) >= 2
    assert all(c.metadata["split_unit"] and c.metadata["parts"] == len(parts) for c in parts)
    assert [c.metadata["part"] for c in parts] == list(range(1, len(parts) + 1))
    assert parts[0].text.lstrip().startswith(text[start:end].lstrip().split("\n", 1)[0])  # with its doc comment
    assert text[end - len("end big\n") :] in parts[-1].text or parts[-1].text.rstrip().endswith(
        text[start:end].rstrip()[-10:]
    )
    for a, b in zip(parts, parts[1:]):
        assert a.end == b.start
        line = text[b.start : text.index("\n", b.start)]
        assert re.search(r"tep\(\$?x, ", line), f"{language}: a cut inside big is not at a statement: {line!r}"
    assert max(TOKENIZER.count(c.text) for c in parts) <= LIMIT
    parents = [c for c in chunks if c.metadata.get("over_size_limit") and c.metadata["type"] != "function"]
    assert parents or language in ("go", "c"), "a big class-like definition has no children"
    for parent in parents:
        assert parent.metadata["children"] == sum(1 for c in chunks if c.parent == parent.index)


def test_rust_exactly() -> None:
    needs_grammar("rust")
    chunks = code_chunks(RUST, "rust")
    assert [(c.level, c.metadata["type"], c.metadata["name"], bool(c.metadata.get("split_unit"))) for c in chunks] == [
        (0, "module_code", "<module>", False),
        (0, "function", "alpha", False),
        (0, "module", "outer", False),
        *[(0, "function", "big", True)] * 7,
        (1, "module_header", "outer", False),
        (1, "struct", "Inner", False),
        (1, "impl", "Inner", False),
        (1, "function", "gamma", False),  # a function of a module, not a method
        (2, "impl_header", "Inner", False),
        (2, "method", "beta", False),
        (2, "method", "delta", False),
    ]
    assert (
        chunks[1].text
        == "/// Doc of alpha: one more.\n#[inline]\npub fn alpha(x: i32) -> i32 {\n    x + 1\n} // end alpha\n\n"
    )
    assert chunks[2].metadata["over_size_limit"] and chunks[2].metadata["children"] == 4
    assert [c.parent for c in chunks if c.level == 2] == [12, 12, 12]
    assert chunks[12].text.startswith("    impl Inner {\n")
    assert [c.reason for c in chunks[:4]] == ["unit_end", "unit_end", "unit_end", "size_limit"]
    assert chunks[-1].metadata["qualname"] == "Inner.delta"


def test_go_exactly() -> None:
    needs_grammar("go")
    chunks = code_chunks(GO, "go")
    kinds = [(c.metadata["type"], c.metadata["name"]) for c in chunks]
    assert kinds[:6] == [
        ("module_code", "<module>"),
        ("function", "alpha"),
        ("struct", "Outer"),
        ("method", "beta"),
        ("method", "delta"),
        ("method", "gamma"),
    ]
    assert (
        chunks[2].text
        == "// Outer holds an Inner.\ntype Outer struct {\n\tInner struct {\n\t\tcount int\n\t}\n\tname string\n}\n\n"
    )
    big = chunks[6:]
    assert all(c.metadata["name"] == "big" and c.metadata["split_unit"] for c in big)
    assert [c.metadata["start_line"] for c in big] == [35, 40, 45, 50, 55, 60]
    assert big[-1].text.endswith("\treturn x\n} // end big\n") and big[-1].reason == "end_of_document"
    assert sum(c.text.count("step(") for c in big) == BIG_STATEMENTS


# ============================================================================ generated sources


@dataclass(frozen=True)
class Syntax:
    """How a generated source writes functions and classes in one language (``{name}``, ``{i}``)."""

    function: str
    end: str = "}"
    statement: str = "x = step(x, {i});"
    doc: str = "/** Doc of {name}{extra}. */"
    method: str | None = None  # None: as ``function``
    cls: str | None = "class {name} {{"  # None: no classes
    cls_end: str = "}"
    wrap: tuple[str, str] = ("", "")  # Java, C#, PHP: what everything stands in


SYNTAX: dict[str, Syntax] = {
    "javascript": Syntax("function {name}(x) {{", method="{name}(x) {{"),
    "typescript": Syntax("function {name}(x: number): number {{", method="{name}(x: number): number {{"),
    "tsx": Syntax("function {name}(x: number) {{", method="{name}(x: number) {{"),
    "go": Syntax("func {name}(x int) int {{", statement="x = step(x, {i})", doc="// Doc of {name}{extra}.", cls=None),
    "rust": Syntax("fn {name}(x: i32) -> i32 {{", doc="/// Doc of {name}{extra}.", cls="impl {name} {{"),
    "java": Syntax("static int {name}(int x) {{", cls="static class {name} {{", wrap=("class Main {\n", "}\n")),
    "c": Syntax("int {name}(int x) {{", cls=None),
    "cpp": Syntax("int {name}(int x) {{", cls_end="};"),
    "csharp": Syntax(
        "static int {name}(int x) {{", doc="/// Doc of {name}{extra}.", wrap=("namespace N {\nclass Main {\n", "}\n}\n")
    ),
    "ruby": Syntax(
        "def {name}(x)", "end", "x = step(x, {i})", "# Doc of {name}{extra}.", cls="class {name}", cls_end="end"
    ),
    "php": Syntax(
        "function {name}($x) {{",
        statement="$x = step($x, {i});",
        method="public function {name}($x) {{",
        wrap=("<?php\n", ""),
    ),
}

#: A function: (statements, with a doc comment, what its doc adds, blank lines after it).
FUNCTION = st.tuples(
    st.integers(0, 12), st.booleans(), st.sampled_from(["", " ü", " 日本語", " 🎉 x", ": a, b"]), st.integers(0, 2)
)
#: A top-level item: a function, or a class of functions.
ITEM = st.one_of(
    FUNCTION.map(lambda f: ("function", f)), st.lists(FUNCTION, min_size=1, max_size=4).map(lambda fs: ("class", fs))
)


def render(syntax: Syntax, items: Sequence[tuple[str, object]]) -> tuple[str, dict[str, tuple[int, int]]]:
    """The source and each function's span (its doc comment's line to its last line's end)."""
    out: list[str] = [syntax.wrap[0]]
    spans: dict[str, tuple[int, int]] = {}
    depth = 1 if syntax.wrap[0].startswith(("class", "namespace")) else 0

    def emit(line: str, level: int) -> None:
        out.append("    " * level + line + "\n")

    def function(spec: tuple[int, bool, str, int], level: int, in_class: bool) -> None:
        statements, documented, extra, blanks = spec
        name = f"f{len(spans)}"
        start = sum(map(len, out))
        if documented:
            emit(syntax.doc.format(name=name, extra=extra), level)
        emit(((syntax.method if in_class else None) or syntax.function).format(name=name), level)
        for i in range(statements):
            emit(syntax.statement.format(i=i), level + 1)
        emit(syntax.end, level)
        spans[name] = (start, sum(map(len, out)))
        out.append("\n" * blanks)

    for kind, spec in items:
        if kind == "function" or syntax.cls is None:
            for one in [spec] if kind == "function" else spec:  # type: ignore[attr-defined]
                function(one, depth, False)  # type: ignore[arg-type]
            continue
        emit(syntax.cls.format(name=f"C{len(spans)}"), depth)
        for one in spec:  # type: ignore[attr-defined]
            function(one, depth + 1, True)
        emit(syntax.cls_end, depth)
        out.append("\n")
    out.append(syntax.wrap[1])
    return "".join(out), spans


@settings(max_examples=examples(120), **SETTINGS)
@given(st.sampled_from(sorted(SYNTAX)), st.lists(ITEM, min_size=1, max_size=6), st.integers(24, 300))
def test_generated_sources_keep_every_promise(language: str, items: list[tuple[str, object]], max_tokens: int) -> None:
    """Spans exact, level 0 tiles the file and children tile their parent, no overlap; every cut
    at a line boundary; a function that fits (with a margin for the whitespace and closers that
    follow it) is in one chunk under the limit, unsplit; a function that does not is split."""
    needs_grammar(language)
    text, spans = render(SYNTAX[language], items)
    chunks = code_chunks(text, language, max_tokens)
    assert all(at_line_boundary(text, c.end) for c in chunks), "a cut is inside a line"
    for name, (start, end) in spans.items():
        tokens = TOKENIZER.count(text[start:end])
        whole = [c for c in chunks if c.start <= start and end <= c.end and not c.metadata.get("split_unit")]
        if tokens + 4 <= max_tokens:
            assert any(TOKENIZER.count(c.text) <= max_tokens for c in whole), (name, tokens)
        if tokens > max_tokens:
            assert not any(TOKENIZER.count(c.text) <= max_tokens for c in whole), name
            assert all(c.metadata["split_unit"] for c in named(chunks, name)), name


# ============================================================================ real files


def real_files(*patterns: str) -> list[Path]:
    """Files written elsewhere, found by glob (absolute, or under the repository), a few per pattern."""
    found: list[Path] = []
    for pattern in patterns:
        base = Path("/") if pattern.startswith("/") else REPO
        found.extend(sorted(base.glob(pattern.lstrip("/")))[:4])
    return found


#: language -> where files of it written elsewhere are (the project's own JavaScript, TypeScript
#: declarations of the npm package typescript, Go of git's contrib docs, Rust of the Rust docs)
REAL_FILES: dict[str, tuple[str, ...]] = {
    "javascript": ("chunkviz/ui/*.js",),
    "typescript": ("node_modules/typescript/dist/api/sync/*.d.ts", "node_modules/@typescript/*/lib/lib.es2015.*.d.ts"),
    "go": ("/usr/share/doc/git/contrib/persistent-https/*.go",),
    "rust": (
        f"{Path.home()}/.rustup/toolchains/*/share/doc/rust/html/error_codes/*.rs",
        "/usr/share/cargo/registry/*/src/*.rs",
    ),
}


def definitions(items: Sequence[Item], level: int = 0) -> list[tuple[Item, int]]:
    """The definitions of an outline with their level, down to where the strategy gives children."""
    found: list[tuple[Item, int]] = []
    for item in items:
        if item.kind is not None:
            found.append((item, level))
            if item.container and level < MAX_LEVEL:
                found.extend(definitions(item.parts, level + 1))
    return found


@pytest.mark.parametrize("language", sorted(REAL_FILES))
@pytest.mark.parametrize("max_tokens", [64, 128])
def test_real_files_written_elsewhere_keep_the_promises(language: str, max_tokens: int) -> None:
    needs_grammar(language)
    paths = real_files(*REAL_FILES[language])
    if not paths:
        pytest.skip(f"no {language} files found at {REAL_FILES[language]}")
    checked = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        chunks = chunk(read_bytes(text.encode(), path.name), "code", max_tokens=max_tokens)
        assert_valid_levels(text, chunks)
        assert not any("fallback" in c.metadata for c in chunks), (path, chunks[0].metadata)
        for c in chunks:  # at a line's start or end, unless the line alone is over the limit
            line = text[text.rfind("\n", 0, c.end) + 1 : text.find("\n", c.end) % (len(text) + 1)]
            assert at_line_boundary(text, c.end) or TOKENIZER.count(line) > max_tokens, (path, c.index, line)
        outline, _ = parse_outline(text, language)
        assert outline is not None
        for item, _level in definitions(outline.items):
            whole = [
                c for c in chunks if c.start <= item.start and item.end <= c.end and not c.metadata.get("split_unit")
            ]
            if TOKENIZER.count(text[item.start : item.end]) + 4 <= max_tokens:
                assert any(TOKENIZER.count(c.text) <= max_tokens for c in whole), (path, item.kind, item.name)
                checked += 1
        for c in chunks:
            if TOKENIZER.count(c.text) > max_tokens:
                assert c.metadata.get("over_size_limit") or c.metadata.get("split_unit"), (path, c.index)
    assert checked, "no definition under the limit was checked"


# ============================================================================ language, reading, fallbacks


def test_the_language_comes_from_the_format_the_extension_or_the_parameter() -> None:
    needs_grammar("go")
    source = "package main\n\n// Doc of main.\nfunc main() {\n\tprintln(1)\n}\n"
    read = read_bytes(source.encode(), "cmd/main.go")
    assert read.format == "go" and language_for_name("lib.RS") == "rust"
    assert [(b.kind, b.title) for b in read.structure.blocks] == [("function", "main")]
    assert chunk(read, "code")[-1].metadata["type"] == "function"
    assert chunk(Document(source, name="notes.txt"), "code", code_language="go")[-1].metadata["language"] == "go"
    # a text without a language is Python, as before: this Go does not parse as Python
    assert "syntax error" in chunk(Document(source), "code")[0].metadata["fallback"]


def test_a_code_file_has_its_definitions_as_structure_blocks() -> None:
    """Functions and classes, one level per enclosing class, each from its doc comment."""
    needs_grammar("java")
    document = read_bytes(JAVA.encode(), "Outer.java")
    assert document.format == "java"
    assert [(b.kind, b.level, b.title) for b in document.structure.blocks] == [
        ("class", 1, "Outer"),
        ("function", 2, "alpha"),
        ("class", 2, "Inner"),
        ("function", 3, "beta"),
        ("function", 3, "delta"),
        ("function", 2, "gamma"),
        ("function", 2, "big"),
    ]
    gamma = document.structure.blocks[5]
    assert JAVA[gamma.start : gamma.end].startswith("/**\n     * Doc of gamma") and JAVA[gamma.end - 1] == "a"


def test_a_code_file_has_no_markup() -> None:
    """A Ruby or C comment line is not a Markdown heading: cuts after it are no section boundary."""
    needs_grammar("ruby")
    source = "# Doc of alpha.\ndef alpha\n  1\nend\n\n# Doc of beta.\ndef beta\n  2\nend\n"
    document = read_bytes(source.encode(), "lib.rb")
    assert document.structure.headings == ()
    chunks = chunk(document, "code")
    assert [c.boundary for c in chunks] == ["paragraph", "document_end"]


@pytest.mark.parametrize(
    ("language", "source", "line"),
    [
        ("go", "package main\n\nfunc ok() {}\n\nfunc broken( {\n\treturn\n}\n", 5),
        ("rust", "fn ok() {}\n\nfn broken( -> {\n}\n", 3),
        ("typescript", "function ok(): void {}\nclass {{{\n", 2),
    ],
)
def test_a_source_that_does_not_parse_is_chunked_by_text_rules_with_a_note(
    language: str, source: str, line: int
) -> None:
    needs_grammar(language)
    chunks = code_chunks(source, language, max_tokens=8)
    label = LANGUAGES[language].label
    assert all(c.metadata["fallback"] == f"{label} syntax error at line {line}; chunked by text rules" for c in chunks)
    read = read_bytes(source.encode(), "x" + LANGUAGES[language].extensions[0])
    assert read.notes == (f"{label} syntax error at line {line} (structure not available)",)


def test_deep_nesting_is_bounded() -> None:
    """Classes nested 200 deep: children stop at level 3, the rest is split by lines; deeply
    nested blocks in one function are statements of it."""
    needs_grammar("typescript")
    depth = 200
    source = "".join(f"{'  ' * k}namespace N{k} {{\n" for k in range(depth)) + "let x = 1;\n"
    source += "".join(f"{'  ' * k}}}\n" for k in reversed(range(depth)))
    chunks = code_chunks(source, "typescript", max_tokens=50)
    assert max(c.level for c in chunks) == 3
    blocks = "function f() {\n" + "{" * 5000 + "x();" + "}" * 5000 + "\n}\n"
    assert "".join(c.text for c in code_chunks(blocks, "typescript", max_tokens=50) if c.level == 0) == blocks


def lines_run(text: str, language: str, max_tokens: int) -> int:
    """Line events of chunkviz's own code while chunking ``text`` from a fresh document."""
    count = [0]
    root = str(REPO / "chunkviz")

    def local(frame: Any, event: str, arg: Any) -> Any:
        count[0] += event == "line"
        return local

    def trace(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename.startswith(root) else None

    clear_shared_counters()
    sys.settrace(trace)
    try:
        code_chunks(text, language, max_tokens)
    finally:
        sys.settrace(None)
    return count[0]


#: Sources of ``n`` repeated units: a minified one-line file, many small functions, one function
#: of many statements, deeply nested blocks.
GROWING = {
    "minified": ("javascript", lambda n: "".join(f"var a{k}=f({k});function g{k}(x){{return x}}" for k in range(n))),
    "functions": (
        "go",
        lambda n: "package p\n\n" + "".join(f"// Doc {k}.\nfunc f{k}() int {{\n\treturn {k}\n}}\n\n" for k in range(n)),
    ),
    "statements": ("rust", lambda n: "fn big() {\n" + "".join(f"    step({k});\n" for k in range(n)) + "}\n"),
    "nesting": ("c", lambda n: "int f(void) {\n" + "{" * n + "x();" + "}" * n + "\n}\n"),
}


@pytest.mark.parametrize("case", sorted(GROWING))
def test_the_work_grows_near_linearly(case: str) -> None:
    """No clock: the lines of chunkviz code run grow at most 6 times for 4 times the units."""
    language, make = GROWING[case]
    needs_grammar(language)
    small, large = lines_run(make(100), language, 16), lines_run(make(400), language, 16)
    assert large <= 6 * small, (case, small, large)


def test_non_ascii_source_spans_are_exact() -> None:
    needs_grammar("javascript")
    source = '// Grüße 🌍\nconst s = "日本語";\n\n/** Doc of ü — 🎉. */\nfunction ü() {\n  return "ß";\n}\n'
    chunks = code_chunks(source, "javascript")
    assert [c.text for c in chunks] == ['// Grüße 🌍\nconst s = "日本語";\n\n', source[source.index("/**") :]]
    assert chunks[1].metadata["name"] == "ü"


@pytest.mark.parametrize("language", ["go", "typescript", "ruby", "csharp"])
def test_a_crlf_source_is_chunked_as_its_lf_copy(language: str) -> None:
    needs_grammar(language)
    _, text, _ = SAMPLES[language]
    lf = code_chunks(text, language)
    crlf = code_chunks(text.replace("\n", "\r\n"), language)
    assert [c.text.replace("\r\n", "\n") for c in crlf] == [c.text for c in lf]
    assert [(c.level, c.parent, c.metadata["type"], c.metadata["name"]) for c in crlf] == [
        (c.level, c.parent, c.metadata["type"], c.metadata["name"]) for c in lf
    ]


def test_without_the_code_extra_code_is_chunked_by_text_rules_with_a_note_naming_it() -> None:
    code = """
        import importlib.abc, sys
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0].startswith("tree_sitter"):
                    raise ImportError(f"No module named {name!r}")
        sys.meta_path.insert(0, Block())
        import chunkviz
        from chunkviz.document.read import read_bytes
        document = read_bytes(b"package main\\n\\nfunc main() {\\n}\\n", "main.go")
        chunks = chunkviz.chunk(document, "code")
        assert "".join(c.text for c in chunks) == document.text
        print("NOTE:", chunks[0].metadata["fallback"])
        print("READ:", document.notes)
    """
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=REPO, timeout=240
    )
    assert result.returncode == 0, result.stderr[-3000:]
    note = "chunking Go on its syntax tree needs tree-sitter-go (the code extra): pip install 'chunkviz[code]'"
    assert f"NOTE: {note}; chunked by text rules" in result.stdout
    assert f"READ: {(note + ' (structure not available)',)}" in result.stdout
