"""Chroma's first-find placement versus exact spans."""

import pytest

from chunkviz.evaluation.evaluate import Configuration
from chunkviz.evaluation.placement import first_find_span, place
from chunkviz.types import Chunk
from chunkviz.vocabulary import Reason

TEXT = "Tide low. Tide low. Birds."


def chunks_of(spans):
    return [Chunk.from_span(TEXT, i, s, e, Reason.SIZE_LIMIT) for i, (s, e) in enumerate(spans)]


def test_first_find_moves_a_repeated_chunk_to_its_first_occurrence_and_drops_one_period():
    assert first_find_span(TEXT, "Tide low.") == (0, 8)
    assert first_find_span(TEXT, " Birds.") == (19, 25)
    assert first_find_span(TEXT, "Birds") == (20, 25)


def test_place_exact_keeps_spans_and_first_find_reports_where_the_chunk_really_was():
    chunks = chunks_of([(0, 9), (9, 19), (19, 26)])
    assert place(TEXT, chunks, "exact") == chunks
    placed = place(TEXT, chunks, "first_find")
    assert [(c.start, c.end, c.text) for c in placed] == [(0, 8, "Tide low"), (9, 18, " Tide low"), (19, 25, " Birds")]
    assert placed[1].metadata["exact_span"] == [9, 19]
    assert all(TEXT[c.start:c.end] == c.text for c in placed)


def test_second_copy_of_a_sentence_lands_on_the_first():
    placed = place(TEXT, chunks_of([(10, 19)]), "first_find")
    assert (placed[0].start, placed[0].end) == (0, 8)


def test_unknown_placement_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="exact, first_find"):
        Configuration("recursive", {}, placement="nearest")
    assert Configuration("recursive", {}, placement="first_find").label() == "recursive [first_find]"
