"""The numbers behind the ``cluster`` strategy (Chroma's ClusterSemanticChunker), in linear memory.

Chroma builds the full ``n × n`` similarity matrix of the pieces, subtracts the mean of its strict
upper triangle, zeroes the diagonal and scores a chunk of pieces ``a..b`` by the sum of its
square submatrix. Here no matrix is kept: :func:`offdiagonal_mean` gets the mean of all
off-diagonal similarities from the sum of the unit vectors (``|Σv|² - Σ|v|²`` is twice the sum
over pairs), :func:`rewards_ending_at` scores the chunks that end at one piece from the previous
piece's scores and one column of similarities, and :func:`optimal_segmentation` runs the dynamic
programme over those scores, piece by piece. A chunk ending at piece ``b`` holds at most
``longest[b]`` pieces (the caller's limits: pieces and tokens), never more than the document has,
so memory is ``O(n · d)`` for the vectors plus ``O(width)`` for the scores, whatever the
parameters (``width``: the longest chunk allowed), and time ``O(n · width · d)``.

Pure numpy; the strategy (chunkviz/strategies/cluster.py) makes the pieces and embeds them.
"""

from __future__ import annotations

from typing import Iterable, Iterator, NamedTuple, Sequence

import numpy as np

from chunkviz.core.deadline import check_time

#: The most similarities :func:`similarity_columns` computes in one matrix product (32 MB of float64).
BLOCK_CELLS = 4_000_000


class Segment(NamedTuple):
    """A chunk of the pieces ``first..last`` (inclusive) and its reward."""

    first: int
    last: int
    reward: float


def offdiagonal_mean(vectors: np.ndarray) -> float:
    """The mean of ``vectors[i] · vectors[j]`` over all pairs ``i != j`` (Chroma's mean of the strict
    upper triangle: the matrix is symmetric), in ``O(n · d)``; 0 for fewer than two vectors."""
    vectors = np.asarray(vectors)
    n = len(vectors)
    if n < 2:
        return 0.0
    total = vectors.sum(axis=0, dtype=np.float64)
    pairs_twice = float(total @ total) - float(np.einsum("ij,ij->", vectors, vectors, dtype=np.float64))
    return pairs_twice / (n * (n - 1))


def similarity_columns(vectors: np.ndarray, width: int) -> Iterator[np.ndarray]:
    """For each piece ``b`` in order, ``vectors[i] · vectors[b]`` in float64 for the pieces
    ``i = b - 1, b - 2, ...`` back to ``max(0, b - width + 1)`` (nearest first).

    A block of pieces at a time: one matrix product of the block's vectors with those of the block
    and the ``width - 1`` pieces before it (the float32 vectors of the model multiplied in float64,
    as Chroma's matrix is), so at most ``width + block`` vectors and :data:`BLOCK_CELLS`
    similarities are held at once.
    """
    vectors = np.asarray(vectors)
    n, width = len(vectors), max(1, width)
    block = max(1, min(256, BLOCK_CELLS // width))
    for start in range(0, n, block):
        end = min(n, start + block)
        low = max(0, start - width + 1)
        window = np.asarray(vectors[low:end], dtype=np.float64)
        gram = window @ window[start - low :].T  # gram[i, j] = vectors[low + i] · vectors[start + j]
        for b in range(start, end):
            first = max(0, b - width + 1)
            yield gram[first - low : b - low, b - start][::-1]


def rewards_ending_at(vectors: np.ndarray, mean: float, width: int) -> Iterator[np.ndarray]:
    """For each piece ``b`` in order, ``rewards[L - 1]``: the reward of the chunk of the ``L``
    pieces ending at ``b``, for ``1 <= L <= min(width, b + 1)``.

    The reward of pieces ``a..b`` is the sum of their square submatrix of ``similarity - mean``
    with a zero diagonal, i.e. ``2 · Σ_{a <= i < j <= b} (s_ij - mean)``; it grows from the chunk
    ``a..b-1`` by piece ``b``'s column: ``R(a, b) = R(a, b - 1) + 2 · Σ_{a <= i < b} (s_ib - mean)``.
    Only the previous piece's rewards and a block of columns (:func:`similarity_columns`) are held.
    """
    previous = np.zeros(0, dtype=np.float64)
    for column in similarity_columns(vectors, width):
        check_time()  # the app's time limit (a no-op without one)
        reach = len(column) + 1
        current = np.empty(reach, dtype=np.float64)
        current[0] = 0.0
        current[1:] = previous[: reach - 1] + 2.0 * (np.cumsum(column) - mean * np.arange(1, reach))
        yield current
        previous = current


def optimal_segmentation(rewards: Iterable[np.ndarray], longest: Sequence[int] | None = None) -> list[Segment]:
    """The chunks whose summed rewards are largest.

    ``rewards`` yields, piece by piece, the rewards of the chunks ending there by length
    (:func:`rewards_ending_at`); ``longest[b]`` (optional) is how many pieces a chunk ending at
    piece ``b`` may hold (the size limits; at least 1). Chroma's recurrence:
    ``best[b] = max_L best[b - L] + R(b - L + 1, b)``, sizes tried from 1 up and a larger size
    taken only when strictly better (so ties keep the smaller chunk); the chunks are read back
    from the last piece.
    """
    best = np.zeros(1024, dtype=np.float64)  # best[k]: the best total of pieces 0..k-1 (grown as needed)
    back: list[int] = [0]  # back[k]: the length of the last chunk of that best
    kept: list[float] = [0.0]  # kept[k]: that last chunk's reward
    for b, ending in enumerate(rewards):
        if b + 1 == len(best):
            best = np.concatenate([best, np.zeros(len(best))])
        limit = len(ending) if longest is None else min(len(ending), max(1, int(longest[b])))
        # best[b + 1 - L] + R(b - L + 1, b) for L = 1..limit; argmax keeps the first of equal totals (the smallest L)
        totals = best[b + 1 - limit : b + 1][::-1] + ending[:limit]
        length = int(np.argmax(totals)) + 1
        best[b + 1] = totals[length - 1]
        back.append(length)
        kept.append(float(ending[length - 1]))
    chunks = []
    k = len(back) - 1
    while k > 0:
        chunks.append(Segment(k - back[k], k - 1, kept[k]))
        k -= back[k]
    chunks.reverse()
    return chunks


def normalised_matrix(matrix: np.ndarray) -> np.ndarray:
    """Chroma's normalisation of a full similarity matrix: the mean of its strict upper triangle
    subtracted, the diagonal set to 0 (tests compare with it)."""
    matrix = np.array(matrix, dtype=np.float64)
    n = matrix.shape[0]
    if n >= 2:
        matrix -= matrix[np.triu_indices(n, k=1)].mean()
    np.fill_diagonal(matrix, 0.0)
    return matrix


__all__ = [
    "Segment",
    "normalised_matrix",
    "offdiagonal_mean",
    "optimal_segmentation",
    "rewards_ending_at",
    "similarity_columns",
]
