"""Multi-level strategies (parent_child, small_to_big) and chunk enrichment.

Exact expected outputs were derived by hand from the definitions (seed 000 §13.7.1, §13.9.1,
§13.9.2; guide 001 strategy 4 and step 5) with the ``words`` tokenizer (a token is a run of
non-spaces that starts at its first character) unless said otherwise; the comments give the
derivation. The property tests check the multi-level convention: one list, parents (level 0)
first, then children (level 1), each level in document order, ``index`` = list position,
``parent`` = index of the containing parent, parents cover the document's non-whitespace and
each parent's children cover the parent's non-whitespace.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from typing import Any, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunkviz
from chunkviz import Chunk, InvalidParamError, Reason, chunk, enrich
from chunkviz.segment import cached_sentence_starts
from chunkviz.strategies.paragraphs import paragraph_starts
from chunkviz.tokenizers import EMBEDDING_MODEL_MAX_TOKENS, get_tokenizer

from conftest import ADVERSARIAL_PIECES, adversarial_text, prose_text

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def rows(chunks: Sequence[Chunk]) -> list[tuple[Any, ...]]:
    """(level, parent, start, end, text, reason, metadata) of every chunk."""
    return [(c.level, c.parent, c.start, c.end, c.text, c.reason, dict(c.metadata)) for c in chunks]


# ============================================================================ registry, params


def test_registered_with_the_guide_defaults() -> None:
    described = {s["name"]: s for s in chunkviz.strategies()}
    defaults = {name: {p["name"]: p["default"] for p in described[name]["params"]} for name in ("parent_child", "small_to_big")}
    assert defaults["parent_child"] == {"parent_size": 1000, "child_size": 200, "child_overlap": 30, "parents": "fixed"}
    assert defaults["small_to_big"] == {"max_parent_tokens": 1000, "max_child_tokens": 200}
    parents = next(p for p in described["parent_child"]["params"] if p["name"] == "parents")
    assert parents["choices"] == ["fixed", "sections"]
    assert Reason.PARENT_END == "parent_end"


@pytest.mark.parametrize(
    ("params", "bad"),
    [
        ({"child_size": 10, "child_overlap": 10}, "child_overlap"),  # overlap == child size
        ({"child_size": 10, "child_overlap": 11}, "child_overlap"),
        ({"child_size": 20}, "child_overlap"),  # the default overlap (30) is not below 20
        ({"parent_size": 100, "child_size": 100, "child_overlap": 5}, "child_size"),  # child == parent
        ({"parent_size": 100, "child_size": 150, "child_overlap": 5}, "child_size"),
        ({"parent_size": 150}, "child_size"),  # the default child size (200) is not below 150
        ({"parent_size": 1}, "parent_size"),  # below the minimum
        ({"child_size": 0}, "child_size"),
        ({"child_overlap": -1}, "child_overlap"),
        ({"parents": "chapters"}, "parents"),
        ({"parent_size": "big"}, "parent_size"),
    ],
)
def test_parent_child_invalid_params_name_the_param(params: dict[str, Any], bad: str) -> None:
    with pytest.raises(InvalidParamError) as info:
        chunk("some text here", "parent_child", tokenizer="words", **params)
    assert info.value.param == bad
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize(
    ("params", "bad"),
    [({"max_parent_tokens": 0}, "max_parent_tokens"), ({"max_child_tokens": 0}, "max_child_tokens"), ({"x": 1}, "x")],
)
def test_small_to_big_invalid_params_name_the_param(params: dict[str, Any], bad: str) -> None:
    with pytest.raises(InvalidParamError) as info:
        chunk("some text here", "small_to_big", tokenizer="words", **params)
    assert info.value.param == bad


def test_blank_text_gives_no_chunks() -> None:
    for name in ("parent_child", "small_to_big"):
        assert chunk("", name) == []
        assert chunk(" \n\r\n\t ", name) == []


# ============================================================================ parent_child: exact


TWELVE = "one two three four five six seven eight nine ten eleven twelve"
# word starts: one 0, two 4, three 8, four 14, five 19, six 24, seven 28, eight 34, nine 40,
# ten 45, eleven 49, twelve 56; len 62


def test_parent_child_fixed_parents_and_overlapping_children_exact() -> None:
    # parents: windows of 5 tokens, no overlap -> tokens [0,5) [5,10) [10,12)
    #   = [0, start(six)=24), [24, start(eleven)=49), [49, 62)
    # children: 3 tokens, overlap 1 (step 2) *within* each parent:
    #   parent 0 (5 tokens): windows from 0 and 2 -> [0,3) = [0,14), [2,5) = [8,24) (stops at the parent)
    #   parent 1: [5,8) = [24,40), [7,10) = [34,49); parent 2 (2 tokens): one window [49,62)
    got = chunk(TWELVE, "parent_child", tokenizer="words", parent_size=5, child_size=3, child_overlap=1)
    assert rows(got) == [
        (0, None, 0, 24, "one two three four five ", "token_cap", {"token_start": 0, "token_end": 5, "token_count": 5}),
        (0, None, 24, 49, "six seven eight nine ten ", "token_cap", {"token_start": 5, "token_end": 10, "token_count": 5}),
        (0, None, 49, 62, "eleven twelve", "end_of_document", {"token_start": 10, "token_end": 12, "token_count": 2}),
        (1, 0, 0, 14, "one two three ", "token_cap", {"token_count": 3}),
        (1, 0, 8, 24, "three four five ", "parent_end", {"token_count": 3}),
        (1, 1, 24, 40, "six seven eight ", "token_cap", {"token_count": 3}),
        (1, 1, 34, 49, "eight nine ten ", "parent_end", {"token_count": 3}),
        (1, 2, 49, 62, "eleven twelve", "parent_end", {"token_count": 2}),
    ]
    assert [c.index for c in got] == list(range(8))


def test_parent_child_children_never_cross_a_parent_boundary() -> None:
    # flat windows of 3 with overlap 1 would give [8, 24+5) "three four five six"-like spans across
    # the parent cut at 24; inside parents the window ending there is short instead
    got = chunk(TWELVE, "parent_child", tokenizer="words", parent_size=5, child_size=3, child_overlap=1)
    parents = [c for c in got if c.level == 0]
    cuts = {p.end for p in parents[:-1]}
    for c in got:
        if c.level == 1:
            p = got[c.parent]
            assert p.level == 0 and p.start <= c.start < c.end <= p.end
            assert not any(c.start < cut < c.end for cut in cuts)


def test_parent_child_chars_tokenizer_exact() -> None:
    # "abcdefghij" in characters: parents of 4 -> [0,4) [4,8) [8,10); children of 3, overlap 2
    # (step 1) inside each: [0,3) [1,4) | [4,7) [5,8) | [8,10)
    got = chunk("abcdefghij", "parent_child", tokenizer="chars", parent_size=4, child_size=3, child_overlap=2)
    assert [(c.level, c.parent, c.text, c.reason) for c in got] == [
        (0, None, "abcd", "token_cap"),
        (0, None, "efgh", "token_cap"),
        (0, None, "ij", "end_of_document"),
        (1, 0, "abc", "token_cap"),
        (1, 0, "bcd", "parent_end"),
        (1, 1, "efg", "token_cap"),
        (1, 1, "fgh", "parent_end"),
        (1, 2, "ij", "parent_end"),
    ]


def test_parent_child_guide_defaults_with_cl100k() -> None:
    # "The quick brown fox jumps over the lazy dog. " is 45 characters; 250 of them, stripped, are
    # 2,500 cl100k tokens, 10 per sentence: "The"/" The", " quick", ..., " dog", ".". Token 10*j
    # (j >= 1) is " The" of sentence j, starting at the space before it: char 45*j - 1, i.e.
    # char(i) = 4.5*i - 1 for token indexes i that are multiples of 10. len = 11,249.
    text = ("The quick brown fox jumps over the lazy dog. " * 250).strip()
    enc = get_tokenizer("cl100k_base").encoding
    assert len(text) == 11_249 and len(enc.encode_ordinary(text)) == 2_500

    def char(i: int) -> int:
        return 0 if i == 0 else int(4.5 * i) - 1

    got = chunk(text, "parent_child")  # parent_size 1000, child_size 200, child_overlap 30
    parents = [c for c in got if c.level == 0]
    # parents: tokens [0,1000) [1000,2000) [2000,2500)
    assert [(p.start, p.end, p.reason) for p in parents] == [
        (0, 4_499, "token_cap"),
        (4_499, 8_999, "token_cap"),
        (8_999, 11_249, "end_of_document"),
    ]
    assert [p.metadata["token_count"] for p in parents] == [1000, 1000, 500]
    # children: step 170; a 1000-token parent has windows from 0, 170, 340, 510, 680, 850 (the
    # last one 150 tokens); the 500-token parent from 0, 170, 340 (the last one 160 tokens)
    expected = []
    for k, (base, n) in enumerate([(0, 1000), (1000, 1000), (2000, 500)]):
        firsts = [0, 170, 340, 510, 680, 850] if n == 1000 else [0, 170, 340]
        for first in firsts:
            stop = min(first + 200, n)
            end = parents[k].end if stop == n else char(base + stop)
            expected.append((k, char(base + first) if first else parents[k].start, end, stop - first))
    children = [c for c in got if c.level == 1]
    assert [(c.parent, c.start, c.end, c.metadata["token_count"]) for c in children] == expected
    assert expected[:3] == [(0, 0, 899, 200), (0, 764, 1_664, 200), (0, 1_529, 2_429, 200)]
    assert expected[-1] == (2, 10_529, 11_249, 160)
    assert [c.reason for c in children].count("parent_end") == 3


def test_parent_child_sections_parents_exact() -> None:
    md = "Preface line.\n\n# Guide\n\nAlpha beta.\n\n## Auth\n\nOne two three four five six seven.\n"
    # leaf sections: the preface [0,15), "# Guide ..." [15,37), "## Auth ..." [37,81)
    # words: preface 2; Guide section "#", "Guide", "Alpha", "beta." = 4; Auth section "##", "Auth"
    #   + 7 words = 9 > parent_size 6: split into windows [0,6) = [37, start(five)=65) and [65,81)
    # children of 3 tokens, overlap 1 (step 2):
    #   Guide (4 tokens: # 15, Guide 17, Alpha 24, beta. 30): [0,3) = [15,30), [2,4) = [24,37)
    #   Auth window 1 (## 37, Auth 40, One 46, two 50, three 54, four 60): [37,50) [46,60) [54,65)
    got = chunk(md, "parent_child", tokenizer="words", parent_size=6, child_size=3, child_overlap=1, parents="sections")
    assert rows(got) == [
        (0, None, 0, 15, "Preface line.\n\n", "heading", {"token_count": 2, "heading_path": []}),
        (0, None, 15, 37, "# Guide\n\nAlpha beta.\n\n", "heading", {"token_count": 4, "heading_path": ["Guide"]}),
        (0, None, 37, 65, "## Auth\n\nOne two three four ", "token_cap",
         {"token_count": 6, "heading_path": ["Guide", "Auth"], "split_section": True}),
        (0, None, 65, 81, "five six seven.\n", "end_of_document",
         {"token_count": 3, "heading_path": ["Guide", "Auth"], "split_section": True}),
        (1, 0, 0, 15, "Preface line.\n\n", "parent_end", {"token_count": 2}),
        (1, 1, 15, 30, "# Guide\n\nAlpha ", "token_cap", {"token_count": 3}),
        (1, 1, 24, 37, "Alpha beta.\n\n", "parent_end", {"token_count": 2}),
        (1, 2, 37, 50, "## Auth\n\nOne ", "token_cap", {"token_count": 3}),
        (1, 2, 46, 60, "One two three ", "token_cap", {"token_count": 3}),
        (1, 2, 54, 65, "three four ", "parent_end", {"token_count": 2}),
        (1, 3, 65, 81, "five six seven.\n", "parent_end", {"token_count": 3}),
    ]


def test_parent_child_sections_blank_preamble_and_no_headings() -> None:
    # a whitespace-only preamble joins the first section; a text without headings is one section
    got = chunk("\n\n# A\nx y\n## B\nz\n", "parent_child", tokenizer="words", parent_size=10, child_size=5,
                child_overlap=0, parents="sections")
    parents = [(c.text, c.reason, c.metadata["heading_path"]) for c in got if c.level == 0]
    assert parents == [("\n\n# A\nx y\n", "heading", ["A"]), ("## B\nz\n", "end_of_document", ["A", "B"])]
    flat = chunk("just words here", "parent_child", tokenizer="words", parent_size=10, child_size=5,
                 child_overlap=0, parents="sections")
    assert rows(flat)[0] == (0, None, 0, 15, "just words here", "end_of_document", {"token_count": 3, "heading_path": []})


def test_parent_child_text_without_tokens_is_kept() -> None:
    # U+200B is not whitespace, but the MiniLM tokenizer produces no wordpiece for it
    got = chunk("\u200b\u200b", "parent_child", tokenizer="minilm", parent_size=4, child_size=2, child_overlap=0)
    assert [(c.level, c.parent, c.start, c.end, c.metadata["token_count"]) for c in got] == [(0, None, 0, 2, 0), (1, 0, 0, 2, 0)]


# ============================================================================ small_to_big: exact


def test_small_to_big_paragraph_parents_and_sentence_children_exact() -> None:
    # paragraphs "Alpha beta. Gamma delta.\n\n" [0,26) and "Epsilon zeta." [26,39); sentences
    # "Alpha beta." | " Gamma delta.\n\n" (the space after a sentence end is a clean words cut, so
    # the whitespace between two sentences of a paragraph starts the next one) | "Epsilon zeta."
    text = "Alpha beta. Gamma delta.\n\nEpsilon zeta."
    assert list(cached_sentence_starts(text)) == [0, 12, 26]
    got = chunk(text, "small_to_big", tokenizer="words")
    assert rows(got) == [
        (0, None, 0, 26, "Alpha beta. Gamma delta.\n\n", "paragraph", {"token_count": 4, "paragraph": 0}),
        (0, None, 26, 39, "Epsilon zeta.", "end_of_document", {"token_count": 2, "paragraph": 1}),
        (1, 0, 0, 11, "Alpha beta.", "sentence_end", {"token_count": 2, "paragraph": 0}),
        (1, 0, 11, 26, " Gamma delta.\n\n", "parent_end", {"token_count": 2, "paragraph": 0}),
        (1, 1, 26, 39, "Epsilon zeta.", "parent_end", {"token_count": 2, "paragraph": 1}),
    ]


def test_small_to_big_splits_long_paragraphs_and_sentences_and_flags_them() -> None:
    # paragraph 0 has 3 + 6 = 9 words > max_parent_tokens 6: split at the sentence end into two
    # parents (flag split_paragraph); the 6-word sentence > max_child_tokens 4 is split at words
    # into "Second one is longer" (4) and " than that.\n\n" (2), both flagged split_sentence;
    # paragraph 1 (2 + 4 = 6 words) fits and keeps its two sentences
    text = "First sentence here. Second one is longer than that.\n\nNew paragraph. It has two sentences."
    assert list(cached_sentence_starts(text)) == [0, 21, 54, 69]
    got = chunk(text, "small_to_big", tokenizer="words", max_parent_tokens=6, max_child_tokens=4)
    assert rows(got) == [
        (0, None, 0, 20, "First sentence here.", "sentence_end", {"token_count": 3, "paragraph": 0, "split_paragraph": True}),
        (0, None, 20, 54, " Second one is longer than that.\n\n", "paragraph",
         {"token_count": 6, "paragraph": 0, "split_paragraph": True}),
        (0, None, 54, 90, "New paragraph. It has two sentences.", "end_of_document", {"token_count": 6, "paragraph": 1}),
        (1, 0, 0, 20, "First sentence here.", "parent_end", {"token_count": 3, "paragraph": 0}),
        (1, 1, 20, 41, " Second one is longer", "word", {"token_count": 4, "paragraph": 0, "split_sentence": True}),
        (1, 1, 41, 54, " than that.\n\n", "parent_end", {"token_count": 2, "paragraph": 0, "split_sentence": True}),
        (1, 2, 54, 68, "New paragraph.", "sentence_end", {"token_count": 2, "paragraph": 1}),
        (1, 2, 68, 90, " It has two sentences.", "parent_end", {"token_count": 4, "paragraph": 1}),
    ]


def test_small_to_big_sentence_longer_than_a_parent() -> None:
    # one 5-word sentence with max_parent_tokens 2: the paragraph is split inside the sentence
    # (the parents are pieces of it: split_paragraph and split_sentence), and each child is the
    # matching piece
    text = "a b c d e."
    got = chunk(text, "small_to_big", tokenizer="words", max_parent_tokens=2, max_child_tokens=2)
    parents = [(c.text, c.reason, c.metadata.get("split_sentence")) for c in got if c.level == 0]
    assert parents == [("a b", "word", True), (" c d", "word", True), (" e.", "end_of_document", True)]
    children = [(c.parent, c.text, c.reason) for c in got if c.level == 1]
    assert children == [(0, "a b", "parent_end"), (1, " c d", "parent_end"), (2, " e.", "parent_end")]


# ============================================================================ enrichment: exact

GUIDE = (
    "# Guide\n\nIntro text.\n\n"  # [0, 22)
    "## Authentication\n\n"  # [22, 41)
    "### OAuth 2.0\n\nUse tokens.\n"  # [41, 68)
)


def _flat(text: str, cuts: list[int]) -> list[Chunk]:
    return [Chunk.from_span(text, k, a, b, "paragraph") for k, (a, b) in enumerate(zip(cuts[:-1], cuts[1:]))]


def test_enrich_exact_prefix_and_metadata() -> None:
    assert len(GUIDE) == 68
    chunks = _flat(GUIDE, [0, 22, 41, 68])
    got = enrich(GUIDE, chunks, source="docs/guide.md", date="2024-05-01", tokenizer="words")
    assert [c.added_text for c in got] == [
        "Document: Guide\nSection: Guide\nDate: 2024-05-01\n\n",
        "Document: Guide\nSection: Guide > Authentication\nDate: 2024-05-01\n\n",
        "Document: Guide\nSection: Guide > Authentication > OAuth 2.0\nDate: 2024-05-01\n\n",
    ]
    # words: "# Guide Intro text." = 4, prefix "Document: Guide Section: Guide Date: 2024-05-01" = 6;
    # "## Authentication" = 2, its prefix (with "Guide > Authentication") 8; "### OAuth 2.0 Use
    # tokens." = 5, its prefix 11
    base = {"source": "docs/guide.md", "title": "Guide", "date": "2024-05-01", "enriched_over_limit": False}
    assert [dict(c.metadata) for c in got] == [
        {**base, "section": "Guide", "heading_path": ["Guide"], "position": 0, "token_count": 4, "enriched_token_count": 10},
        {**base, "section": "Guide > Authentication", "heading_path": ["Guide", "Authentication"], "position": 1,
         "token_count": 2, "enriched_token_count": 10},
        {**base, "section": "Guide > Authentication > OAuth 2.0", "heading_path": ["Guide", "Authentication", "OAuth 2.0"],
         "position": 2, "token_count": 5, "enriched_token_count": 16},
    ]
    # spans, indexes, reasons untouched; the inputs are not modified
    assert [(c.index, c.start, c.end, c.text, c.reason, c.level, c.parent) for c in got] == [
        (c.index, c.start, c.end, c.text, c.reason, c.level, c.parent) for c in chunks
    ]
    assert all(c.added_text == "" and dict(c.metadata) == {} for c in chunks)


def test_enrich_section_is_taken_at_the_first_non_space_character() -> None:
    # the chunk [20, 41) starts in the blank line before "## Authentication": its section is that one
    chunks = _flat(GUIDE, [0, 20, 41, 68])
    got = enrich(GUIDE, chunks, include=("section",), tokenizer="words")
    assert [c.added_text for c in got] == [
        "Section: Guide\n\n",
        "Section: Guide > Authentication\n\n",
        "Section: Guide > Authentication > OAuth 2.0\n\n",
    ]


def test_enrich_title_fallback_include_and_existing_added_text() -> None:
    text = "Plain text without headings.\n\nSecond paragraph."
    chunks = [
        Chunk.from_span(text, 0, 0, 30, "paragraph", added_text="Context: a note.\n"),
        Chunk.from_span(text, 1, 30, len(text), "end_of_document"),
    ]
    got = enrich(text, chunks, source="corpus/notes.txt", tokenizer="words")
    # no level-1 heading: the title is the source's file name; no section, no date
    assert [c.added_text for c in got] == ["Document: notes.txt\n\nContext: a note.\n", "Document: notes.txt\n\n"]
    assert got[0].metadata["section"] == "" and got[0].metadata["heading_path"] == []
    assert got[0].metadata["enriched_token_count"] == 2 + 3 + 4
    # nothing to prepend: no source, no title, no headings
    bare = enrich(text, chunks, tokenizer="words")
    assert [c.added_text for c in bare] == ["Context: a note.\n", ""]
    assert "title" not in bare[1].metadata and bare[1].metadata["source"] == ""
    # an explicit title wins; include filters and keeps the fixed order
    titled = enrich(GUIDE, _flat(GUIDE, [0, 68]), title="Manual", date="2020", include=("date", "title"), tokenizer="words")
    assert titled[0].added_text == "Document: Manual\nDate: 2020\n\n"
    with pytest.raises(ValueError, match="'author'"):
        enrich(text, chunks, include=("title", "author"))


def test_enrich_positions_are_per_level() -> None:
    got = enrich(TWELVE, chunk(TWELVE, "parent_child", tokenizer="words", parent_size=5, child_size=3, child_overlap=1),
                 tokenizer="words")
    assert [(c.level, c.metadata["position"], c.parent) for c in got] == [
        (0, 0, None), (0, 1, None), (0, 2, None), (1, 0, 0), (1, 1, 0), (1, 2, 1), (1, 3, 1), (1, 4, 2)
    ]
    assert all(c.metadata["token_count"] == len(c.text.split()) for c in got)


def test_enrich_flags_chunks_pushed_over_the_embedding_limit() -> None:
    # 250 "word" wordpieces + [CLS]/[SEP] = 252 <= 256: the chunk fits all-MiniLM-L6-v2 alone; the
    # prefix "Document: Guide\nSection: Guide\n\n" adds 6 wordpieces (document : guide section :
    # guide) -> 258 > 256
    minilm = get_tokenizer("minilm")
    text = "# Guide\n\n" + "word " * 250
    body = Chunk.from_span(text, 0, 9, len(text), "end_of_document")
    assert minilm.count(body.text) + 2 == 252 <= EMBEDDING_MODEL_MAX_TOKENS
    (got,) = enrich(text, [body])
    assert got.added_text == "Document: Guide\nSection: Guide\n\n"
    assert minilm.count(got.added_text + got.text) + 2 == 258
    assert got.metadata["enriched_over_limit"] is True
    (short,) = enrich(text, [body], include=())
    assert short.added_text == "" and short.metadata["enriched_over_limit"] is False
    assert got.metadata["token_count"] == get_tokenizer("cl100k_base").count(body.text)
    assert got.metadata["enriched_token_count"] == get_tokenizer("cl100k_base").count(got.added_text + body.text)


# ============================================================================ properties


def assert_valid_multilevel(text: str, chunks: list[Chunk]) -> tuple[list[Chunk], list[Chunk]]:
    """The multi-level convention; returns (parents, children)."""
    if not text.strip():
        assert chunks == []
        return [], []
    reasons = {str(r) for r in Reason}
    n = len(text)
    assert chunks
    for k, c in enumerate(chunks):
        assert c.index == k
        assert 0 <= c.start < c.end <= n, (k, c.start, c.end)
        assert c.text == text[c.start : c.end]
        assert c.reason in reasons
        if c.reason == Reason.END_OF_DOCUMENT:
            assert c.end == n
        assert c.added_text == ""
        assert c.level in (0, 1)
    levels = [c.level for c in chunks]
    assert levels == sorted(levels), "all parents first, then all children"
    parents = [c for c in chunks if c.level == 0]
    children = [c for c in chunks if c.level == 1]
    assert parents and children
    for level in (parents, children):
        for a, b in zip(level, level[1:]):
            assert (a.start, a.end) <= (b.start, b.end) and a.end <= b.end, "each level in document order"
    # parents: no parent, tile the document (so they cover every non-whitespace character)
    assert all(p.parent is None for p in parents)
    assert parents[0].start == 0 and parents[-1].end == n
    for a, b in zip(parents, parents[1:]):
        assert a.end == b.start
    # children: inside their parent, grouped by parent in order, covering the parent's non-space
    assert [c.parent for c in children] == sorted(c.parent for c in children)
    by_parent: dict[int, list[Chunk]] = {}
    for c in children:
        assert c.parent is not None and 0 <= c.parent < len(parents)
        p = chunks[c.parent]
        assert p.level == 0 and p.start <= c.start and c.end <= p.end, (c, p)
        by_parent.setdefault(c.parent, []).append(c)
    assert set(by_parent) == set(range(len(parents))), "every parent has children"
    for index, kids in by_parent.items():
        p = chunks[index]
        covered = p.start
        for c in kids:
            assert not text[covered : c.start].strip(), f"parent {index}: {text[covered:c.start]!r} in no child"
            covered = max(covered, c.end)
        assert not text[covered : p.end].strip()
    return parents, children


HEADINGS = ["# Title\n", "\n## Section two\n", "\n### Deep heading ###\n", "Setext\n======\n", "```\n# not a heading\n```\n",
            "\r\n# CRLF heading\r\n", "#\n", "    # indented code\n"]


def multilevel_text() -> st.SearchStrategy[str]:
    long_piece = st.one_of(
        st.integers(40, 300).map(lambda n: "x" * n),
        st.integers(5, 40).map(lambda n: "中文没有空格也能分词吗" * (n // 5 + 1)),
        st.integers(5, 80).map(lambda n: " " * n),
        st.integers(2, 20).map(lambda n: "\r\n" * n),
        st.integers(2, 20).map(lambda n: "😀👍🏽👨\u200d👩\u200d👧" * n),
    )
    piece = st.one_of(long_piece, st.sampled_from(ADVERSARIAL_PIECES), st.sampled_from(HEADINGS), prose_text(12))
    return st.one_of(adversarial_text(40), prose_text(100), st.lists(piece, max_size=14).map("".join), st.text(max_size=60))


TOKENIZERS = ["words", "chars", "cl100k_base", "minilm"]


@st.composite
def parent_child_params(draw: st.DrawFn) -> dict[str, Any]:
    parent = draw(st.integers(2, 40))
    child = draw(st.integers(1, parent - 1))
    return {
        "parent_size": parent,
        "child_size": child,
        "child_overlap": draw(st.integers(0, child - 1)),
        "parents": draw(st.sampled_from(["fixed", "sections"])),
    }


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_parent_child_properties(tokenizer: str) -> None:
    tok = get_tokenizer(tokenizer)

    @settings(max_examples=120, **SETTINGS)
    @given(text=multilevel_text(), params=parent_child_params())
    def prop(text: str, params: dict[str, Any]) -> None:
        got = chunk(text, "parent_child", tokenizer=tokenizer, **params)
        parents, children = assert_valid_multilevel(text, got)
        if not parents:
            return
        for p in parents:
            assert p.reason in ("token_cap", "heading", "end_of_document")
            if not p.metadata.get("indivisible"):
                assert p.metadata["token_count"] <= params["parent_size"], p
            if params["parents"] == "sections":
                assert isinstance(p.metadata["heading_path"], list)
            else:
                assert p.reason != "heading"
        for c in children:
            assert c.reason in ("token_cap", "parent_end")
            assert (c.reason == "parent_end") == (c.end == got[c.parent].end)
            assert c.metadata["token_count"] <= params["child_size"]
        if tokenizer in ("words", "chars"):  # windows = real counts, overlaps exact
            for c in got:
                assert tok.count(c.text) == c.metadata["token_count"], c
            for a, b in zip(children, children[1:]):
                if a.parent == b.parent:
                    assert tok.count(text[b.start : a.end]) == params["child_overlap"]
                    assert a.metadata["token_count"] == params["child_size"], "only a parent's last child may be short"
        if params["parents"] == "sections":
            # a parent never contains a heading except at its very start
            from chunkviz.structure import sections

            heads = {s.start for s in sections(text)}
            for p in parents:
                assert not any(p.start < h < p.end and text[p.start : h].strip() for h in heads), p

    prop()


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_small_to_big_properties(tokenizer: str) -> None:
    tok = get_tokenizer(tokenizer)

    @settings(max_examples=80, **SETTINGS)
    @given(text=multilevel_text(), max_parent=st.one_of(st.integers(1, 8), st.integers(1, 80)), max_child=st.integers(1, 20))
    def prop(text: str, max_parent: int, max_child: int) -> None:
        got = chunk(text, "small_to_big", tokenizer=tokenizer, max_parent_tokens=max_parent, max_child_tokens=max_child)
        parents, children = assert_valid_multilevel(text, got)
        if not parents:
            return
        for c in got:
            assert c.metadata["token_count"] == tok.count(c.text)
            limit = max_parent if c.level == 0 else max_child
            if c.metadata.get("indivisible"):
                assert len(c.text) == 1 and tok.count(c.text) > limit
            else:
                assert tok.count(c.text) <= limit, c
        # children tile their parent; no child holds two sentences
        starts = list(cached_sentence_starts(text))
        by_parent: dict[int, list[Chunk]] = {}
        for c in children:
            by_parent.setdefault(c.parent, []).append(c)
        for index, kids in by_parent.items():
            assert kids[0].start == got[index].start and kids[-1].end == got[index].end
            for a, b in zip(kids, kids[1:]):
                assert a.end == b.start
        for c in children:
            lo, hi = bisect.bisect_right(starts, c.start), bisect.bisect_left(starts, c.end)
            assert not [s for s in starts[lo:hi] if text[c.start : s].strip()], ("two sentences in one child", c)
        # no parent crosses a blank-line paragraph break
        breaks = paragraph_starts(text)[1:]
        for p in parents:
            assert not [b for b in breaks if p.start < b < p.end and text[p.start : b].strip()], ("two paragraphs", p)
            if not p.metadata.get("split_paragraph"):
                assert p.reason in ("paragraph", "end_of_document")

    prop()


@settings(max_examples=60, **SETTINGS)
@given(text=multilevel_text(), name=st.sampled_from(["parent_child", "small_to_big"]), data=st.data())
def test_enrich_keeps_spans_and_structure(text: str, name: str, data: st.DataObject) -> None:
    params = data.draw(parent_child_params()) if name == "parent_child" else {"max_parent_tokens": 30, "max_child_tokens": 8}
    chunks = chunk(text, name, tokenizer="words", **params)
    got = enrich(text, chunks, source="doc.md", date="2024", tokenizer="words")
    assert_valid_multilevel(text, [dataclasses.replace(c, added_text="") for c in got])
    assert [(c.index, c.start, c.end, c.text, c.reason, c.level, c.parent) for c in got] == [
        (c.index, c.start, c.end, c.text, c.reason, c.level, c.parent) for c in chunks
    ]
    for c in got:
        assert c.added_text.endswith("\n\n") and c.added_text.startswith("Document: ")
        assert re.search(r"^Date: 2024$", c.added_text, re.MULTILINE)
        section = c.metadata["section"]
        assert (f"Section: {section}\n" in c.added_text) == bool(section)
        assert c.metadata["enriched_token_count"] == len((c.added_text + c.text).split())
