"""The structure's fast paths give what the slow, obvious computations give (issue 20 item 7).

- ``SpaceRuns`` (runs measured where asked, long ones remembered) against a character scan;
- ``Structure._could_start_heading`` (lines found by ``str.find`` and one regular expression,
  stretches remembered) against the line-by-line scan it replaced;
- ``Structure._certain_atx_heading`` (an ATX heading known without the Markdown parse) against
  the parse: every position it is sure of is a heading's anchor;
- ``boundaries_at`` of every position against a structure that always parses.

The Markdown is generated from lines that open and close every kind of block (fences, HTML
blocks, lists, quotes, tables, setext underlines), with blank lines, indentation and line
breaks other than ``"\\n"``.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.texts import SETTINGS, examples

import chunkviz.document.structure as structure_module
from chunkviz.document.lines import _ADORNMENT, _LINE, _UNDERLINE, SpaceRuns
from chunkviz.document.structure import Structure

# ----------------------------------------------------------------------------- references


def scan_start_before(text: str, pos: int) -> int:
    while pos > 0 and text[pos - 1].isspace():
        pos -= 1
    return pos


def scan_end_after(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def could_start_heading_by_lines(structure: Structure, pos: int) -> bool:
    """The line-by-line scan ``_could_start_heading`` was before it remembered stretches."""
    if structure.markup == "none" or not structure.headings_possible:
        return False
    text = structure.text
    if text.startswith("#", pos):
        return True
    for k, match in enumerate(_LINE.finditer(text, pos)):
        line = match.group(1)
        if (k == 0 and _ADORNMENT.match(line)) or (k > 0 and _UNDERLINE.match(line)):
            return True
        if (k > 0 and not line.strip()) or match.end() >= len(text):
            return False
    return False


class ParsingStructure(Structure):
    """A structure that never takes the ATX shortcut: every heading comes from the parse."""

    def _certain_atx_heading(self, pos: int) -> bool:
        return False


# ----------------------------------------------------------------------------- inputs

LINES = [
    "# Title",
    "## Section two",
    "###### six",
    "####### seven is not a heading",
    "#hashtag",
    "#",
    "#\tTabbed",
    "   # indented three",
    "    # indented code",
    "Some text here.",
    "More words, and more.",
    "===",
    "---",
    "***",
    "~~~",
    "```",
    "```python",
    "<div>",
    "</div>",
    "<pre>",
    "</pre>",
    "<!-- a comment",
    "-->",
    "<?php",
    "<script>",
    "- item",
    "  - nested item",
    "1. numbered",
    "> quote",
    "> # quoted heading",
    "- # listed heading",
    "| a | b |",
    "|---|---|",
    "[ref]: /url 'title",
    "'",
    "",
    "",
    "",
    "   ",
    "\t",
    "\u00a0",
    "^^^^^",
    "text \\",
]
BREAKS = ["\n", "\n", "\n", "\n", "\r\n", "\r", "\u2028", "\x0c"]


@st.composite
def markdown_texts(draw: st.DrawFn, plain: bool = False) -> str:
    """Markdown-like text; ``plain``: only "\\n" line breaks and no fences or HTML (the texts where
    the ATX shortcut applies)."""
    lines = [line for line in LINES if not plain or not re.match(r"\s*(```|~~~|<)", line)]
    breaks = ["\n"] if plain else BREAKS
    parts = draw(st.lists(st.tuples(st.sampled_from(lines), st.sampled_from(breaks)), min_size=1, max_size=30))
    return "".join(line + brk for line, brk in parts) + draw(st.sampled_from(["", "tail", "# end"]))


# ----------------------------------------------------------------------------- properties


@settings(max_examples=examples(300), **SETTINGS)
@given(st.text(alphabet=st.sampled_from(["a", " ", "\n", "\t", "\u3000", "b"]), max_size=300), st.randoms())
def test_space_runs_match_a_character_scan_in_any_order(text: str, rng: random.Random) -> None:
    runs = SpaceRuns(text)
    positions = list(range(len(text) + 1)) * 2
    rng.shuffle(positions)
    for pos in positions:
        assert runs.start_before(pos) == scan_start_before(text, pos)
        assert runs.end_after(pos) == scan_end_after(text, pos)


def test_space_runs_of_long_runs_are_exact_at_every_position() -> None:
    text = "a" + " " * 100 + "b" + "\n" * 33 + "c" + " \t" * 40 + "\u3000" * 70
    runs = SpaceRuns(text)
    for pos in [*range(len(text), -1, -1), *range(len(text) + 1)]:
        assert runs.start_before(pos) == scan_start_before(text, pos)
        assert runs.end_after(pos) == scan_end_after(text, pos)


@settings(max_examples=examples(300), **SETTINGS)
@given(st.one_of(markdown_texts(), markdown_texts(plain=True)), st.sampled_from(["markdown", "rst"]), st.randoms())
def test_could_start_heading_matches_the_line_scan(text: str, markup: str, rng: random.Random) -> None:
    structure = Structure(text, markup)
    positions = [0] + [m.end() for m in re.finditer(r"[\n\r\x0c\u2028]\s*", text)]
    rng.shuffle(positions)
    for pos in positions:
        assert structure._could_start_heading(pos) == could_start_heading_by_lines(structure, pos), (text, pos)


@settings(max_examples=examples(400), **SETTINGS)
@given(st.one_of(markdown_texts(plain=True), markdown_texts()))
def test_a_certain_atx_heading_is_a_parsed_heading(text: str) -> None:
    structure = Structure(text, "markdown")
    anchors = ParsingStructure(text, "markdown")._heading_anchors
    for pos in range(len(text) + 1):
        if structure._certain_atx_heading(pos):
            assert pos in anchors, (text, pos)


@settings(max_examples=examples(200), **SETTINGS)
@given(st.one_of(markdown_texts(plain=True), markdown_texts()))
def test_boundaries_match_a_structure_that_always_parses(text: str) -> None:
    positions = list(range(len(text) + 1))
    fast = Structure(text, "markdown")._boundary_without_sentences
    parsed = ParsingStructure(text, "markdown")._boundary_without_sentences
    assert [fast(p) for p in positions] == [parsed(p) for p in positions]


@settings(max_examples=examples(300), **SETTINGS)
@given(
    st.one_of(
        markdown_texts(plain=True),
        st.text(
            alphabet=st.sampled_from(["a", "B", " ", "\u00a0", ".", "!", "”", "\n", "\t", "\u3000", "#", "é"]),
            max_size=80,
        ),
    ),
    st.sampled_from(["markdown", "rst", "none"]),
)
def test_the_plain_run_shortcut_matches_the_measured_run(text: str, markup: str) -> None:
    """A cut at no whitespace, one space or one or two line breaks between two non-spaces
    skips measuring its run: the same answers."""
    positions = list(range(len(text) + 1))
    fast = [Structure(text, markup)._boundary_without_sentences(p) for p in positions]
    original = structure_module._plain_run_at
    structure_module._plain_run_at = lambda text, pos: None  # every cut measures its run
    try:
        measured = [Structure(text, markup)._boundary_without_sentences(p) for p in positions]
    finally:
        structure_module._plain_run_at = original
    assert fast == measured


#: The searches the line-opening shortcuts replaced: every position tried.
HEADING_HINT_SEARCH = re.compile(
    r"^ {0,3}#|^ {0,3}(?:=+|-+)[ \t]*\r?$|^([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])\1{2,}[ \t]*\r?$", re.MULTILINE
)
BLOCK_HINT_SEARCH = re.compile(r"^ {0,3}(?:[-*+>|]|\d+[.)]|```|~~~)|^(?: {4}|\t)\S|\|", re.MULTILINE)


@settings(max_examples=examples(400), **SETTINGS)
@given(
    st.one_of(
        markdown_texts(),
        markdown_texts(plain=True),
        st.text(alphabet=st.sampled_from(list("\n\r\t #=-~*+>|`1.)a!_") + ["\u2028"]), max_size=40),
    )
)
def test_heading_and_block_hints_match_a_search_of_every_position(text: str) -> None:
    structure = Structure(text, "markdown")
    assert structure.headings_possible == bool(HEADING_HINT_SEARCH.search(text))
    assert structure._may_have_blocks() == bool(HEADING_HINT_SEARCH.search(text) or BLOCK_HINT_SEARCH.search(text))


@pytest.mark.parametrize(
    "text",
    [
        "prose\n1. item",
        "prose\n  10) item",
        "prose\n    code",
        "prose\n\tcode",
        "prose\n~~~",
        "prose\n```",
        "prose\n> quote",
        "prose\n+ item",
        "prose\n   * item",
        "prose | cell",
        "prose\n===",
        "prose\n   ## heading",
        "prose\n    # code, not a heading hint",
        "prose\n***\n",
        "prose only\nand more prose\n",
        "",
    ],
)
def test_heading_and_block_hints_on_each_kind_of_line(text: str) -> None:
    test_heading_and_block_hints_match_a_search_of_every_position.hypothesis.inner_test(text)  # type: ignore[attr-defined]  # hypothesis exposes the undecorated test


def test_the_atx_shortcut_is_taken_on_plain_markdown_and_not_past_a_fence() -> None:
    text = "# Title\n\nText.\n\n## Two\n\nMore.\n"
    structure = Structure(text, "markdown")
    assert structure._certain_atx_heading(0) and structure._certain_atx_heading(text.index("## Two"))
    structure.boundaries_at([text.index("## Two"), text.index("More")])
    assert "_heading_anchors" not in structure.__dict__  # no parse was needed
    fenced = "```\n\n# not a heading\n```\n"
    assert not Structure(fenced, "markdown")._certain_atx_heading(fenced.index("#"))
    assert fenced.index("#") not in Structure(fenced, "markdown")._heading_anchors
