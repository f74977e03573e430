"""Issue 13 items 1 and 2: counts that match the text, and lone surrogates.

Every reproduction of the issue is a test here. Exact outputs were derived from cl100k_base's
tokens, spelled out in the comments (``encode_ordinary`` of each piece).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from support.chunking import assert_valid_chunking
from support.texts import SETTINGS, examples
from test_properties import ODD_PIECES, odd_text

import chunkviz
from chunkviz import chunk
from chunkviz.core.types import Chunk
from chunkviz.strategies.peers.catalogue import PEER_NAMES
from chunkviz.text.tokenizers import get_tokenizer

CL100K = get_tokenizer("cl100k_base")

#: The issue's parent_child text: emoji, U+2028/U+2029/U+0085 line breaks, zero-width and
#: private-use characters.
ODD_CODE = "x = '😀😀😀'; y = 'é'\n\u2028z\u2029\x85\u200b\ue000 end\n"


def window_rows(chunks: list[Chunk]) -> list[tuple[Any, ...]]:
    return [
        (c.level, c.start, c.end, c.metadata["token_count"], bool(c.metadata.get("over_size_limit"))) for c in chunks
    ]


def assert_counts_are_real(chunks: list[Chunk], tokenizer: str, limit_of: Any) -> None:
    """token_count is the chunk's own count; a chunk over its limit says so."""
    tok = get_tokenizer(tokenizer)
    for c in chunks:
        real = tok.count(c.text)
        assert c.metadata["token_count"] == real, c
        assert bool(c.metadata.get("over_size_limit")) == (real > limit_of(c)), c


def assert_level_tiles(chunks: list[Chunk], level: int) -> None:
    group = [c for c in chunks if c.level == level]
    for a, b in zip(group, group[1:]):
        if a.parent == b.parent:
            assert b.start == a.end, f"{a.text!r} [{a.start}, {a.end}) and {b.text!r} [{b.start}, {b.end}) do not meet"


# ============================================================================ item 1: fixed_tokens


def test_fixed_tokens_emoji_split_by_tokens_is_in_one_chunk_with_its_real_count() -> None:
    # tokens: "ab" | " 😀" | f0 9f 98 | 80 | " " | "语" | " x"; the third token ends inside the
    # second emoji, so the cut before the fourth moves to the emoji's start = the cut before the
    # third: it is dropped and both tokens (the whole emoji, 2 tokens) are one chunk, flagged.
    text = "ab 😀😀 语 x"
    chunks = chunk(text, "fixed_tokens", chunk_size=1, overlap=0)
    assert [c.text for c in chunks] == ["ab", " 😀", "😀", " ", "语", " x"]
    assert [(c.metadata["token_start"], c.metadata["token_end"]) for c in chunks] == [
        (0, 1),
        (1, 2),
        (2, 4),
        (4, 5),
        (5, 6),
        (6, 7),
    ]
    assert [c.metadata["token_count"] for c in chunks] == [1, 1, 2, 1, 1, 1]
    emoji = chunks[2]
    assert emoji.metadata["over_size_limit"] and emoji.metadata["indivisible"]
    assert [bool(c.metadata.get("over_size_limit")) for c in chunks] == [False, False, True, False, False, False]
    assert_level_tiles(chunks, 0)
    assert_valid_chunking(text, chunks, limit=1, tokenizer="cl100k_base")


def test_fixed_tokens_overlap_keeps_real_counts() -> None:
    # size 2, overlap 1: windows [0,2) [1,3) [2,4) ... [1,3) = " 😀" + f0 9f 98 ends inside the
    # second emoji: its end moves to the emoji's start, so its text " 😀" is 1 token (it said 2);
    # [2,4) is exactly the second emoji (2 tokens); [3,5) starts inside it (moved to its start)
    # and holds 😀 + " " = 3 tokens: over 2, flagged indivisible
    chunks = chunk("ab 😀😀 语 x", "fixed_tokens", chunk_size=2, overlap=1)
    rows = [(c.text, c.metadata["token_count"], bool(c.metadata.get("over_size_limit"))) for c in chunks]
    assert rows == [
        ("ab 😀", 2, False),
        (" 😀", 1, False),
        ("😀", 2, False),
        ("😀 ", 3, True),
        (" 语", 2, False),
        ("语 x", 2, False),
    ]
    assert chunks[3].metadata["indivisible"]
    assert_counts_are_real(chunks, "cl100k_base", lambda c: 2)


# ============================================================================ item 1: parent_child


def test_parent_child_odd_characters_counts_and_flags() -> None:
    text = ODD_CODE * 2
    chunks = chunk(text, "parent_child", parent_size=10, child_size=3, child_overlap=1)
    assert_valid_chunking(text, chunks)
    assert_counts_are_real(chunks, "cl100k_base", lambda c: 10 if c.level == 0 else 3)
    assert_level_tiles(chunks, 0)
    over = [c for c in chunks if c.metadata.get("over_size_limit")]
    assert over, "the emoji runs put some children over 3 tokens"
    # each of them is over because a whole character straddled a token cut
    assert all(c.metadata.get("indivisible") and CL100K.count(c.text) > 3 for c in over)
    # parents: 10-token windows, cut at exact token starts -> 10 real tokens each (the last 6)
    parents = [c for c in chunks if c.level == 0]
    assert [p.metadata["token_count"] for p in parents] == [10, 10, 10, 10, 10, 6]
    assert [p.text for p in parents][:2] == ["x = '😀😀😀';", " y = 'é'\n\u2028z\u2029"]


def test_parent_child_without_overlap_children_tile_their_parents() -> None:
    text = ODD_CODE * 3
    chunks = chunk(text, "parent_child", parent_size=4, child_size=1, child_overlap=0)
    assert_valid_chunking(text, chunks)
    assert_counts_are_real(chunks, "cl100k_base", lambda c: 4 if c.level == 0 else 1)
    assert_level_tiles(chunks, 0)
    assert_level_tiles(chunks, 1)
    children = [c for c in chunks if c.level == 1]
    # the first parent "x = '😀" (tokens x, " =", " '", f0 9f 98 | 80...): the emoji's two tokens
    # straddle the parent cut, so the parent ends before the emoji, whose tokens go to the next
    assert [c.text for c in children][:4] == ["x", " =", " '", "😀"]


@pytest.mark.parametrize("tokenizer", ["cl100k_base", "minilm", "words", "chars"])
@pytest.mark.parametrize(
    ("name", "params", "limits"),
    [
        ("fixed_tokens", {"chunk_size": 1, "overlap": 0}, (1, 1)),
        ("fixed_tokens", {"chunk_size": 3, "overlap": 0}, (3, 3)),
        ("parent_child", {"parent_size": 4, "child_size": 1, "child_overlap": 0}, (4, 1)),
        ("parent_child", {"parent_size": 10, "child_size": 3, "child_overlap": 0, "parents": "sections"}, (10, 3)),
    ],
)
def test_token_windows_tile_and_report_real_counts(
    tokenizer: str, name: str, params: dict[str, Any], limits: tuple[int, int]
) -> None:
    @settings(max_examples=examples(40), **SETTINGS)
    @given(text=odd_text(25))
    def prop(text: str) -> None:
        chunks = chunk(text, name, tokenizer=tokenizer, **params)
        if not text.strip():
            return
        assert_valid_chunking(text, chunks)
        assert_counts_are_real(chunks, tokenizer, lambda c: limits[c.level])
        assert_level_tiles(chunks, 0)
        assert_level_tiles(chunks, 1)

    prop()


@pytest.mark.parametrize(
    ("name", "params", "limits"),
    [
        ("small_to_big", {"max_parent_tokens": 3, "max_child_tokens": 1}, (3, 1)),
        ("recursive", {"chunk_size": 1, "overlap": 0}, (1, 1)),
        ("recursive", {"chunk_size": 3, "overlap": 0, "separators": "markdown"}, (3, 3)),
        ("paragraphs", {"min_tokens": 0, "max_tokens": 2}, (2, 2)),
        ("sentences", {"max_tokens": 2, "overlap_sentences": 0}, (2, 2)),
        ("headings", {"max_tokens": 2}, (2, 2)),
    ],
)
def test_span_strategies_tile_without_overlap_and_flag_what_is_over(
    name: str, params: dict[str, Any], limits: tuple[int, int]
) -> None:
    """The strategies that cut spans by real counts: no shared text without overlap, and a chunk
    over its limit (one character the tokenizer spreads over several tokens) is flagged."""
    tok = CL100K

    @settings(max_examples=examples(30), **SETTINGS)
    @given(text=odd_text(25))
    def prop(text: str) -> None:
        chunks = chunk(text, name, **params)
        if not text.strip():
            return
        assert_valid_chunking(text, chunks)
        assert_level_tiles(chunks, 0)
        assert_level_tiles(chunks, 1)
        for c in chunks:
            if "token_count" in c.metadata:
                assert c.metadata["token_count"] == tok.count(c.text)
            if tok.count(c.text) > limits[c.level]:
                assert c.metadata.get("over_size_limit"), c

    prop()


def test_odd_pieces_cover_the_issue_list() -> None:
    joined = "".join(ODD_PIECES)
    for ch in ("\u200d", "\u2028", "\u2029", "\u0085", "\u200b", "\ue000", "\u0301", "语"):
        assert ch in joined
    assert chunkviz.chunk(joined, "fixed_tokens", chunk_size=1, overlap=0)


# ============================================================================ item 2: lone surrogates

LONE = "A lone \ud800 surrogate. Another \udfff one.\n\nA pair as two code points \ud83d\ude00 here.\n"
#: ours, without the embedding model (semantic, below) or an LLM; the peers are audited elsewhere
NON_SEMANTIC = [s["name"] for s in chunkviz.strategies() if s["name"] not in ("semantic", "llm", *PEER_NAMES)]


def test_surrogate_safe_copy_keeps_every_offset() -> None:
    from chunkviz.text.tokenizers import surrogate_positions, surrogate_safe

    safe = surrogate_safe(LONE)
    assert len(safe) == len(LONE)
    assert [i for i, (a, b) in enumerate(zip(LONE, safe)) if a != b] == surrogate_positions(LONE) == [7, 28, 62, 63]
    assert all(safe[i] == "\ufffd" for i in surrogate_positions(LONE))
    assert surrogate_safe("plain") == "plain"
    safe.encode("utf-8")  # what every tokenizer and segmenter reads now encodes


@pytest.mark.parametrize("tokenizer", ["cl100k_base", "minilm", "words", "chars"])
def test_tokenizers_count_and_locate_tokens_of_text_with_lone_surrogates(tokenizer: str) -> None:
    # before: TypeError "TextInputSequence must be str" from minilm; cl100k re-joined the pair
    # \ud83d\ude00 into one character, so its offsets ran one short of the text
    tok = get_tokenizer(tokenizer)
    from chunkviz.text.tokenizers import surrogate_safe

    bounds = tok.boundaries(LONE)
    assert int(bounds.positions[-1]) == len(LONE)
    assert bounds.positions.tolist() == tok.boundaries(surrogate_safe(LONE)).positions.tolist()
    assert tok.count(LONE) == tok.count(surrogate_safe(LONE)) == bounds.n_tokens


@pytest.mark.parametrize("tokenizer", ["cl100k_base", "minilm", "words", "chars"])
@pytest.mark.parametrize("name", NON_SEMANTIC)
def test_every_strategy_chunks_text_with_lone_surrogates(name: str, tokenizer: str) -> None:
    # before: TypeError from the minilm tokenizer in every strategy, UnicodeEncodeError from spaCy
    chunks = chunk("A lone \ud800 surrogate", name, tokenizer=tokenizer)
    assert [c.text for c in chunks if c.level == 0] == ["A lone \ud800 surrogate"]
    chunks = chunk(LONE, name, tokenizer=tokenizer)
    assert_valid_chunking(LONE, chunks, allow_added_text=True)
    assert "".join(c.text for c in chunks if c.level == 0).count("\ud800") >= 1


def test_lone_surrogates_with_tiny_limits_keep_exact_spans_and_counts() -> None:
    text = "\ud800\ud800 x \udfff" * 5
    chunks = chunk(text, "fixed_tokens", tokenizer="minilm", chunk_size=1, overlap=0)
    assert_valid_chunking(text, chunks)
    assert_counts_are_real(chunks, "minilm", lambda c: 1)
    assert_level_tiles(chunks, 0)
    sentences = chunk(text, "sentences", tokenizer="minilm", max_tokens=2)
    assert_valid_chunking(text, sentences, limit=2, tokenizer="minilm")


def test_semantic_chunks_text_with_lone_surrogates(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path))  # the real offline model, a private cache
    chunks = chunk(LONE, "semantic")
    assert_valid_chunking(LONE, chunks)
