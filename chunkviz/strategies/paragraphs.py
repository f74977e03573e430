"""Blank-line paragraphs as chunks, merged up to min_tokens, never over max_tokens (guide strategy 2).

Paragraphs are the natural unit: a chunk is one paragraph, or consecutive paragraphs when the
first ones are small — paragraphs are added until the chunk has at least ``min_tokens`` tokens,
never past ``max_tokens``. A paragraph over ``max_tokens`` is split at lines and words and
flagged; a final chunk under ``min_tokens`` joins the previous one when both fit. Sizes are
real token counts, not the guide's word-count estimate. The guide's loop fills chunks up to
``max_tokens``; ``min_tokens == max_tokens`` gives that greedy packing.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.errors import InvalidParamError
from chunkviz.segment import PARAGRAPH_BREAK
from chunkviz.spancount import SpanCounter, shared_counter
from chunkviz.strategies.base import param, register
from chunkviz.strategies.packing import PackedSpan, pack_units, spans_to_chunks, unit_cuts
from chunkviz.tokenizers import Tokenizer
from chunkviz.types import Chunk, Reason



@dataclass(frozen=True)
class ParagraphsParams:
    min_tokens: int = param(
        100, "paragraphs are merged until a chunk has at least this many tokens (flagged when it cannot)", minimum=0, maximum=100_000
    )
    max_tokens: int = param(600, "maximum tokens per chunk", minimum=1, maximum=100_000)

    def __post_init__(self) -> None:
        if self.min_tokens > self.max_tokens:
            raise InvalidParamError(
                "paragraphs", "min_tokens", f"must be at most max_tokens ({self.max_tokens}), got {self.min_tokens}"
            )


def paragraph_starts(text: str) -> list[int]:
    """Offsets where paragraphs start (the first non-space after a blank line)."""
    starts = [0]
    for match in PARAGRAPH_BREAK.finditer(text):
        if match.end() < len(text):
            starts.append(match.end())
    return starts


def _merge_small_tail(spans: list[PackedSpan], counter: SpanCounter, min_tokens: int, max_tokens: int) -> list[PackedSpan]:
    if len(spans) < 2:
        return spans
    last, prev = spans[-1], spans[-2]
    if last.split_unit or prev.split_unit or counter.count(last.start, last.end) >= min_tokens:
        return spans
    if prev.end != last.start or counter.count(prev.start, last.end) > max_tokens:
        return spans
    merged = PackedSpan(prev.start, last.end, last.reason, prev.first_unit, last.last_unit)
    return [*spans[:-2], merged]


@register(
    "paragraphs",
    "Blank-line paragraphs as chunks; small ones merged until min_tokens, never over max_tokens; long ones split and flagged.",
    ParagraphsParams,
)
def paragraphs(text: str, params: ParagraphsParams, tokenizer: Tokenizer) -> list[Chunk]:
    counter = shared_counter(text, tokenizer)
    cuts = unit_cuts(text, paragraph_starts(text), counter)
    spans = pack_units(
        text, cuts, counter, params.max_tokens, 0, str(Reason.PARAGRAPH), ["\n", " ", ""], target_tokens=params.min_tokens
    )
    spans = _merge_small_tail(spans, counter, params.min_tokens, params.max_tokens)
    chunks = spans_to_chunks(text, spans, counter, "split_paragraph")
    result = []
    for c in chunks:
        metadata = dict(c.metadata)
        if counter.count(c.start, c.end) < params.min_tokens:
            metadata["below_min_tokens"] = True
        result.append(Chunk.from_span(text, c.index, c.start, c.end, c.reason, metadata=metadata))
    return result
