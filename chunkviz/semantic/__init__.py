"""Embedding-based semantic chunking (seed 000 §13.6): cut where adjacent sentences drift apart.

- :mod:`~chunkviz.semantic.embeddings`: the embedding model (offline default, loaded on demand;
  torch and sentence-transformers are the ``semantic`` extra), the encode counter;
- :mod:`~chunkviz.semantic.cache`: sentence similarities of a document, cached in memory and on
  disk, so moving a threshold costs only numpy work;
- :mod:`~chunkviz.semantic.thresholds`: threshold types and breakpoints (pure numpy);
- :mod:`~chunkviz.semantic.assembly`: chunks that never exceed ``max_tokens``, ``min_tokens``
  merges, the chunk count of every percentile;
- :mod:`~chunkviz.semantic.explanation`: :class:`SemanticExplanation`, what the app and the CLI show.
- :mod:`~chunkviz.semantic.cluster`: the ``cluster`` strategy's rewards and dynamic programme,
  piece by piece (linear memory).

Layer semantic: embedding models and their providers, sentence similarities, thresholds, assembly,
clustering, the semantic explanation and tuning data. May import: chunkviz.core, chunkviz.text,
chunkviz.document, chunkviz.drawing, chunkviz.splitting, chunkviz.llm (the layers below it).
"""

from chunkviz.semantic.assembly import final_chunk_counts
from chunkviz.semantic.cache import (
    SentenceSimilarities,
    adjacent_similarities,
    buffered_texts,
    cache_dir,
    clear_memory_cache,
    sentence_similarities,
)
from chunkviz.semantic.embeddings import (
    DEFAULT_MODEL,
    ENCODE_CALLS,
    SEMANTIC_EXTRA_MESSAGE,
    EmbeddingModel,
    ModelUnavailable,
    SemanticExtraMissing,
    canonical_model,
    load_model,
    require_semantic_extra,
    resolve_model,
)
from chunkviz.semantic.explanation import SemanticExplanation, semantic_chunking
from chunkviz.semantic.thresholds import (
    THRESHOLD_TYPES,
    Threshold,
    chunk_count_curve,
    compute_threshold,
)

__all__ = [
    "DEFAULT_MODEL",
    "ENCODE_CALLS",
    "SEMANTIC_EXTRA_MESSAGE",
    "THRESHOLD_TYPES",
    "EmbeddingModel",
    "ModelUnavailable",
    "SemanticExplanation",
    "SemanticExtraMissing",
    "SentenceSimilarities",
    "Threshold",
    "adjacent_similarities",
    "buffered_texts",
    "cache_dir",
    "canonical_model",
    "chunk_count_curve",
    "clear_memory_cache",
    "compute_threshold",
    "final_chunk_counts",
    "load_model",
    "require_semantic_extra",
    "resolve_model",
    "semantic_chunking",
    "sentence_similarities",
]
