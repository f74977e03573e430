"""Embedding models by name: loading (once), the encoders of queries and passages, sizes, the
encode counter.

A ``model`` is any name a provider of :mod:`chunkviz.semantic.providers` serves: ``minilm`` (the
default, offline), ``multilingual-e5-small`` (bundled, offline), ``openai:MODEL`` (an
OpenAI-compatible endpoint) or a local sentence-transformers folder. Every caller embeds through
:func:`load_model` (tests replace it) and says which role its texts have (a query, a passage, a
text compared with its like), so a model's conventions (e5's ``query: ``/``passage: ``) are
applied in one place, the provider.
"""

from __future__ import annotations

import functools
import threading
from typing import Callable, Sequence

import numpy as np

from chunkviz.core.types import Progress
from chunkviz.semantic.providers import DEFAULT_MODEL, cache_name, model_name, provider_for
from chunkviz.semantic.providers import canonical_model as _canonical_model
from chunkviz.semantic.providers.base import (
    SEMANTIC_EXTRA_MESSAGE,
    Embedder,
    InvalidModelName,
    ModelUnavailable,
    Role,
    SemanticExtraMissing,
    SizeTokenizer,
    UnknownModelError,
    require_semantic_extra,
)
from chunkviz.semantic.providers.sentence_transformers import DEFAULT_MODEL_LIMIT, EmbeddingModel, resolve_model

#: ``encode(texts, progress) -> unit vectors``: the model's encoder for one role.
Encoder = Callable[[Sequence[str], "Progress | None"], np.ndarray]
#: The ``model`` parameter's description (the semantic and cluster strategies, the CLI's --model).
MODEL_HELP = (
    "embedding model: minilm (the packaged all-MiniLM-L6-v2, default, offline), multilingual-e5-small "
    "(bundled, offline, ~100 languages), openai:MODEL (an OpenAI-compatible endpoint at "
    "CHUNKVIZ_EMBEDDING_BASE_URL), or a local sentence-transformers folder"
)
#: The model's batch size when embedding chunks (an evaluation, a query's search, summaries).
ENCODER_BATCH_SIZE = 16

_MODELS: dict[str, Embedder] = {}
_MODELS_LOCK = threading.Lock()
#: How many times a model was asked to embed (tests use it to prove threshold changes don't re-embed).
ENCODE_CALLS = {"count": 0}


def canonical_model(name: str) -> str:
    """``DEFAULT_MODEL`` for any alias of the default model, ``multilingual-e5-small`` for e5's,
    else the name itself (stripped): aliases share one loaded model and one cache entry."""
    return _canonical_model(name)


def is_loaded(name: str) -> bool:
    return cache_name(name) in _MODELS


def load_model(name: str = DEFAULT_MODEL) -> Embedder:
    """Load (once) the model ``name`` names (offline unless CHUNKVIZ_ALLOW_DOWNLOAD is set for
    a hub name; an endpoint's model is a client, each of its calls made when texts are embedded)."""
    provider, canonical = provider_for(name)
    key = provider.cache_name(canonical)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = provider.load(canonical)
        return _MODELS[key]


def require_model_extra(model: str) -> None:
    """Raise, naming the extra to install, when what embeds with ``model`` is not installed
    (MiniLM and folders: the semantic extra; multilingual-e5-small: the multilingual extra; an
    endpoint: the llm extra's openai package). Nothing is imported."""
    provider, canonical = provider_for(model)
    provider.require(canonical)


def default_encoder(model: str, role: Role = "passage") -> Encoder:
    """The encoder of ``model`` (the offline MiniLM by default) for texts of ``role``, loaded on first use."""

    def encode(texts: Sequence[str], progress: Progress | None) -> np.ndarray:
        # chunks of a few hundred tokens: batches of 16 embed ~15% faster than 64 on 2 CPU cores
        # (same vectors to 1e-7, same scores); see bench/bench_chroma.py
        return load_model(model).encode(texts, progress, batch_size=ENCODER_BATCH_SIZE, role=role)

    return encode


@functools.lru_cache(maxsize=8)
def _loaded_size_tokenizer(model: str) -> SizeTokenizer:
    return load_model(model).sizes()


def size_tokenizer(model: str) -> SizeTokenizer:
    """What measures ``model``'s input: its tokenizer, the tokens it adds to a passage, its limit
    (the default model's and an endpoint's need no model load)."""
    provider, canonical = provider_for(model)
    sizes = provider.sizes(canonical)
    return sizes if sizes is not None else _loaded_size_tokenizer(canonical)


__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_MODEL_LIMIT",
    "ENCODER_BATCH_SIZE",
    "ENCODE_CALLS",
    "MODEL_HELP",
    "SEMANTIC_EXTRA_MESSAGE",
    "Embedder",
    "EmbeddingModel",
    "Encoder",
    "InvalidModelName",
    "ModelUnavailable",
    "SemanticExtraMissing",
    "SizeTokenizer",
    "UnknownModelError",
    "canonical_model",
    "default_encoder",
    "is_loaded",
    "load_model",
    "model_name",
    "require_model_extra",
    "require_semantic_extra",
    "resolve_model",
    "size_tokenizer",
]
