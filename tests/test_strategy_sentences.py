"""sentences: sentences packed up to max_tokens with whole-sentence overlap (seed 000 §13.3)."""

from __future__ import annotations

import pytest
from support.chunking import assert_valid_chunking, texts

from chunkviz import chunk
from chunkviz.text.tokenizers import get_tokenizer

CL100K = get_tokenizer("cl100k_base")
ENC = CL100K.encoding

# ============================================================================ sentences

SIX = "Cats eat fish. Dogs chase cats. Birds sing songs. Fish swim fast. Cows eat grass. Bees make honey."
# sentence units (whitespace before a sentence belongs to it): [0,14) [14,31) [31,49) [49,65) [65,81) [81,98)


@pytest.mark.parametrize(
    ("overlap", "expected_units"),
    [
        (0, [(0, 3), (3, 6)]),
        (1, [(0, 3), (2, 5), (4, 6)]),  # the last sentence of each chunk starts the next
        (2, [(0, 3), (1, 4), (2, 5), (3, 6)]),
        (5, [(0, 3), (1, 4), (2, 5), (3, 6)]),  # never the whole previous chunk again
    ],
)
def test_sentences_overlap_is_whole_sentences(overlap: int, expected_units: list) -> None:
    unit_cuts = [0, 14, 31, 49, 65, 81, 98]
    chunks = chunk(SIX, "sentences", tokenizer="words", max_tokens=9, overlap_sentences=overlap)
    assert [tuple(c.metadata["units"]) for c in chunks] == expected_units
    assert [(c.start, c.end) for c in chunks] == [(unit_cuts[a], unit_cuts[b]) for a, b in expected_units]
    assert [c.boundary for c in chunks] == ["sentence"] * (len(chunks) - 1) + ["document_end"]
    assert all(c.metadata["segmenter"] for c in chunks)
    assert_valid_chunking(SIX, chunks, limit=9, tokenizer="words")


def test_sentences_overlap_shrinks_when_it_does_not_fit() -> None:
    text = "Hi there. This sentence has exactly six words. Three words here."
    # units: "Hi there." (2) | " This ... words." (6) | " Three words here." (3); max 8:
    # chunk 1 = 2 + 6; repeating the 6-word sentence before the 3-word one would need 9 > 8
    chunks = chunk(text, "sentences", tokenizer="words", max_tokens=8, overlap_sentences=1)
    assert [(c.start, c.end, tuple(c.metadata["units"])) for c in chunks] == [(0, 46, (0, 2)), (46, 64, (2, 3))]


def test_sentences_over_long_sentence_is_split_and_flagged() -> None:
    text = "Short start. This single sentence is far too long to fit in one small chunk at all. Tiny end."
    chunks = chunk(text, "sentences", tokenizer="words", max_tokens=5, overlap_sentences=1)
    assert texts(chunks) == [
        "Short start.",
        " This single sentence is far",
        " too long to fit in",
        " one small chunk at all.",
        " Tiny end.",
    ]
    assert [c.boundary for c in chunks] == ["sentence", "word", "word", "sentence", "document_end"]
    assert [bool(c.metadata.get("split_unit")) for c in chunks] == [False, True, True, True, False]
    assert [tuple(c.metadata["units"]) for c in chunks] == [(0, 1), (1, 2), (1, 2), (1, 2), (2, 3)]
    assert_valid_chunking(text, chunks, limit=5, tokenizer="words")


def test_sentences_never_span_a_blank_line() -> None:
    text = "A heading without a period\n\nThe body starts here. It ends here."
    chunks = chunk(text, "sentences", tokenizer="words", max_tokens=5, overlap_sentences=0)
    assert texts(chunks) == ["A heading without a period\n\n", "The body starts here.", " It ends here."]


def test_sentences_cl100k_limit() -> None:
    text = " ".join(f"Sentence number {k} is here." for k in range(40))
    chunks = chunk(text, "sentences", max_tokens=30, overlap_sentences=2)
    assert_valid_chunking(text, chunks, limit=30, tokenizer=CL100K, strictly_advancing=True)
    assert len(chunks) > 5
