"""The reStructuredText line scanner: every block kind with its exact span, level and title."""

from __future__ import annotations

import pytest
from support.paths import REALDOCS, read_realdoc

from chunkviz.document.rst import detect_markup, rst_blocks

Row = tuple[str, str, int, str]


def blocks(text: str) -> list[Row]:
    """(kind, exact text of the span, level, title) of every block."""
    return [(b.kind, text[b.start : b.end], b.level, b.title) for b in rst_blocks(text)]


def test_no_text_no_blocks() -> None:
    assert blocks("") == [] and blocks("\n  \n\t\n") == []


def test_title_levels_follow_the_order_adornment_styles_first_appear() -> None:
    text = (
        "=======\n Title\n=======\n\n"  # overline + underline: its own style ("over=")
        "Intro text.\n\n"
        "Chapter\n*******\n\n"
        "Section\n=======\n\n"  # underline only: another style than the overlined "="
        "Sub\n---\n\n"
        "Deeper\n^^^^^^\n\n"
        "Next chapter\n************\n"  # back to the second style
    )
    assert blocks(text) == [
        ("heading", "=======\n Title\n=======", 1, "Title"),
        ("paragraph", "Intro text.", 0, ""),
        ("heading", "Chapter\n*******", 2, "Chapter"),
        ("heading", "Section\n=======", 3, "Section"),
        ("heading", "Sub\n---", 4, "Sub"),
        ("heading", "Deeper\n^^^^^^", 5, "Deeper"),
        ("heading", "Next chapter\n************", 2, "Next chapter"),
    ]


def test_levels_start_with_the_first_style_used_and_stop_at_six() -> None:
    text = "A\n~~~\n\nB\n===\n\nC\n^^^\n\nD\n---\n\nE\n***\n\nF\n+++\n\nG\n###\n\nH\n~~~\n"
    assert [(title, level) for kind, _, level, title in blocks(text)] == [
        ("A", 1),
        ("B", 2),
        ("C", 3),
        ("D", 4),
        ("E", 5),
        ("F", 6),
        ("G", 6),
        ("H", 1),
    ]


def test_overline_needs_a_matching_underline() -> None:
    assert blocks("#####\nParts\n#####\n") == [("heading", "#####\nParts\n#####", 1, "Parts")]
    # no underline line at all: the adornment and the title are one paragraph
    assert blocks("=====\nTitle\n") == [("paragraph", "=====\nTitle", 0, "")]


def test_underline_shorter_than_its_title() -> None:
    # "=" and "-" underlines make a title at any length; other styles must be as long as the title
    assert blocks("Long title\n===\n") == [("heading", "Long title\n===", 1, "Long title")]
    assert blocks("Long title\n^^^\n") == [("paragraph", "Long title\n^^^", 0, "")]


def test_equals_or_dash_line_under_several_lines_makes_them_one_title() -> None:
    # the Markdown-style rule the scanner keeps: "=" is level 1 and "-" level 2 here, whatever
    # levels the adornment styles have
    text = "First\n*****\n\nTwo lines\nof title\n--------\n"
    assert blocks(text) == [
        ("heading", "First\n*****", 1, "First"),
        ("heading", "Two lines\nof title\n--------", 2, "Two lines of title"),
    ]


def test_literal_blocks_after_double_colon() -> None:
    text = "Example::\n\n    code line 1\n\n    code line 2\n\nAfter.\n"
    assert blocks(text) == [
        ("code", "Example::\n\n    code line 1\n\n    code line 2", 0, ""),
        ("paragraph", "After.", 0, ""),
    ]
    # "::" alone; and a "::" line with nothing indented after it stays a paragraph
    text = "::\n\n   literal\n\nText::\nNext line\n"
    assert blocks(text) == [("code", "::\n\n   literal", 0, ""), ("paragraph", "Text::\nNext line", 0, "")]


def test_directive_bodies_are_code() -> None:
    text = (
        ".. note::\n\n   This is a note.\n   Second line.\n\n"
        ".. code-block:: python\n   :linenos:\n\n   print(1)\n\n"
        ".. _label: https://example.com\n\n"  # no indented body: a paragraph
        "Text.\n"
    )
    assert blocks(text) == [
        ("code", ".. note::\n\n   This is a note.\n   Second line.", 0, ""),
        ("code", ".. code-block:: python\n   :linenos:\n\n   print(1)", 0, ""),
        ("paragraph", ".. _label: https://example.com", 0, ""),
        ("paragraph", "Text.", 0, ""),
    ]


def test_indented_code_after_a_blank_line() -> None:
    text = "Para.\n\n    indented after blank\n    still\n\n  small indent\n\n    - indented item\n\nPara.\n    no blank line before\n\n\tcode\n\n\n"
    assert blocks(text) == [
        ("paragraph", "Para.", 0, ""),
        ("code", "    indented after blank\n    still", 0, ""),
        ("paragraph", "  small indent", 0, ""),
        ("paragraph", "    - indented item", 0, ""),  # a list marker is never code, and 4 spaces are no list item
        ("paragraph", "Para.\n    no blank line before", 0, ""),
        ("code", "\tcode", 0, ""),
    ]


def test_fenced_code() -> None:
    assert blocks("```\n:: not literal\n```\nText.\n") == [
        ("code", "```\n:: not literal\n```", 0, ""),
        ("paragraph", "Text.", 0, ""),
    ]
    # closed only by a fence of the same character at least as long; unclosed runs to the end
    assert blocks("````\nx\n```\n~~~~\n````\n") == [("code", "````\nx\n```\n~~~~\n````", 0, "")]
    assert blocks("~~~\nabc\n") == [("code", "~~~\nabc", 0, "")]


def test_pipe_tables() -> None:
    text = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\nAfter the table.\n\nA | B without delimiter\nnext line\n"
    assert blocks(text) == [
        ("table", "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |", 0, ""),
        ("paragraph", "After the table.", 0, ""),
        ("paragraph", "A | B without delimiter\nnext line", 0, ""),
    ]


def test_list_items() -> None:
    text = "- one\n  continued\n- two\n* three\n\n1. first\n2) second\n# hash line\n\n+ plus\n"
    assert blocks(text) == [
        ("list_item", "- one\n  continued", 0, ""),
        ("list_item", "- two", 0, ""),
        ("list_item", "* three", 0, ""),
        ("list_item", "1. first", 0, ""),
        ("list_item", "2) second", 0, ""),  # a "#" line ends a list item ...
        ("paragraph", "# hash line", 0, ""),  # ... but is no heading
        ("list_item", "+ plus", 0, ""),
    ]


def test_block_quotes() -> None:
    assert blocks("> quoted\n> more\nnot quoted\n") == [
        ("blockquote", "> quoted\n> more", 0, ""),
        ("paragraph", "not quoted", 0, ""),
    ]
    # a paragraph ends where a quote, a list item or a fence starts
    assert blocks("Text\n> quote\n") == [("paragraph", "Text", 0, ""), ("blockquote", "> quote", 0, "")]
    assert blocks("Text\n- item\n") == [("paragraph", "Text", 0, ""), ("list_item", "- item", 0, "")]
    assert blocks("Text\n```\ncode\n```\n") == [("paragraph", "Text", 0, ""), ("code", "```\ncode\n```", 0, "")]


def test_hash_line_is_no_heading() -> None:
    text = "Text before\n# hash inside\nmore\n\n# alone\n\n## two ##\n"
    assert blocks(text) == [
        ("paragraph", "Text before\n# hash inside\nmore", 0, ""),
        ("paragraph", "# alone", 0, ""),
        ("paragraph", "## two ##", 0, ""),
    ]


def test_crlf_spans_exclude_the_line_break() -> None:
    text = "Title\r\n=====\r\n\r\nText::\r\n\r\n    code\r\n\r\n- item\r\n"
    assert blocks(text) == [
        ("heading", "Title\r\n=====", 1, "Title"),
        ("code", "Text::\r\n\r\n    code", 0, ""),
        ("list_item", "- item", 0, ""),
    ]
    assert [(b.start, b.end) for b in rst_blocks(text)] == [(0, 12), (16, 34), (38, 44)]


def test_detect_markup() -> None:
    assert detect_markup(".. note::\n\n   body\n") == "rst"
    assert detect_markup("Example::\n\n    code\n") == "rst"
    assert detect_markup("# Title\n\nText: a::b\n") == "markdown"


@pytest.mark.skipif(not (REALDOCS / "pep-0008.rst").is_file(), reason="shared realdocs/pep-0008.rst not found")
def test_pep8_blocks_are_exact_line_spans_and_headings_have_titles() -> None:
    text = read_realdoc(REALDOCS / "pep-0008.rst")
    found = rst_blocks(text)
    previous_end = 0
    for block in found:
        span = text[block.start : block.end]
        assert previous_end <= block.start < block.end, block  # in order, never overlapping
        assert block.start == 0 or text[block.start - 1] == "\n", block  # starts at a line start
        assert block.end == len(text) or text[block.end] == "\n", block  # ends at a line end ...
        assert span == span.rstrip() and span.strip(), block  # ... on a non-space character
        if block.kind == "heading":
            assert block.title and block.title in span and 1 <= block.level <= 6, block
        previous_end = block.end
    kinds = [b.kind for b in found]
    assert {k: kinds.count(k) for k in set(kinds)} == {"paragraph": 147, "code": 80, "list_item": 78, "heading": 42}
    headings = [b for b in found if b.kind == "heading"]
    assert (headings[0].level, headings[0].title) == (1, "Introduction")
    assert (headings[-1].level, headings[-1].title) == (1, "Copyright")
