"""Sentences packed up to a token limit, with whole-sentence overlap (seed 000 §13.3)."""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Meta
from chunkviz.document.model import Document
from chunkviz.splitting import PackPolicy, pack_units, to_chunks, unit_cuts
from chunkviz.strategies.base import param, register
from chunkviz.text.spancount import shared_counter
from chunkviz.text.tokenizers import Tokenizer


@dataclass(frozen=True)
class SentencesParams:
    max_tokens: int = param(
        128, "maximum tokens per chunk", minimum=1, maximum=100_000, unit="tokens", size_target=True
    )
    overlap_sentences: int = param(
        1,
        "trailing sentences repeated at the start of the next chunk",
        minimum=0,
        maximum=100,
        overlap_unit="sentences",
    )


@register(
    "sentences",
    "spaCy sentences packed up to max_tokens, repeating overlap_sentences sentences; longer sentences are split and flagged.",
    SentencesParams,
)
def sentences(document: Document, params: SentencesParams, tokenizer: Tokenizer) -> list[Chunk]:
    text, structure = document.text, document.structure
    counter = shared_counter(text, tokenizer)
    cuts = unit_cuts(text, structure.sentence_starts, counter)
    pieces = pack_units(text, cuts, counter, PackPolicy(params.max_tokens, overlap_units=params.overlap_sentences))
    segmenter = structure.segmenter.name
    return to_chunks(document, [p.with_metadata(**{Meta.SEGMENTER: segmenter}) for p in pieces])
