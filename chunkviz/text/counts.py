"""Token counts of chunks, computed in one place for diagnostics, export, compare and the app.

A chunk has three counts:

- ``tokens``: the chosen tokenizer's tokens of its own span text (exact arithmetic on the
  document's one tokenization where the cuts allow it, see :mod:`chunkviz.text.spancount`);
- ``embedding_tokens``: what the embedding model reads, ``added_text + text``, plus its special
  tokens (None without an embedding tokenizer);
- ``added_tokens``: the chosen tokenizer's tokens of ``added_text + text`` (None when the
  strategy added nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from chunkviz.core.deadline import check_time
from chunkviz.core.types import Chunk
from chunkviz.text.spancount import shared_counter
from chunkviz.text.tokenizers import Tokenizer


@dataclass(frozen=True)
class ChunkTokens:
    """The token counts of one chunk (see the module docstring)."""

    tokens: int
    embedding_tokens: int | None = None
    added_tokens: int | None = None


class TokenCounter:
    """Counts spans and chunks of one text; ``text=None`` counts each chunk's own text."""

    def __init__(self, text: str | None, tokenizer: Tokenizer, embedding: Tokenizer | None = None) -> None:
        self.text = text
        self.tokenizer = tokenizer
        self.embedding = embedding
        self._spans = shared_counter(text, tokenizer) if text is not None else None
        self._embedding_spans = shared_counter(text, embedding) if text is not None and embedding is not None else None

    def span(self, start: int, end: int) -> int:
        """Tokens of ``text[start:end]``."""
        if self._spans is None:
            raise ValueError("span counts need the document text (TokenCounter(text, ...))")
        return self._spans.count(start, end) if end > start else 0

    def tokens(self, chunk: Chunk) -> int:
        if self._spans is None:
            return self.tokenizer.count(chunk.text)
        return self.span(chunk.start, chunk.end)

    def embedding_tokens(self, chunk: Chunk) -> int | None:
        if self.embedding is None:
            return None
        if chunk.added_text or self._embedding_spans is None:
            read = self.embedding.count(chunk.added_text + chunk.text)
        else:
            read = self._embedding_spans.count(chunk.start, chunk.end)
        return read + self.embedding.special_tokens

    def added_tokens(self, chunk: Chunk) -> int | None:
        return self.tokenizer.count(chunk.added_text + chunk.text) if chunk.added_text else None

    def of(self, chunk: Chunk) -> ChunkTokens:
        check_time()  # the app's time limit (a no-op without one)
        return ChunkTokens(self.tokens(chunk), self.embedding_tokens(chunk), self.added_tokens(chunk))

    def all(self, chunks: Sequence[Chunk]) -> list[ChunkTokens]:
        return [self.of(c) for c in chunks]


def chunk_token_counts(
    text: str | None, chunks: Sequence[Chunk], tokenizer: Tokenizer, embedding: Tokenizer | None = None
) -> list[ChunkTokens]:
    """The counts of every chunk of ``text`` (see :class:`TokenCounter`)."""
    return TokenCounter(text, tokenizer, embedding).all(chunks)


__all__ = ["ChunkTokens", "TokenCounter", "chunk_token_counts"]
