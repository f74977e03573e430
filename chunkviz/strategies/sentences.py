"""Sentences packed up to a token limit, with whole-sentence overlap (seed 000 §13.3)."""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.segment import cached_sentence_starts, get_segmenter
from chunkviz.spancount import shared_counter
from chunkviz.strategies.base import param, register
from chunkviz.strategies.packing import pack_units, spans_to_chunks, unit_cuts
from chunkviz.tokenizers import Tokenizer
from chunkviz.types import Chunk, Reason


@dataclass(frozen=True)
class SentencesParams:
    max_tokens: int = param(400, "maximum tokens per chunk", minimum=1, maximum=100_000)
    overlap_sentences: int = param(1, "trailing sentences repeated at the start of the next chunk", minimum=0, maximum=100)


@register(
    "sentences",
    "spaCy sentences packed up to max_tokens, repeating overlap_sentences sentences; longer sentences are split and flagged.",
    SentencesParams,
)
def sentences(text: str, params: SentencesParams, tokenizer: Tokenizer) -> list[Chunk]:
    counter = shared_counter(text, tokenizer)
    cuts = unit_cuts(text, list(cached_sentence_starts(text)), counter)
    spans = pack_units(
        text, cuts, counter, params.max_tokens, params.overlap_sentences, str(Reason.SENTENCE_END), ["\n", " ", ""]
    )
    chunks = spans_to_chunks(text, spans, counter, "split_sentence")
    segmenter = get_segmenter().name
    return [
        Chunk.from_span(text, c.index, c.start, c.end, c.reason, metadata={**c.metadata, "segmenter": segmenter})
        for c in chunks
    ]
