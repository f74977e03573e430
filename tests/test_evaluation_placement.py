"""Chroma's first-find placement versus exact spans."""

import numpy as np
import pytest

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Reason
from chunkviz.evaluation.evaluate import Configuration
from chunkviz.evaluation.placement import first_find_span, place

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
    assert all(TEXT[c.start : c.end] == c.text for c in placed)


def test_second_copy_of_a_sentence_lands_on_the_first():
    placed = place(TEXT, chunks_of([(10, 19)]), "first_find")
    assert (placed[0].start, placed[0].end) == (0, 8)


def test_unknown_placement_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="exact, first_find"):
        Configuration("recursive", {}, placement="nearest")
    assert Configuration("recursive", {}, placement="first_find").label() == "recursive [first_find]"


def test_first_find_scores_the_found_span_but_embeds_the_text_the_splitter_wrote(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As in Chroma's study: the vector is of the chunk's own text (trailing period included);
    only the scored span comes from the search."""
    from chunkviz.evaluation.evaluate import evaluate
    from chunkviz.evaluation.questions import Question, Reference
    from chunkviz.semantic import embedcache

    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", "")
    embedcache.clear_memory()
    seen: list[str] = []

    def encode(texts, progress):  # noqa: ANN001, ANN202
        seen.extend(texts)
        return np.array([[len(t) + 1.0, t.count("Tide") + 1.0] for t in texts], dtype=np.float32)

    question = Question("Birds?", (Reference("doc", 22, 28),))
    config = Configuration("paragraphs", {"min_tokens": 0, "max_tokens": 4}, "words", placement="first_find")
    text = "Tide low.\n\nTide low.\n\nBirds."
    (result,) = evaluate({"doc": text}, [question], [config], k=3, encode=encode)
    assert "Tide low.\n\n" in seen and "Birds." in seen  # the splitter's texts, not the placed "Birds"
    spans = sorted((r.span.start, r.span.end) for r in result.retrieved[0])
    assert spans == [(0, 11), (0, 11), (22, 27)]  # both copies scored at the first; the period dropped
