"""Markdown blocks as exact spans, parsed by markdown-it-pyrs (CommonMark plus pipe tables).

markdown-it-pyrs is the Rust port of markdown-it with Python bindings: every node of its syntax
tree carries its source range (``srcmap``, in UTF-8 bytes), which is mapped back to character
offsets of the original text. It parses a 3 MB document in about 60 ms, against about a second
for the pure-Python markdown-it-py, so that knowing where the headings are costs a fraction of
tokenizing the document (see ``bench/bench_engine.py``).

Only the block rules run (see :data:`BLOCK_RULES`), and the native parser runs in one place,
:func:`_tree`, which turns a panic of it into :class:`MarkdownParserFailed`: the structure then
reads the text as plain text and says so in a note (``Structure.notes``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterator

from markdown_it_pyrs import MarkdownIt

if TYPE_CHECKING:  # the stub's names of the parser's plugins (a Literal)
    from markdown_it_pyrs.markdown_it_pyrs import _PLUGIN_NAME

from chunkviz.document.blocks import Block

_CONTAINERS = ("bullet_list", "ordered_list", "list_item", "blockquote")
_HEADINGS = frozenset({"heading", "lheading"})
_BLOCK_NODES = frozenset(
    {"heading", "lheading", "table", "fence", "code_block", "paragraph", "html_block", "list_item", "blockquote"}
)
_KINDS = {
    "fence": "code",
    "code_block": "code",
    "table": "table",
    "list_item": "list_item",
    "blockquote": "blockquote",
    "paragraph": "paragraph",
    "html_block": "paragraph",
}


#: CommonMark's block rules and pipe tables. The inline rules (code spans, emphasis, links ...)
#: are left out: CommonMark finds the blocks before their inline content, so blocks and their
#: spans are the same without them (``tests/test_markdown_fuzz.py`` compares both parses), a
#: heading's content is then one text node from its first to its last character (its title), the
#: parse takes about half the time, and markdown-it-pyrs 0.4.0 panics in its code span rule on
#: ordinary prose (``x [` ` `\n``: an index out of bounds).
BLOCK_RULES: tuple["_PLUGIN_NAME", ...] = (
    "blockquote",
    "code",
    "fence",
    "heading",
    "hr",
    "lheading",
    "list",
    "paragraph",
    "reference",
    "html_block",
    "table",
)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("zero").enable_many(list(BLOCK_RULES))


class MarkdownParserFailed(Exception):
    """The Markdown parser failed on a text; the message is the note the user sees."""


def is_native_panic(exc: BaseException) -> bool:
    """Whether ``exc`` is a Rust panic raised into Python by pyo3: ``pyo3_runtime.PanicException``,
    which derives from BaseException (``except Exception`` misses it) and which no importable
    module exports, so it is known by its type's module and name."""
    kind = type(exc)
    return kind.__module__ == "pyo3_runtime" and kind.__name__ == "PanicException"


def _tree(safe: str) -> Any:
    """The parse tree of ``safe``: the one place where the native parser runs. Its panic becomes
    :class:`MarkdownParserFailed`; anything else (KeyboardInterrupt, MemoryError) goes on.

    The panic's message and, with ``RUST_BACKTRACE`` set, its backtrace are written to the
    process's standard error by Rust's panic hook before Python sees the exception; Python cannot
    silence that without redirecting file descriptor 2 for every thread of the process."""
    try:
        return _parser().tree(safe)
    except BaseException as exc:
        if not is_native_panic(exc):
            raise
        reason = str(exc).splitlines()[0][:200] if str(exc) else "a panic"
        raise MarkdownParserFailed(
            f"the Markdown parser (markdown-it-pyrs) failed on this text ({reason}): it is read as plain "
            "text, so no headings, tables, lists or code blocks are known to the strategies"
        ) from None


def _parseable(text: str) -> str:
    """The text as the parser may read it: lone surrogates, which are not UTF-8, become U+FFFD
    (one character for one, so character offsets stay)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def _char_map(safe: str, byte_offsets: list[int]) -> Callable[[int], int]:
    """A map from the given UTF-8 byte offsets of ``safe`` (at character boundaries) to character
    offsets, by decoding the stretches between them once (linear in the text, in C)."""
    if safe.isascii():
        return lambda offset: min(offset, len(safe))
    data = safe.encode("utf-8")
    chars: dict[int, int] = {}
    pos = chars_so_far = 0
    for offset in sorted(set(min(o, len(data)) for o in byte_offsets)):
        chars_so_far += len(data[pos:offset].decode("utf-8", "replace"))
        chars[offset] = chars_so_far
        pos = offset
    return lambda offset: chars[min(offset, len(data))]


def markdown_blocks(text: str, headings_only: bool = False) -> list[Block]:
    """Headings, code, tables, list items, quotes and paragraphs, in document order.

    Nested blocks (a paragraph inside a list item or a quote) are not repeated: only the
    outermost container is a block, except headings, code and tables, which are always kept.
    ``headings_only`` gives just the headings (the same ones) without visiting the rest.
    Raises :class:`MarkdownParserFailed` when the parser fails on the text.
    """
    safe = _parseable(text)
    wanted = _HEADINGS if headings_only else _BLOCK_NODES
    nodes = [(node, name, node.srcmap, depth) for node, name, depth in _walk(_tree(safe)) if name in wanted]
    nodes = [item for item in nodes if item[2] is not None]
    offsets = [o for _, _, srcmap, _ in nodes for o in srcmap]
    offsets += [
        o
        for node, name, _, _ in nodes
        if name in ("heading", "lheading")
        for child in node.children
        if child.srcmap
        for o in child.srcmap
    ]
    char = _char_map(safe, offsets)
    blocks: list[Block] = []
    for node, name, srcmap, depth in nodes:
        span = _span(text, char(srcmap[0]), char(srcmap[1]))
        if span is None:
            continue
        start, end = span
        if name in ("heading", "lheading"):
            blocks.append(Block("heading", start, end, int(node.meta["level"]), _title(text, node, char)))
        elif name == "table":
            blocks.append(Block("table", start, end, rows=_line_spans(text, start, end)))
        elif depth == 0 or _KINDS[name] == "code":
            blocks.append(Block(_KINDS[name], start, end))
    return blocks


def _walk(root: Any) -> Iterator[tuple[Any, str, int]]:
    """Every block node below ``root`` in document order: (node, name, number of containers
    around it). Inline nodes are not visited. Iterative (a stack of child iterators), so any
    nesting depth the parser gives is walked (recursion failed near 500 nested list items)."""
    stack: list[tuple[Iterator[Any], int]] = [(iter(root.children), 0)]
    while stack:
        children, depth = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            continue
        name = child.name
        yield child, name, depth
        if name in _CONTAINERS:
            stack.append((iter(child.children), depth + (name not in ("bullet_list", "ordered_list"))))


def _title(text: str, node: Any, char: Callable[[int], int]) -> str:
    """A heading's inline source (emphasis markers kept), its lines joined by spaces."""
    mapped = [child.srcmap for child in node.children if child.srcmap is not None]
    if not mapped:
        return ""
    raw = text[char(mapped[0][0]) : min(char(mapped[-1][1]), char(node.srcmap[1]))]
    return " ".join(line.strip() for line in raw.splitlines() if line.strip())


def _line_spans(text: str, start: int, end: int) -> tuple[tuple[int, int], ...]:
    """(start, end) of every line of ``text[start:end]``, line breaks excluded."""
    spans = []
    pos = start
    for line in text[start:end].splitlines(keepends=True):
        spans.append((pos, pos + len(line.rstrip("\r\n"))))
        pos += len(line)
    return tuple(spans)


def _span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """From the first non-space character (or the start of its line, when only indentation
    precedes it there) to the last non-space character."""
    first = start
    while first < end and text[first].isspace():
        first += 1
    while end > first and text[end - 1].isspace():
        end -= 1
    if end <= first:
        return None
    newline = text.rfind("\n", 0, first)
    line_start = max(newline, text.rfind("\r", newline + 1, first)) + 1  # bounded: never scans the whole prefix
    if not text[line_start:first].strip():
        first = line_start
    return first, end
