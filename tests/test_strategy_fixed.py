"""fixed_tokens and fixed_chars: exact windows (seed 000 §13.2; guide strategy 1)."""

from __future__ import annotations

import pytest
from support.chunking import assert_valid_chunking, cuts, reasons, texts

from chunkviz import chunk
from chunkviz.text.tokenizers import get_tokenizer

CL100K = get_tokenizer("cl100k_base")
ENC = CL100K.encoding

# ============================================================================ fixed_tokens


def test_worked_example_13_2_exact_token_ranges() -> None:
    # " a" is one cl100k token, so token k is text[2k:2k+2]; 1436 tokens exactly.
    text = " a" * 1436
    assert CL100K.count(text) == 1436
    chunks = chunk(text, "fixed_tokens", chunk_size=512, overlap=50)
    # step = 512 - 50 = 462: windows [0,512), [462,974), [924,1436) -- seed 000 §13.2
    ranges = [(c.metadata["token_start"], c.metadata["token_end"]) for c in chunks]
    assert ranges == [(0, 512), (462, 974), (924, 1436)]
    assert [c.metadata["token_count"] for c in chunks] == [512, 512, 512]
    assert cuts(chunks) == [(0, 1024, "word"), (924, 1948, "word"), (1848, 2872, "document_end")]
    for c in chunks:
        assert CL100K.count(c.text) == 512
        assert "snapped_to_character" not in c.metadata
    # neighbours share exactly 50 tokens
    assert chunks[0].text[-100:] == chunks[1].text[:100] == " a" * 50


def _prose_of_exactly(n_tokens: int) -> str:
    base = (
        "Fixed-size chunking splits a document every few hundred tokens. Overlap repeats the "
        "end of one chunk at the start of the next, so a sentence cut at a boundary still "
        "appears whole somewhere — naïve, but predictable (and cheap: 3.5 µs per chunk).\n\n"
    )
    text = ""
    while CL100K.count(text + base) <= n_tokens:
        text += base
    while CL100K.count(text) < n_tokens:
        text += " a"
    assert CL100K.count(text) == n_tokens
    return text


def test_worked_example_13_2_on_prose_maps_to_tiktoken_offsets() -> None:
    text = _prose_of_exactly(1436)
    tokens = ENC.encode_ordinary(text)
    _, offsets = ENC.decode_with_offsets(tokens)  # independent token -> character offsets
    offsets.append(len(text))
    chunks = chunk(text, "fixed_tokens", chunk_size=512, overlap=50)
    assert [(c.metadata["token_start"], c.metadata["token_end"]) for c in chunks] == [(0, 512), (462, 974), (924, 1436)]
    assert [(c.start, c.end) for c in chunks] == [
        (0, offsets[512]),
        (offsets[462], offsets[974]),
        (offsets[924], len(text)),
    ]
    for c in chunks:
        first, stop = c.metadata["token_start"], c.metadata["token_end"]
        assert ENC.encode_ordinary(c.text) == tokens[first:stop]  # the span re-tokenizes to its window
    assert reasons(chunks) == ["size_limit", "size_limit", "end_of_document"]


def test_fixed_tokens_default_params_fit_the_default_embedding_model() -> None:
    text = " a" * 1000
    chunks = chunk(text, "fixed_tokens")  # 128 / 16: step 112 -> starts 0, 112, ..., 896 (896+128 >= 1000)
    expected = [(s, min(s + 128, 1000)) for s in range(0, 897, 112)]
    assert [(c.metadata["token_start"], c.metadata["token_end"]) for c in chunks] == expected
    assert expected[:2] == [(0, 128), (112, 240)] and expected[-1] == (896, 1000)


def test_fixed_tokens_words_and_no_redundant_last_window() -> None:
    text = "one two three four five six seven"
    # words: 7 tokens; size 3, overlap 1, step 2 -> starts 0, 2, 4 (4+3 = 7 reaches the end;
    # the naive loop would add a window at 6 that lies inside [4, 7))
    chunks = chunk(text, "fixed_tokens", tokenizer="words", chunk_size=3, overlap=1)
    assert texts(chunks) == ["one two three ", "three four five ", "five six seven"]
    assert cuts(chunks) == [(0, 14, "word"), (8, 24, "word"), (19, 33, "document_end")]
    assert [c.metadata["token_count"] for c in chunks] == [3, 3, 3]


def test_fixed_tokens_short_last_window() -> None:
    chunks = chunk("a b c d e", "fixed_tokens", tokenizer="words", chunk_size=2, overlap=0)
    # 5 words, step 2: [0,2), [2,4), [4,5)
    assert [(c.metadata["token_start"], c.metadata["token_end"], c.metadata["token_count"]) for c in chunks] == [
        (0, 2, 2),
        (2, 4, 2),
        (4, 5, 1),
    ]
    assert texts(chunks) == ["a b ", "c d ", "e"]


def test_fixed_tokens_same_as_word_split_on_one_token_words() -> None:
    text = "one two three four five six seven eight nine ten"  # every word is one cl100k token
    chunks = chunk(text, "fixed_tokens", chunk_size=4, overlap=2)
    assert cuts(chunks) == [(0, 18, "word"), (7, 27, "word"), (18, 39, "word"), (27, 48, "document_end")]


def test_fixed_tokens_leading_whitespace_belongs_to_the_first_window() -> None:
    text = "   lead and trail   "
    chunks = chunk(text, "fixed_tokens", tokenizer="words", chunk_size=2, overlap=0)
    assert texts(chunks) == ["   lead and ", "trail   "]


@pytest.mark.parametrize("text", ["\u200b", "\u0301", "\x00 \ufeff"])
def test_fixed_tokens_keeps_text_without_any_token(text: str) -> None:
    assert get_tokenizer("minilm").count(text) == 0 and text.strip()
    chunks = chunk(text, "fixed_tokens", tokenizer="minilm", chunk_size=5, overlap=0)
    assert_valid_chunking(text, chunks)  # actual: [] -- "non-blank text gave no chunks"


# ============================================================================ fixed_chars


@pytest.mark.parametrize(
    ("text", "size", "overlap", "expected"),
    [
        # step 3; 10 chars: starts 0, 3, 6 (6+4 = 10)
        ("abcdefghij", 4, 1, [(0, 4, "inside_word"), (3, 7, "inside_word"), (6, 10, "document_end")]),
        # step 4: starts 0, 4, 8 -> last window shorter
        ("abcdefghij", 4, 0, [(0, 4, "inside_word"), (4, 8, "inside_word"), (8, 10, "document_end")]),
        # 7 chars, step 3: starts 0, 3 (3+4 = 7); no redundant window at 6
        ("abcdefg", 4, 1, [(0, 4, "inside_word"), (3, 7, "document_end")]),
        ("abc", 5, 2, [(0, 3, "document_end")]),
        # code points, not graphemes: the skin tone modifier is its own character
        # the cut at 2 (emoji | letter) is a word's edge; at 3 (a | b) inside a word
        ("👍🏽ab", 2, 1, [(0, 2, "word"), (1, 3, "inside_word"), (2, 4, "document_end")]),
    ],
)
def test_fixed_chars_exact(text: str, size: int, overlap: int, expected: list) -> None:
    chunks = chunk(text, "fixed_chars", chunk_size=size, overlap=overlap)
    assert cuts(chunks) == expected
    assert reasons(chunks)[:-1] == ["size_limit"] * (len(chunks) - 1)
    assert all(c.metadata == {} or "snapped_to_character" not in c.metadata for c in chunks)


def test_fixed_chars_defaults_512_64() -> None:
    text = "x" * 3000
    chunks = chunk(text, "fixed_chars")  # step 448: 0, 448, ..., 2688 (2688+512 >= 3000)
    assert [(c.start, c.end) for c in chunks] == [(s, min(s + 512, 3000)) for s in range(0, 2689, 448)]
    assert [(c.start, c.end) for c in chunks][-2:] == [(2240, 2752), (2688, 3000)]
