"""Code chunked on its syntax tree (seed 000 §13.5.4), without dropping anything.

The language is ``-p code_language=...``, else the document's format (``go``, ``rust`` ...), else its
file extension, else Python. JavaScript, TypeScript (and TSX), Go, Rust, Java, C, C++, C#, Ruby
and PHP are read on tree-sitter (the ``code`` extra; the outline in
:mod:`chunkviz.document.code.outline`, the pieces in :mod:`chunkviz.splitting.syntax`, with the
same promises as below); without the extra, or when the source does not parse, they are chunked
by text rules with a note. The rest of this docstring is about Python, read on :mod:`ast`.

The seed's ``chunk_python_file`` keeps only functions and classes (and, walking the whole tree,
repeats methods inside their classes); module-level code (imports, constants, ``if __name__ ==
"__main__":`` blocks, comments) is lost. Here the level-0 chunks tile the whole module:

- every top-level function and class is one chunk, from its first decorator (or from the
  comment lines directly above it, with no blank line between) to its last line, plus indented
  comment lines that follow its body;
- the module-level code between them is chunked on its own: consecutive statements (with the
  comment blocks around them) are packed up to ``max_tokens``, a statement that alone is over
  the limit is split with the recursive ``python`` preset;
- a function over ``max_tokens`` is split with the recursive ``python`` preset (without its
  ``class``/``def`` separators, which inside one function only match its own def line and would
  cut its decorators off it); its pieces keep the function's ``type`` and ``name``;
- a class over ``max_tokens`` stays one level-0 chunk (flagged ``over_size_limit``: it is the parent
  context) and gets level-1 children that tile it: the class header (decorators, class line,
  docstring, attributes up to the first method), every method (with its decorators and comments)
  and nested class, and any class-level code after the first method (``class_code``).

Cuts are at line starts; the whitespace between two chunks belongs to the first. Positions come
from :mod:`chunkviz.document.pysource` (the one mapping of syntax-tree positions to character
offsets, shared with the Python reader): lines as Python counts them (``\\n``, ``\\r\\n`` and a
lone ``\\r``), UTF-8 byte columns converted line by line, a decorated def from its ``@``.

Text that does not parse (a syntax error, or not Python at all) is chunked with the recursive
``python`` preset (``chunk_size = max_tokens``, no overlap); every chunk's metadata then says
``fallback: "syntax error at line N: message"``.

Why the syntax tree and not ``document.structure``: the structure knows functions and classes
only as blocks (from the Python reader, and only for documents read as Python); this strategy
needs the statements themselves (decorators, comment lines above a def, statements sharing a
line, class bodies), which only the parser has. Lines are Python's own (``\n``, ``\r\n``,
``\r``), because the syntax tree's line numbers count those and nothing else.

Reasons: ``unit_end`` where a def, a class or a run of module code ends, ``size_limit`` between
the packed or split pieces, ``end_of_document`` at the end. A piece of a split def or statement
is marked ``split_unit``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.code.languages import CODE_LANGUAGE_NAMES, LANGUAGES, language_for_name
from chunkviz.document.code.outline import parse_outline
from chunkviz.document.model import Document, is_blank
from chunkviz.document.pysource import DEFINITIONS, PARSE_ERRORS, PythonSource, parse_module
from chunkviz.splitting import PRESETS, PackPolicy, Piece, RecursiveSplitter, pack_units, to_chunks
from chunkviz.splitting.syntax import CODE_SEPARATORS, SyntaxChunker, TreePiece, ordered_pieces
from chunkviz.splitting.units import split_unit, unit_splitter
from chunkviz.strategies.base import param, register
from chunkviz.text.spancount import SpanCounter, shared_counter
from chunkviz.text.tokenizers import Tokenizer

#: separators for splitting an oversized def: the ``python`` preset without its ``"\nclass "``
#: and ``"\ndef "`` separators, which inside one def's span can only match its own def line
#: and would cut its decorators and comments off it
DEF_SPLIT_SEPARATORS = [s for s in PRESETS["python"] if s not in ("\nclass ", "\ndef ")]


@dataclass(frozen=True)
class CodeParams:
    max_tokens: int = param(
        128,
        "maximum tokens per chunk; larger functions are split, larger classes get method children",
        minimum=1,
        maximum=100_000,
        unit="tokens",
    )
    #: not ``language``: that is chunk()'s and the CLI's natural language (the sentence segmenter)
    code_language: str = param(
        "auto",
        "the source's programming language; auto: the document's format or file extension, else Python",
        choices=("auto", *CODE_LANGUAGE_NAMES),
    )


@dataclass
class Group:
    """Top-level (or class-level) statements that share lines; a def/class is alone in its group."""

    first: int  # first line (of the first decorator for a decorated def/class)
    last: int  # last line of the statements
    nodes: list[ast.stmt]
    indent: int
    ext_last: int = 0  # last line including trailing indented comments
    lead_first: int = 0  # first line including the comment lines directly above (defs only)

    @property
    def node(self) -> ast.stmt | None:
        """The def or class of a group that is one, else None."""
        if len(self.nodes) == 1 and isinstance(self.nodes[0], DEFINITIONS):
            return self.nodes[0]
        return None


@dataclass
class Segment:
    """A run of lines that becomes one chunk (a def/class) or packed chunks (code)."""

    first: int
    last: int  # inclusive, may end with blank lines
    node: ast.stmt | None
    groups: list[Group] = field(default_factory=list)


def _groups(
    source: PythonSource, statements: Sequence[ast.stmt], region_first: int, region_last: int, top_bound: int
) -> list[Group]:
    groups: list[Group] = []
    for node in statements:
        first = source.line_of(source.node_start(node))
        last = max(node.end_lineno or node.lineno, first)
        if groups and first <= groups[-1].last:
            groups[-1].last = max(groups[-1].last, last)
            groups[-1].nodes.append(node)
            continue
        groups.append(Group(first, last, [node], source.indent(node.lineno)))
    # trailing comment lines indented deeper than the statement belong to it (e.g. a commented-out
    # last line of a function body); blank lines between them too
    for k, group in enumerate(groups):
        limit = groups[k + 1].first - 1 if k + 1 < len(groups) else region_last
        group.ext_last = group.last
        line = group.last + 1
        while line <= limit:
            if source.is_blank(line):
                line += 1
                continue
            if source.is_comment(line) and source.indent(line) > group.indent:
                group.ext_last = line
                line += 1
                continue
            break
    # comment lines directly above a def/class (no blank line between) belong to it
    for k, group in enumerate(groups):
        group.lead_first = group.first
        if group.node is None:
            continue
        bound = max(groups[k - 1].ext_last if k else top_bound, region_first - 1)
        line = group.first - 1
        while line > bound and source.is_comment(line):
            group.lead_first = line
            line -= 1
    return groups


def _segments(source: PythonSource, groups: list[Group], region_first: int, region_last: int) -> list[Segment]:
    """Tile the lines [region_first, region_last] into def/class segments and code segments."""
    label: dict[int, Any] = {}
    for k, group in enumerate(groups):
        if group.node is not None:
            for line in range(group.lead_first, group.ext_last + 1):
                label[line] = k
    segments: list[Segment] = []
    code_groups = {g.first: g for g in groups if g.node is None}
    current: Any = None
    for line in range(region_first, region_last + 1):
        if line in label:
            kind = label[line]
        elif source.is_blank(line):
            continue
        else:
            kind = "code"
        if not segments or kind != current:
            node = groups[kind].node if kind != "code" else None
            segments.append(Segment(line, line, node))
            current = kind
        if kind == "code" and line in code_groups:
            segments[-1].groups.append(code_groups[line])
    if not segments:
        return []
    segments[0].first = region_first
    for a, b in zip(segments, segments[1:]):
        a.last = b.first - 1
    segments[-1].last = region_last
    return segments


def _unit_starts(source: PythonSource, segment: Segment) -> list[int]:
    """Lines where the packing units of a code segment start: each statement group (with the
    free comment lines directly above it) and each comment block after a blank line."""
    by_first = {g.first: g for g in segment.groups}
    starts: list[int] = []
    previous = "blank"
    line = segment.first
    while line <= segment.last:
        group = by_first.get(line)
        if group is not None:
            if previous != "free":
                starts.append(line)
            line = max(group.ext_last, line) + 1
            previous = "group"
            continue
        if source.is_blank(line):
            previous = "blank"
        else:
            if previous != "free":
                starts.append(line)
            previous = "free"
        line += 1
    return starts


class CodeChunker:
    def __init__(self, text: str, tokenizer: Tokenizer, max_tokens: int) -> None:
        self.text = text
        self.source = PythonSource(text)
        self.counter: SpanCounter = shared_counter(text, tokenizer)
        self.max_tokens = max_tokens
        self.splitter: RecursiveSplitter = unit_splitter(text, self.counter, max_tokens, DEF_SPLIT_SEPARATORS)
        self.pieces: list[TreePiece] = []

    def _add(
        self, start: int, end: int, reason: Reason, level: int, metadata: dict[str, Any], parent_key: int | None
    ) -> None:
        self.pieces.append(TreePiece(Piece(start, end, reason, level=level, metadata=metadata), parent_key))

    def _meta(self, start: int, end: int, kind: str, name: str | None, **extra: Any) -> dict[str, Any]:
        first, last = self.source.content_lines(start, end)
        metadata: dict[str, Any] = {"type": kind, "name": name, "start_line": first, "end_line": last}
        metadata.update(extra)
        return metadata

    # ---- regions -------------------------------------------------------------------------
    def chunk_module(self, tree: ast.Module) -> None:
        source = self.source
        groups = _groups(source, tree.body, 1, source.n_lines, 0)
        self._region(_segments(source, groups, 1, source.n_lines), 0, len(self.text), 0, None, None)

    def _segment_span(
        self, segment: Segment, region_start: int, region_end: int, is_first: bool, is_last: bool
    ) -> tuple[int, int]:
        start = region_start if is_first else self.source.line_start(segment.first)
        end = region_end if is_last else self.source.line_start(segment.last + 1)
        return start, end

    def _region(
        self,
        segments: list[Segment],
        region_start: int,
        region_end: int,
        level: int,
        owner: ast.ClassDef | None,
        parent_key: int | None,
    ) -> None:
        seen_def = False
        for k, segment in enumerate(segments):
            start, end = self._segment_span(segment, region_start, region_end, k == 0, k == len(segments) - 1)
            if segment.node is not None:
                self._def(segment.node, start, end, level, owner, parent_key)
                seen_def = True
            else:
                if owner is None:
                    kind, name = "module_code", "<module>"
                else:
                    kind, name = ("class_code" if seen_def else "class_header"), owner.name
                self._code(segment, start, end, level, kind, name, parent_key)

    # ---- chunks ----------------------------------------------------------------------------
    def _code(
        self, segment: Segment, start: int, end: int, level: int, kind: str, name: str | None, parent_key: int | None
    ) -> None:
        source = self.source
        cuts = [start]
        for line in _unit_starts(source, segment):
            pos = source.line_start(line)
            if cuts[-1] < pos < end:
                cuts.append(pos)
        cuts.append(end)
        policy = PackPolicy(self.max_tokens, min_tokens=None, split_separators=tuple(PRESETS["python"]))
        for piece in pack_units(self.text, cuts, self.counter, policy):
            metadata = self._meta(piece.start, piece.end, kind, name)
            self.pieces.append(TreePiece(replace(piece, level=level, metadata=metadata), parent_key))

    def _def(
        self, node: ast.stmt, start: int, end: int, level: int, owner: ast.ClassDef | None, parent_key: int | None
    ) -> None:
        name = node.name  # type: ignore[attr-defined]  # only FunctionDef, AsyncFunctionDef and ClassDef reach here
        if owner is not None and not isinstance(node, ast.ClassDef):
            kind = "method"
        elif isinstance(node, ast.ClassDef):
            kind = "class"
        elif isinstance(node, ast.AsyncFunctionDef):
            kind = "async_function"
        else:
            kind = "function"
        extra: dict[str, Any] = {}
        if owner is not None:
            extra["qualname"] = f"{owner.name}.{name}"
            if isinstance(node, ast.AsyncFunctionDef):
                extra["async"] = True
        tokens = self.counter.count(start, end)
        if tokens <= self.max_tokens:
            self._add(start, end, Reason.UNIT_END, level, self._meta(start, end, kind, name, **extra), parent_key)
            return
        if isinstance(node, ast.ClassDef) and level == 0:
            self._class_with_children(node, start, end, extra)
            return
        self._split(start, end, level, kind, name, extra, parent_key)

    def _split(
        self, start: int, end: int, level: int, kind: str, name: str, extra: dict[str, Any], parent_key: int | None
    ) -> None:
        """An oversized function (or method, nested class) cut with the recursive python preset."""
        pieces = split_unit(self.splitter, start, end, Reason.UNIT_END)
        for k, piece in enumerate(pieces):
            metadata = self._meta(piece.start, piece.end, kind, name, **extra, part=k + 1, parts=len(pieces))
            self.pieces.append(TreePiece(replace(piece, level=level, metadata=metadata), parent_key))

    def _class_with_children(self, node: ast.ClassDef, start: int, end: int, extra: dict[str, Any]) -> None:
        source = self.source
        note = "over max_tokens: kept whole as the parent context; its level-1 children are the header and the methods"
        metadata = self._meta(start, end, "class", node.name, **extra, **{Meta.OVER_SIZE_LIMIT: True, Meta.NOTE: note})
        parent = TreePiece(Piece(start, end, Reason.UNIT_END, metadata=metadata), key=start)
        self.pieces.append(parent)
        first_line = source.line_of(start)
        last_line = source.line_of(end - 1) if end > start else first_line
        groups = _groups(source, node.body, first_line, last_line, node.lineno)
        segments = _segments(source, groups, first_line, last_line)
        before = len(self.pieces)
        self._region(segments, start, end, 1, node, start)
        metadata["children"] = len(self.pieces) - before


def _syntax_error_note(exc: BaseException) -> str:
    line = getattr(exc, "lineno", None)
    message = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
    return f"syntax error at line {line if line is not None else '?'}: {message}"


def _fallback(
    document: Document, counter: SpanCounter, max_tokens: int, note: str, separators: Sequence[str] = PRESETS["python"]
) -> list[Chunk]:
    """The text rules: the recursive splitter with ``separators``, every chunk noting why."""
    splitter = unit_splitter(document.text, counter, max_tokens, separators)
    return to_chunks(document, [p.with_metadata(fallback=note) for p in splitter.split_span(0, len(document.text))])


def parse_python(text: str) -> tuple[ast.Module | None, str | None]:
    """The module's syntax tree, or None and a note saying why it does not parse."""
    try:
        return parse_module(text), None
    except PARSE_ERRORS as exc:
        return None, _syntax_error_note(exc)


def resolve_code_language(given: str, document: Document) -> str:
    """The language to read: ``given`` unless ``auto``, else the document's format when it is a
    language, else its name's extension, else Python (the strategy's language before others)."""
    if given != "auto":
        return given
    if document.format in CODE_LANGUAGE_NAMES:
        return document.format
    return language_for_name(document.name) or "python"


def _syntax_chunks(document: Document, language: str, tokenizer: Tokenizer, max_tokens: int) -> list[Chunk]:
    """A source in a tree-sitter language on its outline; by text rules, with a note, when its
    grammar is missing or it does not parse."""
    text = document.text
    counter = shared_counter(text, tokenizer)
    outline, note = parse_outline(text, language)
    if outline is None:
        return _fallback(document, counter, max_tokens, f"{note}; chunked by text rules", CODE_SEPARATORS)
    return to_chunks(document, SyntaxChunker(text, counter, max_tokens, language).chunk(outline))


@register(
    "code",
    "Code on its syntax tree (Python on ast; JavaScript, TypeScript, Go, Rust, Java, C, C++, C#, Ruby and PHP on tree-sitter, the code extra): functions and classes with their doc comments, decorators and attributes, module-level code kept in chunks of its own; big classes get method children.",
    CodeParams,
)
def code(document: Document, params: CodeParams, tokenizer: Tokenizer) -> list[Chunk]:
    text = document.text
    if is_blank(text):
        return []
    language = resolve_code_language(params.code_language, document)
    if language in LANGUAGES:
        return _syntax_chunks(document, language, tokenizer, params.max_tokens)
    tree, note = parse_python(text)
    if tree is None:
        return _fallback(document, shared_counter(text, tokenizer), params.max_tokens, note or "syntax error")
    chunker = CodeChunker(text, tokenizer, params.max_tokens)
    chunker.chunk_module(tree)
    return to_chunks(document, ordered_pieces(chunker.pieces))
