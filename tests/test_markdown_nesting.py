"""Deep Markdown nesting (issue 23 item 8): lists, quotes and their mixtures nested hundreds to
thousands deep parse to exact blocks and chunk without a RecursionError (the walk of the parse
tree is iterative)."""

from __future__ import annotations

import pytest

import chunkviz
from chunkviz.document.markdown import markdown_blocks


def indented_list(depth: int) -> str:
    return "".join("  " * level + f"- item {level}\n" for level in range(depth))


def one_line_lists(depth: int) -> str:
    return "- " * depth + "deep\n"


def quotes(depth: int) -> str:
    return "> " * depth + "quoted\n"


def mixed(depth: int) -> str:
    return "".join("> - " if level % 2 else "1. > " for level in range(depth // 2)) + "mixed\n"


@pytest.mark.parametrize("make", [indented_list, one_line_lists, quotes, mixed])
@pytest.mark.parametrize("depth", [600, 1500])
def test_deep_nesting_parses_to_exact_blocks(make, depth: int) -> None:  # noqa: ANN001
    text = make(depth) + "\n# After the nesting\n\nA paragraph.\n"
    blocks = markdown_blocks(text)
    (heading,) = [b for b in blocks if b.kind == "heading"]
    assert text[heading.start : heading.end] == "# After the nesting" and heading.title == "After the nesting"
    assert text[blocks[-1].start : blocks[-1].end] == "A paragraph."
    for block in blocks:
        assert 0 <= block.start < block.end <= len(text) and not text[block.start].isspace()
    assert blocks[0].start == 0  # the outermost container starts the text


@pytest.mark.parametrize("make", [indented_list, quotes])
def test_deep_nesting_chunks_with_exact_spans(make) -> None:  # noqa: ANN001
    text = make(700) + "\n# Title\n\nText here.\n"
    for strategy in ("tables", "headings", "recursive"):
        chunks = chunkviz.chunk(text, strategy, format="markdown")
        assert chunks and all(c.text == text[c.start : c.end] for c in chunks)
