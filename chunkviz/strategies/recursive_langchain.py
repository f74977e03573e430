"""LangChain's RecursiveCharacterTextSplitter algorithm, placed exactly.

The chunks are the strings ``RecursiveCharacterTextSplitter(chunk_size, chunk_overlap,
separators, keep_separator, length_function)`` returns, as spans of the document
(:mod:`chunkviz.splitting.langchain`). Unlike ``recursive``, the separators are literal strings
("\\n\\n" is two line feeds, not the document's paragraph break), every split is measured on its
own and the lengths are summed (LangChain's ``length_function`` per piece), whitespace at both
ends of a chunk is stripped, and overlap is whole trailing splits of the previous chunk.

LangChain keeps every chunk's own measure within ``chunk_size``, yet the chunk's text measured
whole can be over it (" Agreement" is one cl100k token, "Agreement" stripped at a chunk's start
two): such a chunk is kept as LangChain makes it and flagged ``over_size_limit``, with a note.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, cast

from chunkviz.core.errors import InvalidParamError
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.model import Document, is_blank
from chunkviz.splitting import PRESETS, Piece, resolve_separators, to_chunks
from chunkviz.splitting.langchain import KEEP_SEPARATOR, KeepSeparator, LangChainChunk, LangChainSplitter
from chunkviz.strategies.base import param, register
from chunkviz.text.spancount import shared_counter
from chunkviz.text.tokenizers import LengthFunction, Tokenizer

NAME = "recursive_langchain"
#: Metadata key of LangChain's own measure of a chunk (per-piece lengths summed), which is not
#: the token count of the chunk's text.
LANGCHAIN_LENGTH = "langchain_length"


@dataclass(frozen=True)
class RecursiveLangChainParams:
    chunk_size: int = param(
        128,
        "maximum LangChain length per chunk: the splits' token counts, each measured alone, summed",
        minimum=1,
        maximum=100_000,
        unit="tokens",
        size_target=True,
    )
    overlap: int = param(
        16,
        "LangChain's chunk_overlap: whole trailing splits of the previous chunk, up to this length",
        minimum=0,
        maximum=100_000,
        overlap_unit="tokens",
    )
    separators: str | list[str] = param(
        "default",
        "literal separators, tried in order: a preset (default, markdown, python, guide, chroma) or a list of strings",
        presets=PRESETS,
        tunable=True,
    )
    keep_separator: str = param(
        "start",
        "where a split keeps its separator: at its start (LangChain's True) or its end",
        choices=KEEP_SEPARATOR,
        tunable=True,
    )
    count_special_tokens: bool = param(
        False,
        "add the tokenizer's special tokens (MiniLM: [CLS] and [SEP]) to every measured piece",
    )

    def __post_init__(self) -> None:
        if self.overlap > self.chunk_size:
            raise InvalidParamError(
                NAME, "overlap", f"must be at most chunk_size ({self.chunk_size}), got {self.overlap}"
            )
        resolve_separators(self.separators, NAME)


def length_function(tokenizer: Tokenizer, count_special_tokens: bool) -> LengthFunction:
    """What LangChain would be given: the tokenizer's count of a piece, plus its special tokens."""
    specials = tokenizer.special_tokens if count_special_tokens else 0
    count = tokenizer.count
    return lambda piece: count(piece) + specials


@register(
    NAME,
    "LangChain's RecursiveCharacterTextSplitter algorithm, placed exactly: literal separators, "
    "per-piece lengths summed, chunks stripped, overlap of whole splits.",
    RecursiveLangChainParams,
)
def recursive_langchain(document: Document, params: RecursiveLangChainParams, tokenizer: Tokenizer) -> list[Chunk]:
    text = document.text
    if is_blank(text):
        return []
    separators = resolve_separators(params.separators, NAME)
    splitter = LangChainSplitter(
        text,
        separators,
        params.chunk_size,
        params.overlap,
        length_function(tokenizer, params.count_special_tokens),
        cast(KeepSeparator, params.keep_separator),  # one of KEEP_SEPARATOR: the params validate it
    )
    content_end = len(text.rstrip())
    counter = shared_counter(text, tokenizer)
    specials = tokenizer.special_tokens if params.count_special_tokens else 0

    def tokens(start: int, end: int) -> int:
        return counter.count(start, end) + specials

    return to_chunks(
        document,
        [_piece(c, separators, params.chunk_size, content_end, len(text), tokens) for c in splitter.split()],
    )


def _piece(
    chunk: LangChainChunk,
    separators: list[str],
    chunk_size: int,
    content_end: int,
    n: int,
    tokens: Callable[[int, int], int],
) -> Piece:
    """A chunk as a piece: cut at a separator (size limit) or where the text's content ends
    (``to_chunks`` makes a chunk that reaches the very end ``end_of_document``). ``tokens(start,
    end)``: the chunk's text measured whole, as LangChain's length function would measure it."""
    metadata: dict[str, object] = {LANGCHAIN_LENGTH: chunk.length}
    notes = []
    if chunk.end < content_end and chunk.cut_level is not None:
        reason, separator = Reason.SIZE_LIMIT, separators[chunk.cut_level]
    else:  # only whitespace follows, which LangChain strips from every chunk
        reason, separator = Reason.UNIT_END, None
    if reason == Reason.UNIT_END and chunk.end < n:
        notes.append("the text ends here: only whitespace follows (LangChain strips every chunk)")
    over = chunk.indivisible and chunk.length > chunk_size
    if not over:
        whole = tokens(chunk.start, chunk.end)
        if whole > chunk_size:  # LangChain's own measure is within the size: its algorithm allows this
            metadata[Meta.OVER_SIZE_LIMIT] = True
            notes.append(
                f"{whole} tokens, over chunk_size {chunk_size}: LangChain measures each split alone and sums "
                f"them ({chunk.length}), and a split counts differently once stripped or joined"
            )
    if notes:
        metadata[Meta.NOTE] = "; ".join(notes)
    return Piece(chunk.start, chunk.end, reason, separator, over, metadata=metadata)


__all__ = ["LANGCHAIN_LENGTH", "RecursiveLangChainParams", "length_function", "recursive_langchain"]
