"""How chunks are ranked for a question: the retrievers an evaluation can use.

- ``dense``: exact cosine similarity of embeddings (:mod:`chunkviz.evaluation.retrieval`);
- ``bm25``: Okapi BM25 over the chunks' indexed texts;
- ``hybrid``: both, fused.
"""

from __future__ import annotations

RETRIEVERS: tuple[str, ...] = ("dense", "bm25", "hybrid")


def check_retriever(retriever: str) -> str:
    """``retriever`` itself, or a ValueError naming the choices."""
    if retriever not in RETRIEVERS:
        raise ValueError(f"retriever must be one of {', '.join(RETRIEVERS)}, got {retriever!r}")
    return retriever
