"""The ``parent_child`` strategy (seed 000 §13.9.1, guide strategy 4).

Exact expected outputs were derived by hand from the definitions with the ``words`` tokenizer (a
token is a run of non-spaces that starts at its first character) unless said otherwise; the
comments give the derivation. The property tests check the multi-level convention
(``assert_valid_multilevel`` in tests/support/chunking.py).
"""

from __future__ import annotations

from typing import Any, Sequence

import pytest
from hypothesis import given, settings
from support.chunking import assert_valid_multilevel
from support.texts import MULTILEVEL_TOKENIZERS as TOKENIZERS
from support.texts import SETTINGS, multilevel_text, parent_child_params

import chunkviz
from chunkviz import Chunk, InvalidParamError, Reason, chunk
from chunkviz.document.model import as_document
from chunkviz.text.tokenizers import get_tokenizer


def rows(chunks: Sequence[Chunk]) -> list[tuple[Any, ...]]:
    """(level, parent, start, end, text, reason, metadata) of every chunk."""
    return [(c.level, c.parent, c.start, c.end, c.text, c.reason, dict(c.metadata)) for c in chunks]


def test_registered_with_defaults_that_fit_the_default_embedding_model() -> None:
    described = {s["name"]: s for s in chunkviz.strategies()}
    defaults = {p["name"]: p["default"] for p in described["parent_child"]["params"]}
    assert defaults == {"parent_size": 1000, "child_size": 128, "child_overlap": 16, "parents": "fixed"}
    parents = next(p for p in described["parent_child"]["params"] if p["name"] == "parents")
    assert parents["choices"] == ["fixed", "sections"]
    assert Reason.PARENT_END == "parent_end"


@pytest.mark.parametrize(
    ("params", "bad"),
    [
        ({"child_size": 10, "child_overlap": 10}, "child_overlap"),  # overlap == child size
        ({"child_size": 10, "child_overlap": 11}, "child_overlap"),
        ({"child_size": 16}, "child_overlap"),  # the default overlap (16) is not below 16
        ({"parent_size": 100, "child_size": 100, "child_overlap": 5}, "child_size"),  # child == parent
        ({"parent_size": 100, "child_size": 150, "child_overlap": 5}, "child_size"),
        ({"parent_size": 128}, "child_size"),  # the default child size (128) is not below 128
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


def test_blank_text_gives_no_chunks() -> None:
    assert chunk("", "parent_child") == []
    assert chunk(" \n\r\n\t ", "parent_child") == []


# ============================================================================ exact outputs


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
        (
            0,
            None,
            0,
            24,
            "one two three four five ",
            "size_limit",
            {"token_start": 0, "token_end": 5, "token_count": 5},
        ),
        (
            0,
            None,
            24,
            49,
            "six seven eight nine ten ",
            "size_limit",
            {"token_start": 5, "token_end": 10, "token_count": 5},
        ),
        (0, None, 49, 62, "eleven twelve", "end_of_document", {"token_start": 10, "token_end": 12, "token_count": 2}),
        (1, 0, 0, 14, "one two three ", "size_limit", {"token_count": 3}),
        (1, 0, 8, 24, "three four five ", "parent_end", {"token_count": 3}),
        (1, 1, 24, 40, "six seven eight ", "size_limit", {"token_count": 3}),
        (1, 1, 34, 49, "eight nine ten ", "parent_end", {"token_count": 3}),
        (
            1,
            2,
            49,
            62,
            "eleven twelve",
            "end_of_document",
            {"token_count": 2},
        ),  # the last child ends at the end of the text: end_of_document (to_chunks' one rule, at every level)
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
        (0, None, "abcd", "size_limit"),
        (0, None, "efgh", "size_limit"),
        (0, None, "ij", "end_of_document"),
        (1, 0, "abc", "size_limit"),
        (1, 0, "bcd", "parent_end"),
        (1, 1, "efg", "size_limit"),
        (1, 1, "fgh", "parent_end"),
        (1, 2, "ij", "end_of_document"),  # at the end of the text
    ]


def test_parent_child_guide_sizes_with_cl100k() -> None:
    # "The quick brown fox jumps over the lazy dog. " is 45 characters; 250 of them, stripped, are
    # 2,500 cl100k tokens, 10 per sentence: "The"/" The", " quick", ..., " dog", ".". Token 10*j
    # (j >= 1) is " The" of sentence j, starting at the space before it: char 45*j - 1, i.e.
    # char(i) = 4.5*i - 1 for token indexes i that are multiples of 10. len = 11,249.
    text = ("The quick brown fox jumps over the lazy dog. " * 250).strip()
    enc = get_tokenizer("cl100k_base").encoding
    assert len(text) == 11_249 and len(enc.encode_ordinary(text)) == 2_500

    def char(i: int) -> int:
        return 0 if i == 0 else int(4.5 * i) - 1

    got = chunk(text, "parent_child", parent_size=1000, child_size=200, child_overlap=30)  # the guide's sizes
    parents = [c for c in got if c.level == 0]
    # parents: tokens [0,1000) [1000,2000) [2000,2500)
    assert [(p.start, p.end, p.reason) for p in parents] == [
        (0, 4_499, "size_limit"),
        (4_499, 8_999, "size_limit"),
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
    # the last parent's last child ends the text: end_of_document (to_chunks' one rule)
    assert [c.reason for c in children].count("parent_end") == 2 and children[-1].reason == "end_of_document"


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
        (0, None, 0, 15, "Preface line.\n\n", "unit_end", {"token_count": 2, "heading_path": []}),
        (0, None, 15, 37, "# Guide\n\nAlpha beta.\n\n", "unit_end", {"token_count": 4, "heading_path": ["Guide"]}),
        (
            0,
            None,
            37,
            65,
            "## Auth\n\nOne two three four ",
            "size_limit",
            {"token_count": 6, "heading_path": ["Guide", "Auth"], "split_unit": True},
        ),
        (
            0,
            None,
            65,
            81,
            "five six seven.\n",
            "end_of_document",
            {"token_count": 3, "heading_path": ["Guide", "Auth"], "split_unit": True},
        ),
        (1, 0, 0, 15, "Preface line.\n\n", "parent_end", {"token_count": 2}),
        (1, 1, 15, 30, "# Guide\n\nAlpha ", "size_limit", {"token_count": 3}),
        (1, 1, 24, 37, "Alpha beta.\n\n", "parent_end", {"token_count": 2}),
        (1, 2, 37, 50, "## Auth\n\nOne ", "size_limit", {"token_count": 3}),
        (1, 2, 46, 60, "One two three ", "size_limit", {"token_count": 3}),
        (1, 2, 54, 65, "three four ", "parent_end", {"token_count": 2}),
        (1, 3, 65, 81, "five six seven.\n", "end_of_document", {"token_count": 3}),  # at the end of the text
    ]


def test_parent_child_sections_blank_preamble_and_no_headings() -> None:
    # a whitespace-only preamble joins the first section; a text without headings is one section
    got = chunk(
        "\n\n# A\nx y\n## B\nz\n",
        "parent_child",
        tokenizer="words",
        parent_size=10,
        child_size=5,
        child_overlap=0,
        parents="sections",
    )
    parents = [(c.text, c.reason, c.metadata["heading_path"]) for c in got if c.level == 0]
    assert parents == [("\n\n# A\nx y\n", "unit_end", ["A"]), ("## B\nz\n", "end_of_document", ["A", "B"])]
    flat = chunk(
        "just words here",
        "parent_child",
        tokenizer="words",
        parent_size=10,
        child_size=5,
        child_overlap=0,
        parents="sections",
    )
    assert rows(flat)[0] == (
        0,
        None,
        0,
        15,
        "just words here",
        "end_of_document",
        {"token_count": 3, "heading_path": []},
    )


def test_parent_child_text_without_tokens_is_kept() -> None:
    # U+200B is not whitespace, but the MiniLM tokenizer produces no wordpiece for it
    got = chunk("\u200b\u200b", "parent_child", tokenizer="minilm", parent_size=4, child_size=2, child_overlap=0)
    assert [(c.level, c.parent, c.start, c.end, c.metadata["token_count"]) for c in got] == [
        (0, None, 0, 2, 0),
        (1, 0, 0, 2, 0),
    ]


# ============================================================================ properties


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
        # every count is the count of the chunk's own text; over the size only when flagged
        for c in got:
            assert c.metadata["token_count"] == tok.count(c.text), c
            size = params["parent_size"] if c.level == 0 else params["child_size"]
            assert bool(c.metadata.get("over_size_limit")) == (c.metadata["token_count"] > size), c
        for p in parents:
            assert p.reason in ("size_limit", "unit_end", "end_of_document")
            if params["parents"] == "sections":
                assert isinstance(p.metadata["heading_path"], list)
            else:
                assert p.reason != "unit_end"
        for a, b in zip(parents, parents[1:]):
            assert b.start == a.end, "parents tile the text"
        for c in children:
            assert c.reason in ("size_limit", "parent_end", "end_of_document")
            # a child ending at the end of the text is end_of_document (to_chunks' rule at every level)
            assert (c.reason in ("parent_end", "end_of_document")) == (c.end == got[c.parent].end)
        for a, b in zip(children, children[1:]):
            if a.parent == b.parent and params["child_overlap"] == 0:
                assert b.start == a.end, "without overlap the children tile their parent"
        if tokenizer in ("words", "chars"):  # windows = real counts, overlaps exact
            for a, b in zip(children, children[1:]):
                if a.parent == b.parent:
                    assert tok.count(text[b.start : a.end]) == params["child_overlap"]
                    assert a.metadata["token_count"] == params["child_size"], "only a parent's last child may be short"
        if params["parents"] == "sections":
            # a parent never contains a heading except at its very start
            heads = {s.start for s in as_document(text).structure.sections}
            for p in parents:
                assert not any(p.start < h < p.end and text[p.start : h].strip() for h in heads), p

    prop()
