"""The ``headings`` strategy (seed 000 §13.5.1): one chunk per leaf section, split when too large.

Exact expected outputs on small Markdown / reStructuredText documents (in tests/support/texts.py: the texts of
the chunks are spelled out, so the offsets follow from them), then property tests over random
Markdown-ish documents whose headings the generator knows (an oracle independent of the parser),
then the shared real documents.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.hierarchy import assert_tiles, check_hierarchy, check_section_chunk, oracle_paths
from support.paths import REALDOCS, read_realdoc, realdoc_text_paths
from support.texts import (
    AUTH,
    GUIDE,
    MD,
    OAUTH,
    PRE,
    RST,
    RST_INSTALL,
    RST_OPTIONS,
    RST_USAGE,
    S_AUTH,
    S_ERRORS,
    S_GUIDE,
    S_OAUTH,
    SETTINGS,
    HeadingDoc,
    examples,
    markdown_docs,
)

from chunkviz import InvalidParamError, chunk
from chunkviz.core.types import Chunk
from chunkviz.document.model import as_document
from chunkviz.strategies import get_strategy
from chunkviz.strategies.headings import HeadingsParams
from chunkviz.text.tokenizers import get_tokenizer

#: the reason between the pieces of a split section (the recursive splitter's cut; where the cut
#: falls, paragraph / line / word, is the chunk's ``boundary`` now, no longer its reason)
SPLIT_REASONS = {"size_limit"}


# ============================================================================ checkers


def check_headings_chunks(
    text: str, chunks: Sequence[Chunk], tokenizer: str | None = None, max_tokens: int | None = None
) -> None:
    """The flat contract of ``headings``: exact spans that tile the text from the first chunk on,
    no chunk over ``max_tokens`` unless it is one character flagged indivisible."""
    if not text.strip():
        assert chunks == []
        return
    for k, c in enumerate(chunks):
        check_section_chunk(text, c, k)
        assert c.level == 0 and c.parent is None
    assert_tiles(text, chunks, 0, len(text), "headings")
    if max_tokens is not None:
        tok = get_tokenizer(tokenizer or "cl100k_base")
        for c in chunks:
            n = tok.count(c.text)
            if c.metadata.get("indivisible"):
                assert c.metadata.get("over_size_limit") and n > max_tokens and len(c.text) == 1
            else:
                assert n <= max_tokens, f"chunk {c.index} has {n} > {max_tokens} tokens and is not flagged"
                assert not c.metadata.get("over_size_limit")


def rows(chunks: Sequence[Chunk]) -> list[tuple[str, str, list[str]]]:
    return [(c.text, c.reason, c.metadata["heading_path"]) for c in chunks]


# ============================================================================ exact outputs


def test_atx_sections_with_paths_and_preamble() -> None:
    chunks = chunk(MD, "headings")
    check_headings_chunks(MD, chunks, "cl100k_base", 128)
    assert rows(chunks) == [
        (PRE, "unit_end", []),
        (S_GUIDE, "unit_end", [GUIDE]),
        (S_AUTH, "unit_end", [GUIDE, AUTH]),
        # the "# get a token" line is inside a fenced code block: not a heading, no cut
        (S_OAUTH, "unit_end", [GUIDE, AUTH, OAUTH]),
        # closing hashes are not part of the title
        (S_ERRORS, "end_of_document", [GUIDE, "Errors"]),
    ]
    assert [(c.start, c.end) for c in chunks] == [(0, 18), (18, 50), (50, 86), (86, 162), (162, 190)]
    assert chunks[3].metadata["section"] == "Guide > Authentication > OAuth 2.0"
    assert [c.metadata["heading_level"] for c in chunks] == [0, 1, 2, 3, 2]
    assert not any("merged_sections" in c.metadata or "split_unit" in c.metadata for c in chunks)


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
        (title, "unit_end", ["Field Guide"]),
        (sub, "unit_end", ["Field Guide", "Owls"]),
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
    assert [(c.start, c.end, c.reason) for c in chunks] == [(0, 21, "unit_end"), (21, len(doc), "end_of_document")]
    assert [c.metadata["heading_path"] for c in chunks] == [["Title"], ["Title", "Sub"]]
    check_headings_chunks(doc, chunks)
    tree = chunk(doc, "hierarchical")
    check_hierarchy(doc, tree)
    assert [(c.level, c.parent, c.start, c.end) for c in tree] == [
        (0, None, 0, len(doc)),
        (1, 0, 0, 21),
        (1, 0, 21, len(doc)),
    ]


def test_hash_lines_in_code_are_not_headings() -> None:
    doc = "# Setup\n\n~~~bash\n# install\n## still a comment\n~~~\n\n    # indented code\n\nDone.\n"
    assert rows(chunk(doc, "headings")) == [(doc, "end_of_document", ["Setup"])]


def test_skipped_heading_levels_nest_under_the_nearest_higher_heading() -> None:
    a, b, c = "# A\n\nx\n\n", "### B\n\ny\n\n", "## C\n\nz\n"
    assert rows(chunk(a + b + c, "headings")) == [
        (a, "unit_end", ["A"]),
        (b, "unit_end", ["A", "B"]),
        (c, "end_of_document", ["A", "C"]),
    ]


def test_max_level_keeps_deeper_headings_inside_their_section() -> None:
    assert rows(chunk(MD, "headings", max_level=2)) == [
        (PRE, "unit_end", []),
        (S_GUIDE, "unit_end", [GUIDE]),
        (S_AUTH + S_OAUTH, "unit_end", [GUIDE, AUTH]),
        (S_ERRORS, "end_of_document", [GUIDE, "Errors"]),
    ]
    assert rows(chunk(MD, "headings", max_level=1)) == [
        (PRE, "unit_end", []),
        (S_GUIDE + S_AUTH + S_OAUTH + S_ERRORS, "end_of_document", [GUIDE]),
    ]
    # headings deeper than max_level before the first kept one belong to the preamble
    doc = "### Note\n\nfine print\n\n# Top\n\ntext\n"
    assert rows(chunk(doc, "headings", max_level=1)) == [
        ("### Note\n\nfine print\n\n", "unit_end", []),
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
        (SPLIT_TITLE, "unit_end", ["Title"]),
        ("## Long\n\none two three.\n\n", "size_limit", long_path),
        ("four five six.\n\n", "size_limit", long_path),
        ("seven eight nine ten eleven", "size_limit", long_path),
        (" twelve.\n\n", "unit_end", long_path),
        (SPLIT_SHORT, "end_of_document", ["Title", "Short"]),
    ]
    assert [bool(c.metadata.get("split_unit")) for c in chunks] == [False, True, True, True, True, False]
    assert chunks[1].metadata["separator"] == "\n\n" and chunks[3].metadata["separator"] == " "
    # where the cuts fall (formerly the reasons paragraph / word) is the chunks' boundary now
    assert [c.boundary for c in chunks[1:5]] == ["paragraph", "paragraph", "word", "section"]


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
        (MERGE_A, "unit_end", ["A"]),
        (MERGE_B, "unit_end", ["A", "B"]),
        (MERGE_C, "unit_end", ["A", "C"]),
        (MERGE_D, "end_of_document", ["A", "D"]),
    ]
    # A (3) < 8 takes B (6 <= 10); 6 < 8 takes C (9 <= 10); 9 >= 8 stops. D (9) is not small.
    chunks = chunk(doc, "headings", tokenizer="words", max_tokens=10, merge_small=8)
    check_headings_chunks(doc, chunks, "words", 10)
    assert rows(chunks) == [
        (MERGE_A + MERGE_B + MERGE_C, "unit_end", ["A"]),
        (MERGE_D, "end_of_document", ["A", "D"]),
    ]
    assert chunks[0].metadata["merged_sections"] == [["A"], ["A", "B"], ["A", "C"]]
    assert chunks[0].metadata["section"] == "A"
    assert "merged_sections" not in chunks[1].metadata
    # a small section whose merge with the next would exceed max_tokens stays alone; so does a
    # small last section (there is no next one)
    chunks = chunk(doc, "headings", tokenizer="words", max_tokens=11, merge_small=4)
    assert rows(chunks) == [
        (MERGE_A + MERGE_B, "unit_end", ["A"]),
        (MERGE_C, "unit_end", ["A", "C"]),  # 3 < 4 but C + D = 12 > 11
        (MERGE_D, "end_of_document", ["A", "D"]),
    ]
    tail = chunk(MERGE_D + "## E\n\ne\n", "headings", tokenizer="words", max_tokens=20, merge_small=5)
    assert rows(tail) == [(MERGE_D, "unit_end", ["D"]), ("## E\n\ne\n", "end_of_document", ["E"])]  # E: 3 < 5, last


def test_merge_small_can_take_the_preamble_into_the_first_section() -> None:
    doc = "Hi.\n\n# Intro\n\nSome words here.\n"
    chunks = chunk(doc, "headings", tokenizer="words", max_tokens=50, merge_small=3)
    assert rows(chunks) == [(doc, "end_of_document", [])]
    assert chunks[0].metadata["merged_sections"] == [[], ["Intro"]]


def test_restructuredtext_underlined_headings() -> None:
    doc = RST + RST_INSTALL + RST_OPTIONS + RST_USAGE
    chunks = chunk(doc, "headings")
    check_headings_chunks(doc, chunks)
    # levels follow the order in which adornment styles first appear: overlined "=", "-", "~"
    assert rows(chunks) == [
        (RST, "unit_end", ["User Guide"]),
        (RST_INSTALL, "unit_end", ["User Guide", "Install"]),
        (RST_OPTIONS, "unit_end", ["User Guide", "Install", "Options"]),
        (RST_USAGE, "end_of_document", ["User Guide", "Usage"]),
    ]
    assert [c.metadata["heading_level"] for c in chunks] == [1, 2, 3, 2]


def test_rst_hash_line_is_no_heading() -> None:
    # issue 8: a ``# ...`` line of a reStructuredText document is text, not a Markdown heading;
    # the strategy reads the document's structure, so it finds the one underlined heading
    doc = "Title\n=====\n\n# not a heading in rst\n\nBody text.\n"
    chunks = chunk(doc, "headings", format="rst")
    assert rows(chunks) == [(doc, "end_of_document", ["Title"])]
    assert len(as_document(doc, "rst").structure.headings) == 1


@pytest.mark.parametrize("text", ["", " ", "\n\n", "\r\n \t"])
def test_empty_or_blank_text_gives_no_chunks(text: str) -> None:
    name = "headings"
    assert chunk(text, name) == []
    spec = get_strategy(name)
    assert spec.function(as_document(text), spec.make_params(), get_tokenizer("words")) == []


@pytest.mark.parametrize(
    ("params", "bad"),
    [
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": -1}, "max_tokens"),
        ({"max_level": 0}, "max_level"),
        ({"max_level": 7}, "max_level"),
        ({"merge_small": -1}, "merge_small"),
        ({"merge_small": 128}, "merge_small"),  # not below the default max_tokens
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


def test_defaults() -> None:
    import chunkviz

    described = {s["name"]: {p["name"]: p["default"] for p in s["params"]} for s in chunkviz.strategies()}
    assert described["headings"] == {"max_tokens": 128, "max_level": 6, "merge_small": 0}


# ============================================================================ random Markdown-ish documents


def oracle_flat(doc: HeadingDoc, max_level: int) -> list[tuple[int, int, list[str]]]:
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


def expected_groups(
    text: str, sections: list[tuple[int, int, list[str]]], tokenizer: str, max_tokens: int, merge_small: int
) -> list[list[tuple[int, int, list[str]]]]:
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


def check_headings_against_oracle(doc: HeadingDoc, chunks: list[Chunk], tokenizer: str, params: dict[str, Any]) -> None:
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
        final = "end_of_document" if end == len(text) else "unit_end"
        pieces = []
        while k < len(chunks) and chunks[k].end <= end:
            pieces.append(chunks[k])
            k += 1
        assert pieces and pieces[0].start == start and pieces[-1].end == end, (
            start,
            end,
            [(c.start, c.end) for c in pieces],
        )
        for c in pieces:
            assert c.metadata["heading_path"] == path
        if len(group) > 1:
            assert len(pieces) == 1 and pieces[0].metadata["merged_sections"] == [g[2] for g in group]
        else:
            assert all("merged_sections" not in c.metadata for c in pieces)
        if tok.count(text[start:end]) <= max_tokens:
            assert len(pieces) == 1 and pieces[0].reason == final and not pieces[0].metadata.get("split_unit")
        else:
            assert len(group) == 1, "a merged group never exceeds max_tokens"
            assert len(pieces) > 1 and all(c.metadata["split_unit"] for c in pieces)
            assert pieces[-1].reason == final
            assert all(c.reason in SPLIT_REASONS for c in pieces[:-1])
    assert k == len(chunks)


@pytest.mark.parametrize("tokenizer", ["words", "cl100k_base"])
def test_headings_on_random_markdown(tokenizer: str) -> None:
    @settings(max_examples=examples(150), **SETTINGS)
    @given(doc=markdown_docs(), params=headings_params())
    def prop(doc: HeadingDoc, params: dict[str, Any]) -> None:
        chunks = chunk(doc.text, "headings", tokenizer=tokenizer, **params)
        check_headings_against_oracle(doc, chunks, tokenizer, params)

    prop()


# ============================================================================ real documents

REAL = realdoc_text_paths()


@pytest.mark.skipif(not REAL, reason=f"shared realdocs not found at {REALDOCS}")
@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_real_documents(path: Path) -> None:
    text = read_realdoc(path)
    for params in ({}, {"max_tokens": 64}, {"max_tokens": 200, "merge_small": 50, "max_level": 2}):
        chunks = chunk(text, "headings", **params)
        check_headings_chunks(text, chunks, "cl100k_base", params.get("max_tokens", 128))
    if path.name in ("pep-0008.rst", "ripgrep_README.md", "common_paper_mutual_nda_v1_coverpage.md"):
        # documents with nested headings: several sections, more than one level
        assert len(chunk(text, "headings", max_tokens=100_000)) > 5
