"""The ``small_to_big`` strategy (seed 000 §13.9.2): sentences inside their paragraphs.

Exact expected outputs were derived by hand with the ``words`` tokenizer; the property tests
check the multi-level convention (``assert_valid_multilevel`` in tests/support/chunking.py).
"""

from __future__ import annotations

import bisect
from typing import Any, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunking import assert_valid_multilevel
from support.texts import MULTILEVEL_TOKENIZERS as TOKENIZERS
from support.texts import SETTINGS, multilevel_text

import chunkviz
from chunkviz import Chunk, InvalidParamError, chunk
from chunkviz.document.model import as_document
from chunkviz.text.tokenizers import get_tokenizer


def rows(chunks: Sequence[Chunk]) -> list[tuple[Any, ...]]:
    """(level, parent, start, end, text, reason, metadata) of every chunk."""
    return [(c.level, c.parent, c.start, c.end, c.text, c.reason, dict(c.metadata)) for c in chunks]


def test_registered_with_defaults_that_fit_the_default_embedding_model() -> None:
    described = {s["name"]: s for s in chunkviz.strategies()}
    defaults = {p["name"]: p["default"] for p in described["small_to_big"]["params"]}
    assert defaults == {"max_parent_tokens": 1000, "max_child_tokens": 128}


@pytest.mark.parametrize(
    ("params", "bad"),
    [({"max_parent_tokens": 0}, "max_parent_tokens"), ({"max_child_tokens": 0}, "max_child_tokens"), ({"x": 1}, "x")],
)
def test_small_to_big_invalid_params_name_the_param(params: dict[str, Any], bad: str) -> None:
    with pytest.raises(InvalidParamError) as info:
        chunk("some text here", "small_to_big", tokenizer="words", **params)
    assert info.value.param == bad


def test_blank_text_gives_no_chunks() -> None:
    assert chunk("", "small_to_big") == []
    assert chunk(" \n\r\n\t ", "small_to_big") == []


# ============================================================================ exact outputs


def test_small_to_big_paragraph_parents_and_sentence_children_exact() -> None:
    # paragraphs "Alpha beta. Gamma delta.\n\n" [0,26) and "Epsilon zeta." [26,39); sentences
    # "Alpha beta." | " Gamma delta.\n\n" (the space after a sentence end is a clean words cut, so
    # the whitespace between two sentences of a paragraph starts the next one) | "Epsilon zeta."
    text = "Alpha beta. Gamma delta.\n\nEpsilon zeta."
    assert list(as_document(text).structure.sentence_starts) == [0, 12, 26]
    got = chunk(text, "small_to_big", tokenizer="words")
    # reasons: a paragraph's and a sentence's end are both "unit_end" now (formerly paragraph /
    # sentence_end; where the cut falls is the chunk's boundary)
    assert rows(got) == [
        (0, None, 0, 26, "Alpha beta. Gamma delta.\n\n", "unit_end", {"token_count": 4, "paragraph": 0}),
        (0, None, 26, 39, "Epsilon zeta.", "end_of_document", {"token_count": 2, "paragraph": 1}),
        (1, 0, 0, 11, "Alpha beta.", "unit_end", {"token_count": 2, "paragraph": 0}),
        (1, 0, 11, 26, " Gamma delta.\n\n", "parent_end", {"token_count": 2, "paragraph": 0}),
        # the last child ends the text: end_of_document (to_chunks' one rule, at every level)
        (1, 1, 26, 39, "Epsilon zeta.", "end_of_document", {"token_count": 2, "paragraph": 1}),
    ]


def test_small_to_big_splits_long_paragraphs_and_sentences_and_flags_them() -> None:
    # paragraph 0 has 3 + 6 = 9 words > max_parent_tokens 6: split at the sentence end into two
    # parents (flag split_paragraph); the 6-word sentence > max_child_tokens 4 is split at words
    # into "Second one is longer" (4) and " than that.\n\n" (2), both flagged split_sentence;
    # paragraph 1 (2 + 4 = 6 words) fits and keeps its two sentences
    text = "First sentence here. Second one is longer than that.\n\nNew paragraph. It has two sentences."
    assert list(as_document(text).structure.sentence_starts) == [0, 21, 54, 69]
    got = chunk(text, "small_to_big", tokenizer="words", max_parent_tokens=6, max_child_tokens=4)
    # vocabulary: split_paragraph / split_sentence are both "split_unit"; the cut at the sentence
    # end inside the split paragraph is "size_limit" (the next sentence did not fit), the word cut
    # inside the split sentence too (with its separator), a sentence end is "unit_end"
    assert rows(got) == [
        (0, None, 0, 20, "First sentence here.", "size_limit", {"token_count": 3, "paragraph": 0, "split_unit": True}),
        (
            0,
            None,
            20,
            54,
            " Second one is longer than that.\n\n",
            "unit_end",
            {"token_count": 6, "paragraph": 0, "split_unit": True},
        ),
        (
            0,
            None,
            54,
            90,
            "New paragraph. It has two sentences.",
            "end_of_document",
            {"token_count": 6, "paragraph": 1},
        ),
        (1, 0, 0, 20, "First sentence here.", "parent_end", {"token_count": 3, "paragraph": 0}),
        (
            1,
            1,
            20,
            41,
            " Second one is longer",
            "size_limit",
            {"token_count": 4, "paragraph": 0, "split_unit": True, "separator": " "},
        ),
        (1, 1, 41, 54, " than that.\n\n", "parent_end", {"token_count": 2, "paragraph": 0, "split_unit": True}),
        (1, 2, 54, 68, "New paragraph.", "unit_end", {"token_count": 2, "paragraph": 1}),
        (
            1,
            2,
            68,
            90,
            " It has two sentences.",
            "end_of_document",
            {"token_count": 4, "paragraph": 1},
        ),  # ends the text
    ]


def test_small_to_big_sentence_longer_than_a_parent() -> None:
    # one 5-word sentence with max_parent_tokens 2: the paragraph is split inside the sentence
    # (the parents are pieces of it: split_unit), and each child is the
    # matching piece
    text = "a b c d e."
    got = chunk(text, "small_to_big", tokenizer="words", max_parent_tokens=2, max_child_tokens=2)
    parents = [(c.text, c.reason, c.metadata.get("split_unit")) for c in got if c.level == 0]
    assert parents == [("a b", "size_limit", True), (" c d", "size_limit", True), (" e.", "end_of_document", True)]
    children = [(c.parent, c.text, c.reason) for c in got if c.level == 1]
    assert children == [
        (0, "a b", "parent_end"),
        (1, " c d", "parent_end"),
        (2, " e.", "end_of_document"),
    ]  # ends the text


# ============================================================================ properties


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_small_to_big_properties(tokenizer: str) -> None:
    tok = get_tokenizer(tokenizer)

    @settings(max_examples=80, **SETTINGS)
    @given(
        text=multilevel_text(),
        max_parent=st.one_of(st.integers(1, 8), st.integers(1, 80)),
        max_child=st.integers(1, 20),
    )
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
        starts = list(as_document(text).structure.sentence_starts)
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
        breaks = as_document(text).structure.paragraph_starts[1:]
        for p in parents:
            assert not [b for b in breaks if p.start < b < p.end and text[p.start : b].strip()], ("two paragraphs", p)
            if not p.metadata.get("split_unit"):
                assert p.reason in ("unit_end", "end_of_document")

    prop()
