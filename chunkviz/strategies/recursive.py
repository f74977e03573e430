"""Recursive separator splitting (seed 000 §13.4): a composition of the engine's splitter.

The text is split at the first separator of the hierarchy that occurs in it; pieces that fit
``chunk_size`` tokens are merged greedily, pieces that do not are split again with the next
separators (:class:`chunkviz.splitting.RecursiveSplitter`). Overlap is a word-aligned tail of
the previous chunk of at most ``overlap`` tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.core.types import Chunk
from chunkviz.document.model import Document
from chunkviz.splitting import PRESETS, RecursiveSplitter, resolve_separators, to_chunks
from chunkviz.strategies.base import check_overlap_below_size, param, register
from chunkviz.text.spancount import shared_counter
from chunkviz.text.tokenizers import Tokenizer


@dataclass(frozen=True)
class RecursiveParams:
    chunk_size: int = param(
        128, "maximum tokens per chunk", minimum=1, maximum=100_000, unit="tokens", size_target=True
    )
    overlap: int = param(
        16, "tokens repeated from the end of the previous chunk", minimum=0, maximum=100_000, overlap_unit="tokens"
    )
    separators: str | list[str] = param(
        "default",
        "separator hierarchy: a preset (default, markdown, python, guide, chroma) or a list of strings",
        presets=PRESETS,
        tunable=True,
    )

    def __post_init__(self) -> None:
        check_overlap_below_size("recursive", self.chunk_size, self.overlap, 16)
        resolve_separators(self.separators)


@register(
    "recursive",
    "Split at the first separator in a hierarchy (paragraph, line, word, character) and merge pieces up to chunk_size tokens.",
    RecursiveParams,
)
def recursive(document: Document, params: RecursiveParams, tokenizer: Tokenizer) -> list[Chunk]:
    text = document.text
    splitter = RecursiveSplitter(
        text,
        tokenizer,
        params.chunk_size,
        params.overlap,
        resolve_separators(params.separators),
        counter=shared_counter(text, tokenizer),
    )
    return to_chunks(document, splitter.split_span(0, len(text)))


__all__ = ["PRESETS", "RecursiveParams", "recursive"]
