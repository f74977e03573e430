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

from chunkviz.tokenizers import TiktokenTokenizer, Tokenizer


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


def langchain_embeddings(model_name: str | None = None) -> Any:
    """The offline embedding model as a LangChain ``Embeddings`` (``embed_documents``/``embed_query``)."""
    from langchain_core.embeddings import Embeddings

    from chunkviz.semantic.embeddings import DEFAULT_MODEL, load_model

    model = load_model(model_name or DEFAULT_MODEL)

    class ChunkvizEmbeddings(Embeddings):
        """chunkviz's offline sentence-transformers model for LangChain."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return model.encode(list(texts)).tolist() if texts else []

        def embed_query(self, text: str) -> list[float]:
            return model.encode([text])[0].tolist()

    return ChunkvizEmbeddings()


def chonkie_embeddings(model_name: str | None = None) -> Any:
    """The offline embedding model as Chonkie's ``SentenceTransformerEmbeddings`` (given the loaded
    model object, so Chonkie loads nothing by name)."""
    from chonkie.embeddings import SentenceTransformerEmbeddings

    from chunkviz.semantic.embeddings import DEFAULT_MODEL, load_model

    return SentenceTransformerEmbeddings(load_model(model_name or DEFAULT_MODEL).model)


__all__ = ["PieceCodec", "chonkie_embeddings", "chonkie_tokenizer", "langchain_embeddings", "native_tiktoken"]
