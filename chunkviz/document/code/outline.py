"""A source file's outline on its tree-sitter syntax tree: definitions and statements as spans.

:func:`parse_outline` parses a source with its language's grammar (from the ``code`` extra) and
returns the :class:`Item` s of its top level, each with the items of its body (a class's
members, a function's statements) down to :data:`MAX_DEPTH` levels. An item runs from the
first of the comments and attributes directly above it (no blank line between: doc comments,
Rust's ``#[derive]``) to its last character, plus a comment that ends its last line. Items are
in source order and do not overlap; the whitespace and punctuation between them belong to no
item. A source the parser has to recover from (an ``ERROR`` or a missing node) has no outline,
and neither has one whose grammar is not installed: the caller chunks it by text rules, with the
note returned here.

Positions: tree-sitter counts UTF-8 bytes; :class:`_Offsets` converts them to character
offsets exactly (a table of each character's byte offset, built only for non-ASCII text).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from chunkviz.core.cache import BoundedLRU, text_key
from chunkviz.core.deadline import check_time, check_time_now
from chunkviz.core.errors import missing_extra
from chunkviz.document.blocks import Block
from chunkviz.document.code.languages import CODE_EXTRA, LANGUAGES, CodeLanguage
from chunkviz.document.model import Document
from chunkviz.document.pysource import PythonSource

#: How many levels of bodies are read (a class's members are level 1, their statements level 2).
MAX_DEPTH = 8
#: How many wrappers deep a definition is looked for (``export const f = () => ...``: 3).
MAX_WRAPPING = 3
#: Longest name kept for an item (a C++ operator or a Rust impl can be long).
MAX_NAME_CHARS = 80
#: Kinds of definitions that are blocks of kind ``function`` in the structure (others: ``class``).
FUNCTION_KINDS = frozenset({"function", "method", "constructor", "property", "macro"})


@dataclass(frozen=True)
class Item:
    """A definition (``kind`` set) or another statement of a body, as a span of the text."""

    start: int
    end: int
    kind: str | None = None  # function, method, class, struct, impl, ... (None: other code)
    name: str | None = None
    container: bool = False  # a class-like definition: its parts are members
    parts: tuple["Item", ...] = ()  # the items of its body (members or statements)
    node_type: str = ""


@dataclass(frozen=True)
class Outline:
    """The top-level items of a source in one language."""

    language: CodeLanguage
    items: tuple[Item, ...]


@lru_cache(maxsize=None)
def grammar(name: str) -> Any | None:
    """The tree-sitter ``Language`` of ``name`` (a key of :data:`LANGUAGES`), None when the
    ``code`` extra (tree-sitter and the language's grammar package) is not installed."""
    entry = LANGUAGES[name]
    try:
        from tree_sitter import Language

        module = importlib.import_module(entry.module)
    except ImportError:
        return None
    return Language(getattr(module, entry.function)())


def missing_grammar_note(entry: CodeLanguage) -> str:
    """Why a source has no outline when its grammar is not installed."""
    what = f"chunking {entry.label} on its syntax tree"
    return missing_extra(what, CODE_EXTRA, entry.package)


#: The last 4 outlines made (the reader's and then the strategy's parse of one file is one parse).
_OUTLINES: BoundedLRU[tuple[tuple[int, str], str], tuple[str, Outline | None, str | None]] = BoundedLRU(max_entries=4)


def parse_outline(text: str, language: str) -> tuple[Outline | None, str | None]:
    """The outline of ``text`` in ``language``, or None and a note saying why there is none (no
    grammar installed, or a syntax error and where); the last few are remembered."""
    key = (text_key(text), language)
    found = _OUTLINES.get(key)
    if found is not None and found[0] == text:
        return found[1], found[2]
    outline, note = _parse_outline(text, language)
    _OUTLINES.put(key, (text, outline, note))
    return outline, note


def clear_outline_cache() -> None:
    """Forget the remembered outlines (benchmarks measure from cold caches)."""
    _OUTLINES.clear()


def _parse_outline(text: str, language: str) -> tuple[Outline | None, str | None]:
    entry = LANGUAGES[language]
    found = grammar(language)
    if found is None:
        return None, missing_grammar_note(entry)
    from tree_sitter import Parser

    data = text.encode("utf-8", "surrogatepass")
    tree = Parser(found).parse(data)
    check_time_now()
    offsets = _Offsets(text, data)
    lines = PythonSource(text)
    root = tree.root_node
    if root.has_error:
        line = lines.line_of(offsets.char(_first_error(root).start_byte))
        return None, f"{entry.label} syntax error at line {line}"
    reader = _Reader(entry, data, offsets, lines)
    return Outline(entry, tuple(reader.items(root.named_children, 0))), None


def code_document(document: Document, language: str) -> Document:
    """A decoded source read as ``language`` (its format) with its definitions as extra blocks;
    without an outline (no grammar, a syntax error) it keeps no blocks and gets a note why."""
    outline, note = parse_outline(document.text, language)
    blocks = outline_blocks(outline) if outline is not None else []
    notes = document.notes + ((f"{note} (structure not available)",) if note else ())
    return replace(document, format=language, notes=notes, extra_blocks=tuple(blocks))


def outline_blocks(outline: Outline) -> list[Block]:
    """``function`` and ``class`` blocks of the definitions: the top level and the members of
    class-like definitions (one level per enclosing definition), not nested functions."""
    blocks: list[Block] = []
    _collect_blocks(outline.items, 1, blocks)
    return sorted(blocks, key=lambda b: (b.start, -b.end))


def _collect_blocks(items: Sequence[Item], level: int, blocks: list[Block]) -> None:
    for item in items:
        if item.kind is None:
            continue
        kind = "function" if item.kind in FUNCTION_KINDS else "class"
        blocks.append(Block(kind, item.start, item.end, min(level, 6), item.name or ""))
        if item.container:
            _collect_blocks(item.parts, level + 1, blocks)


def _first_error(root: Any) -> Any:
    """The first ``ERROR`` or missing node in source order (looked for without recursion)."""
    node = root
    while True:
        check_time()
        if node.is_error or node.is_missing:
            return node
        inner = next((child for child in node.children if child.has_error or child.is_missing), None)
        if inner is None:
            return node
        node = inner


class _Offsets:
    """UTF-8 byte offsets to character offsets (identity for ASCII text)."""

    def __init__(self, text: str, data: bytes) -> None:
        self.table: np.ndarray | None = None
        if len(data) != len(text):
            codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            widths = 1 + (codes >= 0x80).astype(np.int64) + (codes >= 0x800) + (codes >= 0x10000)
            self.table = np.concatenate(([0], np.cumsum(widths)))

    def char(self, byte: int) -> int:
        if self.table is None:
            return byte
        return int(np.searchsorted(self.table, byte))


class _Reader:
    """Builds the items of bodies (see the module docstring)."""

    def __init__(self, language: CodeLanguage, data: bytes, offsets: _Offsets, lines: PythonSource) -> None:
        self.language = language
        self.data = data
        self.offsets = offsets
        self.lines = lines
        self.text = lines.text

    def span(self, node: Any) -> tuple[int, int]:
        return self.offsets.char(node.start_byte), self.offsets.char(node.end_byte)

    def last_line(self, start: int, end: int) -> int:
        """The line of the last non-space character of ``[start, end)``."""
        last = start + len(self.text[start:end].rstrip()) - 1
        return self.lines.line_of(max(last, start))

    def flatten(self, nodes: Sequence[Any]) -> list[Any]:
        """``nodes`` with the transparent lists among them replaced by their named children."""
        flat: list[Any] = []
        for node in nodes:
            if node.type in self.language.transparent:
                flat.extend(node.named_children)
            else:
                flat.append(node)
        return flat

    def items(self, nodes: Sequence[Any], depth: int) -> list[Item]:
        """The items of a body whose named children are ``nodes``."""
        flat = self.flatten(nodes)
        spans = [self.span(node) for node in flat]
        items: list[Item] = []
        lead: int | None = None  # start of the leading comments waiting for their definition
        for k, node in enumerate(flat):
            check_time()
            start, end = spans[k]
            leading = node.type in self.language.leading
            if (
                leading
                and lead is None
                and items
                and self.lines.line_of(start) == self.last_line(items[-1].start, items[-1].end)
            ):
                items[-1] = replace(items[-1], end=end)  # a comment after the code on its last line
                continue
            if leading and k + 1 < len(flat) and self.lines.line_of(spans[k + 1][0]) <= self.last_line(start, end) + 1:
                lead = start if lead is None else lead
                continue
            items.append(self.item(node, start if lead is None else lead, end, depth))
            lead = None
        return items

    def item(self, node: Any, start: int, end: int, depth: int) -> Item:
        kind, name, inner = self.definition(node, 0)
        if inner is None:
            return Item(start, end, node_type=node.type)
        parts = tuple(self.items(self.body_nodes(inner), depth + 1)) if depth < MAX_DEPTH else ()
        container = inner.type in self.language.containers
        return Item(start, end, kind, name, container, parts, inner.type)

    def definition(self, node: Any, wrapped: int) -> tuple[str | None, str | None, Any | None]:
        """(kind, name, definition node) of a definition or of a wrapper around one, else Nones."""
        language = self.language
        if node.type in language.definitions:
            return self.kind_of(node), self.name_of(node), node
        if node.type in language.wrappers and wrapped < MAX_WRAPPING:
            for child in node.named_children:
                kind, name, inner = self.definition(child, wrapped + 1)
                if inner is not None:
                    return kind, name or self.name_of(node), inner
        return None, None, None

    def kind_of(self, node: Any) -> str:
        refine = self.language.refine.get(node.type)
        if refine:
            for child in node.named_children:
                for inner in (child, *child.named_children):
                    if inner.type in refine:
                        return refine[inner.type]
        return self.language.definitions[node.type]

    def name_of(self, node: Any) -> str | None:
        """The name of a definition: its ``name`` field, else the innermost of its declarators
        (C), else its type (a Rust ``impl``, with ``Trait for`` before it), else the name of a
        child (a Go ``type_spec``)."""
        found = node.child_by_field_name("name") or node.child_by_field_name("property")
        if found is None and node.child_by_field_name("declarator") is not None:
            found = node
            for _ in range(MAX_WRAPPING * 3):
                inner = found.child_by_field_name("declarator")
                if inner is None:
                    break
                found = inner
        if found is None and node.child_by_field_name("type") is not None:
            trait = node.child_by_field_name("trait")
            target = self.node_text(node.child_by_field_name("type"))
            return f"{self.node_text(trait)} for {target}" if trait is not None else target
        if found is None:
            found = next(
                (c.child_by_field_name("name") for c in node.named_children if c.child_by_field_name("name")), None
            )
        return self.node_text(found) if found is not None else None

    def node_text(self, node: Any) -> str:
        raw = self.data[node.start_byte : node.end_byte][: MAX_NAME_CHARS * 4]
        return " ".join(raw.decode("utf-8", "replace").split())[:MAX_NAME_CHARS]

    def body_nodes(self, node: Any) -> list[Any]:
        """The named children of a definition's body, after the comments that stand between its
        header and its body (Ruby puts a first method's comment there)."""
        body = node.child_by_field_name("body")
        if body is None:
            return []
        before: list[Any] = []
        for child in node.named_children:
            if child.start_byte >= body.start_byte:
                break
            before = [*before, child] if child.type in self.language.leading else []
        return [*before, *body.named_children]


__all__ = [
    "FUNCTION_KINDS",
    "clear_outline_cache",
    "code_document",
    "Item",
    "MAX_DEPTH",
    "Outline",
    "grammar",
    "outline_blocks",
    "parse_outline",
]
