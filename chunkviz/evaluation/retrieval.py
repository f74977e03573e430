"""Exact top-k retrieval by cosine similarity (numpy), and what a chunking returns for a match.

:func:`top_k` ranks every chunk for every query (no approximate index: the numbers are exact and
reproducible). :func:`searchable` and :func:`returned` say what a chunking embeds and what a
retriever hands back: chunks without children are searched; a strategy declared with
``returns_parents`` (parent_child, small_to_big) returns the parent of each matched child, once,
in the rank of its best child (LangChain's parent-document retriever: k children, their distinct
parents); other strategies return the matched chunks themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from chunkviz.core.types import Chunk


@dataclass(frozen=True)
class Ranking:
    """For each query, chunk positions best first and their cosine similarities."""

    indices: np.ndarray  # (queries, k) int
    scores: np.ndarray  # (queries, k) float


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def top_k(queries: np.ndarray, chunks: np.ndarray, k: int) -> Ranking:
    """The ``k`` most similar chunks of each query (exact cosine; ties: the earlier chunk first)."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    q, c = normalize(np.atleast_2d(queries)), normalize(np.atleast_2d(chunks))
    if c.shape[0] == 0:
        return Ranking(np.zeros((q.shape[0], 0), dtype=np.int64), np.zeros((q.shape[0], 0), dtype=np.float32))
    similarity = q @ c.T
    k = min(k, c.shape[0])
    order = _best_first(similarity, k)
    return Ranking(order, np.take_along_axis(similarity, order, axis=1))


def _best_first(similarity: np.ndarray, k: int) -> np.ndarray:
    """Per row, the positions of the ``k`` largest values, best first; equal values keep their
    order (the earlier chunk first). Only the candidates at or above each row's k-th largest
    value are sorted, not the whole row."""
    if k >= similarity.shape[1]:
        return np.argsort(-similarity, axis=1, kind="stable")[:, :k]
    kth = -np.partition(-similarity, k - 1, axis=1)[:, k - 1]
    order = np.empty((similarity.shape[0], k), dtype=np.int64)
    for row, (values, threshold) in enumerate(zip(similarity, kth)):
        candidates = np.flatnonzero(values >= threshold)  # ascending positions: ties stay in order
        order[row] = candidates[np.argsort(-values[candidates], kind="stable")[:k]]
    return order


def searchable(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The chunks a retriever embeds and searches: those without children."""
    parents = {c.parent for c in chunks if c.parent is not None}
    return [c for c in chunks if c.index not in parents]


def returned(chunks: Sequence[Chunk], matched: Sequence[Chunk], returns_parents: bool) -> list[Chunk]:
    """What the retriever hands back for ``matched`` (searchable chunks, best first)."""
    if not returns_parents:
        return list(matched)
    by_index = {c.index: c for c in chunks}
    out: list[Chunk] = []
    seen: set[int] = set()
    for child in matched:
        unit = by_index.get(child.parent, child) if child.parent is not None else child
        if unit.index not in seen:
            seen.add(unit.index)
            out.append(unit)
    return out
