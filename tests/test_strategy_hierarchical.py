"""The ``hierarchical`` strategy (seed 000 §13.5.2): chapters, sections and subsections at once.

The multi-level rule checked (stated in its module docstring, checker ``check_hierarchy`` in
tests/support/hierarchy.py): level 0 tiles the document; a chunk with children is tiled exactly by them (its intro
first); a chunk without subsections has no children; the leaves tile the document; the list is
ordered by level, then start, and ``parent`` points one level up to a chunk that contains the child.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.hierarchy import check_hierarchy, children_of, oracle_paths
from support.paths import REALDOCS, read_realdoc, realdoc_text_paths
from support.texts import MD, RST, RST_INSTALL, RST_OPTIONS, RST_USAGE, SETTINGS, HeadingDoc, examples, markdown_docs

from chunkviz import InvalidParamError, chunk
from chunkviz.core.types import Chunk
from chunkviz.document.model import as_document
from chunkviz.strategies import get_strategy
from chunkviz.strategies.hierarchical import HierarchicalParams
from chunkviz.text.tokenizers import get_tokenizer

#: the reason between the pieces of a split section (the recursive splitter's cut; where the cut
#: falls, paragraph / line / word, is the chunk's ``boundary`` now, no longer its reason)
SPLIT_REASONS = {"size_limit"}


def tree_rows(chunks: Sequence[Chunk]) -> list[tuple[int, int | None, str, list[str], bool]]:
    return [(c.level, c.parent, c.text, c.metadata["heading_path"], bool(c.metadata.get("intro"))) for c in chunks]


@pytest.mark.parametrize("text", ["", " ", "\n\n", "\r\n \t"])
def test_empty_or_blank_text_gives_no_chunks(text: str) -> None:
    name = "hierarchical"
    assert chunk(text, name) == []
    spec = get_strategy(name)
    assert spec.function(as_document(text), spec.make_params(), get_tokenizer("words")) == []


@pytest.mark.parametrize(
    ("params", "bad"),
    [
        ({"depth": 0}, "depth"),
        ({"depth": 7}, "depth"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"split_oversized": "maybe"}, "split_oversized"),
    ],
)
def test_hierarchical_params_are_validated(params: dict[str, Any], bad: str) -> None:
    with pytest.raises(InvalidParamError) as info:
        chunk(MD, "hierarchical", **params)
    assert info.value.param == bad


def test_hierarchical_params_are_validated_when_built_directly() -> None:
    for kwargs, bad in [
        ({"depth": 0}, "depth"),
        ({"depth": 7}, "depth"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"split_oversized": "yes"}, "split_oversized"),
    ]:
        with pytest.raises(InvalidParamError) as info:
            HierarchicalParams(**kwargs)
        assert info.value.param == bad


def test_hierarchical_defaults() -> None:
    import chunkviz

    described = {s["name"]: {p["name"]: p["default"] for p in s["params"]} for s in chunkviz.strategies()}
    assert described["hierarchical"] == {"depth": 3, "max_tokens": 1000, "split_oversized": False}


# ============================================================================ exact outputs

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
    assert [c.reason for c in chunks] == [
        "unit_end",
        "end_of_document",
        "unit_end",
        "unit_end",
        "unit_end",
        "unit_end",
        "unit_end",
        "unit_end",
        "unit_end",
    ]
    assert [c.index for c in chunks] == list(range(9))
    assert not any(c.metadata.get("over_size_limit") for c in chunks)


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
    assert tree_rows(chunk(doc, "hierarchical")) == [
        (0, None, "## X\n\nx\n\n", ["X"], False),
        (0, None, "# Y\n\ny\n", ["Y"], False),
    ]


def test_hierarchical_flags_oversized_chunks_but_keeps_them_whole() -> None:
    chunks = chunk(BOOK, "hierarchical", tokenizer="words", max_tokens=8)
    check_hierarchy(BOOK, chunks)
    assert tree_rows(chunks) == tree_rows(chunk(BOOK, "hierarchical"))
    over = {c.text for c in chunks if c.metadata.get("over_size_limit")}
    assert over == {CH4_ALL, CH4_INTRO, S41, S42}  # 47, 10, 10, 21 words > 8
    assert not any(c.metadata.get("indivisible") or c.metadata.get("split_unit") for c in chunks)


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
    assert [c.reason for c in chunks[2:6]] == ["size_limit", "unit_end", "size_limit", "unit_end"]
    assert [c.index for c in chunks if c.metadata.get("over_size_limit")] == [0, 6]
    assert all(c.metadata.get("split_unit") for c in chunks[2:6])
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


def test_rst_hash_line_is_no_heading() -> None:
    # issue 8: a ``# ...`` line of a reStructuredText document is text, not a Markdown heading
    doc = "Title\n=====\n\n# not a heading in rst\n\nBody text.\n"
    assert tree_rows(chunk(doc, "hierarchical", format="rst")) == [(0, None, doc, ["Title"], False)]


# ============================================================================ random Markdown-ish documents


def oracle_tree(doc: HeadingDoc, depth: int) -> list[tuple[int, int, int, tuple[int, int] | None, list[str], bool]]:
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
    def prop(doc: HeadingDoc, depth: int, max_tokens: int, split: bool) -> None:
        text = doc.text
        chunks = chunk(
            text, "hierarchical", tokenizer=tokenizer, depth=depth, max_tokens=max_tokens, split_oversized=split
        )
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
                assert all(c.metadata["split_unit"] for c in pieces)
                assert all(c.reason in SPLIT_REASONS for c in pieces[:-1])
                for c in pieces:
                    if c.metadata.get("indivisible"):
                        assert len(c.text) == 1 and tok.count(c.text) > max_tokens
                    else:
                        assert tok.count(c.text) <= max_tokens
            else:
                assert bool(pieces[0].metadata.get("over_size_limit")) == (n > max_tokens)
                assert not (split and leaf and n > max_tokens and len(text[start:end]) > 1)
            assert pieces[-1].reason == ("end_of_document" if end == len(text) else "unit_end")
            assert (pieces[0].index in kids) == (not leaf)
        assert next(got, None) is None

    prop()


# ============================================================================ real documents

REAL = realdoc_text_paths()


@pytest.mark.skipif(not REAL, reason=f"shared realdocs not found at {REALDOCS}")
@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_real_documents(path: Path) -> None:
    text = read_realdoc(path)
    for params in ({}, {"depth": 2, "max_tokens": 128, "split_oversized": True}):
        tree = chunk(text, "hierarchical", **params)
        check_hierarchy(text, tree)
    if path.name in ("pep-0008.rst", "ripgrep_README.md", "common_paper_mutual_nda_v1_coverpage.md"):
        # documents with nested headings: more than one level
        assert any(c.level > 0 for c in chunk(text, "hierarchical"))
