"""Retrieval scores on hand-computed cases (chunkviz.evaluation.metrics and .retrieval)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.texts import SETTINGS, examples

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Boundary, Reason
from chunkviz.evaluation.metrics import (
    DocumentSpan,
    Scores,
    as_percent,
    precision_omega,
    question_scores,
    summarize,
    union,
)
from chunkviz.evaluation.retrieval import returned, searchable, top_k


def s(start: int, end: int, document: str = "d") -> DocumentSpan:
    return DocumentSpan(document, start, end)


def approx(scores: Scores, **expected: float) -> None:
    for name, value in expected.items():
        assert getattr(scores, name) == pytest.approx(value), name


# ----------------------------------------------------------------------------- Chroma's metrics


def test_one_chunk_covering_part_of_one_reference() -> None:
    # reference [10, 30); retrieved [0, 20) and [50, 60): 10 characters found
    got = question_scores([s(10, 30)], [s(0, 20), s(50, 60)], [s(0, 20), s(20, 40), s(50, 60)])
    approx(got, recall=10 / 20, precision=10 / 30, iou=10 / (30 + 20 - 10), recall_at_k=1.0, reciprocal_rank=1.0)
    # precision_Ω: the chunks reaching the reference are [0, 20) and [20, 40): union [0, 40) holds all 20
    assert got.precision_omega == pytest.approx(20 / 40)


def test_overlapping_retrieved_chunks_count_their_characters_twice_in_precision_only() -> None:
    # two retrieved chunks [0, 20) and [10, 30) overlap on [10, 20); the reference is [0, 30)
    got = question_scores([s(0, 30)], [s(0, 20), s(10, 30)], [s(0, 20), s(10, 30)])
    # found: every reference character once (30); retrieved length: 20 + 20 = 40 (the overlap twice)
    approx(got, recall=1.0, precision=30 / 40, iou=30 / (40 + 0))
    assert got.precision_omega == pytest.approx(1.0)  # unions: [0, 30) against [0, 30)


def test_a_chunk_touching_a_reference_at_its_edge() -> None:
    # the retrieved chunk ends where the reference starts: it shares no character
    got = question_scores([s(20, 30)], [s(10, 20)], [s(10, 20), s(20, 25), s(25, 40)])
    approx(got, recall=0.0, precision=0.0, iou=0.0, recall_at_k=0.0, reciprocal_rank=0.0)
    # ... but Chroma counts a touching chunk as reaching the reference for precision_Ω:
    # chunks [10, 20), [20, 25), [25, 40) all reach [20, 30): 10 shared of 30 covered
    assert got.precision_omega == pytest.approx(10 / 30)


def test_several_references_per_question() -> None:
    references = [s(0, 10), s(40, 50), s(80, 100)]
    retrieved = [s(45, 60), s(0, 5), s(200, 210)]  # rank 1 hits the second, rank 2 the first
    got = question_scores(references, retrieved, retrieved)
    found = 5 + 5  # [45, 50) and [0, 5)
    approx(
        got,
        recall=found / 40,
        precision=found / (15 + 5 + 10),
        iou=found / (30 + 40 - found),
        recall_at_k=2 / 3,
        reciprocal_rank=1.0,
    )


def test_reciprocal_rank_is_that_of_the_first_hit() -> None:
    got = question_scores([s(100, 120)], [s(0, 10), s(20, 30), s(110, 130)], [])
    assert got.reciprocal_rank == pytest.approx(1 / 3)
    assert got.precision_omega == 0.0  # no chunk of the chunking reaches the reference


def test_other_documents_never_intersect_but_count_as_retrieved() -> None:
    got = question_scores([s(0, 10, "a")], [s(0, 10, "b"), s(0, 10, "a")], [s(0, 10, "a"), s(0, 10, "b")])
    approx(got, recall=1.0, precision=10 / 20, iou=10 / 20, recall_at_k=1.0, reciprocal_rank=0.5, precision_omega=1.0)


def test_parents_returned_for_children_are_scored_as_the_parents() -> None:
    doc_chunks = [
        chunk(0, 0, 100, level=0),
        chunk(1, 0, 40, parent=0, level=1),
        chunk(2, 40, 100, parent=0, level=1),
        chunk(3, 100, 200, level=0),
        chunk(4, 100, 200, parent=3, level=1),
    ]
    children = searchable(doc_chunks)
    assert [c.index for c in children] == [1, 2, 4]
    # the best two children both belong to parent 0: it is returned once, then parent 3
    back = returned(doc_chunks, [doc_chunks[2], doc_chunks[1], doc_chunks[4]], returns_parents=True)
    assert [c.index for c in back] == [0, 3]
    assert [c.index for c in returned(doc_chunks, [doc_chunks[2], doc_chunks[1]], returns_parents=False)] == [2, 1]
    spans = [DocumentSpan("d", c.start, c.end) for c in back]
    got = question_scores([s(50, 60)], spans, spans)
    approx(got, recall=1.0, precision=10 / 200, iou=10 / 200, reciprocal_rank=1.0)


def chunk(index: int, start: int, end: int, parent: int | None = None, level: int = 0) -> Chunk:
    return Chunk(index, start, end, "x" * (end - start), Reason.SIZE_LIMIT, Boundary.WORD, parent, level)


def test_empty_inputs_give_zero_not_an_error() -> None:
    approx(
        question_scores([], [], []),
        recall=0.0,
        precision=0.0,
        iou=0.0,
        recall_at_k=0.0,
        reciprocal_rank=0.0,
        precision_omega=0.0,
    )
    approx(question_scores([s(0, 5)], [], [s(0, 5)]), recall=0.0, iou=0.0, precision_omega=1.0)


def test_summary_is_mean_and_population_std_in_percent() -> None:
    a = question_scores([s(0, 10)], [s(0, 10)], [s(0, 10)])  # everything 1
    b = question_scores([s(0, 10)], [s(20, 30)], [s(20, 30)])  # everything 0
    summary = summarize([a, b])
    assert summary["recall"] == pytest.approx((0.5, 0.5))
    assert as_percent(summary)["recall"] == "50.0 ± 50.0"
    assert all(math.isnan(v) for v in summarize([])["iou"])


@settings(max_examples=examples(200), **SETTINGS)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 30)), min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(0, 60), st.integers(0, 30)), min_size=0, max_size=6))  # fmt: skip
def test_scores_agree_with_a_character_set_count(refs: list[tuple[int, int]], got: list[tuple[int, int]]) -> None:
    references = [s(a, a + n + 1) for a, n in refs]
    retrieved = [s(a, a + n) for a, n in got]
    scores = question_scores(references, retrieved, retrieved)
    ref_chars = {i for r in references for i in range(r.start, r.end)}
    got_chars = {i for c in retrieved for i in range(c.start, c.end)}
    found = len(ref_chars & got_chars)
    assert scores.recall == pytest.approx(found / sum(r.end - r.start for r in references))
    retrieved_total = sum(c.end - c.start for c in retrieved)
    assert scores.iou == pytest.approx(
        found / (retrieved_total + len(ref_chars) - found) if retrieved_total + len(ref_chars) - found else 0.0
    )
    for name in ("recall", "precision", "iou", "precision_omega", "recall_at_k", "reciprocal_rank"):
        assert 0.0 <= getattr(scores, name) <= 1.0 + 1e-12


def test_union_merges_touching_and_drops_empty_spans() -> None:
    assert union([s(5, 10), s(0, 5), s(20, 20), s(8, 12), s(1, 2, "e")]) == {"d": [(0, 12)], "e": [(1, 2)]}
    assert precision_omega([s(0, 10)], [s(0, 4), s(4, 10)]) == pytest.approx(1.0)


# ----------------------------------------------------------------------------- retrieval


def test_top_k_is_exact_cosine_with_stable_ties() -> None:
    chunks = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0], [2.0, 0.0]])
    queries = np.array([[1.0, 0.0], [0.0, 1.0]])
    ranking = top_k(queries, chunks, 3)
    # query 0: chunks 0 and 3 are both at cosine 1 (the earlier first), then chunk 2
    assert ranking.indices.tolist() == [[0, 3, 2], [1, 2, 0]]
    assert ranking.scores[0].tolist() == pytest.approx([1.0, 1.0, math.sqrt(0.5)])
    assert top_k(queries, chunks, 10).indices.shape == (2, 4)
    assert top_k(queries, np.zeros((0, 2)), 5).indices.shape == (2, 0)
    with pytest.raises(ValueError, match="k must be at least 1"):
        top_k(queries, chunks, 0)


@given(st.integers(1, 40), st.integers(1, 4), st.integers(1, 12), st.integers(0, 2**32 - 1))
@settings(max_examples=examples(150), deadline=None)
def test_top_k_equals_a_full_stable_sort(chunks: int, queries: int, k: int, seed: int) -> None:
    """The partial sort gives exactly the first k of a full stable sort (small integer vectors:
    many exact ties)."""
    rng = np.random.default_rng(seed)
    c = rng.integers(-2, 3, size=(chunks, 3)).astype(np.float32)
    q = rng.integers(-2, 3, size=(queries, 3)).astype(np.float32)

    def norm(m: np.ndarray) -> np.ndarray:
        return m / np.where(np.linalg.norm(m, axis=1, keepdims=True) == 0, 1, np.linalg.norm(m, axis=1, keepdims=True))

    full = np.argsort(-(norm(q) @ norm(c).T), axis=1, kind="stable")[:, :k]
    assert top_k(q, c, k).indices.tolist() == full.tolist()
