"""paragraphs: blank-line paragraphs merged to min_tokens, never over max_tokens (guide strategy 2)."""

from __future__ import annotations

from support.chunking import cuts, texts

from chunkviz import chunk
from chunkviz.text.tokenizers import get_tokenizer

CL100K = get_tokenizer("cl100k_base")
ENC = CL100K.encoding

# ============================================================================ paragraphs


def test_paragraphs_pack_split_and_flag_small() -> None:
    text = "a b\n\nc d e\n\nf g h i j k\n\nl"
    # paragraphs (words): 2, 3, 6, 1 with max 5, min 3:
    # 2+3 = 5 -> one chunk; the 6-word paragraph is split at words (5 + 1); "l" cannot join the
    # previous piece of a split paragraph; chunks under 3 words are flagged
    chunks = chunk(text, "paragraphs", tokenizer="words", min_tokens=3, max_tokens=5)
    assert texts(chunks) == ["a b\n\nc d e\n\n", "f g h i j", " k\n\n", "l"]
    assert [c.boundary for c in chunks] == ["paragraph", "word", "paragraph", "document_end"]
    assert [bool(c.metadata.get("split_unit")) for c in chunks] == [False, True, True, False]
    assert [bool(c.metadata.get("below_min_tokens")) for c in chunks] == [False, False, True, True]


def test_paragraphs_min_tokens_controls_merging() -> None:
    text = "First para one.\n\nSecond para two.\n\nThird para three."
    # 3 words each. min 0: every paragraph is its own chunk; min 6 (max 7): merge until 6 words,
    # the small tail cannot join (9 > 7); min == max: the guide's greedy packing up to max_tokens
    assert cuts(chunk(text, "paragraphs", tokenizer="words", min_tokens=0, max_tokens=100)) == [
        (0, 17, "paragraph"),
        (17, 35, "paragraph"),
        (35, 52, "document_end"),
    ]
    assert cuts(chunk(text, "paragraphs", tokenizer="words", min_tokens=6, max_tokens=7)) == [
        (0, 35, "paragraph"),
        (35, 52, "document_end"),
    ]
    assert cuts(chunk(text, "paragraphs", tokenizer="words", min_tokens=100, max_tokens=100)) == [
        (0, 52, "document_end")
    ]


def test_paragraphs_max_tokens_is_a_hard_limit_and_small_tail_is_flagged() -> None:
    text = "First para one.\n\nSecond para two.\n\nThird para three."
    # 3 words each; max 6: 3+3, then 3 alone (merging would give 9 > 6) -> flagged below min 4
    chunks = chunk(text, "paragraphs", tokenizer="words", min_tokens=4, max_tokens=6)
    assert cuts(chunks) == [(0, 35, "paragraph"), (35, 52, "document_end")]
    assert [bool(c.metadata.get("below_min_tokens")) for c in chunks] == [False, True]


def test_paragraphs_crlf_and_whitespace_only_blank_lines() -> None:
    text = "First para one.\r\n\r\nSecond para two.\r\n  \r\nThird para three."
    chunks = chunk(text, "paragraphs", tokenizer="words", min_tokens=4, max_tokens=6)
    assert texts(chunks) == ["First para one.\r\n\r\nSecond para two.\r\n  \r\n", "Third para three."]
    assert [c.boundary for c in chunks] == ["paragraph", "document_end"]


def test_paragraphs_min_zero_flags_nothing() -> None:
    text = "x\n\ny\n\nz"
    chunks = chunk(text, "paragraphs", tokenizer="words", min_tokens=0, max_tokens=1)
    assert texts(chunks) == ["x\n\n", "y\n\n", "z"]
    assert not any(c.metadata.get("below_min_tokens") for c in chunks)


def test_paragraphs_single_newlines_do_not_split() -> None:
    text = "line one\nline two\nline three\n\nnext"
    chunks = chunk(text, "paragraphs", tokenizer="words", min_tokens=6, max_tokens=6)
    assert texts(chunks) == ["line one\nline two\nline three\n\n", "next"]
