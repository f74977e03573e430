"""Heading-based (`headings`) and hierarchical (`hierarchical`) chunking (seed 000 §13.5.1-2).

Exact expected outputs on small Markdown / reStructuredText documents written here (the texts
of the chunks are spelled out, so the offsets follow from them), then property tests over random
Markdown-ish documents whose headings the generator knows (an oracle independent of the parser),
then the shared real documents.

The multi-level rule checked for ``hierarchical`` (stated in its module docstring): level 0
tiles the document; a chunk with children is tiled exactly by them (its intro first); a chunk
without subsections has no children; the leaves tile the document; the list is ordered by
level, then start, and ``parent`` points one level up to a chunk that contains the child.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkviz import InvalidParamError, chunk
from chunkviz.strategies.headings import HeadingsParams
from chunkviz.strategies.hierarchical import HierarchicalParams
from chunkviz.tokenizers import get_tokenizer
from chunkviz.types import Chunk, Reason

from conftest import REALDOCS, read_realdoc

REASONS = {str(r) for r in Reason}
SPLIT_REASONS = {"paragraph", "line", "word", "character"}  # the recursive splitter's, inside a section
SCALE = float(os.environ.get("CHUNKVIZ_HYPOTHESIS_SCALE", "1"))
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def examples(n: int) -> int:
    return max(1, int(n * SCALE))


# ============================================================================ checkers


def check_chunk_contract(text: str, c: Chunk, k: int) -> None:
    assert isinstance(c, Chunk)
    assert c.index == k, f"chunk {k} has index {c.index}"
    assert 0 <= c.start < c.end <= len(text), (k, c.start, c.end, len(text))
    assert c.text == text[c.start : c.end]
    assert c.reason in REASONS, c.reason
    assert (c.reason == "end_of_document") == (c.end == len(text)), (k, c.reason, c.end, len(text))
    assert c.added_text == ""
    path = c.metadata["heading_path"]
    assert isinstance(path, list) and all(isinstance(t, str) for t in path)
    assert c.metadata["section"] == " > ".join(path)


def assert_tiles(text: str, parts: Sequence[Chunk], start: int, end: int, what: str) -> None:
    """``parts`` (in order) run contiguously from ``start`` to ``end``."""
    assert parts, f"{what}: no chunks"
    assert parts[0].start == start, f"{what}: starts at {parts[0].start}, not {start}"
    for a, b in zip(parts, parts[1:]):
        assert a.end == b.start, f"{what}: gap or overlap between [{a.start},{a.end}) and [{b.start},{b.end})"
    assert parts[-1].end == end, f"{what}: ends at {parts[-1].end}, not {end}"


def check_headings_chunks(text: str, chunks: Sequence[Chunk], tokenizer: str | None = None, max_tokens: int | None = None) -> None:
    """The flat contract of ``headings``: exact spans that tile the text from the first chunk on,
    no chunk over ``max_tokens`` unless it is one character flagged indivisible."""
    if not text.strip():
        assert chunks == []
        return
    for k, c in enumerate(chunks):
        check_chunk_contract(text, c, k)
        assert c.level == 0 and c.parent is None
    assert_tiles(text, chunks, 0, len(text), "headings")
    if max_tokens is not None:
        tok = get_tokenizer(tokenizer or "cl100k_base")
        for c in chunks:
            n = tok.count(c.text)
            if c.metadata.get("indivisible"):
                assert c.metadata.get("over_limit") and n > max_tokens and len(c.text) == 1
            else:
                assert n <= max_tokens, f"chunk {c.index} has {n} > {max_tokens} tokens and is not flagged"
                assert not c.metadata.get("over_limit")


def children_of(chunks: Sequence[Chunk]) -> dict[int, list[Chunk]]:
    kids: dict[int, list[Chunk]] = {}
    for c in chunks:
        if c.parent is not None:
            kids.setdefault(c.parent, []).append(c)
    return kids


def check_hierarchy(text: str, chunks: Sequence[Chunk]) -> None:
    """The multi-level rule of ``hierarchical`` (see the module docstring)."""
    if not text.strip():
        assert chunks == []
        return
    assert chunks
    for k, c in enumerate(chunks):
        check_chunk_contract(text, c, k)
    # order: by level, then start; levels 0, 1, ... without holes; starts strictly increase in a level
    keys = [(c.level, c.start) for c in chunks]
    assert keys == sorted(keys) and len(set(keys)) == len(keys), "not ordered by (level, start)"
    levels = sorted({c.level for c in chunks})
    assert levels == list(range(len(levels)))
    for c in chunks:
        if c.level == 0:
            assert c.parent is None
        else:
            assert c.parent is not None and 0 <= c.parent < len(chunks)
            p = chunks[c.parent]
            assert p.level == c.level - 1, f"chunk {c.index} (level {c.level}) has parent of level {p.level}"
            assert p.start <= c.start and c.end <= p.end, f"chunk {c.index} lies outside its parent {p.index}"
            assert c.metadata["heading_path"][: len(p.metadata["heading_path"])] == p.metadata["heading_path"]
    # level 0 tiles the document
    top = [c for c in chunks if c.level == 0]
    assert_tiles(text, top, 0, len(text), "level 0")
    # children tile their parent exactly; no sibling overlaps
    kids = children_of(chunks)
    for parent_index, children in kids.items():
        p = chunks[parent_index]
        assert_tiles(text, children, p.start, p.end, f"children of chunk {parent_index}")
    # the leaves tile the document
    leaves = sorted((c for c in chunks if c.index not in kids), key=lambda c: c.start)
    assert_tiles(text, leaves, 0, len(text), "leaves")
    # within a level, chunks do not overlap
    for level in levels:
        row = [c for c in chunks if c.level == level]
        for a, b in zip(row, row[1:]):
            assert a.end <= b.start


def rows(chunks: Sequence[Chunk]) -> list[tuple[str, str, list[str]]]:
    return [(c.text, c.reason, c.metadata["heading_path"]) for c in chunks]


def tree_rows(chunks: Sequence[Chunk]) -> list[tuple[int, int | None, str, list[str], bool]]:
    return [(c.level, c.parent, c.text, c.metadata["heading_path"], bool(c.metadata.get("intro"))) for c in chunks]


# ============================================================================ headings: exact outputs

GUIDE = "Guide"
AUTH = "Authentication"
OAUTH = "OAuth 2.0"

PRE = "Read this first.\n\n"
S_GUIDE = "# Guide\n\nWelcome to the guide.\n\n"
S_AUTH = "## Authentication\n\nUse an API key.\n\n"
S_OAUTH = "### OAuth 2.0\n\n```python\n# get a token (not a heading)\ntoken = fetch()\n```\n\n"
S_ERRORS = "## Errors ##\n\nRetry on 429.\n"
MD = PRE + S_GUIDE + S_AUTH + S_OAUTH + S_ERRORS


def test_atx_sections_with_paths_and_preamble() -> None:
    chunks = chunk(MD, "headings")
    check_headings_chunks(MD, chunks, "cl100k_base", 500)
    assert rows(chunks) == [
        (PRE, "heading", []),
        (S_GUIDE, "heading", [GUIDE]),
        (S_AUTH, "heading", [GUIDE, AUTH]),
        # the "# get a token" line is inside a fenced code block: not a heading, no cut
        (S_OAUTH, "heading", [GUIDE, AUTH, OAUTH]),
        # closing hashes are not part of the title
        (S_ERRORS, "end_of_document", [GUIDE, "Errors"]),
    ]
    assert [(c.start, c.end) for c in chunks] == [(0, 18), (18, 50), (50, 86), (86, 162), (162, 190)]
    assert chunks[3].metadata["section"] == "Guide > Authentication > OAuth 2.0"
    assert [c.metadata["heading_level"] for c in chunks] == [0, 1, 2, 3, 2]
    assert not any("merged_sections" in c.metadata or "split_section" in c.metadata for c in chunks)


def test_crlf_document_cuts_at_the_same_headings() -> None:
    crlf = MD.replace("\n", "\r\n")
    chunks = chunk(crlf, "headings")
    check_headings_chunks(crlf, chunks)
    assert rows(chunks) == [(t.replace("\n", "\r\n"), r, p) for t, r, p in rows(chunk(MD, "headings"))]


def test_setext_headings() -> None:
    title = "Field Guide\n===========\n\nAbout birds.\n\n"
    sub = "Owls\n----\n\nThey hoot.\n\n"
    deeper = "### Barn owl\n\nPale face.\n"
    doc = title + sub + deeper
    assert rows(chunk(doc, "headings")) == [
        (title, "heading", ["Field Guide"]),
        (sub, "heading", ["Field Guide", "Owls"]),
        (deeper, "end_of_document", ["Field Guide", "Owls", "Barn owl"]),
    ]


def test_setext_h1_after_setext_h2_is_level_1() -> None:
    # CommonMark: an '=' underline is always level 1, a '-' underline always level 2
    doc = "Sub\n---\n\ntext\n\nTitle\n=====\n\nmore\n\n## Child\n\nx\n"
    chunks = chunk(doc, "headings")
    assert [c.metadata["heading_level"] for c in chunks] == [2, 1, 2]
    assert [c.metadata["heading_path"] for c in chunks] == [["Sub"], ["Title"], ["Title", "Child"]]


def test_text_before_the_first_heading_and_blank_preamble() -> None:
    assert rows(chunk("Just prose, no heading.\n\nTwo paragraphs.\n", "headings")) == [
        ("Just prose, no heading.\n\nTwo paragraphs.\n", "end_of_document", [])
    ]
    # a blank preamble is no chunk of its own: it belongs to the first section (the chunks tile the text)
    doc = "\n\n  \n# Title\n\nBody.\n\n## Sub\n\nx\n"
    chunks = chunk(doc, "headings")
    assert [(c.start, c.end, c.reason) for c in chunks] == [(0, 21, "heading"), (21, len(doc), "end_of_document")]
    assert [c.metadata["heading_path"] for c in chunks] == [["Title"], ["Title", "Sub"]]
    check_headings_chunks(doc, chunks)
    tree = chunk(doc, "hierarchical")
    check_hierarchy(doc, tree)
    assert [(c.level, c.parent, c.start, c.end) for c in tree] == [(0, None, 0, len(doc)), (1, 0, 0, 21), (1, 0, 21, len(doc))]


def test_hash_lines_in_code_are_not_headings() -> None:
    doc = "# Setup\n\n~~~bash\n# install\n## still a comment\n~~~\n\n    # indented code\n\nDone.\n"
    assert rows(chunk(doc, "headings")) == [(doc, "end_of_document", ["Setup"])]


def test_skipped_heading_levels_nest_under_the_nearest_higher_heading() -> None:
    a, b, c = "# A\n\nx\n\n", "### B\n\ny\n\n", "## C\n\nz\n"
    assert rows(chunk(a + b + c, "headings")) == [
        (a, "heading", ["A"]),
        (b, "heading", ["A", "B"]),
        (c, "end_of_document", ["A", "C"]),
    ]


def test_max_level_keeps_deeper_headings_inside_their_section() -> None:
    assert rows(chunk(MD, "headings", max_level=2)) == [
        (PRE, "heading", []),
        (S_GUIDE, "heading", [GUIDE]),
        (S_AUTH + S_OAUTH, "heading", [GUIDE, AUTH]),
        (S_ERRORS, "end_of_document", [GUIDE, "Errors"]),
    ]
    assert rows(chunk(MD, "headings", max_level=1)) == [
        (PRE, "heading", []),
        (S_GUIDE + S_AUTH + S_OAUTH + S_ERRORS, "end_of_document", [GUIDE]),
    ]
    # headings deeper than max_level before the first kept one belong to the preamble
    doc = "### Note\n\nfine print\n\n# Top\n\ntext\n"
    assert rows(chunk(doc, "headings", max_level=1)) == [
        ("### Note\n\nfine print\n\n", "heading", []),
        ("# Top\n\ntext\n", "end_of_document", ["Top"]),
    ]


SPLIT_TITLE = "# Title\n\nIntro words here.\n\n"  # 5 words
SPLIT_LONG = "## Long\n\none two three.\n\nfour five six.\n\nseven eight nine ten eleven twelve.\n\n"  # 14 words
SPLIT_SHORT = "## Short\n\nEnd.\n"  # 3 words


def test_oversized_section_is_split_and_keeps_its_heading_path() -> None:
    doc = SPLIT_TITLE + SPLIT_LONG + SPLIT_SHORT
    chunks = chunk(doc, "headings", tokenizer="words", max_tokens=5)
    check_headings_chunks(doc, chunks, "words", 5)
    long_path = ["Title", "Long"]
    # derivation: the Long section (14 words) is split at blank lines, greedily packed to 5
    # words ("## Long" 2 + "one two three." 3); "seven ... twelve." (6 words) alone is too
    # large and is split at words; the whitespace goes to the next piece
    assert rows(chunks) == [
        (SPLIT_TITLE, "heading", ["Title"]),
        ("## Long\n\none two three.\n\n", "paragraph", long_path),
        ("four five six.\n\n", "paragraph", long_path),
        ("seven eight nine ten eleven", "word", long_path),
        (" twelve.\n\n", "heading", long_path),
        (SPLIT_SHORT, "end_of_document", ["Title", "Short"]),
    ]
    assert [bool(c.metadata.get("split_section")) for c in chunks] == [False, True, True, True, True, False]
    assert chunks[1].metadata["separator"] == "\n\n" and chunks[3].metadata["separator"] == " "


def test_a_character_over_the_limit_is_flagged_indivisible() -> None:
    doc = "# 𠜎\n\n𠜎𠜎\n"  # U+2070E is 4 cl100k tokens
    chunks = chunk(doc, "headings", tokenizer="cl100k_base", max_tokens=1)
    check_headings_chunks(doc, chunks, "cl100k_base", 1)
    flagged = [c for c in chunks if c.metadata.get("indivisible")]
    assert flagged and all(c.text == "𠜎" for c in flagged)
    assert all(c.metadata["heading_path"] == ["𠜎"] for c in chunks)


MERGE_A, MERGE_B, MERGE_C = "# A\n\nx\n\n", "## B\n\ny\n\n", "## C\n\nz\n\n"  # 3 words each
MERGE_D = "## D\n\none two three four five six seven.\n"  # 9 words


def test_merge_small_merges_with_the_next_sections_while_they_fit() -> None:
    doc = MERGE_A + MERGE_B + MERGE_C + MERGE_D
    assert rows(chunk(doc, "headings", tokenizer="words", max_tokens=10)) == [
        (MERGE_A, "heading", ["A"]),
        (MERGE_B, "heading", ["A", "B"]),
        (MERGE_C, "heading", ["A", "C"]),
        (MERGE_D, "end_of_document", ["A", "D"]),
    ]
    # A (3) < 8 takes B (6 <= 10); 6 < 8 takes C (9 <= 10); 9 >= 8 stops. D (9) is not small.
    chunks = chunk(doc, "headings", tokenizer="words", max_tokens=10, merge_small=8)
    check_headings_chunks(doc, chunks, "words", 10)
    assert rows(chunks) == [
        (MERGE_A + MERGE_B + MERGE_C, "heading", ["A"]),
        (MERGE_D, "end_of_document", ["A", "D"]),
    ]
    assert chunks[0].metadata["merged_sections"] == [["A"], ["A", "B"], ["A", "C"]]
    assert chunks[0].metadata["section"] == "A"
    assert "merged_sections" not in chunks[1].metadata
    # a small section whose merge with the next would exceed max_tokens stays alone; so does a
    # small last section (there is no next one)
    chunks = chunk(doc, "headings", tokenizer="words", max_tokens=11, merge_small=4)
    assert rows(chunks) == [
        (MERGE_A + MERGE_B, "heading", ["A"]),
        (MERGE_C, "heading", ["A", "C"]),  # 3 < 4 but C + D = 12 > 11
        (MERGE_D, "end_of_document", ["A", "D"]),
    ]
    tail = chunk(MERGE_D + "## E\n\ne\n", "headings", tokenizer="words", max_tokens=20, merge_small=5)
    assert rows(tail) == [(MERGE_D, "heading", ["D"]), ("## E\n\ne\n", "end_of_document", ["E"])]  # E: 3 < 5, last


def test_merge_small_can_take_the_preamble_into_the_first_section() -> None:
    doc = "Hi.\n\n# Intro\n\nSome words here.\n"
    chunks = chunk(doc, "headings", tokenizer="words", max_tokens=50, merge_small=3)
    assert rows(chunks) == [(doc, "end_of_document", [])]
    assert chunks[0].metadata["merged_sections"] == [[], ["Intro"]]


RST = (
    "==========\n"
    "User Guide\n"
    "==========\n"
    "\n"
    "Intro text.\n"
    "\n"
)
RST_INSTALL = (
    "Install\n"
    "-------\n"
    "\n"
    "Run the installer::\n"
    "\n"
    "    # not a heading\n"
    "    ./install\n"
    "\n"
)
RST_OPTIONS = "Options\n~~~~~~~\n\nSome options.\n\n"
RST_USAGE = "Usage\n-----\n\nUse it.\n\n.. note:: Read the FAQ.\n"


def test_restructuredtext_underlined_headings() -> None:
    doc = RST + RST_INSTALL + RST_OPTIONS + RST_USAGE
    chunks = chunk(doc, "headings")
    check_headings_chunks(doc, chunks)
    # levels follow the order in which adornment styles first appear: overlined "=", "-", "~"
    assert rows(chunks) == [
        (RST, "heading", ["User Guide"]),
        (RST_INSTALL, "heading", ["User Guide", "Install"]),
        (RST_OPTIONS, "heading", ["User Guide", "Install", "Options"]),
        (RST_USAGE, "end_of_document", ["User Guide", "Usage"]),
    ]
    assert [c.metadata["heading_level"] for c in chunks] == [1, 2, 3, 2]


@pytest.mark.parametrize("name", ["headings", "hierarchical"])
@pytest.mark.parametrize("text", ["", " ", "\n\n", "\r\n \t"])
def test_empty_or_blank_text_gives_no_chunks(name: str, text: str) -> None:
    assert chunk(text, name) == []
    from chunkviz.strategies import get_strategy

    spec = get_strategy(name)
    assert spec.function(text, spec.make_params(), get_tokenizer("words")) == []


@pytest.mark.parametrize(
    ("params", "bad"),
    [
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": -1}, "max_tokens"),
        ({"max_level": 0}, "max_level"),
        ({"max_level": 7}, "max_level"),
        ({"merge_small": -1}, "merge_small"),
        ({"merge_small": 500}, "merge_small"),  # not below the default max_tokens
        ({"max_tokens": 10, "merge_small": 10}, "merge_small"),
        ({"max_tokens": 10, "merge_small": 11}, "merge_small"),
        ({"max_level": "deep"}, "max_level"),
        ({"max_level": 2.5}, "max_level"),
    ],
)
def test_headings_params_are_validated(params: dict[str, Any], bad: str) -> None:
    with pytest.raises(InvalidParamError) as info:
        chunk(MD, "headings", **params)
    assert info.value.param == bad and bad in str(info.value)


def test_params_are_validated_when_built_directly() -> None:
    for kwargs, bad in [
        ({"max_level": 9}, "max_level"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": 5, "merge_small": 5}, "merge_small"),
        ({"merge_small": -2}, "merge_small"),
    ]:
        with pytest.raises(InvalidParamError) as info:
            HeadingsParams(**kwargs)
        assert info.value.param == bad
    for kwargs, bad in [({"depth": 0}, "depth"), ({"depth": 7}, "depth"), ({"max_tokens": 0}, "max_tokens"), ({"split_oversized": "yes"}, "split_oversized")]:
        with pytest.raises(InvalidParamError) as info:
            HierarchicalParams(**kwargs)
        assert info.value.param == bad


@pytest.mark.parametrize(
    ("params", "bad"),
    [({"depth": 0}, "depth"), ({"depth": 7}, "depth"), ({"max_tokens": 0}, "max_tokens"), ({"split_oversized": "maybe"}, "split_oversized")],
)
def test_hierarchical_params_are_validated(params: dict[str, Any], bad: str) -> None:
    with pytest.raises(InvalidParamError) as info:
        chunk(MD, "hierarchical", **params)
    assert info.value.param == bad


def test_defaults() -> None:
    import chunkviz

    described = {s["name"]: {p["name"]: p["default"] for p in s["params"]} for s in chunkviz.strategies()}
    assert described["headings"] == {"max_tokens": 500, "max_level": 6, "merge_small": 0}
    assert described["hierarchical"] == {"depth": 3, "max_tokens": 1000, "split_oversized": False}


# ============================================================================ hierarchical: exact outputs

CH4 = "Chapter 4: Authentication"
CH4_INTRO = "# Chapter 4: Authentication\n\nHow clients prove who they are.\n\n"  # 10 words
S41 = "## 4.1 API Keys\n\nSend the key in a header.\n\n"  # 10 words
S42_INTRO = "## 4.2 OAuth 2.0\n\nDelegated access.\n\n"  # 6 words
S421 = "### 4.2.1 Authorization Code Flow\n\nFor web apps.\n\n"  # 8 words
S422 = "### 4.2.2 Client Credentials Flow\n\nFor servers.\n\n"  # 7 words
S43 = "## 4.3 JWT Tokens\n\nSigned claims.\n\n"  # 6 words
CH5 = "# Chapter 5: Errors\n\nRetry on 429.\n"  # 7 words
S42 = S42_INTRO + S421 + S422
CH4_ALL = CH4_INTRO + S41 + S42 + S43
BOOK = CH4_ALL + CH5
P42 = [CH4, "4.2 OAuth 2.0"]


def test_hierarchical_levels_and_parents() -> None:
    chunks = chunk(BOOK, "hierarchical")
    check_hierarchy(BOOK, chunks)
    assert tree_rows(chunks) == [
        (0, None, CH4_ALL, [CH4], False),
        (0, None, CH5, ["Chapter 5: Errors"], False),  # no subsections: a leaf, no children
        (1, 0, CH4_INTRO, [CH4], True),
        (1, 0, S41, [CH4, "4.1 API Keys"], False),
        (1, 0, S42, P42, False),
        (1, 0, S43, [CH4, "4.3 JWT Tokens"], False),
        (2, 4, S42_INTRO, P42, True),
        (2, 4, S421, [*P42, "4.2.1 Authorization Code Flow"], False),
        (2, 4, S422, [*P42, "4.2.2 Client Credentials Flow"], False),
    ]
    assert [c.reason for c in chunks] == ["heading", "end_of_document", "heading", "heading", "heading", "heading", "heading", "heading", "heading"]
    assert [c.index for c in chunks] == list(range(9))
    assert not any(c.metadata.get("over_limit") for c in chunks)


def test_hierarchical_depth_limits_the_levels() -> None:
    assert tree_rows(chunk(BOOK, "hierarchical", depth=1)) == [
        (0, None, CH4_ALL, [CH4], False),
        (0, None, CH5, ["Chapter 5: Errors"], False),
    ]
    two = chunk(BOOK, "hierarchical", depth=2)
    check_hierarchy(BOOK, two)
    assert tree_rows(two) == [row for row in tree_rows(chunk(BOOK, "hierarchical")) if row[0] < 2]


def test_hierarchical_preamble_skipped_levels_and_no_headings() -> None:
    doc = "Preface.\n\n# A\n\nintro\n\n### B\n\nb\n\n## C\n\nc\n"
    chunks = chunk(doc, "hierarchical")
    check_hierarchy(doc, chunks)
    # the H3 directly under the H1 is its level-1 child (tree depth, not markup level)
    assert tree_rows(chunks) == [
        (0, None, "Preface.\n\n", [], True),
        (0, None, "# A\n\nintro\n\n### B\n\nb\n\n## C\n\nc\n", ["A"], False),
        (1, 1, "# A\n\nintro\n\n", ["A"], True),
        (1, 1, "### B\n\nb\n\n", ["A", "B"], False),
        (1, 1, "## C\n\nc\n", ["A", "C"], False),
    ]
    assert tree_rows(chunk("no headings at all\n", "hierarchical")) == [(0, None, "no headings at all\n", [], True)]
    # a document starting with a deeper heading: both top-level sections are level 0
    doc = "## X\n\nx\n\n# Y\n\ny\n"
    assert tree_rows(chunk(doc, "hierarchical")) == [(0, None, "## X\n\nx\n\n", ["X"], False), (0, None, "# Y\n\ny\n", ["Y"], False)]


def test_hierarchical_flags_oversized_chunks_but_keeps_them_whole() -> None:
    chunks = chunk(BOOK, "hierarchical", tokenizer="words", max_tokens=8)
    check_hierarchy(BOOK, chunks)
    assert tree_rows(chunks) == tree_rows(chunk(BOOK, "hierarchical"))
    over = {c.text for c in chunks if c.metadata.get("over_limit")}
    assert over == {CH4_ALL, CH4_INTRO, S41, S42}  # 47, 10, 10, 21 words > 8
    assert not any(c.metadata.get("indivisible") or c.metadata.get("split_section") for c in chunks)


def test_hierarchical_split_oversized_splits_only_leaves() -> None:
    chunks = chunk(BOOK, "hierarchical", tokenizer="words", max_tokens=8, split_oversized=True)
    check_hierarchy(BOOK, chunks)
    p41 = [CH4, "4.1 API Keys"]
    assert tree_rows(chunks) == [
        (0, None, CH4_ALL, [CH4], False),  # has children: flagged, not split
        (0, None, CH5, ["Chapter 5: Errors"], False),
        (1, 0, "# Chapter 4: Authentication\n\n", [CH4], True),  # the intro leaf (10 words) is split
        (1, 0, "How clients prove who they are.\n\n", [CH4], True),
        (1, 0, "## 4.1 API Keys\n\n", p41, False),
        (1, 0, "Send the key in a header.\n\n", p41, False),
        (1, 0, S42, P42, False),  # has children: flagged, not split
        (1, 0, S43, [CH4, "4.3 JWT Tokens"], False),
        (2, 6, S42_INTRO, P42, True),
        (2, 6, S421, [*P42, "4.2.1 Authorization Code Flow"], False),
        (2, 6, S422, [*P42, "4.2.2 Client Credentials Flow"], False),
    ]
    assert [c.reason for c in chunks[2:6]] == ["paragraph", "heading", "paragraph", "heading"]
    assert [c.index for c in chunks if c.metadata.get("over_limit")] == [0, 6]
    assert all(c.metadata.get("split_section") for c in chunks[2:6])
    tok = get_tokenizer("words")
    kids = children_of(chunks)
    for c in chunks:
        if c.index not in kids:
            assert tok.count(c.text) <= 8


def test_hierarchical_leaves_equal_the_flat_headings_chunks() -> None:
    for doc in (MD, BOOK, RST + RST_INSTALL + RST_OPTIONS + RST_USAGE):
        tree = chunk(doc, "hierarchical", depth=6)
        kids = children_of(tree)
        leaves = sorted(((c.start, c.end, c.metadata["heading_path"]) for c in tree if c.index not in kids))
        flat = [(c.start, c.end, c.metadata["heading_path"]) for c in chunk(doc, "headings", max_tokens=100_000)]
        assert leaves == flat


# ============================================================================ random Markdown-ish documents

WORDS = ["alpha", "beta", "retry", "token", "naïve", "Über", "3.14", "C#", "x#y", "日本語のテキスト", "中文没有空格", "😀", "👍🏽", "👨\u200d👩\u200d👧", "e\u0301", "don't", "(x)", "—"]


@dataclass(frozen=True)
class Head:
    start: int
    level: int
    title: str


@dataclass(frozen=True)
class Doc:
    text: str
    heads: tuple[Head, ...]


@st.composite
def markdown_docs(draw: st.DrawFn) -> Doc:
    """Headings of random levels (ATX, ATX with closing hashes, setext), paragraphs, fenced code
    holding ``#`` lines, blank-line runs; LF or CRLF; the generator records every heading."""
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join)
    parts: list[str] = []
    heads: list[Head] = []
    pos = 0
    setext_h1_seen = False  # see test_setext_h1_after_setext_h2_is_level_1 (a known parser bug)

    def add(s: str) -> None:
        nonlocal pos
        parts.append(s)
        pos += len(s)

    add(draw(st.sampled_from(["", nl, nl + nl, "  " + nl])))
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.sampled_from(["heading", "heading", "heading", "paragraph", "paragraph", "code"]))
        if kind == "heading":
            level = draw(st.integers(1, 6))
            title = draw(words)
            style = draw(st.sampled_from(["atx", "atx", "closed", "setext"]))
            if style == "setext" and (level == 1 or (level == 2 and setext_h1_seen)):
                setext_h1_seen = setext_h1_seen or level == 1
                heads.append(Head(pos, level, title))
                add(title + nl + ("=" if level == 1 else "-") * draw(st.integers(3, 12)))
            else:
                heads.append(Head(pos, level, title))
                closing = " " + "#" * draw(st.integers(1, 4)) if style == "closed" else ""
                add("#" * level + " " + title + closing)
        elif kind == "paragraph":
            add(nl.join(draw(st.lists(words, min_size=1, max_size=3))))
        else:
            fence = draw(st.sampled_from(["```", "~~~", "````"]))
            body = draw(st.lists(st.sampled_from(["# comment", "## not a heading", "x = 1", "#", "=====", "print('日本')"]), max_size=4))
            add(fence + draw(st.sampled_from(["", "python", "sh"])) + nl + "".join(line + nl for line in body) + fence)
        add(draw(st.sampled_from([nl + nl, nl + nl + nl, nl + " " + nl])))
    return Doc("".join(parts), tuple(heads))


def oracle_paths(heads: Sequence[Head]) -> list[list[str]]:
    """Each heading's title path: titles of the open headings of lower level, then its own."""
    out: list[list[str]] = []
    stack: list[Head] = []
    for h in heads:
        while stack and stack[-1].level >= h.level:
            stack.pop()
        stack.append(h)
        out.append([s.title for s in stack])
    return out


def oracle_flat(doc: Doc, max_level: int) -> list[tuple[int, int, list[str]]]:
    """(start, end, heading_path) of every leaf section (before splitting and merging)."""
    text, n = doc.text, len(doc.text)
    paths = oracle_paths(doc.heads)
    kept = [(h.start, p) for h, p in zip(doc.heads, paths) if h.level <= max_level]
    out: list[tuple[int, int, list[str]]] = []
    first = kept[0][0] if kept else n
    if text[:first].strip():
        out.append((0, first, []))
    for k, (start, path) in enumerate(kept):
        # a blank preamble belongs to the first section
        out.append((start if out else 0, kept[k + 1][0] if k + 1 < len(kept) else n, path))
    return out


def expected_groups(text: str, sections: list[tuple[int, int, list[str]]], tokenizer: str, max_tokens: int, merge_small: int) -> list[list[tuple[int, int, list[str]]]]:
    tok = get_tokenizer(tokenizer)
    groups = []
    i = 0
    while i < len(sections):
        j = i
        while (
            merge_small
            and j + 1 < len(sections)
            and tok.count(text[sections[i][0] : sections[j][1]]) < merge_small
            and tok.count(text[sections[i][0] : sections[j + 1][1]]) <= max_tokens
        ):
            j += 1
        groups.append(sections[i : j + 1])
        i = j + 1
    return groups


@st.composite
def headings_params(draw: st.DrawFn) -> dict[str, Any]:
    max_tokens = draw(st.one_of(st.integers(1, 8), st.integers(1, 80), st.just(500)))
    params: dict[str, Any] = {"max_tokens": max_tokens, "max_level": draw(st.integers(1, 6))}
    if draw(st.booleans()):
        params["merge_small"] = draw(st.integers(0, max_tokens - 1))
    return params


def check_headings_against_oracle(doc: Doc, chunks: list[Chunk], tokenizer: str, params: dict[str, Any]) -> None:
    text = doc.text
    max_tokens, merge_small = params["max_tokens"], params.get("merge_small", 0)
    check_headings_chunks(text, chunks, tokenizer, max_tokens)
    if not text.strip():
        return
    tok = get_tokenizer(tokenizer)
    groups = expected_groups(text, oracle_flat(doc, params["max_level"]), tokenizer, max_tokens, merge_small)
    k = 0
    for group in groups:
        start, end, path = group[0][0], group[-1][1], group[0][2]
        final = "end_of_document" if end == len(text) else "heading"
        pieces = []
        while k < len(chunks) and chunks[k].end <= end:
            pieces.append(chunks[k])
            k += 1
        assert pieces and pieces[0].start == start and pieces[-1].end == end, (start, end, [(c.start, c.end) for c in pieces])
        for c in pieces:
            assert c.metadata["heading_path"] == path
        if len(group) > 1:
            assert len(pieces) == 1 and pieces[0].metadata["merged_sections"] == [g[2] for g in group]
        else:
            assert all("merged_sections" not in c.metadata for c in pieces)
        if tok.count(text[start:end]) <= max_tokens:
            assert len(pieces) == 1 and pieces[0].reason == final and not pieces[0].metadata.get("split_section")
        else:
            assert len(group) == 1, "a merged group never exceeds max_tokens"
            assert len(pieces) > 1 and all(c.metadata["split_section"] for c in pieces)
            assert pieces[-1].reason == final
            assert all(c.reason in SPLIT_REASONS for c in pieces[:-1])
    assert k == len(chunks)


@pytest.mark.parametrize("tokenizer", ["words", "cl100k_base"])
def test_headings_on_random_markdown(tokenizer: str) -> None:
    @settings(max_examples=examples(150), **SETTINGS)
    @given(doc=markdown_docs(), params=headings_params())
    def prop(doc: Doc, params: dict[str, Any]) -> None:
        chunks = chunk(doc.text, "headings", tokenizer=tokenizer, **params)
        check_headings_against_oracle(doc, chunks, tokenizer, params)

    prop()


def oracle_tree(doc: Doc, depth: int) -> list[tuple[int, int, int, tuple[int, int] | None, list[str], bool]]:
    """(level, start, end, parent (level, start), path, intro) of every chunk, unsplit."""
    text, n, heads = doc.text, len(doc.text), doc.heads
    paths = oracle_paths(heads)
    out = []
    first = heads[0].start if heads else n
    if text[:first].strip():
        out.append((0, 0, first, None, [], True))
    stack: list[int] = []
    tree_depth: list[int] = []
    node_start: dict[int, int] = {}  # heading index -> start of its chunk
    has_kept_child: set[int] = set()
    for i, h in enumerate(heads):
        while stack and heads[stack[-1]].level >= h.level:
            stack.pop()
        parent = stack[-1] if stack else None
        stack.append(i)
        d = 0 if parent is None else tree_depth[parent] + 1
        tree_depth.append(d)
        if d >= depth:
            continue
        end = next((g.start for g in heads[i + 1 :] if g.level <= h.level), n)
        # a blank preamble belongs to the first section
        node_start[i] = 0 if i == 0 and not text[:first].strip() else h.start
        parent_key = None if parent is None else (d - 1, node_start[parent])
        if parent is not None and parent not in has_kept_child:
            # the parent's first subsection: its intro runs from the parent's start up to here
            has_kept_child.add(parent)
            out.append((d, node_start[parent], h.start, parent_key, paths[parent], True))
        out.append((d, node_start[i], end, parent_key, paths[i], False))
    return sorted(out, key=lambda r: (r[0], r[1]))


@pytest.mark.parametrize("tokenizer", ["words", "cl100k_base"])
def test_hierarchical_on_random_markdown(tokenizer: str) -> None:
    tok = get_tokenizer(tokenizer)

    @settings(max_examples=examples(150), **SETTINGS)
    @given(
        doc=markdown_docs(),
        depth=st.integers(1, 6),
        max_tokens=st.one_of(st.integers(1, 10), st.integers(1, 100), st.just(1000)),
        split=st.booleans(),
    )
    def prop(doc: Doc, depth: int, max_tokens: int, split: bool) -> None:
        text = doc.text
        chunks = chunk(text, "hierarchical", tokenizer=tokenizer, depth=depth, max_tokens=max_tokens, split_oversized=split)
        check_hierarchy(text, chunks)
        if not text.strip():
            return
        assert max(c.level for c in chunks) < depth
        expected = oracle_tree(doc, depth)
        kids = children_of(chunks)
        has_children = {row[3] for row in expected if row[3] is not None}
        got = iter(chunks)
        for level, start, end, parent_key, path, intro in expected:
            pieces = [next(got)]
            while pieces[-1].end < end:
                pieces.append(next(got))
            assert pieces[0].start == start and pieces[-1].end == end and all(c.level == level for c in pieces)
            for c in pieces:
                assert c.metadata["heading_path"] == path and bool(c.metadata.get("intro")) == intro
                if parent_key is None:
                    assert c.parent is None
                else:
                    p = chunks[c.parent]
                    assert (p.level, p.start) == parent_key
            n = tok.count(text[start:end])
            leaf = (level, start) not in has_children
            if len(pieces) > 1:
                assert split and leaf and n > max_tokens
                assert all(c.metadata["split_section"] for c in pieces)
                assert all(c.reason in SPLIT_REASONS for c in pieces[:-1])
                for c in pieces:
                    if c.metadata.get("indivisible"):
                        assert len(c.text) == 1 and tok.count(c.text) > max_tokens
                    else:
                        assert tok.count(c.text) <= max_tokens
            else:
                assert bool(pieces[0].metadata.get("over_limit")) == (n > max_tokens)
                assert not (split and leaf and n > max_tokens and len(text[start:end]) > 1)
            assert pieces[-1].reason == ("end_of_document" if end == len(text) else "heading")
            assert (pieces[0].index in kids) == (not leaf)
        assert next(got, None) is None

    prop()


# ============================================================================ real documents

REAL = sorted(p for pattern in ("*.md", "*.rst", "*.txt") for p in REALDOCS.glob(pattern) if p.name not in {"SOURCES.md", "README.md"}) if REALDOCS.is_dir() else []


@pytest.mark.skipif(not REAL, reason=f"shared realdocs not found at {REALDOCS}")
@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_real_documents(path: Path) -> None:
    text = read_realdoc(path)
    for params in ({}, {"max_tokens": 64}, {"max_tokens": 200, "merge_small": 50, "max_level": 2}):
        chunks = chunk(text, "headings", **params)
        check_headings_chunks(text, chunks, "cl100k_base", params.get("max_tokens", 500))
    for params in ({}, {"depth": 2, "max_tokens": 128, "split_oversized": True}):
        tree = chunk(text, "hierarchical", **params)
        check_hierarchy(text, tree)
    if path.name in ("pep-0008.rst", "ripgrep_README.md", "common_paper_mutual_nda_v1_coverpage.md"):
        # documents with nested headings: several sections, more than one level
        assert len(chunk(text, "headings", max_tokens=100_000)) > 5
        assert any(c.level > 0 for c in chunk(text, "hierarchical"))
