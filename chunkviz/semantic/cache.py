"""Sentence similarities of a document, computed once and cached in memory and on disk.

The expensive, threshold-independent part of semantic chunking — the document's sentences
(from its structure), their embeddings and the cosine similarity of each adjacent pair — is
computed once per (text, model, segmenter, buffer size). The cache key needs only the
segmenter's *name*, found without loading it, so a disk-cache hit in a fresh process imports
neither spaCy nor torch.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from chunkviz.core.cache import BoundedLRU, cache_folder
from chunkviz.core.types import Progress
from chunkviz.document.model import Document, as_document
from chunkviz.semantic import embeddings
from chunkviz.semantic.embeddings import (
    DEFAULT_MODEL,
    ENCODE_CALLS,
    canonical_model,
)
from chunkviz.semantic.providers import cache_name

_CACHE_VERSION = "1"
#: Documents' similarities kept in memory, least recently used forgotten first (the rest are read from disk again).
MEMORY_MAX_DOCUMENTS = 16


@dataclass(frozen=True)
class SentenceSimilarities:
    """The expensive, threshold-independent part of a semantic chunking."""

    sentences: tuple[tuple[int, int], ...]  # trimmed spans: first to last non-space character
    similarities: np.ndarray = field(compare=False)  # len(sentences) - 1 values
    model: str
    segmenter: str
    buffer_size: int
    embed_seconds: float = field(default=0.0, compare=False)  # the encode alone
    segment_seconds: float = field(default=0.0, compare=False)  # incl. loading the segmenter
    load_seconds: float = field(default=0.0, compare=False)  # loading the model (0 when loaded)


def cache_dir() -> Path | None:
    """Where similarities are cached on disk (``semantic/`` in :func:`chunkviz.core.cache.cache_root`)."""
    return cache_folder("semantic")


def _cache_key(text: str, model: str, segmenter: str, buffer_size: int) -> str:
    digest = hashlib.sha256()
    for part in (_CACHE_VERSION, cache_name(model), segmenter, str(buffer_size)):
        digest.update(part.encode() + b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


#: Similarities in memory by cache key.
MEMORY: BoundedLRU[str, SentenceSimilarities] = BoundedLRU(max_entries=MEMORY_MAX_DOCUMENTS)


def clear_memory_cache() -> None:
    MEMORY.clear()


def _load_disk(key: str, model: str, segmenter: str, buffer_size: int) -> SentenceSimilarities | None:
    folder = cache_dir()
    if folder is None:
        return None
    try:
        with np.load(folder / f"{key}.npz") as data:
            spans = tuple((int(a), int(b)) for a, b in data["sentences"])
            similarities = np.asarray(data["similarities"], dtype=np.float64).reshape(-1)
    except Exception:  # noqa: BLE001 - missing, truncated or foreign file: a cache miss, never an error
        return None
    if len(similarities) != max(0, len(spans) - 1):
        return None
    return SentenceSimilarities(spans, similarities, model, segmenter, buffer_size)


def _save_disk(key: str, value: SentenceSimilarities) -> None:
    """Write atomically (a temporary file, then a rename); uncompressed: it is small and a
    compressed write costs more time than the disk space it saves."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"{key}.{os.getpid()}.{threading.get_ident()}.tmp.npz"
        np.savez(
            tmp, sentences=np.asarray(value.sentences, dtype=np.int64).reshape(-1, 2), similarities=value.similarities
        )
        os.replace(tmp, folder / f"{key}.npz")
    except OSError:
        pass  # caching is an optimisation; never fail the chunking for it


def buffered_texts(text: str, sentences: Sequence[tuple[int, int]], buffer_size: int) -> list[str]:
    """What is embedded for each sentence: itself joined with ``buffer_size`` neighbours per side."""
    if buffer_size <= 0:
        return [text[a:b] for a, b in sentences]
    out = []
    for i in range(len(sentences)):
        lo, hi = max(0, i - buffer_size), min(len(sentences), i + buffer_size + 1)
        out.append(" ".join(text[a:b] for a, b in sentences[lo:hi]))
    return out


def adjacent_similarities(embeddings_: np.ndarray) -> np.ndarray:
    """Cosine similarity of each adjacent pair of unit vectors."""
    if len(embeddings_) < 2:
        return np.zeros(0, dtype=np.float64)
    return np.einsum("ij,ij->i", embeddings_[:-1], embeddings_[1:]).astype(np.float64)


def _cached(key: str, model: str, segmenter: str, buffer_size: int) -> SentenceSimilarities | None:
    hit = MEMORY.get(key)
    if hit is not None:
        return hit
    cached = _load_disk(key, model, segmenter, buffer_size)
    if cached is not None:
        MEMORY.put(key, cached)
    return cached


def sentence_similarities(
    document: Document | str, model: str = DEFAULT_MODEL, buffer_size: int = 0, progress: Progress | None = None
) -> SentenceSimilarities:
    """Sentences (``document.structure.trimmed_sentences``) and adjacent similarities, cached."""
    document = as_document(document)
    text = document.text
    model = canonical_model(model)
    # the segmenter's name only (it names the language): a cache hit loads no spaCy and no torch
    name = document.structure.expected_segmenter_name()
    key = _cache_key(text, model, name, buffer_size)
    found = _cached(key, model, name, buffer_size)
    if found is not None:
        _adopt_sentence_starts(document, found)
        return found
    structure = document.structure
    began = time.perf_counter()
    sentences = structure.trimmed_sentences
    segment_seconds = time.perf_counter() - began
    segmenter = structure.segmenter.name
    if segmenter != name:  # a pipeline package is present but failed to load: key by what ran
        key = _cache_key(text, model, segmenter, buffer_size)
    similarities, load_seconds, embed_seconds = _embed_similarities(text, sentences, model, buffer_size, progress)
    result = SentenceSimilarities(
        tuple(sentences), similarities, model, segmenter, buffer_size, embed_seconds, segment_seconds, load_seconds
    )
    MEMORY.put(key, result)
    _save_disk(key, result)
    return result


def _adopt_sentence_starts(document: Document, found: SentenceSimilarities) -> None:
    """Give the document's structure the cached sentence starts (the same segmenter made them,
    the key says so), so that the chunks' boundaries need no segmenter either: a cache hit
    loads neither spaCy nor torch.
    """
    document.structure.adopt_sentence_starts([start for start, _ in found.sentences], found.segmenter)


def _embed_similarities(
    text: str, sentences: Sequence[tuple[int, int]], model: str, buffer_size: int, progress: Progress | None
) -> tuple[np.ndarray, float, float]:
    """Adjacent similarities of the (buffered) sentences, the seconds loading the model took and
    the seconds the encode took."""
    if len(sentences) < 2:
        return np.zeros(0, dtype=np.float64), 0.0, 0.0
    began = time.perf_counter()
    embedder = embeddings.load_model(model)
    loaded = time.perf_counter()
    ENCODE_CALLS["count"] += 1
    vectors = embedder.encode(buffered_texts(text, sentences, buffer_size), progress, role="symmetric")
    return adjacent_similarities(vectors), loaded - began, time.perf_counter() - loaded
