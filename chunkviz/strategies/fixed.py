"""Fixed-size windows of tokens or characters (seed 000 §13.2, guide strategy 1).

Chunk ``i`` covers units ``[i * step, i * step + chunk_size)`` with ``step = chunk_size - overlap``;
the last window may be shorter. Token windows become character spans through the tokenizer's
exact token offsets, never by decoding and searching. A token boundary inside a character (a
byte-level BPE token that splits an emoji) moves to the character's start; without overlap the
windows still tile the text (a window left empty by that move joins the one before). ``token_start``
and ``token_end`` are the window's tokens in the document's tokenization; ``token_count`` is the
count of the chunk's own text, and a chunk over ``chunk_size`` (a whole character whose tokens
straddled a cut) is flagged ``over_size_limit``.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.model import Document
from chunkviz.splitting import Piece, to_chunks
from chunkviz.splitting.windows import (
    document_tokens,
    overlapping_windows,
    window_starts,
    windows_metadata,
)
from chunkviz.strategies.base import check_overlap_below_size, param, register
from chunkviz.text.spancount import shared_counter
from chunkviz.text.tokenizers import Tokenizer


@dataclass(frozen=True)
class FixedTokensParams:
    chunk_size: int = param(128, "tokens per chunk", minimum=1, maximum=100_000, unit="tokens", size_target=True)
    overlap: int = param(16, "tokens shared by adjacent chunks", minimum=0, maximum=100_000, overlap_unit="tokens")

    def __post_init__(self) -> None:
        check_overlap_below_size("fixed_tokens", self.chunk_size, self.overlap, 16)


@dataclass(frozen=True)
class FixedCharsParams:
    chunk_size: int = param(512, "characters per chunk", minimum=1, maximum=10_000_000, unit="chars", size_target=True)
    overlap: int = param(
        64, "characters shared by adjacent chunks", minimum=0, maximum=10_000_000, overlap_unit="chars"
    )

    def __post_init__(self) -> None:
        check_overlap_below_size("fixed_chars", self.chunk_size, self.overlap, 64)


@register(
    "fixed_tokens",
    "Windows of chunk_size tokens, each starting chunk_size - overlap tokens after the previous one.",
    FixedTokensParams,
)
def fixed_tokens(document: Document, params: FixedTokensParams, tokenizer: Tokenizer) -> list[Chunk]:
    text = document.text
    counter = shared_counter(text, tokenizer)
    tokens = document_tokens(text, counter)
    if tokens.n == 0:  # text the tokenizer ignores entirely (e.g. only zero-width characters): keep it
        return to_chunks(
            document,
            [
                Piece(
                    0,
                    len(text),
                    Reason.END_OF_DOCUMENT,
                    metadata={"token_start": 0, "token_end": 0, Meta.TOKEN_COUNT: 0},
                )
            ],
        )
    windows = overlapping_windows(tokens, params.chunk_size, params.overlap)
    metadata = windows_metadata(windows, counter, params.chunk_size, token_range=True)
    pieces = [Piece.window(w.start, w.end, Reason.SIZE_LIMIT, m) for w, m in zip(windows, metadata)]
    return to_chunks(document, pieces)


@register(
    "fixed_chars",
    "Windows of chunk_size characters with overlap (shows why token-based sizes are more predictable).",
    FixedCharsParams,
)
def fixed_chars(document: Document, params: FixedCharsParams, tokenizer: Tokenizer) -> list[Chunk]:
    n = len(document.text)
    pieces = [
        Piece(start, min(start + params.chunk_size, n), Reason.SIZE_LIMIT)
        for start in window_starts(n, params.chunk_size, params.overlap)
    ]
    return to_chunks(document, pieces)
