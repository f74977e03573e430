"""chunkviz.semantic.cluster: the rewards grown column by column equal Chroma's submatrix sums, the DP
equals a brute force, and memory follows the document, not the size parameters."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.texts import SETTINGS, examples

import chunkviz.semantic.cluster as cluster
from chunkviz.semantic.cluster import (
    normalised_matrix,
    offdiagonal_mean,
    optimal_segmentation,
    rewards_ending_at,
)

#: Two pairs of similar pieces: {0, 1} and {2, 3}.
HAND = np.array(
    [
        [1.0, 0.9, 0.1, 0.0],
        [0.9, 1.0, 0.2, 0.1],
        [0.1, 0.2, 1.0, 0.8],
        [0.0, 0.1, 0.8, 1.0],
    ]
)


def chroma_reward(matrix: np.ndarray, a: int, b: int) -> float:
    """Chroma's ``_calculate_reward`` on its normalised matrix: the sum of the square submatrix."""
    return float(normalised_matrix(matrix)[a : b + 1, a : b + 1].sum())


def rewards_of_matrix(matrix: np.ndarray, max_pieces: int) -> list[np.ndarray]:
    """What :func:`rewards_ending_at` yields, from Chroma's direct submatrix sums: per piece ``b``,
    the rewards of the chunks of ``1..min(max_pieces, b + 1)`` pieces ending there."""
    return [
        np.array([chroma_reward(matrix, b - length + 1, b) for length in range(1, min(max_pieces, b + 1) + 1)])
        for b in range(len(matrix))
    ]


def spans(segments: list[cluster.Segment]) -> list[tuple[int, int]]:
    return [(s.first, s.last) for s in segments]


def compositions(n: int, largest: int):
    """Every way to cut n pieces into consecutive chunks of at most ``largest`` pieces."""
    for cuts in itertools.product((False, True), repeat=max(0, n - 1)):
        bounds = [0] + [i + 1 for i, cut in enumerate(cuts) if cut] + [n]
        chunks = [(a, b - 1) for a, b in zip(bounds, bounds[1:])]
        if all(b - a + 1 <= largest for a, b in chunks):
            yield chunks


def test_hand_made_case_by_hand() -> None:
    """Mean of the upper triangle (0.9 + 0.1 + 0 + 0.2 + 0.1 + 0.8) / 6 = 0.35; normalised
    s01 = 0.55, s23 = 0.45, s02 = -0.25, s03 = -0.35, s12 = -0.15, s13 = -0.25. Chunks {0,1},{2,3}
    score 2·0.55 + 2·0.45 = 2.0; all four 2·(0.55 + 0.45 - 0.25 - 0.35 - 0.15 - 0.25) = 0;
    {0,1,2},{3} 2·(0.55 - 0.25 - 0.15) = 0.3; {0},{1,2,3} 2·(-0.15 - 0.25 + 0.45) = 0.1."""
    rewards = rewards_of_matrix(HAND, 4)
    best = optimal_segmentation(rewards)
    assert spans(best) == [(0, 1), (2, 3)]
    assert [s.reward for s in best] == pytest.approx([1.1, 0.9])
    assert rewards[3][3] == pytest.approx(0.0)
    assert rewards[2][2] == pytest.approx(0.3)
    assert rewards[3][2] == pytest.approx(0.1)
    # one piece per chunk at most: no choice left
    assert spans(optimal_segmentation(rewards_of_matrix(HAND, 1))) == [(0, 0), (1, 1), (2, 2), (3, 3)]
    # a size limit that keeps pieces 0 and 1 apart (at most 1 piece may end at piece 1)
    assert spans(optimal_segmentation(rewards, longest=[1, 1, 2, 2])) == [(0, 0), (1, 1), (2, 3)]


def test_ties_keep_the_smaller_chunk_as_chroma_does() -> None:
    """All similarities equal: every chunk scores 0, so sizes tried from 1 up keep single pieces."""
    flat = np.ones((3, 3))
    assert spans(optimal_segmentation(rewards_of_matrix(flat, 3))) == [(0, 0), (1, 1), (2, 2)]
    assert spans(optimal_segmentation(rewards_ending_at(np.ones((3, 1)), 1.0, 3))) == [(0, 0), (1, 1), (2, 2)]
    assert optimal_segmentation([]) == []


#: Up to 9 small integer vectors (the fourth coordinate keeps them from being zero), made unit length.
unit_vectors = st.lists(st.tuples(st.integers(-4, 4), st.integers(-4, 4), st.integers(-4, 4)), min_size=1, max_size=9)


def as_units(rows: list[tuple[int, int, int]]) -> np.ndarray:
    vectors = np.asarray([(*row, 0.5) for row in rows], dtype=np.float64)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@settings(max_examples=examples(50), **SETTINGS)
@given(rows=unit_vectors, max_pieces=st.integers(1, 5), block_cells=st.integers(1, 12))
def test_rewards_grown_column_by_column_equal_the_direct_submatrix_sums(
    rows: list[tuple[int, int, int]], max_pieces: int, block_cells: int
) -> None:
    """Whatever the blocks of the Gram matrix (``block_cells`` small: one to a few pieces a block)."""
    vectors = as_units(rows)
    n = len(vectors)
    matrix = vectors @ vectors.T
    mean = offdiagonal_mean(vectors)
    if n > 1:
        assert mean == pytest.approx(float(matrix[np.triu_indices(n, k=1)].mean()), abs=1e-9)
    with mock.patch.object(cluster, "BLOCK_CELLS", block_cells):
        found = list(rewards_ending_at(vectors, mean, max_pieces))
    expected = rewards_of_matrix(matrix, max_pieces)
    assert [len(r) for r in found] == [len(r) for r in expected] == [min(max_pieces, b + 1) for b in range(n)]
    for mine, direct in zip(found, expected):
        assert mine == pytest.approx(direct, abs=1e-9)


@settings(max_examples=examples(50), **SETTINGS)
@given(rows=unit_vectors, max_pieces=st.integers(1, 5), data=st.data())
def test_the_dp_finds_the_brute_force_optimum(
    rows: list[tuple[int, int, int]], max_pieces: int, data: st.DataObject
) -> None:
    """Over every segmentation (chunks of at most ``max_pieces``, and of at most ``longest[b]``
    pieces ending at piece b), scored with Chroma's direct submatrix sums."""
    vectors = as_units(rows)
    n = len(vectors)
    matrix = vectors @ vectors.T
    longest = data.draw(st.lists(st.integers(1, max_pieces), min_size=n, max_size=n))

    normalised = normalised_matrix(matrix)
    scores = {(a, b): float(normalised[a : b + 1, a : b + 1].sum()) for a in range(n) for b in range(a, n)}

    def total(chunks: list[tuple[int, int]]) -> float:
        return sum(scores[c] for c in chunks)

    def allowed(chunks: list[tuple[int, int]]) -> bool:
        return all(b - a + 1 <= longest[b] for a, b in chunks)

    best = max(total(c) for c in compositions(n, max_pieces) if allowed(c))
    segments = optimal_segmentation(rewards_ending_at(vectors, offdiagonal_mean(vectors), max_pieces), longest)
    assert [s.reward for s in segments] == pytest.approx([scores[s.first, s.last] for s in segments], abs=1e-9)
    found = spans(segments)
    assert [a for a, _ in found] == [0] + [b + 1 for _, b in found[:-1]], "the chunks tile the pieces"
    assert found[-1][1] == n - 1 and allowed(found)
    assert total(found) == pytest.approx(best, abs=1e-9)
