"""Give the peers our tokenizers and our offline embedding model, in the shapes they accept.

- :class:`PieceCodec`: any chunkviz tokenizer as ``encode``/``decode`` (token ids are indexes
  into a vocabulary of the exact pieces between our token boundaries), for the peers whose token
  splitters need encode/decode and for which no native tokenizer object exists (``words``,
  ``chars``, ``minilm``). A tiktoken tokenizer is given to the peers as its own
  ``tiktoken.Encoding`` instead, as their users would.
- :func:`langchain_embeddings` and :func:`chonkie_embeddings`: the offline MiniLM
  (:func:`chunkviz.semantic.embeddings.load_model`) behind LangChain's ``Embeddings`` interface
  and Chonkie's ``SentenceTransformerEmbeddings``. Nothing is ever downloaded.

The peers' packages are imported inside the functions: they are optional and slow to import.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from chunkviz.text.tokenizers import TiktokenTokenizer, Tokenizer


class PieceCodec:
    """``encode``/``decode`` over a chunkviz tokenizer's token boundaries (lossless: the pieces
    between consecutive boundaries concatenate to the text)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self.vocabulary: list[str] = []
        self._ids: dict[str, int] = {}

    def pieces(self, text: str) -> list[str]:
        positions = self.tokenizer.boundaries(text).positions.tolist()
        return [text[a:b] for a, b in itertools.pairwise(positions)]

    def encode(self, text: str) -> list[int]:
        ids = []
        for piece in self.pieces(text):
            if piece not in self._ids:
                self._ids[piece] = len(self.vocabulary)
                self.vocabulary.append(piece)
            ids.append(self._ids[piece])
        return ids

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(self.vocabulary[i] for i in ids)


def native_tiktoken(tokenizer: Tokenizer) -> Any | None:
    """The ``tiktoken.Encoding`` of a tiktoken tokenizer (None for the others)."""
    return tokenizer.encoding if isinstance(tokenizer, TiktokenTokenizer) else None


def chonkie_tokenizer(tokenizer: Tokenizer) -> Any:
    """What Chonkie is given: the tiktoken encoding, or a Chonkie ``Tokenizer`` over our pieces."""
    encoding = native_tiktoken(tokenizer)
    if encoding is not None:
        return encoding
    from chonkie.tokenizer import Tokenizer as ChonkieTokenizer

    codec = PieceCodec(tokenizer)

    class ChunkvizTokenizer(ChonkieTokenizer):
        """A chunkviz tokenizer for Chonkie (encode/decode/tokenize/count)."""

        def __repr__(self) -> str:
            return f"ChunkvizTokenizer({tokenizer.name})"

        def encode(self, text: str) -> Sequence[int]:
            return codec.encode(text)

        def decode(self, tokens: Sequence[int]) -> str:
            return codec.decode(tokens)

        def tokenize(self, text: str) -> Sequence[str | int]:
            return codec.pieces(text)

        def count_tokens(self, text: str) -> int:
            return tokenizer.count(text)

    return ChunkvizTokenizer()


def _cached_encoder(key: str, encode: Any) -> Any:
    """``encode(texts) -> vectors`` through chunkviz's embedding cache (per model and text, in
    memory and on disk, as the evaluation uses it): a peer's semantic column re-run after a
    parameter change embeds nothing again, as ours does. ``key`` names the vectors' kind."""
    from chunkviz.semantic.embedcache import embed_texts

    def cached(texts: list[str]) -> np.ndarray:
        return embed_texts(
            list(texts), key, lambda missing, _progress: np.asarray(encode(list(missing)), dtype=np.float32)
        )

    return cached


def langchain_embeddings(model_name: str | None = None) -> Any:
    """The offline embedding model as a LangChain ``Embeddings`` (``embed_documents``/``embed_query``),
    its vectors cached per text like the rest of chunkviz's."""
    from langchain_core.embeddings import Embeddings

    from chunkviz.semantic.embeddings import DEFAULT_MODEL, canonical_model, load_model

    name = canonical_model(model_name or DEFAULT_MODEL)
    model = load_model(name)
    encode = _cached_encoder(name, model.encode)  # the same unit vectors as the evaluation's

    class ChunkvizEmbeddings(Embeddings):
        """chunkviz's offline sentence-transformers model for LangChain."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return encode(texts).tolist() if texts else []

        def embed_query(self, text: str) -> list[float]:
            return encode([text])[0].tolist()

    return ChunkvizEmbeddings()


def chonkie_embeddings(model_name: str | None = None) -> Any:
    """The offline embedding model as Chonkie's ``SentenceTransformerEmbeddings`` (given the loaded
    model object, so Chonkie loads nothing by name); its ``embed_batch`` vectors (Chonkie's own:
    not normalized) are cached per text under their own key."""
    from chonkie.embeddings import SentenceTransformerEmbeddings

    from chunkviz.semantic.embeddings import (
        DEFAULT_MODEL,
        EmbeddingModel,
        ModelUnavailable,
        canonical_model,
        load_model,
    )

    name = canonical_model(model_name or DEFAULT_MODEL)

    class CachedSentenceTransformerEmbeddings(SentenceTransformerEmbeddings):
        """Chonkie's embeddings of the offline model, each text embedded once."""

        def __init__(self, model: Any) -> None:
            super().__init__(model)
            self._cached_batch = _cached_encoder(f"{name}#chonkie", super().embed_batch)

        def embed_batch(self, texts: list[str]) -> Any:
            return self._cached_batch(texts) if texts else super().embed_batch(texts)

    loaded = load_model(name)
    if not isinstance(loaded, EmbeddingModel):
        raise ModelUnavailable(f"Chonkie's embeddings need a sentence-transformers model; {name!r} is not one")
    return CachedSentenceTransformerEmbeddings(loaded.model)


__all__ = ["PieceCodec", "chonkie_embeddings", "chonkie_tokenizer", "langchain_embeddings", "native_tiktoken"]
