"""The public Python API: ``chunk`` a text or a Document with a named strategy, list ``strategies``."""

from __future__ import annotations

from typing import Any

from chunkviz import strategies as _strategies  # noqa: F401 - registers the built-in strategies
from chunkviz.core.types import Chunk
from chunkviz.document.model import Document, as_document, is_blank
from chunkviz.strategies.base import get_strategy, registered
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER, Tokenizer, get_tokenizer


def chunk(
    text: str | Document,
    strategy: str = "recursive",
    *,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    format: str | None = None,
    language: str | None = None,
    **params: Any,
) -> list[Chunk]:
    """Chunk ``text`` (a string or a :class:`~chunkviz.document.Document`) with a registered
    strategy; every chunk's text is ``text[start:end]``.

    ``params`` are the strategy's parameters (see :func:`strategies`); ``tokenizer`` is a name
    (``cl100k_base``, ``o200k_base``, ``minilm``, ``words``, ``chars``) or a Tokenizer;
    ``format`` (``markdown``, ``rst``, ``text``, ``python`` ...) says how to read the structure
    of a string (default: sniffed); ``language`` (an ISO 639-1 code such as ``"de"`` or ``"ja"``)
    chooses the sentence segmenter (default: detected from the text). Empty or whitespace-only
    text gives no chunks.
    """
    spec = get_strategy(strategy)
    validated = spec.make_params(params)
    document = as_document(text, format, language)
    if is_blank(document.text):
        return []
    return spec.function(document, validated, get_tokenizer(tokenizer))


def strategies() -> list[dict[str, Any]]:
    """Descriptions of the registered strategies: name, description, params with ranges."""
    return [s.describe() for s in registered()]
