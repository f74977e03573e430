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

from chunkviz.core.types import Chunk
from chunkviz.document.model import Document
from chunkviz.splitting import PackPolicy, pack_units, to_chunks, unit_cuts
from chunkviz.strategies.base import param, register
from chunkviz.text.spancount import shared_counter
from chunkviz.text.tokenizers import Tokenizer


@dataclass(frozen=True)
class ParagraphsParams:
    min_tokens: int = param(
        32,
        "paragraphs are merged until a chunk has at least this many tokens (flagged when it cannot)",
        minimum=0,
        maximum=100_000,
        unit="tokens",
    )
    max_tokens: int = param(
        128, "maximum tokens per chunk", minimum=1, maximum=100_000, unit="tokens", size_target=True
    )

    # min_tokens <= max_tokens: the registry checks every min_X / max_X pair


@register(
    "paragraphs",
    "Blank-line paragraphs as chunks; small ones merged until min_tokens, never over max_tokens; long ones split and flagged.",
    ParagraphsParams,
)
def paragraphs(document: Document, params: ParagraphsParams, tokenizer: Tokenizer) -> list[Chunk]:
    text = document.text
    counter = shared_counter(text, tokenizer)
    cuts = unit_cuts(text, document.structure.paragraph_starts or [0], counter)
    policy = PackPolicy(params.max_tokens, min_tokens=params.min_tokens, merge_small_tail=True)
    pieces = pack_units(text, cuts, counter, policy)
    return to_chunks(
        document,
        [
            p.with_metadata(below_min_tokens=True) if counter.count(p.start, p.end) < params.min_tokens else p
            for p in pieces
        ],
    )
