"""The numbers behind the ``cluster`` strategy (Chroma's ClusterSemanticChunker), in linear memory.

Chroma builds the full ``n × n`` similarity matrix of the pieces, subtracts the mean of its strict
upper triangle, zeroes the diagonal and scores a chunk of pieces ``a..b`` by the sum of its
square submatrix. A chunk holds at most ``max_pieces`` pieces, so only similarities within
``max_pieces - 1`` of the diagonal are ever summed: :func:`band_similarities` keeps that band
(``n × max_pieces`` numbers), :func:`offdiagonal_mean` gets the mean of all off-diagonal
similarities from the sum of the unit vectors (``|Σv|² - Σ|v|²`` is twice the sum over pairs),
and :func:`segment_rewards` turns row prefix sums of the band into the reward of every allowed
chunk. :func:`optimal_segmentation` is the dynamic programme over them. Time and memory are
``O(n · max_pieces)`` (plus ``O(n · d)`` for the vectors): a 5 MB document never needs an ``n × n`` matrix.

Pure numpy; the strategy (chunkviz/strategies/cluster.py) makes the pieces and embeds them.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

NEG_INF = float("-inf")


def band_similarities(vectors: np.ndarray, max_pieces: int) -> np.ndarray:
    """``band[i, d] = vectors[i] · vectors[i + d]`` for ``0 <= d < max_pieces`` (0 past the end)."""
    vectors = np.asarray(vectors)  # float32 from the model: summed in float64, never copied as float64
    n = len(vectors)
    band = np.zeros((n, max(1, max_pieces)), dtype=np.float64)
    for d in range(min(max(1, max_pieces), n)):
        band[: n - d, d] = np.einsum("ij,ij->i", vectors[: n - d], vectors[d:], dtype=np.float64)
    return band


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


def row_prefix_sums(band: np.ndarray) -> np.ndarray:
    """``prefix[i, d] = band[i, 1] + ... + band[i, d]`` (``prefix[i, 0] = 0``): the similarity of
    piece ``i`` with the ``d`` pieces after it."""
    prefix = np.zeros_like(band)
    if band.shape[1] > 1:
        prefix[:, 1:] = np.cumsum(band[:, 1:], axis=1)
    return prefix


def segment_reward(prefix: np.ndarray, mean: float, a: int, b: int) -> float:
    """The reward of the chunk of pieces ``a..b`` (inclusive): the sum of its square submatrix of
    ``similarity - mean`` with a zero diagonal, i.e. ``2 · Σ_{a <= i < j <= b} (s_ij - mean)``."""
    length = b - a + 1
    inner = sum(float(prefix[i, b - i]) for i in range(a, b + 1))
    return 2.0 * (inner - mean * length * (length - 1) / 2)


def segment_rewards(prefix: np.ndarray, mean: float, max_pieces: int) -> np.ndarray:
    """``rewards[L - 1, b]``: the reward of the chunk of the ``L`` pieces ending at piece ``b``
    (``-inf`` where it would start before piece 0), for ``1 <= L <= max_pieces``; a chunk grows one
    piece to the left at a time: ``R(a, b) = R(a + 1, b) + 2 · (prefix[a, b - a] - mean · (b - a))``."""
    n = prefix.shape[0]
    rewards = np.full((max(1, max_pieces), n), NEG_INF, dtype=np.float64)
    rewards[0, :] = 0.0
    ends = np.arange(n)
    for length in range(2, max_pieces + 1):
        starts = ends - length + 1
        valid = starts >= 0
        if not valid.any():
            break
        gain = 2.0 * (prefix[starts[valid], length - 1] - mean * (length - 1))
        rewards[length - 1, valid] = rewards[length - 2, valid] + gain
    return rewards


def optimal_segmentation(rewards: np.ndarray, longest: Sequence[int] | None = None) -> list[tuple[int, int]]:
    """The chunks ``(first, last)`` (inclusive piece indices) whose summed rewards are largest.

    ``rewards`` is :func:`segment_rewards`'s table; ``longest[b]`` (optional) is how many pieces a
    chunk ending at piece ``b`` may hold (another size limit, e.g. tokens; at least 1). Chroma's
    recurrence: ``best[b] = max_L best[b - L] + R(b - L + 1, b)``, sizes tried from 1 up and a
    larger size taken only when strictly better (so ties keep the smaller chunk); the chunks are
    read back from the last piece.
    """
    max_pieces, n = rewards.shape
    if n == 0:
        return []
    best = np.zeros(n + 1, dtype=np.float64)  # best[k]: the best total of pieces 0..k-1
    back = np.zeros(n + 1, dtype=np.int64)  # back[k]: the length of the last chunk of that best
    for b in range(n):
        limit = min(max_pieces, b + 1, max(1, int(longest[b])) if longest is not None else max_pieces)
        top, choice = NEG_INF, 1
        for length in range(1, limit + 1):
            value = best[b + 1 - length] + rewards[length - 1, b]
            if value > top:
                top, choice = value, length
        best[b + 1], back[b + 1] = top, choice
    chunks = []
    k = n
    while k > 0:
        length = int(back[k])
        chunks.append((k - length, k - 1))
        k -= length
    chunks.reverse()
    return chunks


def normalised_matrix(matrix: np.ndarray) -> np.ndarray:
    """Chroma's normalisation of a full similarity matrix: the mean of its strict upper triangle
    subtracted, the diagonal set to 0 (the figure draws a window of it; tests compare with it)."""
    matrix = np.array(matrix, dtype=np.float64)
    n = matrix.shape[0]
    if n >= 2:
        matrix -= matrix[np.triu_indices(n, k=1)].mean()
    np.fill_diagonal(matrix, 0.0)
    return matrix


__all__ = [
    "band_similarities",
    "normalised_matrix",
    "offdiagonal_mean",
    "optimal_segmentation",
    "row_prefix_sums",
    "segment_reward",
    "segment_rewards",
]
